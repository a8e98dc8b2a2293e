// The ready-made coordinate priors: each density integrates to one (composite Simpson in 1-D,
// piecewise between the kinks, so exact to rounding where the pieces are polynomials of degree
// <= 3), matches its closed form at chosen points, the smooth box is continuous at its edges, the
// spline trapezoid's ramps are flat where they meet the plateau and the bounds, and every invalid
// parameter set and bound is refused with a message naming the coordinate, the value and the rule.
#include "prior/coordinate_prior.hpp"

#include <cmath>
#include <functional>

#include "util/error.hpp"
#include "test_util.h"

using namespace libvbmc;

static CoordinatePrior prior(const char* kind, std::vector<double> params, int coord = 0) {
    return make_coordinate_prior(coord, kind, params.data(), static_cast<int>(params.size()));
}

static double pdf(const CoordinatePrior& p, double x) { return std::exp(p.log_pdf(x)); }

// Composite Simpson's rule of f over [lo, hi] with n (even) intervals.
static double simpson(const std::function<double(double)>& f, double lo, double hi, int n = 2000) {
    const double h = (hi - lo) / n;
    double sum = f(lo) + f(hi);
    for (int i = 1; i < n; ++i) sum += (i % 2 ? 4.0 : 2.0) * f(lo + i * h);
    return sum * h / 3.0;
}

// Piecewise polynomial densities: Simpson is exact on each piece (degree <= 3).
static void test_box_kinds_integrate_to_one(void**) {
    const CoordinatePrior uniform = prior("uniform", {-1.5, 2.5});
    assert_close(simpson([&](double x) { return pdf(uniform, x); }, -1.5, 2.5, 2), 1.0, 1e-14);
    for (const char* kind : {"trapezoidal", "spline_trapezoidal"}) {
        for (const std::vector<double>& p : std::vector<std::vector<double>>{{-2, -1, 0.5, 3}, {0, 0, 1, 2}, {0, 1, 1, 3}, {0, 1, 2, 2}}) {
            const CoordinatePrior t = prior(kind, p);
            double mass = 0.0;
            for (int piece = 0; piece < 3; ++piece)
                if (p[piece + 1] > p[piece]) mass += simpson([&](double x) { return pdf(t, x); }, p[piece], p[piece + 1], 2);
            assert_close(mass, 1.0, 1e-14);
        }
    }
    // Smooth box: the plateau exactly, the Gaussian tails to 40 SD.
    const CoordinatePrior box = prior("smoothbox", {-1, 2, 0.3});
    auto f = [&](double x) { return pdf(box, x); };
    assert_close(simpson(f, -1 - 12, -1) + simpson(f, -1, 2, 2) + simpson(f, 2, 2 + 12), 1.0, 1e-12);
}

static void test_unbounded_kinds_integrate_to_one(void**) {
    const CoordinatePrior gauss = prior("gaussian", {0.7, 1.9});
    assert_close(simpson([&](double x) { return pdf(gauss, x); }, 0.7 - 40 * 1.9, 0.7 + 40 * 1.9, 20000), 1.0, 1e-12);
    // Student-t: x = mu + sigma tan(theta) maps the heavy tails onto a finite interval.
    for (double nu : {1.0, 2.5, 30.0}) {
        const CoordinatePrior t = prior("student_t", {-0.4, 0.8, nu});
        auto f = [&](double theta) {
            const double c = std::cos(theta);
            return c == 0.0 ? 0.0 : pdf(t, -0.4 + 0.8 * std::tan(theta)) * 0.8 / (c * c);
        };
        const double half_pi = std::acos(0.0);
        assert_close(simpson(f, -half_pi, half_pi, 20000), 1.0, 1e-8);
    }
    // Log-normal: x = e^s.
    const CoordinatePrior logn = prior("lognormal", {0.3, 0.6});
    assert_close(simpson([&](double s) { return pdf(logn, std::exp(s)) * std::exp(s); }, 0.3 - 24, 0.3 + 24, 20000), 1.0, 1e-12);
}

static void test_values_at_points(void**) {
    const double log_sqrt_2pi = 0.5 * std::log(2.0 * M_PI);
    assert_close(prior("gaussian", {1, 2}).log_pdf(3), -0.5 - std::log(2.0) - log_sqrt_2pi, 1e-15);
    // nu = 1 is the Cauchy density 1 / (pi sigma (1 + t^2)); nu = 2: (1 + t^2 / 2)^(-3/2) / (2 sqrt 2 sigma).
    assert_close(prior("student_t", {1, 2, 1}).log_pdf(5), -std::log(M_PI * 2 * 5), 1e-14);
    assert_close(prior("student_t", {0, 1, 2}).log_pdf(1), -1.5 * std::log(1.5) - std::log(2 * std::sqrt(2.0)), 1e-14);
    assert_close(prior("uniform", {2, 6}).log_pdf(3), -std::log(4.0), 0.0);
    assert_true(std::isinf(prior("uniform", {2, 6}).log_pdf(6.5)));
    // Trapezoid a, u, v, b = 0, 2, 3, 7: plateau height 1 / ((7 + 1) / 2) = 1/4.
    const CoordinatePrior trap = prior("trapezoidal", {0, 2, 3, 7});
    assert_close(pdf(trap, 2.5), 0.25, 1e-16);
    assert_close(pdf(trap, 0.5), 0.25 * 0.25, 1e-16);
    assert_close(pdf(trap, 6), 0.25 * 0.25, 1e-16);
    assert_true(std::isinf(trap.log_pdf(0)) && std::isinf(trap.log_pdf(7)) && std::isinf(trap.log_pdf(-1)));
    // Spline ramps 3 z^2 - 2 z^3: z = 1/4 gives 5/32, z = 1/2 gives 1/2.
    const CoordinatePrior spline = prior("spline_trapezoidal", {0, 2, 3, 7});
    assert_close(pdf(spline, 0.5), 0.25 * 5.0 / 32.0, 1e-16);
    assert_close(pdf(spline, 5), 0.25 * 0.5, 1e-16);
    assert_close(pdf(spline, 2.5), 0.25, 1e-16);
    // Smooth box: height 1 / (b - a + sqrt(2 pi) sigma), a Gaussian fall-off outside.
    const CoordinatePrior box = prior("smoothbox", {-1, 2, 0.5});
    const double height = 1.0 / (3.0 + std::sqrt(2.0 * M_PI) * 0.5);
    assert_close(pdf(box, 0.3), height, 1e-16);
    assert_close(pdf(box, -1.5), height * std::exp(-0.5), 1e-16);
    assert_close(pdf(box, 3.0), height * std::exp(-2.0), 1e-16);
    // Log-normal at x = e^mu: 1 / (x sigma sqrt(2 pi)); nothing at x <= 0.
    const CoordinatePrior logn = prior("lognormal", {0.5, 0.25});
    assert_close(logn.log_pdf(std::exp(0.5)), -0.5 - std::log(0.25) - log_sqrt_2pi, 1e-14);
    assert_true(std::isinf(logn.log_pdf(0.0)) && std::isinf(logn.log_pdf(-1.0)));
}

static void test_continuity_and_smooth_ramps(void**) {
    const CoordinatePrior box = prior("smoothbox", {-1, 2, 0.5});
    for (double edge : {-1.0, 2.0}) {
        assert_close(box.log_pdf(std::nextafter(edge, -INFINITY)), box.log_pdf(edge), 1e-15);
        assert_close(box.log_pdf(std::nextafter(edge, INFINITY)), box.log_pdf(edge), 1e-15);
    }
    // Both trapezoids are continuous at u and v; the spline's slope vanishes at a, u, v and b (a
    // one-sided difference of width h is O(h) there), the linear one's does not.
    const double h = 1e-4;
    const CoordinatePrior spline = prior("spline_trapezoidal", {0, 2, 3, 7});
    const CoordinatePrior trap = prior("trapezoidal", {0, 2, 3, 7});
    for (const CoordinatePrior* t : {&spline, &trap}) {
        assert_close(pdf(*t, std::nextafter(2.0, 0.0)), pdf(*t, 2.0), 1e-15);
        assert_close(pdf(*t, std::nextafter(3.0, 7.0)), pdf(*t, 3.0), 1e-15);
    }
    const double ramp_slope = 0.25 / 2.0;  // the linear ramp's slope on [a, u]
    assert_close((pdf(trap, 2.0) - pdf(trap, 2.0 - h)) / h, ramp_slope, 1e-9);
    assert_true(std::fabs((pdf(spline, 2.0) - pdf(spline, 2.0 - h)) / h) < 10 * h);
    assert_true(std::fabs((pdf(spline, 0.0 + h) - 0.0) / h) < 10 * h);
    assert_true(std::fabs((pdf(spline, 3.0 + h) - pdf(spline, 3.0)) / h) < 10 * h);
    assert_true(std::fabs((pdf(spline, 7.0) - pdf(spline, 7.0 - h)) / h) < 10 * h);
    // In the middle of a ramp the spline rises 1.5 times as steeply as the line: 6 z (1 - z) at z = 1/2.
    assert_close((pdf(spline, 1.0 + h) - pdf(spline, 1.0 - h)) / (2 * h), 1.5 * ramp_slope, 1e-8);
}

static void expect_error(const std::function<void()>& call, const char* needle) {
    try {
        call();
    } catch (const Error& e) {
        assert_int_equal(static_cast<int>(e.code()), static_cast<int>(Code::arg));
        assert_message_mentions(e.what(), needle);
        return;
    }
    fail_msg("no error; expected one mentioning \"%s\"", needle);
}

static void test_invalid_parameters_are_refused(void**) {
    expect_error([] { prior("normal", {0, 1}); }, "kind = \"normal\" is not a prior kind (gaussian, student_t");
    expect_error([] { prior("gaussian", {0, 1, 2}, 3); }, "coordinate 3: a gaussian prior takes 2 parameters (mu, sigma), not n_params = 3");
    expect_error([] { make_coordinate_prior(0, "uniform", nullptr, 2); }, "params is NULL");
    expect_error([] { prior("gaussian", {0, 0}, 1); }, "coordinate 1: the gaussian prior's sigma = 0 is not above 0");
    expect_error([] { prior("gaussian", {NAN, 1}); }, "the gaussian prior's mu = nan is not finite");
    expect_error([] { prior("student_t", {0, 1, -1}); }, "the student_t prior's nu = -1 is not above 0");
    expect_error([] { prior("lognormal", {0, -2}); }, "the lognormal prior's sigma = -2 is not above 0");
    expect_error([] { prior("uniform", {1, 1}); }, "the uniform prior's a = 1 is not below b = 1");
    expect_error([] { prior("smoothbox", {0, 1, 0}); }, "the smoothbox prior's sigma = 0 is not above 0");
    expect_error([] { prior("trapezoidal", {0, 2, 1, 3}, 2); },
                 "coordinate 2: the trapezoidal prior's a = 0, u = 2, v = 1, b = 3 are not in the order a <= u <= v <= b");
    expect_error([] { prior("spline_trapezoidal", {0, 0, 0, 0}); }, "a = 0 is not below b = 0");
    expect_error([] { prior("uniform", {-1e308, 1e308}); }, "its width or scale is beyond double precision");
    expect_error([] { prior("smoothbox", {0, 1, 1e-320}); }, "its width or scale is beyond double precision");
    // Degenerate ramps or plateau are valid: a triangle, a half-trapezoid.
    assert_close(pdf(prior("trapezoidal", {0, 1, 1, 2}), 1.0), 1.0, 1e-16);
    assert_close(pdf(prior("trapezoidal", {0, 0, 1, 2}), 0.0), 2.0 / 3.0, 1e-16);
}

static void test_support_against_bounds(void**) {
    // Unbounded support: any hard bounds.
    check_prior_support(0, prior("gaussian", {0, 1}), 0.5, 4.0);
    check_prior_support(0, prior("smoothbox", {0, 1, 1}), -INFINITY, INFINITY);
    check_prior_support(0, prior("uniform", {-1, 2}), -1, 2);
    check_prior_support(0, prior("spline_trapezoidal", {-1, 0, 1, 2}), -1, 2);
    check_prior_support(0, prior("lognormal", {0, 1}), 0.0, INFINITY);
    check_prior_support(0, prior("lognormal", {0, 1}), 1.0, 3.0);
    expect_error([] { check_prior_support(2, prior("uniform", {-1, 2}), -INFINITY, INFINITY); },
                 "coordinate 2: the uniform prior has the bounded support [a, b] = [-1, 2] but the hard bounds are "
                 "lb[2] = -inf, ub[2] = inf: such a prior needs lb = a and ub = b");
    expect_error([] { check_prior_support(0, prior("trapezoidal", {-1, 0, 1, 2}), -1, 3); }, "ub[0] = 3");
    expect_error([] { check_prior_support(1, prior("lognormal", {0, 1}), -1, INFINITY); },
                 "coordinate 1: the lognormal prior lives on x > 0 but lb[1] = -1: it needs lb[1] >= 0");
}

static void test_checkpoint_round_trip(void**) {
    const CoordinatePrior p = prior("spline_trapezoidal", {-1, 0, 1, 2});
    Writer out;
    p.write(out);
    Reader in(out.bytes().data(), out.bytes().size());
    const CoordinatePrior back = CoordinatePrior::read(in, 0);
    assert_true(back.kind == p.kind && back.params == p.params);
    // An invalid prior in a file is refused by the same rules.
    Writer bad;
    bad.i64(static_cast<int64_t>(CoordinatePrior::Kind::uniform));
    bad.doubles({5.0, 1.0});
    const std::vector<uint8_t>& bytes = bad.bytes();
    Reader bad_in(bytes.data(), bytes.size());
    expect_error([&] { CoordinatePrior::read(bad_in, 4); }, "coordinate 4: the uniform prior's a = 5 is not below b = 1");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_kinds_integrate_to_one),
        cmocka_unit_test(test_unbounded_kinds_integrate_to_one),
        cmocka_unit_test(test_values_at_points),
        cmocka_unit_test(test_continuity_and_smooth_ramps),
        cmocka_unit_test(test_invalid_parameters_are_refused),
        cmocka_unit_test(test_support_against_bounds),
        cmocka_unit_test(test_checkpoint_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
