// The zero-mean GPs of BBQ (Osborne et al. 2012, sections 3-4): squared-exponential kernel,
// Gaussian noise, prior mean zero, hyperparameters (log ell_d, log sf, log sn) fitted by type-II
// maximum likelihood, and the Laplace approximation of the log input scales' posterior (section 4:
// flat prior, diagonal covariance from the second derivatives of the log marginal likelihood).
// The GP is held in the surrogate's 3D+3 layout (gp/gp.hpp) with the mean's curvature at zero
// (m0 = 0, omega_d = e^400), so gp_posterior, gp_cross_kernel and the marginal likelihood apply.
#pragma once
#include <vector>

#include "bq/kernel_integrals.hpp"
#include "gp/gp.hpp"

namespace libvbmc {

struct ZeroMeanGp {
    GpData data;
    GpSample sample;                 // factor and alpha = (K + N)^{-1} y
    SeKernel kernel;
    std::vector<double> log_ell_var; // Laplace variance of each log ell_d (0 where the curvature is not negative)
};

// A hyperparameter vector in the 3D+3 layout with zero mean.
std::vector<double> zero_mean_theta(const std::vector<double>& log_ell, double log_sf, double log_sn);

// ML-II fit on data (x n x D, y, s2), the best of a few deterministic starts (length scales a
// fixed fraction of each input's range); with laplace, also log_ell_var.
ZeroMeanGp fit_zero_mean_gp(GpData data, bool laplace);

// The GP with fixed hyperparameters (theta from zero_mean_theta).
ZeroMeanGp zero_mean_gp(GpData data, const std::vector<double>& theta);

// Posterior mean at the rows of xs (out: xs.rows values).
void zero_mean_gp_predict(const ZeroMeanGp& gp, const Matrix& xs, double* out);

}  // namespace libvbmc
