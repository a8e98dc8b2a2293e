// The trust-region subproblem: the interior Newton step, the boundary solution's optimality
// conditions (Nocedal & Wright theorem 4.1), the hard case, and no random point of the ball doing
// better.
#include "optim/trust_region_step.hpp"
#include "util/error.hpp"

#include <cmath>

#include "optim_test_helpers.hpp"
#include "test_util.h"

using namespace libvbmc;
using namespace optim_test;

// H negative definite and the Newton step -H^{-1} g inside: the step is that Newton step.
static void test_interior_newton_step(void**) {
    Rng rng(1);
    const Matrix h = with_spectrum(random_rotation(4, rng), {-1.0, -2.0, -5.0, -9.0});
    const std::vector<double> g = {0.3, -0.2, 0.1, 0.4};
    const TrustRegionStep step = trust_region_step(g, h, 10.0);
    assert_true(step.interior);
    // H s = -g.
    for (int i = 0; i < 4; ++i) {
        double hs = 0.0;
        for (int j = 0; j < 4; ++j) hs += h(i, j) * step.s[static_cast<size_t>(j)];
        assert_close(hs, -g[static_cast<size_t>(i)], 1e-12);
    }
    assert_close(step.predicted_gain, model_gain(g, h, step.s), 1e-12);
}

// Indefinite H: the step lies on the boundary, (lambda I - H) s = g with lambda >= 0 and
// lambda I - H positive semi-definite.
static void test_boundary_step_meets_optimality_conditions(void**) {
    Rng rng(2);
    const Matrix h = with_spectrum(random_rotation(5, rng), {3.0, 1.0, -0.5, -2.0, -4.0});
    const std::vector<double> g = {1.0, 0.5, -0.7, 0.2, -0.1};
    const double radius = 0.8;
    const TrustRegionStep step = trust_region_step(g, h, radius);
    assert_false(step.interior);
    assert_close(norm(step.s), radius, 1e-10);
    // lambda from the first coordinate, then every coordinate must agree.
    std::vector<double> hs(5, 0.0);
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) hs[static_cast<size_t>(i)] += h(i, j) * step.s[static_cast<size_t>(j)];
    const double lambda = (g[0] + hs[0]) / step.s[0];
    assert_true(lambda >= 3.0 - 1e-8);  // lambda I - H positive semi-definite
    for (int i = 0; i < 5; ++i)
        assert_close(lambda * step.s[static_cast<size_t>(i)] - hs[static_cast<size_t>(i)], g[static_cast<size_t>(i)], 1e-8);
    assert_close(step.predicted_gain, model_gain(g, h, step.s), 1e-12);
}

// Hard case: g orthogonal to the eigenvector of the largest curvature; the step reaches the
// boundary along it.
static void test_hard_case_reaches_the_boundary(void**) {
    Matrix h(3, 3);
    h(0, 0) = 2.0;   // the direction of positive curvature, where g is 0
    h(1, 1) = -1.0;
    h(2, 2) = -3.0;
    const std::vector<double> g = {0.0, 0.5, 0.3};
    const TrustRegionStep step = trust_region_step(g, h, 2.0);
    assert_close(norm(step.s), 2.0, 1e-10);
    assert_true(std::fabs(step.s[0]) > 1.0);
    assert_close(step.predicted_gain, model_gain(g, h, step.s), 1e-12);
}

// No random point in the ball does better than the step.
static void test_no_point_of_the_ball_does_better(void**) {
    Rng rng(3);
    for (int trial = 0; trial < 20; ++trial) {
        const int n = 2 + trial % 5;
        std::vector<double> spectrum, g;
        for (int i = 0; i < n; ++i) {
            spectrum.push_back(3.0 * rng.normal());
            g.push_back(rng.normal());
        }
        const Matrix h = with_spectrum(random_rotation(n, rng), spectrum);
        const double radius = 0.1 + rng.uniform();
        const TrustRegionStep step = trust_region_step(g, h, radius);
        assert_true(norm(step.s) <= radius * (1.0 + 1e-12));
        for (int k = 0; k < 2000; ++k) {
            std::vector<double> s(static_cast<size_t>(n));
            for (double& v : s) v = rng.normal();
            const double scale = radius * std::pow(rng.uniform(), 1.0 / n) / norm(s);
            for (double& v : s) v *= scale;
            assert_true(model_gain(g, h, s) <= step.predicted_gain + 1e-10);
        }
    }
}

static void test_rejects_non_finite_input(void**) {
    const Matrix h = Matrix::identity(2);
    bool threw = false;
    try {
        trust_region_step({NAN, 0.0}, h, 1.0);
    } catch (const Error&) {
        threw = true;
    }
    assert_true(threw);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interior_newton_step),
        cmocka_unit_test(test_boundary_step_meets_optimality_conditions),
        cmocka_unit_test(test_hard_case_reaches_the_boundary),
        cmocka_unit_test(test_no_point_of_the_ball_does_better),
        cmocka_unit_test(test_rejects_non_finite_input),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
