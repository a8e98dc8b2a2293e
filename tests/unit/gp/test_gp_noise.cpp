// Heteroskedastic GP (paper section 3.9: each point has its own noise variance s2_i added to the
// GP's sn^2): prediction, marginal likelihood and its gradient against the dense textbook
// formulas (Rasmussen & Williams eqs. 2.25-2.30) with noise SDs from 0 to 2, as noisy targets
// tell them; the largest posterior mean at the training points.
#include <algorithm>
#include <cmath>

#include "gp/gp.hpp"
#include "gp/lml.hpp"
#include "gp_test_data.hpp"
#include "test_util.h"

using namespace libvbmc;
using namespace libvbmc_test;

// Training data with per-point noise SDs spread over [0, 2] (every fifth point exact).
static GpData heteroskedastic_data(int n, int dim, Rng& rng) {
    GpData data = make_data(n, dim, rng, false);
    for (int i = 0; i < n; ++i) {
        const double sd = i % 5 == 0 ? 0.0 : 2.0 * rng.uniform();
        data.s2[i] = sd * sd;
        data.y[i] += sd * rng.normal();
    }
    return data;
}

static void test_noise_variance_is_sn2_plus_own(void**) {
    Rng rng(31);
    const GpData data = heteroskedastic_data(6, 2, rng);
    const std::vector<double> theta = make_theta(2, rng);
    const double sn2 = std::exp(2.0 * theta[hyp::log_sn(2)]);
    assert_close(gp_sn2(theta.data(), 2), sn2, 0.0);
    for (int i = 0; i < data.size(); ++i) assert_close(gp_noise_variance(data, sn2, i), sn2 + data.s2[i], 0.0);
    GpData no_s2 = data;
    no_s2.s2.clear();
    assert_close(gp_noise_variance(no_s2, sn2, 3), sn2, 0.0);
}

// f_mean = m(x*) + k*^T C^{-1} (y - m(X)), f_var = k(x*,x*) - k*^T C^{-1} k*, C = K + diag(sn2 + s2).
static void test_heteroskedastic_prediction_matches_dense(void**) {
    Rng rng(32);
    const int dim = 2, n = 25, m = 7;
    const GpData data = heteroskedastic_data(n, dim, rng);
    const std::vector<double> theta = make_theta(dim, rng);
    const Gp gp = gp_from_samples(data, {theta});
    const Matrix c_inv = dense_inverse(dense_covariance(data, theta), nullptr);
    std::vector<double> resid(n);
    for (int i = 0; i < n; ++i) resid[i] = data.y[i] - dense_mean(data.x.row(i), theta, dim);
    Matrix xs(m, dim);
    for (double& v : xs.data) v = 3.0 * rng.uniform() - 1.5;
    std::vector<double> mean, var;
    gp_predict(gp, xs, mean, var);
    for (int s = 0; s < m; ++s) {
        std::vector<double> k(n);
        for (int i = 0; i < n; ++i) k[i] = gp_kernel(data.x.row(i), xs.row(s), theta.data(), dim);
        double mu = dense_mean(xs.row(s), theta, dim), quad = 0.0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                mu += k[i] * c_inv(i, j) * resid[j];
                quad += k[i] * c_inv(i, j) * k[j];
            }
        assert_close(mean[s], mu, 1e-9 * (1.0 + std::fabs(mu)));
        assert_close(var[s], std::exp(2.0 * theta[hyp::log_sf(dim)]) - quad, 1e-9);
    }
    // The largest mean at the training points, from the same formula (k* = column of K).
    double best = -INFINITY;
    for (int s = 0; s < n; ++s) {
        double mu = dense_mean(data.x.row(s), theta, dim);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                mu += gp_kernel(data.x.row(i), data.x.row(s), theta.data(), dim) * c_inv(i, j) * resid[j];
        best = std::max(best, mu);
    }
    assert_close(gp_max_training_mean(gp), best, 1e-9 * (1.0 + std::fabs(best)));
    // With large noise the smoothed maximum lies below the largest noisy value.
    assert_true(gp_max_training_mean(gp) < *std::max_element(data.y.begin(), data.y.end()));
}

// log p(y) = -1/2 r^T C^{-1} r - 1/2 log det C - n/2 log 2 pi, and its gradient by finite differences.
static void test_heteroskedastic_lml_matches_dense(void**) {
    Rng rng(33);
    for (int dim : {1, 3}) {
        const int n = 20;
        const GpData data = heteroskedastic_data(n, dim, rng);
        const std::vector<double> theta = make_theta(dim, rng);
        double log_det = 0.0;
        const Matrix c_inv = dense_inverse(dense_covariance(data, theta), &log_det);
        double quad = 0.0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                quad += (data.y[i] - dense_mean(data.x.row(i), theta, dim)) * c_inv(i, j) *
                        (data.y[j] - dense_mean(data.x.row(j), theta, dim));
        const double dense = -0.5 * quad - 0.5 * log_det - 0.5 * n * std::log(2.0 * M_PI);
        std::vector<double> grad;
        const double lml = gp_log_marginal_likelihood(data, theta, &grad);
        assert_close(lml, dense, 1e-9 * (1.0 + std::fabs(dense)));
        auto f = [&](const std::vector<double>& t) { return gp_log_marginal_likelihood(data, t, nullptr); };
        for (size_t i = 0; i < theta.size(); ++i) {
            const double fd = central_difference(f, theta, i, 1e-5);
            assert_close(grad[i], fd, 1e-6 * (1.0 + std::fabs(fd)));
        }
    }
}

// A rank-1 update with a noisy point equals refactorising with that point's s2.
static void test_add_noisy_point_equals_refactorisation(void**) {
    Rng rng(34);
    const int dim = 2, n = 15;
    GpData data = heteroskedastic_data(n + 1, dim, rng);
    const std::vector<double> theta = make_theta(dim, rng);
    GpData first = data;
    first.x = Matrix(n, dim);
    for (int i = 0; i < n; ++i) std::copy(data.x.row(i), data.x.row(i) + dim, first.x.row(i));
    first.y.resize(n);
    first.s2.resize(n);
    Gp updated = gp_from_samples(first, {theta});
    data.s2[n] = 2.25;
    gp_add_point(updated, data.x.row(n), data.y[n], data.s2[n]);
    const GpSample direct = gp_posterior(data, theta);
    for (int i = 0; i <= n; ++i)
        assert_close(updated.samples[0].alpha[i], direct.alpha[i], 1e-9 * (1.0 + std::fabs(direct.alpha[i])));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_noise_variance_is_sn2_plus_own),
        cmocka_unit_test(test_heteroskedastic_prediction_matches_dense),
        cmocka_unit_test(test_heteroskedastic_lml_matches_dense),
        cmocka_unit_test(test_add_noisy_point_equals_refactorisation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
