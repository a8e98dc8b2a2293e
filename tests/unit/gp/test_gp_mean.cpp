// The GP's prior mean (gp/mean_function.hpp): the heavy-tailed shape's top and tails, and its
// expectation under a Gaussian against a fine trapezoidal integral, with derivatives against
// central finite differences; the quadratic's closed form.
#include "gp/mean_function.hpp"

#include <cmath>
#include <initializer_list>

#include "test_util.h"

using namespace libvbmc;

// E_{N(mu, s^2)}[rho((x - xm) / omega)] by the trapezoidal rule on +-12 SD (error far below 1e-9).
static double integral(double mu, double s, double xm, double omega, double dof) {
    const int n = 48000;
    const double h = 24.0 / n;
    double sum = 0.0;
    for (int k = 0; k <= n; ++k) {
        const double t = -12.0 + k * h;
        const double w = (k == 0 || k == n) ? 0.5 : 1.0;
        sum += w * std::exp(-0.5 * t * t) * mean_rho((mu + s * t - xm) / omega, dof);
    }
    return sum * h / std::sqrt(2.0 * M_PI);
}

// Same top and curvature as the quadratic; tails fall off as dof log|z|, far above the quadratic.
static void test_heavy_tailed_shape(void**) {
    for (double dof : {1.5, 4.0, 30.0}) {
        assert_close(mean_rho(0.0, dof), 0.0, 0.0);
        const double h = 1e-4;
        const double curvature = (mean_rho(h, dof) - 2.0 * mean_rho(0.0, dof) + mean_rho(-h, dof)) / (h * h);
        assert_close(curvature, -1.0, 1e-6);
        assert_close(mean_rho(1e6, dof) - mean_rho(1e5, dof), -dof * std::log(10.0), 1e-6 * dof);
        assert_true(mean_rho(5.0, dof) > mean_rho(5.0, 0.0));
    }
    assert_close(mean_rho(3.0, 1e9), mean_rho(3.0, 0.0), 1e-7);  // nu -> infinity: the quadratic
}

static void check_term(double mu, double s, double xm, double omega, double dof, double tol) {
    const double inv_omega2 = 1.0 / (omega * omega);
    const GaussianMeanTerm t = expected_mean_term(mu, s, xm, inv_omega2, dof);
    assert_close(t.value, integral(mu, s, xm, omega, dof), tol);
    const double h = 1e-5;
    const double d_mu = (expected_mean_term(mu + h, s, xm, inv_omega2, dof).value -
                         expected_mean_term(mu - h, s, xm, inv_omega2, dof).value) / (2.0 * h);
    const double s2 = s * s;
    const double d_s2 = (expected_mean_term(mu, std::sqrt(s2 + h), xm, inv_omega2, dof).value -
                         expected_mean_term(mu, std::sqrt(s2 - h), xm, inv_omega2, dof).value) / (2.0 * h);
    assert_close(t.d_mu, d_mu, 1e-7 * (1.0 + std::fabs(d_mu)));
    assert_close(t.d_s2, d_s2, 1e-6 * (1.0 + std::fabs(d_s2)));
}

static void test_expected_term_quadratic_closed_form(void**) {
    const GaussianMeanTerm t = expected_mean_term(1.0, 0.5, -0.5, 1.0 / 4.0, 0.0);
    assert_close(t.value, -0.5 * (2.25 + 0.25) / 4.0, 1e-15);
    check_term(1.0, 0.5, -0.5, 2.0, 0.0, 1e-9);
}

// Components narrower than the mean's top, and as wide (the quadrature's stated accuracy there:
// 1.3e-7 at nu = 4, 1.6e-5 at nu = 1.5).
static void test_expected_term_heavy_tailed(void**) {
    for (double dof : {4.0, 1.5})
        for (double offset : {0.0, 0.7, 3.0, 20.0})
            for (double s : {0.05, 0.4, 1.5}) check_term(0.3 + offset * 1.5, s, 0.3, 1.5, dof, dof > 2.0 ? 2e-7 : 2e-5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heavy_tailed_shape),
        cmocka_unit_test(test_expected_term_quadratic_closed_form),
        cmocka_unit_test(test_expected_term_heavy_tailed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
