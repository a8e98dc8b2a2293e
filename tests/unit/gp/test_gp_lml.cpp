// Log marginal likelihood against the dense formula, and its gradient against central
// finite differences.
#include <cmath>

#include "gp/gp.hpp"
#include "gp/lml.hpp"
#include "gp_test_data.hpp"
#include "test_util.h"

using namespace libvbmc;
using namespace libvbmc_test;

static double dense_lml(const GpData& data, const std::vector<double>& theta) {
    const int n = data.size(), dim = data.x.cols;
    double log_det = 0.0;
    const Matrix c_inv = dense_inverse(dense_covariance(data, theta), &log_det);
    double quad = 0.0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            quad += (data.y[i] - dense_mean(data.x.row(i), theta, dim, data.mean_dof)) * c_inv(i, j) *
                    (data.y[j] - dense_mean(data.x.row(j), theta, dim, data.mean_dof));
    return -0.5 * quad - 0.5 * log_det - 0.5 * n * std::log(2.0 * M_PI);
}

static void check_gradient(const GpData& data, const std::vector<double>& theta) {
    std::vector<double> grad;
    gp_log_marginal_likelihood(data, theta, &grad);
    auto f = [&](const std::vector<double>& t) { return gp_log_marginal_likelihood(data, t, nullptr); };
    for (size_t i = 0; i < theta.size(); ++i) {
        const double fd = central_difference(f, theta, i, 1e-5);
        assert_close(grad[i], fd, 1e-6 * (1.0 + std::fabs(fd)));
    }
}

static void test_lml_matches_dense_formula(void**) {
    Rng rng(21);
    for (int dim : {1, 3}) for (double dof : {0.0, 4.0}) {
        GpData data = make_data(14, dim, rng, true);
        data.mean_dof = dof;
        const std::vector<double> theta = make_theta(dim, rng);
        const double lml = gp_log_marginal_likelihood(data, theta, nullptr);
        assert_close(lml, dense_lml(data, theta), 1e-9 * (1.0 + std::fabs(lml)));
        std::vector<double> grad;
        assert_close(gp_log_marginal_likelihood(data, theta, &grad), lml, 1e-12 * (1.0 + std::fabs(lml)));
    }
}

// Both mean shapes: the heavy-tailed mean's derivatives carry the factor 1 / (1 + z^2/dof).
static void test_lml_gradient_matches_finite_differences(void**) {
    Rng rng(22);
    for (int dim : {1, 2, 4}) for (double dof : {0.0, 4.0, 1.5}) {
        GpData noisy = make_data(20, dim, rng, true), exact = make_data(20, dim, rng, false);
        noisy.mean_dof = exact.mean_dof = dof;
        check_gradient(noisy, make_theta(dim, rng));
        check_gradient(exact, make_theta(dim, rng));
    }
}

// Data far from the origin: the centred trace identity must stay accurate.
static void test_lml_gradient_far_from_origin(void**) {
    Rng rng(23);
    const int dim = 3;
    check_gradient(make_data(25, dim, rng, true, 50.0), make_theta(dim, rng, 50.0));
}

static void test_workspace_reuse_and_invalid_theta(void**) {
    Rng rng(24);
    const int dim = 2;
    GpLmlWorkspace work;
    const GpData big = make_data(30, dim, rng, true), small = make_data(8, dim, rng, false);
    const std::vector<double> theta = make_theta(dim, rng);
    std::vector<double> g1, g2;
    const double a = gp_log_marginal_likelihood(big, theta, &g1, work);
    gp_log_marginal_likelihood(small, theta, &g2, work);
    const double b = gp_log_marginal_likelihood(big, theta, &g2, work);
    assert_close(b, a, 0.0);
    for (size_t i = 0; i < g1.size(); ++i) assert_close(g2[i], g1[i], 0.0);
    std::vector<double> bad = theta;
    bad[hyp::log_sf(dim)] = NAN;
    assert_true(std::isinf(gp_log_marginal_likelihood(big, bad, &g1, work)));
}

// Moves of the mean hyperparameters reuse the cached factor; results equal a fresh workspace.
static void test_cached_factor_matches_fresh(void**) {
    Rng rng(25);
    const int dim = 3;
    GpData data = make_data(20, dim, rng, true);
    std::vector<double> theta = make_theta(dim, rng);
    GpLmlWorkspace work;
    gp_log_marginal_likelihood(data, theta, nullptr, work);
    theta[hyp::m0(dim)] += 0.3;
    theta[hyp::xm(dim, 1)] -= 0.2;
    theta[hyp::log_omega(dim, 2)] += 0.1;
    assert_close(gp_log_marginal_likelihood(data, theta, nullptr, work), gp_log_marginal_likelihood(data, theta, nullptr), 1e-12);
    theta[hyp::log_sn(dim)] += 0.1;
    assert_close(gp_log_marginal_likelihood(data, theta, nullptr, work), gp_log_marginal_likelihood(data, theta, nullptr), 1e-12);
    data.y[3] += 1.0;
    data.s2[4] += 0.5;
    work.invalidate();
    assert_close(gp_log_marginal_likelihood(data, theta, nullptr, work), gp_log_marginal_likelihood(data, theta, nullptr), 1e-12);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lml_matches_dense_formula),
        cmocka_unit_test(test_lml_gradient_matches_finite_differences),
        cmocka_unit_test(test_lml_gradient_far_from_origin),
        cmocka_unit_test(test_workspace_reuse_and_invalid_theta),
        cmocka_unit_test(test_cached_factor_matches_fresh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
