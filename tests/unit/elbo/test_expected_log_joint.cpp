// Bayesian-quadrature expected log joint: value and variance against Monte Carlo, gradient
// against central finite differences, hyperparameter-sample averaging (eq. 10).
#include "elbo/expected_log_joint.hpp"

#include <cmath>

#include "elbo_test_fixtures.hpp"
#include "linalg/linalg.hpp"
#include "test_util.h"

using namespace libvbmc;
using namespace libvbmc_test;

// Posterior covariance of the latent f between a and b under one sample.
static double posterior_cov(const Gp& gp, const GpSample& s, const double* a, const double* b) {
    const int n = gp.data.size(), dim = gp.dim;
    std::vector<double> ka(n), kb(n);
    for (int i = 0; i < n; ++i) {
        ka[i] = gp_kernel(a, gp.data.x.row(i), s.theta.data(), dim);
        kb[i] = gp_kernel(b, gp.data.x.row(i), s.theta.data(), dim);
    }
    triangular_solve(s.chol, false, ka.data());
    triangular_solve(s.chol, false, kb.data());
    double dot = 0.0;
    for (int i = 0; i < n; ++i) dot += ka[i] * kb[i];
    return gp_kernel(a, b, s.theta.data(), dim) - dot;
}

static void check_value_and_variance_vs_monte_carlo(bool component_scales, double mean_dof) {
    Rng rng(11);
    const int dim = 2;
    Gp gp = random_gp(dim, 25, rng, {make_theta(dim, 0.9, 1.5, 0.05, 0.5, 0.1, 2.0)}, mean_dof);
    VariationalPosterior vp = random_vp(dim, 3, rng, true, component_scales);
    LogJointEstimate est;
    expected_log_joint(vp, gp, false, true, est);

    // E_q[posterior mean]: Monte Carlo over draws of q.
    const int n_mc = 40000;
    Matrix xs;
    vp_sample(vp, n_mc, rng, xs);
    std::vector<double> f_mean(n_mc), f_var(n_mc);
    gp_predict_sample(gp.data, gp.samples[0], xs, f_mean.data(), f_var.data());
    double mean = 0.0, sq = 0.0;
    for (double f : f_mean) mean += f;
    mean /= n_mc;
    for (double f : f_mean) sq += (f - mean) * (f - mean);
    const double se = std::sqrt(sq / (n_mc - 1) / n_mc);
    assert_close(est.value, mean, 4.0 * se);

    // Var[int f q] = E_{x, x' ~ q independent}[cov(x, x')].
    const int n_pairs = 6000;
    Matrix xa, xb;
    vp_sample(vp, n_pairs, rng, xa);
    vp_sample(vp, n_pairs, rng, xb);
    double cmean = 0.0, csq = 0.0;
    std::vector<double> cs(n_pairs);
    for (int i = 0; i < n_pairs; ++i) {
        cs[i] = posterior_cov(gp, gp.samples[0], xa.row(i), xb.row(i));
        cmean += cs[i];
    }
    cmean /= n_pairs;
    for (double c : cs) csq += (c - cmean) * (c - cmean);
    const double cse = std::sqrt(csq / (n_pairs - 1) / n_pairs);
    assert_close(est.variance, cmean, 4.0 * cse + 1e-12);
    assert_true(est.variance > 0.0);
}

static void test_value_and_variance_vs_monte_carlo(void**) {
    for (double mean_dof : {0.0, 4.0}) {  // the heavy-tailed mean's part by quadrature
        check_value_and_variance_vs_monte_carlo(false, mean_dof);
        check_value_and_variance_vs_monte_carlo(true, mean_dof);
    }
}

static void test_sample_averaging(void**) {
    Rng rng(12);
    const int dim = 3;
    std::vector<double> t1 = make_theta(dim, 0.8, 1.2, 0.1, 0.3, 0.0, 2.0);
    std::vector<double> t2 = make_theta(dim, 1.3, 0.7, 0.05, -0.2, 0.2, 1.5);
    Gp gp = random_gp(dim, 30, rng, {t1, t2});
    Gp gp1 = gp, gp2 = gp;
    gp1.samples = {gp.samples[0]};
    gp2.samples = {gp.samples[1]};
    VariationalPosterior vp = random_vp(dim, 2, rng, true);
    LogJointEstimate both, one, two;
    expected_log_joint(vp, gp, true, true, both);
    expected_log_joint(vp, gp1, true, true, one);
    expected_log_joint(vp, gp2, true, true, two);
    const double mean = 0.5 * (one.value + two.value);
    assert_close(both.value, mean, 1e-12);
    const double spread = (one.value - mean) * (one.value - mean) + (two.value - mean) * (two.value - mean);
    assert_close(both.variance, 0.5 * (one.variance + two.variance) + spread, 1e-12);
    assert_close(both.var_ss, spread + std::fabs(one.variance - two.variance) / std::sqrt(2.0), 1e-12);
    for (size_t i = 0; i < both.grad.size(); ++i) assert_close(both.grad[i], 0.5 * (one.grad[i] + two.grad[i]), 1e-12);
}

static void check_gradient(bool weights, bool component_scales = false, double mean_dof = 0.0) {
    Rng rng(weights ? 13 : 14);
    const int dim = 3;
    Gp gp = random_gp(dim, 20, rng, {make_theta(dim, 0.9, 1.1, 0.1, 0.4, -0.1, 1.8),
                                     make_theta(dim, 1.2, 0.9, 0.05, 0.1, 0.1, 0.6)}, mean_dof);
    VariationalPosterior vp = random_vp(dim, 3, rng, weights, component_scales);
    const std::vector<double> theta = vp.get_theta();
    LogJointEstimate est;
    expected_log_joint(vp, gp, true, false, est);
    assert_int_equal(static_cast<int>(est.grad.size()), vp.theta_size());
    auto f = [&](const std::vector<double>& t) {
        VariationalPosterior v = vp;
        v.set_theta(t);
        LogJointEstimate e;
        expected_log_joint(v, gp, false, false, e);
        return e.value;
    };
    const std::vector<double> fd = central_diff(f, theta, 1e-5);
    for (size_t i = 0; i < fd.size(); ++i) assert_close(est.grad[i], fd[i], 1e-6 * (1.0 + std::fabs(fd[i])));
}

static void test_gradient_fixed_weights(void**) { check_gradient(false); }
static void test_gradient_free_weights(void**) { check_gradient(true); }
static void test_gradient_component_scales(void**) {
    check_gradient(false, true);
    check_gradient(true, true);
}
// The heavy-tailed mean (the second sample's omega 0.6 puts components well into its tails).
static void test_gradient_heavy_tailed_mean(void**) {
    check_gradient(false, false, 4.0);
    check_gradient(true, true, 4.0);
    check_gradient(true, false, 1.5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_and_variance_vs_monte_carlo),
        cmocka_unit_test(test_sample_averaging),
        cmocka_unit_test(test_gradient_fixed_weights),
        cmocka_unit_test(test_gradient_free_weights),
        cmocka_unit_test(test_gradient_component_scales),
        cmocka_unit_test(test_gradient_heavy_tailed_mean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
