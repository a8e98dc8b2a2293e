// Bayesian-quadrature integrals of Gaussian measures against the squared-exponential kernel
// k(x, x') = sf^2 exp(-1/2 sum_d (x_d - x'_d)^2 / ell_d^2) (Rasmussen & Ghahramani 2003, "Bayesian
// Monte Carlo"; VBMC paper eq. 9-10), for Gaussians with diagonal covariances diag(s2):
//   kernel mean    E_{x~N(mu, s2)}[k(x, x')] = sf^2 prod_d (ell_d / tau_d) exp(-1/2 sum_d (mu_d - x'_d)^2 / tau_d^2),
//                  tau_d^2 = s2_d + ell_d^2;
//   kernel pair    E_{x~N(mu_a, s2_a), x'~N(mu_b, s2_b)}[k(x, x')] = the same with tau_d^2 = s2_a,d + s2_b,d + ell_d^2
//                  and mu_a - mu_b in the exponent.
// A mixture's integrals are the weighted sums over its components. Shared by the ELBO's expected
// log joint, the ivr acquisition and the BBQ evidence estimate.
#pragma once
#include <vector>

namespace libvbmc {

// The kernel's hyperparameters in the form the integrals use.
struct SeKernel {
    std::vector<double> log_ell;  // log ell_d
    std::vector<double> ell;   // input length scales ell_d
    double log_sf2 = 0.0;      // log sf^2
    double sum_log_ell = 0.0;  // sum_d log ell_d
};

// From the log length scales (dim values) and log sf.
SeKernel se_kernel(const double* log_ell, double log_sf, int dim);

// Normalisation of the kernel mean of N(., diag(s2)): returns log(sf^2 prod_d ell_d / tau_d) and
// writes tau2[d] = s2[d] + ell_d^2.
double kernel_mean_log_norm(const SeKernel& kernel, const double* s2, int dim, double* tau2);

// The kernel mean at x' from its normalisation and inv_tau2[d] = 1 / tau_d^2:
// exp(log_norm - 1/2 sum_d (mu_d - x'_d)^2 inv_tau2[d]).
double kernel_mean_at(double log_norm, const double* inv_tau2, const double* mu, const double* x, int dim);

// The same kernel mean at m points stored coordinate-major (row d of points_by_dim holds
// coordinate d of every point, m per row), from inv_tau[d] = 1 / tau_d: out[j] for j < m.
// Vectorised: the SE kernel row of gp.hpp between mu and the points, both scaled by inv_tau
// (exp_fast, so the last bits can differ from kernel_mean_at's). scaled_mu and scaled are the
// caller's scratch, resized here, so a loop over components allocates once.
void kernel_mean_row(double log_norm, const double* inv_tau, const double* mu, const double* points_by_dim, int m,
                     int dim, std::vector<double>& scaled_mu, std::vector<double>& scaled, double* out);

// The kernel pair integral of N(mu_a, diag(s2_a)) and N(mu_b, diag(s2_b)).
double kernel_pair_mean(const SeKernel& kernel, const double* mu_a, const double* s2_a, const double* mu_b,
                        const double* s2_b, int dim);

// The same two integrals with a log weight inside the exponent, the normaliser accumulated as
// log_weight + log sf^2 + sum_d 1/2 log(ell_d^2 / tau_d^2) (ell_d^2 = exp(2 log ell_d)): the
// rounding the ivr acquisition has always used, kept so that its runs repeat bit for bit.
// kernel_mean_log_norm_ratio writes tau2 like kernel_mean_log_norm.
double kernel_mean_log_norm_ratio(const SeKernel& kernel, double log_weight, const double* s2, int dim, double* tau2);
double kernel_pair_mean_ratio(const SeKernel& kernel, double log_weight, const double* mu_a, const double* s2_a,
                              const double* mu_b, const double* s2_b, int dim);

}  // namespace libvbmc
