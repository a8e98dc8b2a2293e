// Negative ELBO objective of the variational optimisation with its gradient in the packed vp
// theta (paper eq. 4-5 with eq. 8-10; PyVBMC _neg_elcbo with beta = 0 during optimisation).
#pragma once
#include <vector>

#include "elbo/entropy.hpp"
#include "elbo/soft_bounds.hpp"
#include "gp/gp.hpp"
#include "util/rng.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

struct ElboTerms {
    double e_log_joint = 0.0;
    double e_log_joint_var = 0.0;  // filled when want_variance
    double entropy = 0.0;
    double penalty = 0.0;          // soft-bound and weight losses (0 without bounds)
    double neg_elbo() const { return -e_log_joint - entropy; }
};

// Sets vp to theta, then returns -E[log joint] - H + penalty. n_ent_per_component > 0 uses the
// Monte Carlo entropy (draws from rng, of the kind `draws`), 0 the deterministic bound. bounds may
// be null (plain ELBO).
// grad (if not null) receives the gradient (resized to theta.size()).
double neg_elcbo(const std::vector<double>& theta, VariationalPosterior& vp, const Gp& gp,
                 int n_ent_per_component, EntropyDraws draws, const VpSoftBounds* bounds, bool want_variance,
                 Rng& rng, std::vector<double>* grad, ElboTerms* terms);

}  // namespace libvbmc
