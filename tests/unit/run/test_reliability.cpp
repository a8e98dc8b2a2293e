// The reliability checks: a surrogate that knows a Gaussian target passes with the posterior on
// the data; deliberately broken surrogates and posteriors are refused, each for its reason; the
// rise of the best told value over a window; when the unboosted posterior replaces the boosted
// one; the leave-one-out formula against refitting without the point.
#include "run/reliability.hpp"

#include <cmath>

#include "gp/loo.hpp"
#include "test_util.h"

using namespace libvbmc;

static const int kDim = 2;

// theta with isotropic length scale ell, output SD sf, noise SD sn and the negative quadratic
// mean m(x) = m0 - |x|^2 / 2 (omega = 1, centre 0).
static std::vector<double> theta(double ell, double sf, double sn, double m0) {
    std::vector<double> t(static_cast<size_t>(hyp::count(kDim)), 0.0);
    for (int d = 0; d < kDim; ++d) t[static_cast<size_t>(hyp::log_ell(d))] = std::log(ell);
    t[static_cast<size_t>(hyp::log_sf(kDim))] = std::log(sf);
    t[static_cast<size_t>(hyp::log_sn(kDim))] = std::log(sn);
    t[static_cast<size_t>(hyp::m0(kDim))] = m0;
    return t;
}

// n points of a 3 x 3 box with values of f = -|x|^2/2 + bump(x).
static GpData data(int n, double bump_height, double bump_frequency) {
    Rng rng(3);
    GpData d;
    d.x = Matrix(n, kDim);
    for (int i = 0; i < n; ++i) {
        double q = 0.0, bump = 0.0;
        for (int k = 0; k < kDim; ++k) {
            d.x(i, k) = 3.0 * rng.uniform() - 1.5;
            q += d.x(i, k) * d.x(i, k);
            bump += bump_height * std::sin(bump_frequency * d.x(i, k));
        }
        d.y.push_back(-0.5 * q + bump);
        d.s2.push_back(0.0);
    }
    return d;
}

// One Gaussian component with mean (c, c) and SD s.
static VariationalPosterior gaussian(double c, double s) {
    VariationalPosterior vp;
    vp.dim = kDim;
    vp.k = 1;
    vp.w = {1.0};
    vp.mu = Matrix(1, kDim, c);
    vp.sigma = {s};
    vp.lambda.assign(static_cast<size_t>(kDim), 1.0);
    return vp;
}

static void test_a_surrogate_that_knows_the_target_passes(void**) {
    const Gp gp = gp_from_samples(data(60, 0.0, 0.0), {theta(1.0, 1.0, 1e-3, 0.0)});
    const ReliabilityCheck c = check_reliability(gp, gaussian(0.0, 1.0), 0.01, 0.0);
    assert_true(c.reliable());
    assert_true(c.loo_error < 0.01);
    assert_close(c.mass_above_data, 0.0, 0.0);
}

// The posterior sits 8 SDs away, where no evaluation was made: unexplored, and the evaluations
// rise far above anything it covers.
static void test_a_posterior_off_the_data_is_refused(void**) {
    const Gp gp = gp_from_samples(data(60, 0.0, 0.0), {theta(1.0, 3.0, 1e-3, 0.0)});
    const ReliabilityCheck c = check_reliability(gp, gaussian(8.0, 0.5), 0.01, 0.0);
    assert_false(c.reliable());
    assert_true(c.mass_unexplored > 0.9);
    assert_true(c.best_value_gap > 30.0);
    assert_message_mentions(c.summary().c_str(), "has seen no evaluation");
    assert_message_mentions(c.summary().c_str(), "may miss a mode");
}

// A rough target the surrogate cannot follow (length scale far below the bumps' spacing): its
// leave-one-out predictions miss the high-density points.
static void test_a_surrogate_that_misses_left_out_points_is_refused(void**) {
    const Gp gp = gp_from_samples(data(60, 3.0, 25.0), {theta(0.005, 3.0, 1e-3, 0.0)});
    const ReliabilityCheck c = check_reliability(gp, gaussian(0.0, 1.0), 0.01, 0.0);
    assert_true(c.loo_error > 1.0);
    assert_message_mentions(c.summary().c_str(), "misses left-out");
}

// A mean function 10 above every evaluation, and a posterior where the surrogate follows it.
static void test_a_posterior_above_the_data_is_refused(void**) {
    const Gp gp = gp_from_samples(data(60, 0.0, 0.0), {theta(0.05, 1.0, 1e-3, 10.0)});
    const ReliabilityCheck c = check_reliability(gp, gaussian(0.0, 1.0), 0.01, 0.0);
    assert_true(c.mass_above_data > 0.5);
    assert_message_mentions(c.summary().c_str(), "above every evaluation");
}

static void test_an_uncertain_elbo_is_refused(void**) {
    const Gp gp = gp_from_samples(data(60, 0.0, 0.0), {theta(1.0, 1.0, 1e-3, 0.0)});
    assert_false(check_reliability(gp, gaussian(0.0, 1.0), 2.0, 0.0).reliable());
    assert_false(check_reliability(gp, gaussian(0.0, 1.0), NAN, 0.0).reliable());
}

// The unboosted posterior replaces the boosted one only when the boosted one is refused and the
// unboosted one passes; it is checked only when needed, and the verdict is that of the posterior kept.
static void test_the_boost_gives_way_only_to_a_reliable_unboosted_posterior(void**) {
    const Gp gp = gp_from_samples(data(60, 0.0, 0.0), {theta(1.0, 3.0, 1e-3, 0.0)});
    const ReliabilityCheck on_data = check_reliability(gp, gaussian(0.0, 1.0), 0.01, 0.0);
    const ReliabilityCheck off_data = check_reliability(gp, gaussian(8.0, 0.5), 0.01, 0.0);
    assert_true(on_data.reliable());
    assert_false(off_data.reliable());
    int calls = 0;
    ReliabilityCheck verdict;
    auto unboosted = [&](const ReliabilityCheck& c) {
        return [&calls, c] {
            ++calls;
            return c;
        };
    };
    assert_true(prefer_unboosted(off_data, unboosted(on_data), verdict));
    assert_true(verdict.reliable());
    assert_int_equal(calls, 1);
    assert_false(prefer_unboosted(off_data, unboosted(off_data), verdict));
    assert_false(verdict.reliable());
    assert_close(verdict.mass_unexplored, off_data.mass_unexplored, 0.0);
    assert_int_equal(calls, 2);
    assert_false(prefer_unboosted(on_data, unboosted(off_data), verdict));
    assert_true(verdict.reliable());
    assert_int_equal(calls, 2);
}

// The best value's rise over the last `window` told values, failed ones (NaN) left out.
static void test_the_best_values_rise_over_the_window(void**) {
    const std::vector<double> climbing = {-9.0, -5.0, NAN, -7.0, -2.0, -3.5, -1.0};
    assert_close(best_value_rise(climbing, 3), 4.0, 0.0);   // -1 now, -5 before the last three
    assert_close(best_value_rise(climbing, 2), 1.0, 0.0);   // -1 now, -2 before the last two
    const std::vector<double> settled = {-9.0, -1.0, -3.0, -2.0, NAN};
    assert_close(best_value_rise(settled, 3), 0.0, 0.0);
    assert_close(best_value_rise(settled, 5), 0.0, 0.0);    // nothing before the window
    assert_close(best_value_rise({NAN, NAN, -4.0}, 1), 0.0, 0.0);  // no finite value before: no rise
}

// Eq. 5.12 against the GP refitted without point i: same mean, same predictive variance.
static void test_leave_one_out_matches_refitting(void**) {
    GpData d = data(15, 0.3, 2.0);
    const std::vector<double> t = theta(0.8, 1.5, 0.1, 0.2);
    const Gp gp = gp_from_samples(d, {t});
    std::vector<double> residual, variance;
    gp_leave_one_out(gp.samples[0], residual, variance);
    for (int i : {0, 7, 14}) {
        GpData rest = d;
        rest.x.remove_row(i);
        rest.y.erase(rest.y.begin() + i);
        rest.s2.erase(rest.s2.begin() + i);
        const Gp without = gp_from_samples(rest, {t});
        Matrix point(1, kDim);
        for (int k = 0; k < kDim; ++k) point(0, k) = d.x(i, k);
        std::vector<double> mean, var;
        gp_predict(without, point, mean, var);
        assert_close(residual[static_cast<size_t>(i)], d.y[static_cast<size_t>(i)] - mean[0], 1e-8);
        assert_close(variance[static_cast<size_t>(i)], var[0] + 0.01, 1e-8);  // latent + noise sn^2
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_surrogate_that_knows_the_target_passes),
        cmocka_unit_test(test_a_posterior_off_the_data_is_refused),
        cmocka_unit_test(test_a_surrogate_that_misses_left_out_points_is_refused),
        cmocka_unit_test(test_a_posterior_above_the_data_is_refused),
        cmocka_unit_test(test_an_uncertain_elbo_is_refused),
        cmocka_unit_test(test_the_best_values_rise_over_the_window),
        cmocka_unit_test(test_the_boost_gives_way_only_to_a_reliable_unboosted_posterior),
        cmocka_unit_test(test_leave_one_out_matches_refitting),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
