// ParameterTransform's rotoscaling stage (PyVBMC R_mat, scale): round trips, full Jacobian
// against finite differences, the whitening property of rotoscaled(), correlation masking and
// regularisation, the affine map, exact moments of a posterior snapshot, serialisation.
#include <cfloat>
#include <cmath>
#include <vector>

#include "test_util.h"
#include "run/posterior.hpp"
#include "transforms/parameter_transform.hpp"
#include "vp/vp.hpp"
#include "warp_test_helpers.hpp"

using namespace libvbmc;
using namespace warp_test;

namespace {

using Kind = ParameterTransform::Bounded;

// A rotoscaled version of `base` for a random correlated z-space covariance.
ParameterTransform rotated(const ParameterTransform& base, uint64_t seed) {
    Rng rng(seed);
    return base.rotoscaled(correlated_covariance(base.dim(), rng), 0.05, 0.0);
}

std::vector<double> random_inside(Rng& rng) {
    std::vector<double> x(kDim);
    x[0] = 30.0 * rng.normal();
    x[1] = kLb[1] + std::exp(3.0 * rng.normal());
    x[2] = kUb[2] - std::exp(3.0 * rng.normal());
    x[3] = kLb[3] + (kUb[3] - kLb[3]) * (0.02 + 0.96 * rng.uniform());
    return x;
}

// z for a y drawn uniformly in [-1.5, 1.5]^D, so x stays away from saturating at a bound.
std::vector<double> moderate_z(const ParameterTransform& tf, Rng& rng) {
    const AffineMap to_z = tf.unbounded_from_warped();
    std::vector<double> y(kDim), z(kDim);
    for (double& v : y) v = 3.0 * rng.uniform() - 1.5;
    for (int j = 0; j < kDim; ++j) {
        z[j] = to_z.b[j];
        for (int i = 0; i < kDim; ++i) z[j] += to_z.a(j, i) * y[i];
    }
    return z;
}

}  // namespace

static void test_round_trips_with_rotation(void**) {
    for (Kind kind : {Kind::probit, Kind::logit}) {
        for (const ParameterTransform& base : {mixed(kind), unbounded()}) {
            const ParameterTransform tf = rotated(base, 7);
            assert_true(tf.has_rotoscaling());
            Rng rng(11);
            for (int n = 0; n < 1000; ++n) {
                std::vector<double> x = base.is_affine() ? std::vector<double>(kDim) : random_inside(rng);
                if (base.is_affine())
                    for (double& v : x) v = 50.0 * rng.normal();
                std::vector<double> z(kDim), back(kDim);
                tf.to_unbounded(x.data(), z.data());
                tf.to_original(z.data(), back.data());
                for (int i = 0; i < kDim; ++i) assert_close(back[i], x[i], 1e-10 * std::fmax(1.0, std::fabs(x[i])));
                // In place (x and z alias) gives the same bits.
                std::vector<double> in_place = x;
                tf.to_unbounded(in_place.data(), in_place.data());
                for (int i = 0; i < kDim; ++i) assert_true(in_place[i] == z[i]);
                tf.to_original(in_place.data(), in_place.data());
                for (int i = 0; i < kDim; ++i) assert_true(in_place[i] == back[i]);
            }
            for (int n = 0; n < 500; ++n) {
                const std::vector<double> z = moderate_z(tf, rng);
                std::vector<double> x(kDim), z_back(kDim);
                tf.to_original(z.data(), x.data());
                tf.to_unbounded(x.data(), z_back.data());
                for (int i = 0; i < kDim; ++i) assert_close(z_back[i], z[i], 1e-10 * (1.0 + std::fabs(z[i])));
            }
        }
    }
}

static void test_log_jacobian_matches_finite_differences(void**) {
    for (Kind kind : {Kind::probit, Kind::logit}) {
        for (const ParameterTransform& base : {mixed(kind), unbounded()}) {
            const ParameterTransform tf = rotated(base, 3);
            Rng rng(5);
            for (int n = 0; n < 100; ++n) {
                const std::vector<double> z = moderate_z(tf, rng);
                Matrix jacobian(kDim, kDim);
                for (int j = 0; j < kDim; ++j) {
                    const double h = 1e-6 * (1.0 + std::fabs(z[j]));
                    std::vector<double> zp = z, zm = z, xp(kDim), xm(kDim);
                    zp[j] += h;
                    zm[j] -= h;
                    tf.to_original(zp.data(), xp.data());
                    tf.to_original(zm.data(), xm.data());
                    for (int i = 0; i < kDim; ++i) jacobian(i, j) = (xp[i] - xm[i]) / (2.0 * h);
                }
                assert_close(tf.log_abs_det_jacobian(z.data()), log_abs_det(jacobian), 1e-6);
            }
        }
    }
}

static void test_rotoscaled_whitens_the_covariance(void**) {
    Rng rng(21);
    for (const ParameterTransform& base : {mixed(Kind::probit), unbounded(), rotated(unbounded(), 4)}) {
        const Matrix cov_z = correlated_covariance(kDim, rng);
        const ParameterTransform tf = base.rotoscaled(cov_z, 0.0, 0.0);
        // z_new = A z_old with A = (y <- z_new)^{-1} (y <- z_old); A cov A^T must be the identity.
        const Matrix a = multiply(tf.unbounded_from_warped().a, base.warped_from_unbounded().a);
        const Matrix whitened = multiply(multiply(a, cov_z), transpose(a));
        for (int i = 0; i < kDim; ++i)
            for (int j = 0; j < kDim; ++j) assert_close(whitened(i, j), i == j ? 1.0 : 0.0, 1e-9);
        // R orthogonal with det +1, scales descending, centring reset as in PyVBMC.
        const Matrix& r = tf.rotation();
        const Matrix rtr = multiply(transpose(r), r);
        for (int i = 0; i < kDim; ++i)
            for (int j = 0; j < kDim; ++j) assert_close(rtr(i, j), i == j ? 1.0 : 0.0, 1e-12);
        assert_close(log_abs_det(r), 0.0, 1e-12);
        Matrix r_copy = r;
        double det = 1.0;  // sign via the product of the elimination pivots
        for (int c = 0; c < kDim; ++c) {
            int pivot = c;
            for (int row = c + 1; row < kDim; ++row)
                if (std::fabs(r_copy(row, c)) > std::fabs(r_copy(pivot, c))) pivot = row;
            if (pivot != c) {
                for (int j = 0; j < kDim; ++j) std::swap(r_copy(c, j), r_copy(pivot, j));
                det = -det;
            }
            det *= r_copy(c, c);
            for (int row = c + 1; row < kDim; ++row) {
                const double f = r_copy(row, c) / r_copy(c, c);
                for (int j = c; j < kDim; ++j) r_copy(row, j) -= f * r_copy(c, j);
            }
        }
        assert_close(det, 1.0, 1e-12);
        for (int k = 1; k < kDim; ++k) assert_true(tf.scale()[k] <= tf.scale()[k - 1]);
        const AffineMap y_map = tf.warped_from_unbounded();
        for (int i = 0; i < kDim; ++i) assert_true(y_map.b[i] == 0.0);
        assert_true(tf.same_coordinate_map(base));
    }
}

static void test_low_correlations_are_masked_and_regularised(void**) {
    const ParameterTransform base = unbounded();
    // In y space: variances 4, 1, 9, 0.25; correlation 0.03 between 0 and 1 (masked at 0.05),
    // 0.5 between 2 and 3 (kept).
    const double sd[kDim] = {2.0, 1.0, 3.0, 0.5};
    double corr[kDim][kDim] = {{1, 0.03, 0, 0}, {0.03, 1, 0, 0}, {0, 0, 1, 0.5}, {0, 0, 0.5, 1}};
    Matrix cov_y(kDim, kDim);
    for (int i = 0; i < kDim; ++i)
        for (int j = 0; j < kDim; ++j) cov_y(i, j) = corr[i][j] * sd[i] * sd[j];
    // Express it in base's z space: cov_z = L^{-1} cov_y L^{-T}.
    const Matrix to_z = base.unbounded_from_warped().a;
    const Matrix cov_z = multiply(multiply(to_z, cov_y), transpose(to_z));
    const ParameterTransform masked = base.rotoscaled(cov_z, 0.05, 0.0);
    // Coordinates 0 and 1 are decoupled: their axes are eigenvectors with scales 2 and 1.
    const Matrix& r = masked.rotation();
    int found = 0;
    for (int k = 0; k < kDim; ++k) {
        if (std::fabs(std::fabs(r(0, k)) - 1.0) < 1e-12) {
            assert_close(masked.scale()[k], 2.0, 1e-12);
            ++found;
        }
        if (std::fabs(std::fabs(r(1, k)) - 1.0) < 1e-12) {
            assert_close(masked.scale()[k], 1.0, 1e-12);
            ++found;
        }
    }
    assert_int_equal(found, 2);
    // Full regularisation removes every correlation: the rotation is a signed permutation and
    // the scales are the standard deviations, sorted.
    const ParameterTransform diagonal = base.rotoscaled(cov_z, 0.0, 1.0);
    const double sorted_sd[kDim] = {3.0, 2.0, 1.0, 0.5};
    for (int k = 0; k < kDim; ++k) {
        assert_close(diagonal.scale()[k], std::sqrt(sorted_sd[k] * sorted_sd[k] + DBL_EPSILON), 1e-12);
        double largest = 0.0;
        for (int i = 0; i < kDim; ++i) largest = std::fmax(largest, std::fabs(diagonal.rotation()(i, k)));
        assert_close(largest, 1.0, 1e-12);
    }
    // Regularisation above 1 is clamped to 1.
    const ParameterTransform clamped = base.rotoscaled(cov_z, 0.0, 5.0);
    for (int k = 0; k < kDim; ++k) assert_true(clamped.scale()[k] == diagonal.scale()[k]);
}

static void test_affine_map_and_exact_snapshot_moments(void**) {
    const ParameterTransform tf = rotated(unbounded(), 9);
    assert_true(tf.is_affine());
    assert_false(rotated(mixed(), 9).is_affine());
    expect_error(Code::arg, [] { rotated(mixed(), 9).original_from_unbounded(); });
    const AffineMap map = tf.original_from_unbounded();
    Rng rng(2);
    for (int n = 0; n < 50; ++n) {
        std::vector<double> z(kDim), x(kDim);
        for (double& v : z) v = 2.0 * rng.normal();
        tf.to_original(z.data(), x.data());
        for (int i = 0; i < kDim; ++i) {
            double expected = map.b[i];
            for (int j = 0; j < kDim; ++j) expected += map.a(i, j) * z[j];
            assert_close(x[i], expected, 1e-12 * (1.0 + std::fabs(expected)));
        }
    }
    // Snapshot moments (exact, affine path) against Monte Carlo draws through to_original.
    PosteriorSnapshot snapshot;
    snapshot.transform = tf;
    VariationalPosterior& vp = snapshot.vp;
    vp.dim = kDim;
    vp.k = 2;
    vp.w = {0.3, 0.7};
    vp.mu = Matrix(2, kDim);
    for (double& v : vp.mu.data) v = rng.normal();
    vp.sigma = {0.5, 0.8};
    vp.lambda = {1.0, 0.7, 1.3, 0.9};
    std::vector<double> mean;
    Matrix cov;
    snapshot.moments(mean, cov);
    constexpr size_t kDraws = 200000;
    std::vector<double> draws(kDraws * kDim);
    snapshot.sample(kDraws, 17, draws.data());
    std::vector<double> mc_mean(kDim, 0.0);
    for (size_t s = 0; s < kDraws; ++s)
        for (int d = 0; d < kDim; ++d) mc_mean[d] += draws[s * kDim + d] / kDraws;
    Matrix mc_cov(kDim, kDim);
    for (size_t s = 0; s < kDraws; ++s)
        for (int i = 0; i < kDim; ++i)
            for (int j = 0; j < kDim; ++j)
                mc_cov(i, j) += (draws[s * kDim + i] - mc_mean[i]) * (draws[s * kDim + j] - mc_mean[j]) / (kDraws - 1);
    for (int i = 0; i < kDim; ++i) {
        // 5 standard errors: SE(mean) = sd / sqrt(n), SE(cov_ij) <= sqrt(2 * cov_ii * cov_jj / n) (loose for mixtures).
        assert_close(mean[i], mc_mean[i], 5.0 * std::sqrt(cov(i, i) / kDraws));
        for (int j = 0; j < kDim; ++j) {
            assert_close(cov(i, j), cov(j, i), 0.0);
            assert_close(cov(i, j), mc_cov(i, j), 5.0 * std::sqrt(3.0 * cov(i, i) * cov(j, j) / kDraws));
        }
    }
}

static void test_serialisation_with_rotation(void**) {
    for (Kind kind : {Kind::probit, Kind::logit}) {
        const ParameterTransform plain = mixed(kind);
        const ParameterTransform tf = rotated(plain, 13);
        Writer plain_bytes, first;
        plain.write(plain_bytes);
        tf.write(first);
        // Without rotoscaling the kind byte carries no flag: the pre-rotoscaling layout.
        assert_true(plain_bytes.bytes()[0] < 0x80);
        assert_true(first.bytes()[0] >= 0x80);
        Reader reader(first.bytes().data(), first.bytes().size());
        const ParameterTransform copy = ParameterTransform::read(reader);
        assert_int_equal(reader.remaining(), 0);
        Writer second;
        copy.write(second);
        assert_true(first.bytes() == second.bytes());
        assert_true(copy.has_rotoscaling());
        Rng rng(3);
        const std::vector<double> x = random_inside(rng);
        double z1[kDim], z2[kDim];
        tf.to_unbounded(x.data(), z1);
        copy.to_unbounded(x.data(), z2);
        for (int i = 0; i < kDim; ++i) assert_true(z1[i] == z2[i]);
        assert_true(tf.log_abs_det_jacobian(z1) == copy.log_abs_det_jacobian(z2));
        // Truncation, a flag without the matrix, a non-orthogonal rotation, a non-positive scale.
        Reader truncated(first.bytes().data(), first.bytes().size() - 1);
        expect_error(Code::format, [&] { ParameterTransform::read(truncated); });
        std::vector<uint8_t> flag_only = plain_bytes.bytes();
        flag_only[0] |= 0x80;
        Reader missing(flag_only.data(), flag_only.size());
        expect_error(Code::format, [&] { ParameterTransform::read(missing); });
        Writer skewed_writer, zero_scale_writer;
        {
            Writer prefix;
            prefix.u8(static_cast<uint8_t>(0x80 | static_cast<uint8_t>(kind)));
            std::vector<double> lb(kLb, kLb + kDim), ub(kUb, kUb + kDim), mu(kDim, 0.0), delta(kDim, 1.0);
            for (Writer* w : {&skewed_writer, &zero_scale_writer}) {
                w->u8(static_cast<uint8_t>(0x80 | static_cast<uint8_t>(kind)));
                w->doubles(lb);
                w->doubles(ub);
                w->doubles(mu);
                w->doubles(delta);
            }
            Matrix skewed = Matrix::identity(kDim);
            skewed(0, 1) = 0.1;
            skewed_writer.matrix(skewed);
            skewed_writer.doubles(std::vector<double>(kDim, 1.0));
            zero_scale_writer.matrix(Matrix::identity(kDim));
            zero_scale_writer.doubles({1.0, 0.0, 1.0, 1.0});
            // The identity with unit scales is valid.
            prefix.doubles(lb);
            prefix.doubles(ub);
            prefix.doubles(mu);
            prefix.doubles(delta);
            prefix.matrix(Matrix::identity(kDim));
            prefix.doubles(std::vector<double>(kDim, 1.0));
            Reader ok(prefix.bytes().data(), prefix.bytes().size());
            assert_true(ParameterTransform::read(ok).has_rotoscaling());
        }
        Reader skewed_reader(skewed_writer.bytes().data(), skewed_writer.bytes().size());
        expect_error(Code::format, [&] { ParameterTransform::read(skewed_reader); });
        Reader zero_reader(zero_scale_writer.bytes().data(), zero_scale_writer.bytes().size());
        expect_error(Code::format, [&] { ParameterTransform::read(zero_reader); });
    }
}

static void test_rotoscaled_rejects_bad_input(void**) {
    const ParameterTransform tf = mixed();
    expect_error(Code::arg, [&] { tf.rotoscaled(Matrix::identity(kDim - 1), 0.05, 0.0); });
    expect_error(Code::arg, [&] { tf.rotoscaled(Matrix::identity(kDim), NAN, 0.0); });
    Matrix with_nan = Matrix::identity(kDim);
    with_nan(1, 2) = NAN;
    expect_error(Code::numeric, [&] { tf.rotoscaled(with_nan, 0.05, 0.0); });
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips_with_rotation),
        cmocka_unit_test(test_log_jacobian_matches_finite_differences),
        cmocka_unit_test(test_rotoscaled_whitens_the_covariance),
        cmocka_unit_test(test_low_correlations_are_masked_and_regularised),
        cmocka_unit_test(test_affine_map_and_exact_snapshot_moments),
        cmocka_unit_test(test_serialisation_with_rotation),
        cmocka_unit_test(test_rotoscaled_rejects_bad_input),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
