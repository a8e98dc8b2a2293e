// Bounded quasi-Newton minimiser on a bounded quadratic (known constrained minimum) and on
// Rosenbrock, with and without an active bound.
#include <cmath>

#include "gp/optimize.hpp"
#include "test_util.h"

using namespace libvbmc;

// f = sum_i c_i (x_i - t_i)^2 + 0.5 (x_0 - x_1)^2 ... kept separable plus one coupling term.
static double quadratic(const std::vector<double>& x, std::vector<double>& g) {
    const double t[3] = {2.0, -3.0, 0.5}, c[3] = {1.0, 4.0, 0.5};
    g.assign(3, 0.0);
    double f = 0.0;
    for (int i = 0; i < 3; ++i) {
        f += c[i] * (x[i] - t[i]) * (x[i] - t[i]);
        g[i] = 2.0 * c[i] * (x[i] - t[i]);
    }
    return f;
}

static void test_bounded_quadratic(void**) {
    MinimizeOptions opt;
    opt.tol = 1e-10;
    // Unconstrained minimum (2, -3, 0.5); box [0,1] x [-1,1] x [-inf, inf] makes x0 = 1, x1 = -1.
    const MinimizeResult r = minimize_bounded(quadratic, {0.5, 0.5, 10.0}, {0.0, -1.0, -INFINITY}, {1.0, 1.0, INFINITY}, opt);
    assert_true(r.converged);
    assert_close(r.x[0], 1.0, 0.0);
    assert_close(r.x[1], -1.0, 0.0);
    assert_close(r.x[2], 0.5, 1e-6);
    assert_close(r.f, 1.0 + 16.0, 1e-10);
    // Start outside the box: projected first.
    const MinimizeResult r2 = minimize_bounded(quadratic, {7.0, -9.0, 0.0}, {0.0, -1.0, -INFINITY}, {1.0, 1.0, INFINITY}, opt);
    assert_close(r2.x[0], 1.0, 0.0);
    assert_close(r2.x[1], -1.0, 0.0);
}

static double rosenbrock(const std::vector<double>& x, std::vector<double>& g) {
    const size_t n = x.size();
    g.assign(n, 0.0);
    double f = 0.0;
    for (size_t i = 0; i + 1 < n; ++i) {
        const double a = x[i + 1] - x[i] * x[i], b = 1.0 - x[i];
        f += 100.0 * a * a + b * b;
        g[i] += -400.0 * a * x[i] - 2.0 * b;
        g[i + 1] += 200.0 * a;
    }
    return f;
}

static void test_rosenbrock(void**) {
    MinimizeOptions opt;
    opt.tol = 1e-12;
    const std::vector<double> inf(4, INFINITY), minf(4, -INFINITY);
    const MinimizeResult r = minimize_bounded(rosenbrock, {-1.2, 1.0, -1.2, 1.0}, minf, inf, opt);
    for (double v : r.x) assert_close(v, 1.0, 1e-4);
    assert_true(r.f < 1e-8);
    // Bound x_0 <= 0.5 active: on the boundary the minimiser of 2-D Rosenbrock is (0.5, 0.25).
    const MinimizeResult rb = minimize_bounded(rosenbrock, {-1.2, 1.0}, {-2.0, -2.0}, {0.5, 2.0}, opt);
    assert_close(rb.x[0], 0.5, 0.0);
    assert_close(rb.x[1], 0.25, 1e-6);
    assert_close(rb.f, 0.25, 1e-10);
}

static double nan_outside(const std::vector<double>& x, std::vector<double>& g) {
    if (x[0] < 0.2) return NAN;  // undefined region: the search must back off
    g.assign(1, 2.0 * (x[0] - 1.0));
    return (x[0] - 1.0) * (x[0] - 1.0);
}

static void test_undefined_region(void**) {
    MinimizeOptions opt;
    const MinimizeResult r = minimize_bounded(nan_outside, {5.0}, {-INFINITY}, {INFINITY}, opt);
    assert_close(r.x[0], 1.0, 1e-4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounded_quadratic),
        cmocka_unit_test(test_rosenbrock),
        cmocka_unit_test(test_undefined_region),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
