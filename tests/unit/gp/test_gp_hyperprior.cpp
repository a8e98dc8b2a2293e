// Hyperpriors: densities normalised, derivatives against finite differences, CDF and quantile
// consistent; the empirical setup is well formed on a training set.
#include <cmath>

#include "gp/hyperprior.hpp"
#include "gp_test_data.hpp"
#include "test_util.h"

using namespace libvbmc;
using namespace libvbmc_test;

static std::vector<HyperPrior> all_priors() {
    std::vector<HyperPrior> p(4);
    p[0].kind = PriorKind::gaussian;
    p[0].mu = 0.3;
    p[0].sigma = 0.7;
    p[1].kind = PriorKind::student_t;
    p[1].mu = -1.0;
    p[1].sigma = 1.5;
    p[1].df = 3.0;
    p[2].kind = PriorKind::smoothbox;
    p[2].sigma = 0.4;
    p[2].a = -1.0;
    p[2].b = 2.0;
    p[3].kind = PriorKind::smoothbox_student_t;
    p[3].sigma = 0.5;
    p[3].a = 0.0;
    p[3].b = 1.0;
    p[3].df = 2.5;
    return p;
}

static void test_density_derivative_and_normalisation(void**) {
    for (const HyperPrior& p : all_priors()) {
        for (double x : {-3.1, -0.55, 0.2, 0.9, 1.7, 4.2}) {
            double d = 0.0;
            hyperprior_log_pdf(p, x, &d);
            const double h = 1e-6;
            const double fd = (hyperprior_log_pdf(p, x + h, nullptr) - hyperprior_log_pdf(p, x - h, nullptr)) / (2 * h);
            assert_close(d, fd, 1e-7 * (1.0 + std::fabs(fd)));
        }
        // The density integrates to the CDF increment (trapezoid on a fine grid).
        const double lo = -4.0, hi = 5.0;
        const int steps = 200000;
        double integral = 0.0;
        for (int k = 0; k <= steps; ++k) {
            const double x = lo + (hi - lo) * k / steps;
            const double w = (k == 0 || k == steps) ? 0.5 : 1.0;
            integral += w * std::exp(hyperprior_log_pdf(p, x, nullptr));
        }
        integral *= (hi - lo) / steps;
        assert_close(integral, hyperprior_cdf(p, hi) - hyperprior_cdf(p, lo), 1e-8);
    }
    HyperPrior flat;
    double d = 1.0;
    assert_close(hyperprior_log_pdf(flat, 3.0, &d), 0.0, 0.0);
    assert_close(d, 0.0, 0.0);
}

// The CDF's closed forms (df = 1, 3) and its incomplete-beta path (df = 5) against 1/2 plus
// Simpson's rule on the density from 0 to t.
static void test_student_t_cdf_values(void**) {
    for (double df : {1.0, 3.0, 5.0}) {
        HyperPrior p;
        p.kind = PriorKind::student_t;
        p.mu = 0.0;
        p.sigma = 1.0;
        p.df = df;
        for (double t : {-5.0, -1.2, 0.0, 0.4, 2.5, 30.0}) {
            const int steps = 20000;  // even
            const double h = t / steps;
            double simpson = 0.0;
            for (int k = 0; k <= steps; ++k) {
                const double w = (k == 0 || k == steps) ? 1.0 : (k % 2 ? 4.0 : 2.0);
                simpson += w * std::exp(hyperprior_log_pdf(p, k * h, nullptr));
            }
            assert_close(hyperprior_cdf(p, t), 0.5 + simpson * h / 3.0, 1e-11);
        }
    }
}

static void test_quantile_inverts_cdf(void**) {
    for (const HyperPrior& p : all_priors()) {
        for (double prob : {0.001, 0.2, 0.5, 0.77, 0.999}) {
            const double x = hyperprior_quantile(p, prob, -INFINITY, INFINITY);
            assert_close(hyperprior_cdf(p, x), prob, 1e-10);
        }
        const double lo = -0.5, hi = 1.5;
        const double target = 0.5 * (hyperprior_cdf(p, lo) + hyperprior_cdf(p, hi));
        const double x = hyperprior_quantile(p, target, lo, hi);
        assert_true(x >= lo && x <= hi);
        assert_close(hyperprior_cdf(p, x), target, 1e-10);
    }
}

static void test_setup_is_well_formed(void**) {
    Rng rng(31);
    const int dim = 3;
    const GpData data = make_data(40, dim, rng, false);
    const std::vector<double> plb(dim, -2.0), pub(dim, 2.0);
    GpHyperpriorSettings settings;
    const GpHyperSetup s = gp_hyper_setup(data, plb, pub, settings);
    const size_t count = hyp::count(dim);
    assert_int_equal(s.lower.size(), count);
    for (size_t i = 0; i < count; ++i) {
        assert_true(s.lower[i] <= s.upper[i]);
        assert_true(s.plausible_lower[i] >= s.lower[i] && s.plausible_upper[i] <= s.upper[i]);
        assert_true(std::isfinite(s.plausible_lower[i]) && std::isfinite(s.plausible_upper[i]));
        assert_true(std::isfinite(s.x0[i]));
    }
    // Noise floor, length-scale and noise priors as PyVBMC sets them.
    assert_close(s.lower[hyp::log_sn(dim)], std::log(std::sqrt(1e-5)), 1e-14);
    assert_true(s.priors[hyp::log_sn(dim)].kind == PriorKind::student_t);
    assert_close(s.priors[hyp::log_sn(dim)].mu, std::log(std::sqrt(1e-5)), 1e-14);
    assert_close(s.priors[hyp::log_sn(dim)].sigma, 0.5, 0.0);
    assert_close(s.priors[hyp::log_ell(1)].mu, std::log(std::sqrt(dim / 6.0) * 4.0), 1e-14);
    assert_close(s.priors[hyp::log_ell(1)].sigma, 0.5 * std::log(1e3), 1e-14);
    assert_true(s.priors[hyp::m0(dim)].kind == PriorKind::uniform);
    // Quadratic-mean bound: m0 <= max(hpd y) + max(tol_sd, min(D, range of hpd y)).
    double y_max = -INFINITY;
    for (double y : data.y) y_max = std::max(y_max, y);
    assert_true(s.upper[hyp::m0(dim)] > y_max && s.upper[hyp::m0(dim)] <= y_max + dim);
    assert_true(std::isinf(s.lower[hyp::m0(dim)]));
}

// The noise prior by PyVBMC's uncertainty_handling_level (_gp_hyp): noise_size guides an exact
// target only; unknown noise (level 1) widens the prior's scale to log(10); told noise (level 2)
// keeps the floor as its centre.
static void test_noise_prior_by_level(void**) {
    Rng rng(35);
    const int dim = 2;
    const GpData data = make_data(30, dim, rng, false);
    const size_t sn = static_cast<size_t>(hyp::log_sn(dim));
    GpHyperpriorSettings settings;
    settings.noise_size = 0.3;
    const double floor = std::log(std::sqrt(1e-5));
    const double expected_mu[] = {std::log(0.3), floor, floor};
    const double expected_sigma[] = {0.5, std::log(10.0), 0.5};
    for (int level = 0; level < 3; ++level) {
        settings.uncertainty_handling_level = level;
        const GpHyperSetup s = gp_hyper_setup(data, {-2.0, -2.0}, {2.0, 2.0}, settings);
        assert_close(s.priors[sn].mu, expected_mu[level], 1e-14);
        assert_close(s.priors[sn].sigma, expected_sigma[level], 1e-14);
        assert_close(s.x0[sn], expected_mu[level], 1e-14);
        assert_close(s.lower[sn], floor, 1e-14);
    }
}

static void test_log_hyperprior_gradient(void**) {
    Rng rng(32);
    const int dim = 2;
    const GpData data = make_data(30, dim, rng, false);
    const GpHyperSetup s = gp_hyper_setup(data, {-2.0, -2.0}, {2.0, 2.0}, GpHyperpriorSettings{});
    const std::vector<double> theta = make_theta(dim, rng);
    std::vector<double> grad;
    gp_log_hyperprior(s, theta, &grad);
    auto f = [&](const std::vector<double>& t) { return gp_log_hyperprior(s, t, nullptr); };
    for (size_t i = 0; i < theta.size(); ++i)
        assert_close(grad[i], central_difference(f, theta, i, 1e-6), 1e-7);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_density_derivative_and_normalisation),
        cmocka_unit_test(test_student_t_cdf_values),
        cmocka_unit_test(test_quantile_inverts_cdf),
        cmocka_unit_test(test_setup_is_well_formed),
        cmocka_unit_test(test_log_hyperprior_gradient),
        cmocka_unit_test(test_noise_prior_by_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
