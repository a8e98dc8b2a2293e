// Expected log joint E_q[f] under the GP surrogate by Bayesian quadrature (paper eq. 8-10):
// closed form for the squared-exponential kernel and the negative-quadratic mean, averaged over
// the GP hyperparameter samples. PyVBMC: variational_optimization._gp_log_joint.
#pragma once
#include <vector>

#include "gp/gp.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

struct LogJointEstimate {
    double value = 0.0;         // E_q[f], mean over hyperparameter samples
    double variance = 0.0;      // posterior variance of E_q[f] (mean over samples + spread of means)
    double var_ss = 0.0;        // variability due to hyperparameter sampling ("var_ss" in PyVBMC)
    std::vector<double> grad;   // d value / d theta (vp packed layout), when requested
};

// want_grad: fill grad (resized to vp.theta_size()). want_variance: fill variance and var_ss.
void expected_log_joint(const VariationalPosterior& vp, const Gp& gp, bool want_grad,
                        bool want_variance, LogJointEstimate& out);

}  // namespace libvbmc
