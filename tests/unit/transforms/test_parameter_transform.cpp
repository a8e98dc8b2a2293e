// ParameterTransform: round trips, Jacobian against finite differences, plausible-box
// standardisation, behaviour at the bounds, argument checks and bitwise serialisation.
#include "transforms/parameter_transform.hpp"

#include <cfloat>
#include <cmath>
#include <vector>

#include "test_util.h"
#include "util/error.hpp"
#include "util/rng.hpp"

using namespace libvbmc;

namespace {

using Kind = ParameterTransform::Bounded;

// Four coordinates: unbounded, lower bound only, upper bound only, both bounds.
constexpr int kDim = 4;
const double kLb[kDim] = {-INFINITY, 0.5, -INFINITY, -3.0};
const double kUb[kDim] = {INFINITY, INFINITY, 2.0, 7.0};
const double kPlb[kDim] = {-10.0, 1.0, -4.0, -2.0};
const double kPub[kDim] = {20.0, 30.0, 1.5, 4.0};

ParameterTransform mixed(Kind kind) { return ParameterTransform(kDim, kLb, kUb, kPlb, kPub, kind); }

template <class F>
void expect_error(Code code, F&& f) {
    bool threw = false;
    try {
        f();
    } catch (const Error& e) {
        threw = e.code() == code;
    }
    assert_true(threw);
}

// Random point inside the hard bounds, spread well beyond the plausible box.
std::vector<double> random_inside(Rng& rng) {
    std::vector<double> x(kDim);
    x[0] = 100.0 * rng.normal();
    x[1] = kLb[1] + std::exp(8.0 * rng.normal());
    x[2] = kUb[2] - std::exp(8.0 * rng.normal());
    x[3] = kLb[3] + (kUb[3] - kLb[3]) * rng.uniform();
    return x;
}

void check_round_trip(const ParameterTransform& tf, const std::vector<double>& x) {
    std::vector<double> z(kDim), back(kDim);
    tf.to_unbounded(x.data(), z.data());
    tf.to_original(z.data(), back.data());
    for (int i = 0; i < kDim; ++i) {
        assert_true(std::isfinite(z[i]));
        assert_close(back[i], x[i], 1e-12 * std::fmax(1.0, std::fabs(x[i])));
    }
}

}  // namespace

static void test_round_trip_all_coordinate_types(void**) {
    for (Kind kind : {Kind::probit, Kind::logit}) {
        const ParameterTransform tf = mixed(kind);
        Rng rng(11);
        for (int n = 0; n < 2000; ++n) check_round_trip(tf, random_inside(rng));
        // Close to the bounds, on both sides of the two-sided coordinate.
        check_round_trip(tf, {-1e6, kLb[1] + 1e-9, kUb[2] - 1e-9, kLb[3] + 1e-9});
        check_round_trip(tf, {1e6, 1e8, -1e8, kUb[3] - 1e-9});
        // z -> x -> z for moderate z (further out, x saturates at its bound and z is ill-conditioned).
        for (int n = 0; n < 500; ++n) {
            std::vector<double> z(kDim), x(kDim), z_back(kDim);
            for (double& v : z) v = 3.0 * rng.uniform() - 1.5;
            tf.to_original(z.data(), x.data());
            tf.to_unbounded(x.data(), z_back.data());
            for (int i = 0; i < kDim; ++i) assert_close(z_back[i], z[i], 1e-11 * (1.0 + std::fabs(z[i])));
        }
    }
}

static void test_relative_accuracy_next_to_a_zero_bound(void**) {
    // Bounds at 0 let a point 1e-200 away be represented exactly: no 1 - t cancellation on either side.
    const double lb[2] = {0.0, -5.0}, ub[2] = {5.0, 0.0}, plb[2] = {1.0, -4.0}, pub[2] = {4.0, -1.0};
    for (Kind kind : {Kind::probit, Kind::logit}) {
        const ParameterTransform tf(2, lb, ub, plb, pub, kind);
        const double x[2] = {1e-200, -1e-200};
        double z[2], back[2];
        tf.to_unbounded(x, z);
        tf.to_original(z, back);
        assert_close(back[0] / x[0], 1.0, 1e-12);
        assert_close(back[1] / x[1], 1.0, 1e-12);
        assert_true(z[0] < -5.0 && z[1] > 5.0);
    }
}

static void test_probit_and_logit_reference_values(void**) {
    const double lb = 0.0, ub = 10.0, plb = 1.0, pub = 6.0, x = 3.0;
    double z;
    // Probit, values from mpmath: z = (Phi^{-1}(0.3) - mu) / delta, mu and delta from Phi^{-1}(0.1), Phi^{-1}(0.6).
    const ParameterTransform probit(1, &lb, &ub, &plb, &pub, Kind::probit);
    probit.to_unbounded(&x, &z);
    assert_close(z, -0.0067094210932466312231, 1e-15);
    assert_close(probit.log_abs_det_jacobian(&z), 1.6746129758963026745, 1e-14);
    // Logit: closed form.
    const ParameterTransform logit(1, &lb, &ub, &plb, &pub, Kind::logit);
    logit.to_unbounded(&x, &z);
    const double y_low = std::log(0.1 / 0.9), y_high = std::log(0.6 / 0.4), y = std::log(0.3 / 0.7);
    const double delta = y_high - y_low;
    assert_close(z, (y - 0.5 * (y_low + y_high)) / delta, 1e-15);
    assert_close(logit.log_abs_det_jacobian(&z), std::log(10.0 * 0.3 * 0.7 * delta), 1e-14);
}

static void test_log_jacobian_matches_finite_differences(void**) {
    for (Kind kind : {Kind::probit, Kind::logit}) {
        const ParameterTransform tf = mixed(kind);
        Rng rng(5);
        for (int n = 0; n < 200; ++n) {
            std::vector<double> z(kDim);
            for (double& v : z) v = 4.0 * rng.uniform() - 2.0;
            double expected = 0.0;
            for (int i = 0; i < kDim; ++i) {
                const double h = 1e-5;
                std::vector<double> zp = z, zm = z, xp(kDim), xm(kDim);
                zp[i] += h;
                zm[i] -= h;
                tf.to_original(zp.data(), xp.data());
                tf.to_original(zm.data(), xm.data());
                // Diagonal: moving z_i leaves every other x_j unchanged.
                for (int j = 0; j < kDim; ++j)
                    if (j != i) assert_close(xp[j], xm[j], 0.0);
                expected += std::log(std::fabs((xp[i] - xm[i]) / (2.0 * h)));
            }
            assert_close(tf.log_abs_det_jacobian(z.data()), expected, 1e-6);
        }
    }
}

// The analytic gradient of log |det dx/dz| against central differences, for every coordinate
// type, both bounded kinds, without and with a rotoscaling stage (which mixes the coordinates).
static void test_log_jacobian_gradient_matches_finite_differences(void**) {
    Matrix cov(kDim, kDim);
    for (int i = 0; i < kDim; ++i)
        for (int j = 0; j < kDim; ++j) cov(i, j) = (i == j ? 1.0 : 0.4) * (1.0 + 0.1 * i);
    for (Kind kind : {Kind::probit, Kind::logit}) {
        for (const ParameterTransform& tf : {mixed(kind), mixed(kind).rotoscaled(cov, 0.0, 0.0)}) {
            Rng rng(11);
            for (int n = 0; n < 100; ++n) {
                std::vector<double> z(kDim), grad(kDim);
                for (double& v : z) v = 4.0 * rng.uniform() - 2.0;
                tf.log_abs_det_jacobian_gradient(z.data(), grad.data());
                for (int i = 0; i < kDim; ++i) {
                    const double h = 1e-5;
                    std::vector<double> zp = z, zm = z;
                    zp[i] += h;
                    zm[i] -= h;
                    const double expected = (tf.log_abs_det_jacobian(zp.data()) - tf.log_abs_det_jacobian(zm.data())) / (2.0 * h);
                    assert_close(grad[i], expected, 1e-6 * std::fmax(1.0, std::fabs(expected)));
                }
            }
        }
    }
}

static void test_log_jacobian_in_the_tail(void**) {
    // Next to a zero lower bound x keeps full relative precision, so finite differences stay accurate
    // deep in the tail (z down to -8, x down to ~1e-24 for probit).
    const double lb = 0.0, ub = 5.0, plb = 1.0, pub = 4.0;
    for (Kind kind : {Kind::probit, Kind::logit}) {
        const ParameterTransform tf(1, &lb, &ub, &plb, &pub, kind);
        for (double z = -8.0; z <= 0.0; z += 0.25) {
            const double h = 1e-5;
            const double zp = z + h, zm = z - h;
            double xp, xm;
            tf.to_original(&zp, &xp);
            tf.to_original(&zm, &xm);
            assert_close(tf.log_abs_det_jacobian(&z), std::log((xp - xm) / (2.0 * h)), 1e-6);
        }
    }
}

static void test_plausible_box_maps_to_unit_box(void**) {
    for (Kind kind : {Kind::probit, Kind::logit}) {
        const ParameterTransform tf = mixed(kind);
        double z_low[kDim], z_high[kDim];
        tf.to_unbounded(kPlb, z_low);
        tf.to_unbounded(kPub, z_high);
        for (int i = 0; i < kDim; ++i) {
            assert_close(z_low[i], -0.5, 1e-14);
            assert_close(z_high[i], 0.5, 1e-14);
        }
    }
    // Plausible bound on a hard bound: PyVBMC's fallback mu = 0, delta = 1 (probit of the unit value).
    const double lb = 0.0, ub = 4.0, plb = 0.0, pub = 3.0, x = 1.0;
    const ParameterTransform tf(1, &lb, &ub, &plb, &pub, Kind::probit);
    double z;
    tf.to_unbounded(&x, &z);
    assert_close(z, -0.67448975019608174320, 1e-15);  // Phi^{-1}(0.25)
}

static void test_extreme_points_stay_finite(void**) {
    for (Kind kind : {Kind::probit, Kind::logit}) {
        const ParameterTransform tf = mixed(kind);
        // Points exactly on, and one ulp inside, every finite bound.
        const double on_low[kDim] = {-DBL_MAX, kLb[1], -DBL_MAX, kLb[3]};
        const double on_high[kDim] = {DBL_MAX, DBL_MAX, kUb[2], kUb[3]};
        const double ulp_low[kDim] = {0.0, std::nextafter(kLb[1], 1.0), 0.0, std::nextafter(kLb[3], 0.0)};
        const double ulp_high[kDim] = {0.0, 1.0, std::nextafter(kUb[2], 0.0), std::nextafter(kUb[3], 0.0)};
        for (const double* x : {on_low, on_high, ulp_low, ulp_high}) {
            double z[kDim], back[kDim];
            tf.to_unbounded(x, z);
            for (int i = 0; i < kDim; ++i) assert_true(std::isfinite(z[i]));
            tf.to_original(z, back);
            assert_true(tf.inside_bounds(back));
            if (kind == Kind::probit) assert_true(std::isfinite(tf.log_abs_det_jacobian(z)));
        }
        assert_false(tf.inside_bounds(on_low));
        assert_false(tf.inside_bounds(on_high));
        // Huge z: clamped strictly inside the bounds (+-DBL_MAX for infinite ones), never inf.
        for (double magnitude : {40.0, 1e3, 800.0 / 0.3, 1e300, DBL_MAX}) {
            for (double sign : {-1.0, 1.0}) {
                const double z[kDim] = {sign * magnitude, sign * magnitude, sign * magnitude, sign * magnitude};
                double x[kDim];
                tf.to_original(z, x);
                for (int i = 0; i < kDim; ++i) assert_true(std::isfinite(x[i]));
                assert_true(tf.inside_bounds(x));
                const double log_jacobian = tf.log_abs_det_jacobian(z);
                assert_true(std::isfinite(log_jacobian) || log_jacobian == -INFINITY);
            }
        }
    }
}

static void test_invalid_arguments_are_rejected(void**) {
    const double lb = 0.0, ub = 1.0, plb = 0.2, pub = 0.8, bad_high = 1.5, nan = NAN, inf = INFINITY;
    expect_error(Code::arg, [&] { ParameterTransform(1, &lb, &ub, &pub, &plb, Kind::probit); });
    expect_error(Code::arg, [&] { ParameterTransform(1, &lb, &ub, &plb, &bad_high, Kind::probit); });
    expect_error(Code::arg, [&] { ParameterTransform(1, &lb, &ub, &nan, &pub, Kind::probit); });
    expect_error(Code::arg, [&] { ParameterTransform(1, &lb, &inf, &plb, &inf, Kind::probit); });
    expect_error(Code::arg, [&] { ParameterTransform(0, &lb, &ub, &plb, &pub, Kind::probit); });
    const ParameterTransform tf(1, &lb, &ub, &plb, &pub, Kind::probit);
    double out;
    expect_error(Code::arg, [&] { tf.to_unbounded(&bad_high, &out); });
    expect_error(Code::arg, [&] { tf.to_unbounded(&nan, &out); });
    expect_error(Code::numeric, [&] { tf.to_original(&nan, &out); });
    expect_error(Code::numeric, [&] { tf.log_abs_det_jacobian(&nan); });
}

static void test_serialisation_round_trip_is_bitwise(void**) {
    for (Kind kind : {Kind::probit, Kind::logit}) {
        const ParameterTransform tf = mixed(kind);
        Writer first;
        tf.write(first);
        Reader reader(first.bytes().data(), first.bytes().size());
        const ParameterTransform copy = ParameterTransform::read(reader);
        assert_int_equal(reader.remaining(), 0);
        Writer second;
        copy.write(second);
        assert_true(first.bytes() == second.bytes());
        assert_int_equal(copy.dim(), kDim);
        assert_true(copy.bounded_kind() == kind);
        Rng rng(3);
        const std::vector<double> x = random_inside(rng);
        double z1[kDim], z2[kDim];
        tf.to_unbounded(x.data(), z1);
        copy.to_unbounded(x.data(), z2);
        for (int i = 0; i < kDim; ++i) assert_true(z1[i] == z2[i]);
        assert_true(tf.log_abs_det_jacobian(z1) == copy.log_abs_det_jacobian(z2));
        // Truncated input and an unknown transform kind are format errors.
        Reader truncated(first.bytes().data(), first.bytes().size() - 1);
        expect_error(Code::format, [&] { ParameterTransform::read(truncated); });
        std::vector<uint8_t> corrupt = first.bytes();
        corrupt[0] = 7;
        Reader bad_kind(corrupt.data(), corrupt.size());
        expect_error(Code::format, [&] { ParameterTransform::read(bad_kind); });
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_all_coordinate_types),
        cmocka_unit_test(test_relative_accuracy_next_to_a_zero_bound),
        cmocka_unit_test(test_probit_and_logit_reference_values),
        cmocka_unit_test(test_log_jacobian_matches_finite_differences),
        cmocka_unit_test(test_log_jacobian_gradient_matches_finite_differences),
        cmocka_unit_test(test_log_jacobian_in_the_tail),
        cmocka_unit_test(test_plausible_box_maps_to_unit_box),
        cmocka_unit_test(test_extreme_points_stay_finite),
        cmocka_unit_test(test_invalid_arguments_are_rejected),
        cmocka_unit_test(test_serialisation_round_trip_is_bitwise),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
