// The refit objective: the mixture's responsibility (normalised, gradient against central finite
// differences), the conditional ELBO's gradient against central differences, and its optimum on a
// Gaussian surrogate against the closed-form product of Gaussians.
#include "refine/conditional_elbo.hpp"

#include <cmath>

#include "../elbo/elbo_test_fixtures.hpp"
#include "refine_test_fixtures.hpp"

using namespace libvbmc;
using namespace libvbmc_test;

static VariationalPosterior three_components() {
    return diagonal_mixture({0.5, 0.3, 0.2}, {{0.0, 0.1, -0.2}, {0.8, -0.5, 0.3}, {-0.6, 0.4, 0.9}},
                            {{0.7, 0.5, 0.9}, {0.4, 0.8, 0.6}, {1.1, 0.6, 0.5}});
}

static void test_responsibilities_sum_to_one_with_exact_gradient(void** state) {
    (void)state;
    const VariationalPosterior vp = three_components();
    const Responsibility responsibility(vp);
    const std::vector<double> w = {0.3, -0.1, 0.5};
    double total = 0.0;
    for (int j = 0; j < vp.k; ++j) total += std::exp(responsibility.log_value(j, w.data(), nullptr));
    assert_close(total, 1.0, 1e-14);
    for (int j = 0; j < vp.k; ++j) {
        std::vector<double> grad(3);
        responsibility.log_value(j, w.data(), grad.data());
        const std::vector<double> fd = central_diff([&](const std::vector<double>& x) { return responsibility.log_value(j, x.data(), nullptr); }, w, 1e-6);
        for (size_t d = 0; d < 3; ++d) assert_close(grad[d], fd[d], 1e-7 * (1.0 + std::fabs(fd[d])));
    }
}

static void test_gradient_matches_finite_differences(void** state) {
    (void)state;
    Rng rng(21);
    const int dim = 3;
    const Gp gp = random_gp(dim, 25, rng, {make_theta(dim, 0.9, 1.1, 0.1, 0.4, -0.1, 1.8), make_theta(dim, 1.2, 0.9, 0.05, 0.1, 0.1, 2.2)});
    const VariationalPosterior vp = three_components();
    const Responsibility responsibility(vp);
    const DiagGaussian component{{0.8, -0.5, 0.3}, {0.16, 0.64, 0.36}};
    const ConditionalElbo objective(gp, responsibility, 1, component, {0.7, -0.3, 0.2}, 0.3);
    const std::vector<double> nu = {0.75, -0.4, 0.25}, log_rho = {std::log(0.3), std::log(0.5), std::log(0.35)};
    std::vector<double> grad;
    objective.value(nu, log_rho, &grad);
    std::vector<double> params = nu;
    params.insert(params.end(), log_rho.begin(), log_rho.end());
    const std::vector<double> fd = central_diff(
        [&](const std::vector<double>& p) {
            return objective.value(std::vector<double>(p.begin(), p.begin() + dim), std::vector<double>(p.begin() + dim, p.end()), nullptr);
        },
        params, 1e-5);
    for (size_t i = 0; i < fd.size(); ++i) assert_close(grad[i], fd[i], 1e-6 * (1.0 + std::fabs(fd[i])));
}

// Surrogate mean log N(w; m, S), one component N(mu, v), window N(c, s^2 v): the target
// N(m, S) N(c, s^2 v) / N(mu, v) is Gaussian, with precision P = 1/S + 1/(s^2 v) - 1/v and mean
// (m/S + c/(s^2 v) - mu/v) / P, and J is stationary exactly there.
static void test_optimum_on_a_gaussian_surrogate(void** state) {
    (void)state;
    const std::vector<double> m = {0.3, -0.2}, sd = {0.8, 1.3};
    const Gp gp = gaussian_surrogate(m, sd).build();
    const VariationalPosterior vp = diagonal_mixture({1.0}, {{0.0, 0.5}}, {{1.2, 0.9}});
    const Responsibility responsibility(vp);
    const DiagGaussian component{{0.0, 0.5}, {1.44, 0.81}};
    const std::vector<double> centre = {0.4, 0.1};
    const double left = 0.3;
    const ConditionalElbo objective(gp, responsibility, 0, component, centre, left);
    std::vector<double> nu(2), log_rho(2);
    for (size_t d = 0; d < 2; ++d) {
        const double s = sd[d] * sd[d], window = left * component.var[d];
        const double precision = 1.0 / s + 1.0 / window - 1.0 / component.var[d];
        nu[d] = (m[d] / s + centre[d] / window - component.mean[d] / component.var[d]) / precision;
        log_rho[d] = -0.5 * std::log(precision);
    }
    std::vector<double> grad;
    objective.value(nu, log_rho, &grad);
    for (double g : grad) assert_close(g, 0.0, 1e-9);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_responsibilities_sum_to_one_with_exact_gradient),
        cmocka_unit_test(test_gradient_matches_finite_differences),
        cmocka_unit_test(test_optimum_on_a_gaussian_surrogate),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
