// The bbq acquisition (bbq_variance.hpp) against its definition: beta_a against refitting BBQ's
// l-GP with the point added (the change of int m_l p per unit of l_a - mu_a), the gain against a
// Monte Carlo average of (m0 + beta (l_a - mu_a))^2 - m0^2 over the surrogate's log l_a, and the
// value -log gain, +inf outside the hard limits.
#include "acquisition/bbq_variance.hpp"

#include <cmath>
#include <limits>

#include "acquisition/expected_noise.hpp"
#include "bq/zero_mean_gp.hpp"
#include "test_util.h"

using namespace libvbmc;

// 2-D surrogate of a Gaussian log density on 16 random points.
static Gp make_gp() {
    Gp gp;
    gp.dim = 2;
    Rng rng(31);
    for (int i = 0; i < 16; ++i) {
        const double x[2] = {1.3 * rng.normal(), 1.3 * rng.normal()};
        gp.data.x.append_row(x, 2);
        gp.data.y.push_back(-0.5 * (x[0] * x[0] + 0.6 * x[1] * x[1]));
        gp.data.s2.push_back(0.0);
    }
    std::vector<double> theta(hyp::count(2), 0.0);
    theta[hyp::log_ell(0)] = std::log(0.9);
    theta[hyp::log_ell(1)] = std::log(1.1);
    theta[hyp::log_sf(2)] = std::log(1.2);
    theta[hyp::log_sn(2)] = std::log(0.01);
    gp.samples.push_back(gp_posterior(gp.data, theta));
    return gp;
}

static VariationalPosterior make_vp() {
    VariationalPosterior vp;
    vp.dim = 2;
    vp.k = 1;
    vp.w = {1.0};
    vp.mu = Matrix(1, 2);
    vp.sigma = {1.0};
    vp.lambda = {1.0, 1.25};
    return vp;
}

static AcqSettings settings() {
    AcqSettings s;
    s.kind = AcqKind::bbq;
    s.variance_regularized = false;
    return s;
}

// int m_l p for a zero-mean GP on l: sum_i alpha_i int k(x, x_i) p(x) dx.
static double integral_of_mean(const ZeroMeanGp& l, const BbqMeasure& p) {
    const int dim = l.data.x.cols;
    std::vector<double> tau2(static_cast<size_t>(dim)), inv(static_cast<size_t>(dim));
    const double log_norm = kernel_mean_log_norm(l.kernel, p.var.data(), dim, tau2.data());
    for (int d = 0; d < dim; ++d) inv[static_cast<size_t>(d)] = 1.0 / tau2[static_cast<size_t>(d)];
    double total = 0.0;
    for (int i = 0; i < l.data.size(); ++i)
        total += l.sample.alpha[static_cast<size_t>(i)] * kernel_mean_at(log_norm, inv.data(), p.mean.data(), l.data.x.row(i), dim);
    return total;
}

static Matrix candidates() {
    Matrix xs(3, 2);
    const double rows[3][2] = {{0.3, -0.2}, {1.1, 0.7}, {-0.8, 1.4}};
    for (int j = 0; j < 3; ++j) xs(j, 0) = rows[j][0], xs(j, 1) = rows[j][1];
    return xs;
}

// Adding (x_a, l_a) to the l-GP with its hyperparameters, at the noise the evaluation has on l,
// moves int m_l p by beta_a (l_a - mu_a).
static void test_beta_is_the_change_of_the_integral_on_refit(void** state) {
    (void)state;
    const Gp gp = make_gp();
    const BbqVariance bbq(gp, make_vp(), 0.0, settings(), 5);
    const Matrix xs = candidates();
    const std::vector<BbqGainTerms> terms = bbq.terms(xs);
    const ExpectedNoise noise = expected_noise(gp, xs);
    const ZeroMeanGp& l = bbq.model().l;
    const double before = integral_of_mean(l, bbq.model().p);
    for (int j = 0; j < xs.rows; ++j) {
        const BbqGainTerms& t = terms[static_cast<size_t>(j)];
        const double mean_l = std::exp(t.log_l + 0.5 * t.var);
        GpData grown = l.data;
        grown.x.append_row(xs.row(j), 2);
        grown.y.push_back(t.mu + 0.5);
        grown.s2.push_back(mean_l * mean_l * noise.mean(static_cast<size_t>(j)));
        const ZeroMeanGp refit = zero_mean_gp(grown, l.sample.theta);
        const double change = integral_of_mean(refit, bbq.model().p) - before;
        assert_true(std::fabs(t.beta) > 1e-6);
        assert_close(change / 0.5, t.beta, 1e-6 * (1.0 + std::fabs(t.beta)));
    }
}

// gain_a = E[(m0 + beta (l_a - mu))^2] - m0^2, log l_a ~ N(log_l, var): against 400000 draws,
// within 5 of their standard errors.
static void test_gain_matches_monte_carlo(void** state) {
    (void)state;
    const Gp gp = make_gp();
    const BbqVariance bbq(gp, make_vp(), 0.0, settings(), 5);
    const Matrix xs = candidates();
    const std::vector<BbqGainTerms> terms = bbq.terms(xs);
    std::vector<double> acq(static_cast<size_t>(xs.rows));
    bbq.evaluate(xs, acq.data());
    Rng rng(77);
    const double m0 = bbq.mean_z();
    for (int j = 0; j < xs.rows; ++j) {
        const BbqGainTerms& t = terms[static_cast<size_t>(j)];
        assert_true(t.var > 0.0 && t.var < 1.0);  // moderate: the Monte Carlo average converges
        const int n = 400000;
        double sum = 0.0, sum2 = 0.0;
        for (int i = 0; i < n; ++i) {
            const double m = m0 + t.beta * (std::exp(t.log_l + std::sqrt(t.var) * rng.normal()) - t.mu);
            sum += m * m - m0 * m0;
            sum2 += (m * m - m0 * m0) * (m * m - m0 * m0);
        }
        const double mean = sum / n, standard_error = std::sqrt((sum2 / n - mean * mean) / n);
        const double gain = std::exp(bbq.log_gain(t));
        assert_true(standard_error < 0.2 * gain);  // the comparison can tell a wrong formula
        assert_close(gain, mean, 5.0 * standard_error);
        assert_close(acq[static_cast<size_t>(j)], -bbq.log_gain(t), 1e-12);
    }
}

static void test_outside_the_hard_limits_is_infinite(void** state) {
    (void)state;
    const Gp gp = make_gp();
    AcqSettings s = settings();
    s.lb_eps = {-1.0, -1.0};
    s.ub_eps = {1.0, 1.0};
    const BbqVariance bbq(gp, make_vp(), 0.0, s, 5);
    const Matrix xs = candidates();  // rows 1 and 2 lie outside [-1, 1]^2
    std::vector<double> acq(3);
    bbq.evaluate(xs, acq.data());
    assert_true(std::isfinite(acq[0]));
    assert_true(acq[1] == std::numeric_limits<double>::infinity() && acq[2] == std::numeric_limits<double>::infinity());
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_beta_is_the_change_of_the_integral_on_refit),
        cmocka_unit_test(test_gain_matches_monte_carlo),
        cmocka_unit_test(test_outside_the_hard_limits_is_infinite),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
