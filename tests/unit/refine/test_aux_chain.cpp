// Auxiliary-variable chain (Havasi et al. 2021, appendix A, centre form): the conditional is Bayes'
// rule, the centre's law is q(c_k), and a chain that conditions without refitting reproduces its
// prior exactly (Monte Carlo moments within five standard errors).
#include "refine/aux_chain.hpp"

#include <cmath>

#include "refine_test_fixtures.hpp"
#include "util/math.hpp"

using namespace libvbmc;
using namespace libvbmc_test;

namespace {
const std::vector<double> kPriorMean = {1.0, -0.5}, kPriorVar = {0.5, 2.0};

double log_normal(double x, double mean, double var) { return -0.5 * (kLog2Pi + std::log(var) + (x - mean) * (x - mean) / var); }

DiagGaussian some_q() { return {{0.7, -0.2}, {0.3, 1.1}}; }
}  // namespace

// q(w | c) ∝ q(w) p(c | w): their log difference does not depend on w.
static void test_condition_is_bayes_rule(void** state) {
    (void)state;
    const AuxStep step{0.7, &kPriorVar, 0.3};
    const DiagGaussian q = some_q();
    const std::vector<double> before = {0.9, -0.4}, centre = {0.5, 0.8};
    const DiagGaussian post = step.condition(q, before, centre);
    for (size_t d = 0; d < 2; ++d) {
        auto log_ratio = [&](double w) {
            const double r = step.ratio;
            const double log_p_c = log_normal(centre[d], (1.0 - r) * before[d] + r * w, r * (1.0 - r) * step.left_before * kPriorVar[d]);
            return log_normal(w, post.mean[d], post.var[d]) - log_normal(w, q.mean[d], q.var[d]) - log_p_c;
        };
        const double at_zero = log_ratio(0.0);
        for (double w : {-2.0, 0.4, 3.0}) assert_close(log_ratio(w), at_zero, 1e-12 * (1.0 + std::fabs(at_zero)));
    }
}

// With w ~ q, draw_centre gives c ~ N((1-r) c_{k-1} + r nu, r^2 rho^2 + r (1-r) s_{k-1}^2 v).
static void test_centre_has_the_law_of_the_appendix(void** state) {
    (void)state;
    const AuxStep step{0.6, &kPriorVar, 0.4};
    const DiagGaussian q = some_q();
    const std::vector<double> before = {0.9, -0.4};
    Rng rng(4);
    const int n = 100000;
    std::vector<double> centres;
    std::vector<double> w(2);
    for (int i = 0; i < n; ++i) {
        for (size_t d = 0; d < 2; ++d) w[d] = q.mean[d] + std::sqrt(q.var[d]) * rng.normal();
        const std::vector<double> c = step.draw_centre(w, before, rng);
        centres.insert(centres.end(), c.begin(), c.end());
    }
    const double r = step.ratio;
    for (int d = 0; d < 2; ++d)
        assert_gaussian_moments(centres, 2, d, (1.0 - r) * before[d] + r * q.mean[d],
                                r * r * q.var[d] + r * (1.0 - r) * step.left_before * kPriorVar[d]);
}

// Starting from the prior itself and conditioning step after step (a fresh draw of each q_k, as after
// a kept refit), the final draw has the prior's law: the split leaves p0 unchanged.
static void test_chain_without_refits_reproduces_the_prior(void** state) {
    (void)state;
    Rng rng(9);
    const int n = 100000, aux_count = 4;
    std::vector<double> draws;
    for (int i = 0; i < n; ++i) {
        DiagGaussian q{kPriorMean, kPriorVar};
        std::vector<double> centre = kPriorMean, w(2);
        AuxStep step{0.7, &kPriorVar, 1.0};
        for (int k = 1; k <= aux_count; ++k) {
            for (size_t d = 0; d < 2; ++d) w[d] = q.mean[d] + std::sqrt(q.var[d]) * rng.normal();
            if (k == aux_count) break;
            std::vector<double> next = step.draw_centre(w, centre, rng);
            q = step.condition(q, centre, next);
            centre = std::move(next);
            step.left_before = step.left_after();
        }
        draws.insert(draws.end(), w.begin(), w.end());
    }
    for (int d = 0; d < 2; ++d) assert_gaussian_moments(draws, 2, d, kPriorMean[d], kPriorVar[d]);
}

// After k steps from the prior, q_k is the prior given the parts: N(c_k, s_k^2 v).
static void test_conditioned_prior_is_the_window(void** state) {
    (void)state;
    Rng rng(2);
    DiagGaussian q{kPriorMean, kPriorVar};
    std::vector<double> centre = kPriorMean;
    AuxStep step{0.7, &kPriorVar, 1.0};
    for (int k = 1; k <= 3; ++k) {
        const std::vector<double> next = step.draw_centre(centre, centre, rng);
        q = step.condition(q, centre, next);
        for (size_t d = 0; d < 2; ++d) {
            assert_close(q.mean[d], next[d], 1e-12);
            assert_close(q.var[d], step.left_after() * kPriorVar[d], 1e-14);
        }
        centre = next;
        step.left_before = step.left_after();
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_condition_is_bayes_rule),
        cmocka_unit_test(test_centre_has_the_law_of_the_appendix),
        cmocka_unit_test(test_chain_without_refits_reproduces_the_prior),
        cmocka_unit_test(test_conditioned_prior_is_the_window),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
