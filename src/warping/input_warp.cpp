#include "warping/input_warp.hpp"

#include <cmath>

#include "gp/gp.hpp"
#include "linalg/linalg.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

// sqrt(sum_d A_jd^2 s_d^2) for every row j: a diagonal scale pushed through the map (closed form
// of PyVBMC unscent_warp's sigma-point standard deviation for an affine map).
std::vector<double> warp_diagonal_scale(const Matrix& a, const double* scale) {
    std::vector<double> result(static_cast<size_t>(a.rows));
    for (int j = 0; j < a.rows; ++j) {
        double sum = 0.0;
        for (int d = 0; d < a.cols; ++d) {
            const double term = a(j, d) * scale[d];
            sum += term * term;
        }
        result[static_cast<size_t>(j)] = std::sqrt(sum);
    }
    return result;
}

}  // namespace

// A = (L_to^{-1}) L_from, b = L_to^{-1} mu_from + b_to, composing y = L_from z + mu_from with
// z_to = L_to^{-1} y + b_to.
AffineMap warp_map(const ParameterTransform& from, const ParameterTransform& to) {
    if (from.dim() != to.dim() || !from.same_coordinate_map(to))
        throw_error(Code::arg, "input warping needs two transforms that differ only in their linear stage");
    const AffineMap forward = from.warped_from_unbounded();
    const AffineMap backward = to.unbounded_from_warped();
    AffineMap map;
    gemm(false, false, 1.0, backward.a, forward.a, 0.0, map.a);
    map.b = backward.b;
    gemv(false, 1.0, backward.a, forward.b.data(), 1.0, map.b.data());
    return map;
}

void warp_points(const ParameterTransform& from, const ParameterTransform& to, const Matrix& z_from,
                 Matrix& z_to) {
    const AffineMap map = warp_map(from, to);
    if (z_from.cols != map.a.cols) throw_error(Code::arg, "the points to warp have the wrong dimension");
    z_to = Matrix(z_from.rows, map.a.rows);
    for (int i = 0; i < z_to.rows; ++i) {
        double* row = z_to.row(i);
        for (int j = 0; j < z_to.cols; ++j) row[j] = map.b[static_cast<size_t>(j)];
    }
    if (z_from.rows > 0) gemm(false, true, 1.0, z_from, map.a, 1.0, z_to);
}

double warp_log_density_shift(const ParameterTransform& from, const ParameterTransform& to) {
    if (from.dim() != to.dim() || !from.same_coordinate_map(to))
        throw_error(Code::arg, "input warping needs two transforms that differ only in their linear stage");
    return to.log_abs_det_linear_stage() - from.log_abs_det_linear_stage();
}

// PyVBMC warp_gp_and_vp, GP part. The mean moves as its per-coordinate location and width (either
// mean shape of gp/mean_function.hpp: each coordinate enters through (x_d - xm_d) / omega_d).
std::vector<double> warp_gp_hyperparameters(const std::vector<double>& theta, const ParameterTransform& from,
                                            const ParameterTransform& to) {
    const int dim = from.dim();
    if (static_cast<int>(theta.size()) != hyp::count(dim))
        throw_error(Code::arg, "the GP hyperparameters to warp have the wrong length");
    const AffineMap map = warp_map(from, to);
    std::vector<double> ell(static_cast<size_t>(dim)), omega(static_cast<size_t>(dim)), xm(static_cast<size_t>(dim));
    for (int d = 0; d < dim; ++d) {
        ell[static_cast<size_t>(d)] = std::exp(theta[static_cast<size_t>(hyp::log_ell(d))]);
        omega[static_cast<size_t>(d)] = std::exp(theta[static_cast<size_t>(hyp::log_omega(dim, d))]);
        xm[static_cast<size_t>(d)] = theta[static_cast<size_t>(hyp::xm(dim, d))];
    }
    const std::vector<double> ell_new = warp_diagonal_scale(map.a, ell.data());
    const std::vector<double> omega_new = warp_diagonal_scale(map.a, omega.data());
    std::vector<double> xm_new = map.b;
    gemv(false, 1.0, map.a, xm.data(), 1.0, xm_new.data());
    std::vector<double> warped = theta;
    for (int d = 0; d < dim; ++d) {
        warped[static_cast<size_t>(hyp::log_ell(d))] = std::log(ell_new[static_cast<size_t>(d)]);
        warped[static_cast<size_t>(hyp::log_omega(dim, d))] = std::log(omega_new[static_cast<size_t>(d)]);
        warped[static_cast<size_t>(hyp::xm(dim, d))] = xm_new[static_cast<size_t>(d)];
    }
    warped[static_cast<size_t>(hyp::m0(dim))] += warp_log_density_shift(from, to);
    for (double v : warped)
        if (!std::isfinite(v)) throw_error(Code::numeric, "warping the GP hyperparameters produced a non-finite value");
    return warped;
}

// PyVBMC warp_gp_and_vp, variational-posterior part.
VariationalPosterior warp_vp(const VariationalPosterior& vp, const ParameterTransform& from,
                             const ParameterTransform& to) {
    if (vp.dim != from.dim()) throw_error(Code::arg, "the variational posterior and the transforms differ in dimension");
    const AffineMap map = warp_map(from, to);
    const int dim = vp.dim;
    VariationalPosterior warped = vp;
    for (int k = 0; k < vp.k; ++k) {
        double* mu_new = warped.mu.row(k);
        for (int j = 0; j < dim; ++j) mu_new[j] = map.b[static_cast<size_t>(j)];
        gemv(false, 1.0, map.a, vp.mu.row(k), 1.0, mu_new);
    }
    // Each lambda row mapped, renormalised to root mean square 1, its norm moved into sigma.
    for (int row = 0; row < vp.lambda_rows(); ++row) {
        const size_t at = static_cast<size_t>(row) * dim;
        const std::vector<double> lambda_image = warp_diagonal_scale(map.a, vp.lambda.data() + at);
        double squared_norm = 0.0;
        for (double c : lambda_image) squared_norm += c * c;
        const double norm_over_root_dim = std::sqrt(squared_norm / dim);
        if (!(norm_over_root_dim > 0.0) || !std::isfinite(norm_over_root_dim))
            throw_error(Code::numeric, "warping the variational posterior produced a degenerate scale");
        for (int j = 0; j < dim; ++j) warped.lambda[at + j] = lambda_image[static_cast<size_t>(j)] / norm_over_root_dim;
        if (vp.component_scales)
            warped.sigma[static_cast<size_t>(row)] = vp.sigma[static_cast<size_t>(row)] * norm_over_root_dim;
        else
            for (int k = 0; k < vp.k; ++k) warped.sigma[static_cast<size_t>(k)] = vp.sigma[static_cast<size_t>(k)] * norm_over_root_dim;
    }
    return warped;
}

}  // namespace libvbmc
