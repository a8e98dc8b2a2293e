// Kernel, mean, posterior, predictions and the rank-1 update against dense formulas.
#include <cmath>

#include "gp/gp.hpp"
#include "gp_test_data.hpp"
#include "test_util.h"

using namespace libvbmc;
using namespace libvbmc_test;

static void test_kernel_and_mean_formulas(void**) {
    const int dim = 3;
    const std::vector<double> theta{std::log(0.5), std::log(2.0), std::log(1.5), std::log(1.7), std::log(0.1),
                                    2.0, 0.1, -0.2, 0.3, std::log(1.0), std::log(2.0), std::log(0.5)};
    const double x1[] = {0.3, -1.0, 2.0}, x2[] = {-0.2, 0.5, 1.0};
    const double r2 = std::pow(0.5 / 0.5, 2) + std::pow(1.5 / 2.0, 2) + std::pow(1.0 / 1.5, 2);
    assert_close(gp_kernel(x1, x2, theta.data(), dim), 1.7 * 1.7 * std::exp(-0.5 * r2), 1e-14);
    assert_close(gp_kernel(x1, x1, theta.data(), dim), 1.7 * 1.7, 1e-14);
    const double q = std::pow(0.2 / 1.0, 2) + std::pow(-0.8 / 2.0, 2) + std::pow(1.7 / 0.5, 2);
    assert_close(gp_mean(x1, theta.data(), dim, 0.0), 2.0 - 0.5 * q, 1e-14);
    // Heavy tails, nu = 4: m0 - 2 sum_d log(1 + z_d^2 / 4).
    const double t = std::log(1.0 + 0.04 / 4.0) + std::log(1.0 + 0.16 / 4.0) + std::log(1.0 + 11.56 / 4.0);
    assert_close(gp_mean(x1, theta.data(), dim, 4.0), 2.0 - 2.0 * t, 1e-14);
}

// The posterior's alpha and the predictions against the dense formulas, for one mean shape.
static void check_posterior_and_prediction(Rng& rng, double dof) {
    const int dim = 2, n = 12, m = 5;
    GpData data = make_data(n, dim, rng, true);
    data.mean_dof = dof;
    const std::vector<double> theta = make_theta(dim, rng);
    const GpSample sample = gp_posterior(data, theta);
    const Matrix c_inv = dense_inverse(dense_covariance(data, theta), nullptr);
    std::vector<double> resid(n);
    for (int i = 0; i < n; ++i) resid[i] = data.y[i] - dense_mean(data.x.row(i), theta, dim, dof);
    for (int i = 0; i < n; ++i) {
        double a = 0.0;
        for (int j = 0; j < n; ++j) a += c_inv(i, j) * resid[j];
        assert_close(sample.alpha[i], a, 1e-9 * (1.0 + std::fabs(a)));
    }
    Matrix xs(m, dim);
    for (double& v : xs.data) v = 3.0 * rng.uniform() - 1.5;
    std::vector<double> mean(m), var(m);
    gp_predict_sample(data, sample, xs, mean.data(), var.data());
    for (int s = 0; s < m; ++s) {
        std::vector<double> k(n);
        for (int i = 0; i < n; ++i) k[i] = gp_kernel(data.x.row(i), xs.row(s), theta.data(), dim);
        double mu = dense_mean(xs.row(s), theta, dim, dof), quad = 0.0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                mu += k[i] * c_inv(i, j) * resid[j];
                quad += k[i] * c_inv(i, j) * k[j];
            }
        assert_close(mean[s], mu, 1e-9);
        assert_close(var[s], std::exp(2.0 * theta[hyp::log_sf(dim)]) - quad, 1e-9);
    }
}

static void test_posterior_and_prediction_match_dense(void**) {
    Rng rng(11);
    for (double dof : {0.0, 4.0}) check_posterior_and_prediction(rng, dof);
}

static void test_predict_averages_samples(void**) {
    Rng rng(12);
    const int dim = 2, n = 10, m = 4;
    Gp gp;
    gp.dim = dim;
    gp.data = make_data(n, dim, rng, false);
    for (int s = 0; s < 3; ++s) gp.samples.push_back(gp_posterior(gp.data, make_theta(dim, rng)));
    Matrix xs(m, dim);
    for (double& v : xs.data) v = rng.normal();
    std::vector<double> mean, var;
    gp_predict(gp, xs, mean, var);
    for (int j = 0; j < m; ++j) {
        double mu[3], vv[3];
        Matrix row(1, dim);
        for (int d = 0; d < dim; ++d) row(0, d) = xs(j, d);
        for (int s = 0; s < 3; ++s) gp_predict_sample(gp.data, gp.samples[s], row, &mu[s], &vv[s]);
        const double mbar = (mu[0] + mu[1] + mu[2]) / 3.0;
        double spread = 0.0;
        for (double v : mu) spread += (v - mbar) * (v - mbar);
        assert_close(mean[j], mbar, 1e-12);
        assert_close(var[j], (vv[0] + vv[1] + vv[2]) / 3.0 + spread / 2.0, 1e-10);
    }
}

static void test_add_point_equals_refactorisation(void**) {
    Rng rng(13);
    const int dim = 3, n = 15;
    GpData data = make_data(n + 1, dim, rng, true);
    Gp gp;
    gp.dim = dim;
    gp.data.x = Matrix(n, dim);
    for (int i = 0; i < n; ++i)
        for (int d = 0; d < dim; ++d) gp.data.x(i, d) = data.x(i, d);
    gp.data.y.assign(data.y.begin(), data.y.begin() + n);
    gp.data.s2.assign(data.s2.begin(), data.s2.begin() + n);
    std::vector<std::vector<double>> thetas{make_theta(dim, rng), make_theta(dim, rng)};
    for (const auto& t : thetas) gp.samples.push_back(gp_posterior(gp.data, t));
    gp_add_point(gp, data.x.row(n), data.y[n], 0.004);
    data.s2[n] = 0.004;
    assert_int_equal(gp.data.size(), n + 1);
    for (size_t s = 0; s < thetas.size(); ++s) {
        const GpSample full = gp_posterior(data, thetas[s]);
        for (int i = 0; i <= n; ++i) {
            assert_close(gp.samples[s].alpha[i], full.alpha[i], 1e-9 * (1.0 + std::fabs(full.alpha[i])));
            for (int j = 0; j <= n; ++j) assert_close(gp.samples[s].chol(i, j), full.chol(i, j), 1e-10);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_and_mean_formulas),
        cmocka_unit_test(test_posterior_and_prediction_match_dense),
        cmocka_unit_test(test_predict_averages_samples),
        cmocka_unit_test(test_add_point_equals_refactorisation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
