// Negative ELBO objective (PyVBMC _neg_elcbo): -G - H plus soft-bound and weight losses.
#include "elbo/neg_elcbo.hpp"

#include "elbo/entropy.hpp"
#include "elbo/expected_log_joint.hpp"

namespace libvbmc {

double neg_elcbo(const std::vector<double>& theta, VariationalPosterior& vp, const Gp& gp,
                 int n_ent_per_component, EntropyDraws draws, const VpSoftBounds* bounds, bool want_variance,
                 Rng& rng, std::vector<double>* grad, ElboTerms* terms) {
    vp.set_theta(theta);
    LogJointEstimate log_joint;
    expected_log_joint(vp, gp, grad != nullptr, want_variance, log_joint);
    std::vector<double> entropy_grad;
    std::vector<double>* entropy_grad_ptr = grad ? &entropy_grad : nullptr;
    const double entropy = n_ent_per_component > 0
                               ? entropy_mc(vp, n_ent_per_component, rng, entropy_grad_ptr, false, draws)
                               : entropy_lb(vp, entropy_grad_ptr);
    if (grad) {
        grad->resize(theta.size());
        for (size_t i = 0; i < theta.size(); ++i) (*grad)[i] = -log_joint.grad[i] - entropy_grad[i];
    }
    const double penalty = bounds ? vp_bound_loss(vp, theta, *bounds, grad) : 0.0;
    if (terms) {
        terms->e_log_joint = log_joint.value;
        terms->e_log_joint_var = log_joint.variance;
        terms->entropy = entropy;
        terms->penalty = penalty;
    }
    return -log_joint.value - entropy + penalty;
}

}  // namespace libvbmc
