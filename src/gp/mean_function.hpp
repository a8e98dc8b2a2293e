// The GP's prior mean (paper eq. 7 and a heavy-tailed variant):
//   m(x) = m0 + sum_d rho(z_d),  z_d = (x_d - xm_d) / omega_d,
//   rho(z) = -z^2 / 2                        (mean_dof = 0: the negative quadratic of eq. 7)
//   rho(z) = -(nu / 2) log(1 + z^2 / nu)     (mean_dof = nu > 0).
// Both have the same top and the same curvature there; the second falls off logarithmically, so
// exp(m) has Student-t-like tails and the surrogate does not read far below a heavy-tailed
// target where it has few points (bench/RESULTS.md, "A heavy-tailed GP mean").
#pragma once
#include <cmath>

namespace libvbmc {

inline double mean_rho(double z, double dof) {
    return dof > 0.0 ? -0.5 * dof * std::log1p(z * z / dof) : -0.5 * z * z;
}

// rho'(z) / (-z): 1 for the quadratic, 1 / (1 + z^2 / nu) for the heavy-tailed mean.
inline double mean_rho_slope_factor(double z, double dof) { return dof > 0.0 ? 1.0 / (1.0 + z * z / dof) : 1.0; }

// E_{x ~ N(mu, s^2)} of one coordinate's term rho((x - xm) / omega) and its derivatives in mu and
// in s^2, given inv_omega2 = 1 / omega^2. Closed form for the quadratic (the arithmetic of
// eq. 9's mean part); Gauss-Hermite quadrature with a fixed rule for the heavy-tailed mean, so
// the derivatives are exactly those of the value.
struct GaussianMeanTerm {
    double value = 0.0, d_mu = 0.0, d_s2 = 0.0;
};
GaussianMeanTerm expected_mean_term(double mu, double s, double xm, double inv_omega2, double dof);

// m(x) for hyperparameters theta (gp/gp.hpp's layout).
double gp_mean(const double* x, const double* theta, int dim, double dof);
// gp_mean at m points stored row by row (x is m x dim), bitwise equal to m calls of gp_mean.
void gp_mean_rows(const double* x, int m, const double* theta, int dim, double dof, double* out);

}  // namespace libvbmc
