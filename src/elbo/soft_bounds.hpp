// Soft bounds on the variational parameters and the weight penalty (PyVBMC
// VariationalPosterior.get_bounds, _vp_bound_loss, _soft_bound_loss and the weight penalty of
// _neg_elcbo). The penalty is quadratic outside [lb, ub] with length (ub - lb) * tol_con.
#pragma once
#include <vector>

#include "elbo/vp_optim_settings.hpp"
#include "gp/gp.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

struct VpSoftBounds {
    std::vector<double> mu_lb, mu_ub;              // per coordinate: range of the training inputs
    std::vector<double> ln_scale_lb, ln_scale_ub;  // log(sigma_k lambda_kd): [log(range tol_length), log range]
    double eta_lb = -INFINITY, eta_ub = 0.0;       // raw weight parameters, eta_lb = log(tol_weight / 2)
    double tol_con = 0.01;
    double weight_threshold = 0.0;                 // max(1 / (4K), tol_weight)
    double weight_penalty = 0.0;
};

VpSoftBounds vp_soft_bounds(const GpData& data, int k, const VpOptimSettings& s);

// Loss at theta (packed layout of vp, whose w must match theta); adds its gradient to grad if
// grad != nullptr.
double vp_bound_loss(const VariationalPosterior& vp, const std::vector<double>& theta,
                     const VpSoftBounds& bounds, std::vector<double>* grad);

}  // namespace libvbmc
