// Input warping of the run's state (PyVBMC warp_gp_and_vp): the affine change of coordinates
// against the transforms themselves, the constant log-density shift, the warped variational
// posterior (whitening, exact density when the mapped covariances stay diagonal, exact
// per-component means and marginal variances otherwise) and the warped GP hyperparameters
// (same predictive mean up to the shift when the mapped kernel stays diagonal).
#include <cmath>
#include <vector>

#include "test_util.h"
#include "gp/gp.hpp"
#include "vp/vp.hpp"
#include "warp_test_helpers.hpp"
#include "warping/input_warp.hpp"

using namespace libvbmc;
using namespace warp_test;

namespace {

// Pairs (from, to) that differ only in their linear stage: unwarped -> rotoscaled, and a second
// rotoscaling of an already rotoscaled transform, for bounded and unbounded coordinates.
std::vector<std::pair<ParameterTransform, ParameterTransform>> transform_pairs() {
    std::vector<std::pair<ParameterTransform, ParameterTransform>> pairs;
    Rng rng(31);
    for (const ParameterTransform& base : {mixed(ParameterTransform::Bounded::probit),
                                           mixed(ParameterTransform::Bounded::logit), unbounded()}) {
        const ParameterTransform once = base.rotoscaled(correlated_covariance(kDim, rng), 0.05, 0.0);
        const ParameterTransform twice = once.rotoscaled(correlated_covariance(kDim, rng), 0.05, 0.0);
        pairs.emplace_back(base, once);
        pairs.emplace_back(once, twice);
    }
    return pairs;
}

// lambda_d = 1 / |column d of dy/dz|: each component is isotropic in y space, so every mapped
// component covariance A diag(lambda^2) A^T is diagonal when `to` is a rotoscaling (the columns
// of dy/dz are orthogonal for both unwarped and rotoscaled transforms).
std::vector<double> lambda_isotropic_in_y(const ParameterTransform& from) {
    const Matrix l = from.warped_from_unbounded().a;
    std::vector<double> lambda(kDim);
    for (int d = 0; d < kDim; ++d) {
        double norm2 = 0.0;
        for (int i = 0; i < kDim; ++i) norm2 += l(i, d) * l(i, d);
        lambda[d] = 1.0 / std::sqrt(norm2);
    }
    return lambda;
}

// A "cigar": components strung along a direction in y, small isotropic spread in y.
VariationalPosterior cigar_vp(const ParameterTransform& from, Rng& rng) {
    VariationalPosterior vp;
    vp.dim = kDim;
    vp.k = 5;
    vp.w = {0.1, 0.2, 0.3, 0.25, 0.15};
    vp.sigma = {0.05, 0.08, 0.06, 0.1, 0.07};
    vp.lambda = lambda_isotropic_in_y(from);
    vp.optimize_weights = true;
    const AffineMap to_z = from.unbounded_from_warped();
    const double direction[kDim] = {0.6, -0.5, 0.4, 0.3};
    vp.mu = Matrix(vp.k, kDim);
    for (int k = 0; k < vp.k; ++k) {
        const double t = -1.0 + 0.5 * k + 0.05 * rng.normal();
        for (int j = 0; j < kDim; ++j) {
            double value = to_z.b[j];
            for (int i = 0; i < kDim; ++i) value += to_z.a(j, i) * t * direction[i];
            vp.mu(k, j) = value;
        }
    }
    return vp;
}

std::vector<double> apply(const AffineMap& map, const std::vector<double>& z) {
    std::vector<double> out = map.b;
    for (int j = 0; j < map.a.rows; ++j)
        for (int d = 0; d < map.a.cols; ++d) out[j] += map.a(j, d) * z[d];
    return out;
}

}  // namespace

static void test_warp_map_matches_the_transforms(void**) {
    for (const auto& [from, to] : transform_pairs()) {
        const AffineMap map = warp_map(from, to);
        Rng rng(4);
        Matrix points(20, kDim);
        for (double& v : points.data) v = 0.5 * rng.normal();
        Matrix warped;
        warp_points(from, to, points, warped);
        const double shift = warp_log_density_shift(from, to);
        // The constant shift is -log |det A|.
        assert_close(shift, -log_abs_det(map.a), 1e-10);
        for (int n = 0; n < points.rows; ++n) {
            std::vector<double> z(points.row(n), points.row(n) + kDim), x(kDim), z_to(kDim);
            from.to_original(z.data(), x.data());
            to.to_unbounded(x.data(), z_to.data());
            const std::vector<double> mapped = apply(map, z);
            for (int j = 0; j < kDim; ++j) {
                assert_close(mapped[j], z_to[j], 1e-9 * (1.0 + std::fabs(z_to[j])));
                assert_close(warped(n, j), mapped[j], 1e-12 * (1.0 + std::fabs(mapped[j])));
            }
            // Log densities in z: log p_z = log p_x + log|dx/dz|, so the change is the Jacobian difference.
            assert_close(to.log_abs_det_jacobian(z_to.data()) - from.log_abs_det_jacobian(z.data()), shift, 1e-9);
        }
    }
}

static void test_whitening_a_cigar_gives_unit_covariance(void**) {
    Rng rng(8);
    for (const ParameterTransform& base : {mixed(), unbounded()}) {
        const VariationalPosterior vp = cigar_vp(base, rng);
        std::vector<double> mean;
        Matrix cov;
        vp_moments(vp, mean, cov);
        // PyVBMC defaults: warp_roto_corr_thresh = 0.05 (no entry of this cigar is that weakly
        // correlated), warp_cov_reg = 0.
        const ParameterTransform whitened = base.rotoscaled(cov, 0.05, 0.0);
        const VariationalPosterior warped = warp_vp(vp, base, whitened);
        vp_moments(warped, mean, cov);
        for (int i = 0; i < kDim; ++i)
            for (int j = 0; j < kDim; ++j) assert_close(cov(i, j), i == j ? 1.0 : 0.0, 1e-9);
        // PyVBMC's normalisation sum lambda^2 = D; weights unchanged.
        double sum = 0.0;
        for (double l : warped.lambda) sum += l * l;
        assert_close(sum, kDim, 1e-12);
        for (int k = 0; k < vp.k; ++k) assert_true(warped.w[k] == vp.w[k]);
        assert_true(warped.optimize_weights);
    }
}

static void test_warped_vp_density_is_exact_for_isotropic_components(void**) {
    for (const auto& [from, to] : transform_pairs()) {
        Rng rng(12);
        const VariationalPosterior vp = cigar_vp(from, rng);
        const VariationalPosterior warped = warp_vp(vp, from, to);
        const AffineMap map = warp_map(from, to);
        const double shift = warp_log_density_shift(from, to);
        Matrix draws;
        vp_sample(vp, 200, rng, draws);
        for (int n = 0; n < draws.rows; ++n) {
            const std::vector<double> z(draws.row(n), draws.row(n) + kDim);
            const std::vector<double> z_to = apply(map, z);
            assert_close(vp_log_pdf(warped, z_to.data()), vp_log_pdf(vp, z.data()) + shift, 1e-8);
        }
        // Warping back recovers every component (the split of sigma_k lambda_j aside).
        const VariationalPosterior back = warp_vp(warped, to, from);
        for (int k = 0; k < vp.k; ++k)
            for (int j = 0; j < kDim; ++j) {
                assert_close(back.mu(k, j), vp.mu(k, j), 1e-9 * (1.0 + std::fabs(vp.mu(k, j))));
                const double scale = vp.sigma[k] * vp.lambda[j];
                assert_close(back.sigma[k] * back.lambda[j], scale, 1e-9 * scale);
            }
    }
}

static void check_general_vp_keeps_means_and_marginal_variances(bool component_scales) {
    for (const auto& [from, to] : transform_pairs()) {
        Rng rng(6);
        VariationalPosterior vp;
        vp.dim = kDim;
        vp.k = 3;
        vp.w = {0.5, 0.3, 0.2};
        vp.sigma = {0.3, 0.6, 1.1};
        vp.lambda = {0.4, 1.5, 0.9, 1.2};
        if (component_scales) {
            vp = vp_with_component_scales(vp);
            for (double& l : vp.lambda) l *= 0.5 + rng.uniform();
        }
        vp.mu = Matrix(vp.k, kDim);
        for (double& v : vp.mu.data) v = rng.normal();
        const VariationalPosterior warped = warp_vp(vp, from, to);
        const AffineMap map = warp_map(from, to);
        for (int k = 0; k < vp.k; ++k) {
            const std::vector<double> mean = apply(map, std::vector<double>(vp.mu.row(k), vp.mu.row(k) + kDim));
            for (int j = 0; j < kDim; ++j) {
                assert_close(warped.mu(k, j), mean[j], 1e-12 * (1.0 + std::fabs(mean[j])));
                // (A diag(sigma_k^2 lambda^2) A^T)_jj, the exact marginal variance of the mapped component.
                double variance = 0.0;
                for (int d = 0; d < kDim; ++d) {
                    const double term = map.a(j, d) * vp.sigma[k] * vp.lambda_of(k, d);
                    variance += term * term;
                }
                const double warped_sd = warped.sigma[k] * warped.lambda_of(k, j);
                assert_close(warped_sd * warped_sd, variance, 1e-12 * variance);
            }
        }
    }
}

static void test_general_vp_keeps_means_and_marginal_variances(void**) {
    check_general_vp_keeps_means_and_marginal_variances(false);
    check_general_vp_keeps_means_and_marginal_variances(true);
}

static void test_gp_predictions_match_at_mapped_points(void**) {
    for (const auto& [from, to] : transform_pairs()) {
        Rng rng(19);
        // Kernel and mean isotropic in y space: A diag(ell^2) A^T and A diag(omega^2) A^T diagonal.
        const std::vector<double> isotropic = lambda_isotropic_in_y(from);
        std::vector<double> theta(hyp::count(kDim));
        for (int d = 0; d < kDim; ++d) {
            theta[hyp::log_ell(d)] = std::log(0.8 * isotropic[d]);
            theta[hyp::xm(kDim, d)] = 0.3 * rng.normal();
            theta[hyp::log_omega(kDim, d)] = std::log(1.7 * isotropic[d]);
        }
        theta[hyp::log_sf(kDim)] = std::log(2.0);
        theta[hyp::log_sn(kDim)] = std::log(0.05);
        theta[hyp::m0(kDim)] = -1.5;
        // Training data around the origin of y, in from's z space.
        const AffineMap to_z = from.unbounded_from_warped();
        GpData data;
        data.x = Matrix(25, kDim);
        for (int n = 0; n < data.x.rows; ++n) {
            std::vector<double> y(kDim);
            for (double& v : y) v = rng.normal();
            const std::vector<double> z = apply(to_z, y);
            for (int j = 0; j < kDim; ++j) data.x(n, j) = z[j];
            data.y.push_back(-0.5 * (y[0] * y[0] + 2.0 * y[1] * y[1]) + std::sin(y[2] + y[3]));
            data.s2.push_back(n % 3 == 0 ? 0.01 : 0.0);
        }
        Matrix test_points(10, kDim);
        for (int n = 0; n < test_points.rows; ++n) {
            std::vector<double> y(kDim);
            for (double& v : y) v = 1.2 * rng.normal();
            const std::vector<double> z = apply(to_z, y);
            for (int j = 0; j < kDim; ++j) test_points(n, j) = z[j];
        }
        const double shift = warp_log_density_shift(from, to);
        GpData warped_data;
        warp_points(from, to, data.x, warped_data.x);
        for (double v : data.y) warped_data.y.push_back(v + shift);
        warped_data.s2 = data.s2;
        Matrix warped_points;
        warp_points(from, to, test_points, warped_points);
        const std::vector<double> warped_theta = warp_gp_hyperparameters(theta, from, to);
        assert_true(warped_theta[hyp::log_sf(kDim)] == theta[hyp::log_sf(kDim)]);
        assert_true(warped_theta[hyp::log_sn(kDim)] == theta[hyp::log_sn(kDim)]);
        assert_close(warped_theta[hyp::m0(kDim)], theta[hyp::m0(kDim)] + shift, 1e-12);

        std::vector<double> mean_old(10), var_old(10), mean_new(10), var_new(10);
        gp_predict_sample(data, gp_posterior(data, theta), test_points, mean_old.data(), var_old.data());
        gp_predict_sample(warped_data, gp_posterior(warped_data, warped_theta), warped_points, mean_new.data(),
                          var_new.data());
        for (int n = 0; n < 10; ++n) {
            assert_close(mean_new[n], mean_old[n] + shift, 1e-8 * (1.0 + std::fabs(mean_old[n])));
            assert_close(var_new[n], var_old[n], 1e-8 * (1.0 + var_old[n]));
            // The mean functions agree too, at the mapped points.
            assert_close(gp_mean(warped_points.row(n), warped_theta.data(), kDim, 0.0),
                         gp_mean(test_points.row(n), theta.data(), kDim, 0.0) + shift, 1e-9);
        }
    }
}

static void test_mismatched_inputs_are_rejected(void**) {
    const ParameterTransform probit = mixed(ParameterTransform::Bounded::probit);
    const ParameterTransform logit = mixed(ParameterTransform::Bounded::logit);
    expect_error(Code::arg, [&] { warp_map(probit, logit); });
    expect_error(Code::arg, [&] { warp_map(probit, unbounded()); });
    expect_error(Code::arg, [&] { warp_log_density_shift(probit, unbounded()); });
    expect_error(Code::arg, [&] { warp_gp_hyperparameters(std::vector<double>(5, 0.0), probit, probit); });
    Matrix wrong_width(3, kDim + 1), out;
    expect_error(Code::arg, [&] { warp_points(probit, probit, wrong_width, out); });
    VariationalPosterior vp;
    vp.dim = 2;
    expect_error(Code::arg, [&] { warp_vp(vp, probit, probit); });
    // The identity warp leaves the hyperparameters as they were.
    std::vector<double> theta(hyp::count(kDim), 0.25);
    const std::vector<double> same = warp_gp_hyperparameters(theta, probit, probit);
    for (size_t i = 0; i < theta.size(); ++i) assert_close(same[i], theta[i], 1e-15);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warp_map_matches_the_transforms),
        cmocka_unit_test(test_whitening_a_cigar_gives_unit_covariance),
        cmocka_unit_test(test_warped_vp_density_is_exact_for_isotropic_components),
        cmocka_unit_test(test_general_vp_keeps_means_and_marginal_variances),
        cmocka_unit_test(test_gp_predictions_match_at_mapped_points),
        cmocka_unit_test(test_mismatched_inputs_are_rejected),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
