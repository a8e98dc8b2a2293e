// Moving the run's state between two transformed spaces after input warping (PyVBMC
// whitening.warp_gp_and_vp). Only the linear stage changes between the two transforms (centring
// mu, delta, rotation R, scale); the coordinate-wise map x -> y is shared, so the change of
// coordinates is exactly affine:
//   y = L_from z_from + mu_from  and  z_to = L_to^{-1} (y - mu_to),  L = diag(delta) R diag(scale),
//   hence z_to = A z_from + b with A = L_to^{-1} L_from and b = L_to^{-1} (mu_from - mu_to),
// and log |det dz_to/dz_from| = log |det L_from| - log |det L_to| is a constant.
// PyVBMC estimates the warped means and scales with the unscented transform (unscent_warp); for an
// affine map its sigma points give the closed forms used here: means map exactly and a diagonal
// scale sigma becomes sigma_new_j = sqrt(sum_d A_jd^2 sigma_d^2), independent of the point.
#pragma once
#include <vector>

#include "linalg/matrix.hpp"
#include "transforms/parameter_transform.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

// z_to = a z_from + b. Throws Error(arg) unless the transforms have the same dimension and
// same_coordinate_map().
AffineMap warp_map(const ParameterTransform& from, const ParameterTransform& to);

// Rows of z_from (n x D, from's space) mapped to to's space, into z_to (resized; must not alias).
void warp_points(const ParameterTransform& from, const ParameterTransform& to, const Matrix& z_from,
                 Matrix& z_to);

// Constant to add to a log density in from's z space to obtain it in to's z space
// (-log |det dz_to/dz_from| = log |det dy/dz_to| - log |det dy/dz_from|): the shift of the GP
// training targets y_i and of the mean's maximum m0.
double warp_log_density_shift(const ParameterTransform& from, const ParameterTransform& to);

// GP hyperparameters (layout of gp/gp.hpp) for the surrogate in to's space (PyVBMC
// warp_gp_and_vp): length scales ell and mean scales omega warped as diagonal scales, xm mapped,
// m0 shifted by warp_log_density_shift, sf and sn unchanged. With the training inputs mapped by
// warp_points and targets shifted by warp_log_density_shift, the warped GP's predictive mean at
// mapped points equals the old one plus the shift exactly when A diag(ell^2) A^T and
// A diag(omega^2) A^T are diagonal (e.g. A a scaled permutation, or ell and omega isotropic in y
// space with a rotoscaling target); otherwise the ARD kernel and mean keep only the diagonal of
// the mapped quadratic forms.
std::vector<double> warp_gp_hyperparameters(const std::vector<double>& theta, const ParameterTransform& from,
                                            const ParameterTransform& to);

// The variational posterior in to's space (PyVBMC warp_gp_and_vp): component means mapped;
// sigma_k lambda_j replaced by sigma_k c_j, c_j = sqrt(sum_d A_jd^2 lambda_d^2), split as
// lambda_j = sqrt(D) c_j / |c| and sigma_k |c| / sqrt(D) (so sum lambda^2 = D); weights
// unchanged (PyVBMC's weight correction is the constant Jacobian, removed by normalisation).
// Each component keeps its exact mean and marginal variances; the density is exact,
// log q_to(z_to) = log q_from(z_from) + warp_log_density_shift, when A diag(lambda^2) A^T is diagonal.
VariationalPosterior warp_vp(const VariationalPosterior& vp, const ParameterTransform& from,
                             const ParameterTransform& to);

}  // namespace libvbmc
