// The history rules of the run (paper 3.5-3.7): reliability index and ELCBO slope against values
// computed by hand, the stability test's window and exception count, the end of warm-up, and the
// returned iteration.
#include "run/termination.hpp"

#include <cmath>

#include "test_util.h"

using namespace libvbmc;

static Settings defaults(int dim) { return Settings::resolve(OptionValues(), dim); }

// A record that counts as reliable: the fields the rules read, all else default.
static IterationRecord record(int iteration, double elbo, double elbo_sd, double r_index) {
    IterationRecord r;
    r.iteration = iteration;
    r.func_count = 10 + 5 * iteration;
    r.elbo = elbo;
    r.elbo_sd = elbo_sd;
    r.r_index = r_index;
    r.elcbo_impro = 0.0;
    return r;
}

static void test_stable_window_is_evaluations_over_batch_size(void**) {
    Settings s = defaults(2);
    assert_int_equal(stable_window(s), 12);  // ceil(60 / 5)
    s.fun_evals_per_iter = 7;
    assert_int_equal(stable_window(s), 9);  // ceil(60 / 7)
}

// Noisy mode's stable window is half the budget, at most half the noisy budget 75 (D + 2), unless
// the user sets one; exact runs keep 60.
static void test_noisy_stable_window_is_half_the_budget(void**) {
    assert_int_equal(defaults(3).tol_stable_count, 60);
    OptionValues options;
    options.set_number("specify_target_noise", 1.0);
    assert_int_equal(Settings::resolve(options, 2).tol_stable_count, 150);
    assert_int_equal(Settings::resolve(options, 3).tol_stable_count, 188);  // ceil(375 / 2)
    assert_int_equal(Settings::resolve(options, 6).tol_stable_count, 300);
    options.set_number("max_fun_evals", 201);
    assert_int_equal(Settings::resolve(options, 3).tol_stable_count, 101);  // ceil(201 / 2)
    options.set_number("max_fun_evals", 1000);
    assert_int_equal(Settings::resolve(options, 3).tol_stable_count, 188);
    options.set_number("tol_stable_count", 90);
    assert_int_equal(Settings::resolve(options, 3).tol_stable_count, 90);
}

// The GP's mean is heavy-tailed in noisy mode (nu = 4) unless the user sets gp_mean_dof; exact
// runs keep the quadratic.
static void test_noisy_mode_mean_shape(void**) {
    assert_close(defaults(3).gp_mean_dof, 0.0, 0.0);
    OptionValues options;
    options.set_number("specify_target_noise", 1.0);
    assert_close(Settings::resolve(options, 3).gp_mean_dof, 4.0, 0.0);
    options.set_number("gp_mean_dof", 0.0);
    assert_close(Settings::resolve(options, 3).gp_mean_dof, 0.0, 0.0);
    OptionValues exact;
    exact.set_number("gp_mean_dof", 10.0);
    assert_close(Settings::resolve(exact, 3).gp_mean_dof, 10.0, 0.0);
}

// A noisy run may stop as stable only once it has spent the noisy budget 75 (D + 2), or
// max_fun_evals when that is smaller, unless the user sets min_fun_evals; exact runs keep 5 D.
static void test_noisy_runs_spend_the_noisy_budget(void**) {
    assert_int_equal(defaults(3).min_fun_evals, 15);
    OptionValues options;
    options.set_number("specify_target_noise", 1.0);
    assert_int_equal(Settings::resolve(options, 2).min_fun_evals, 300);
    assert_int_equal(Settings::resolve(options, 3).min_fun_evals, 375);
    options.set_number("max_fun_evals", 201);
    assert_int_equal(Settings::resolve(options, 3).min_fun_evals, 201);
    options.set_number("max_fun_evals", 1000);
    assert_int_equal(Settings::resolve(options, 3).min_fun_evals, 375);
    options.set_number("min_fun_evals", 90);
    assert_int_equal(Settings::resolve(options, 3).min_fun_evals, 90);
    OptionValues unknown_noise;
    unknown_noise.set_number("uncertainty_handling", 1.0);
    assert_int_equal(Settings::resolve(unknown_noise, 6).min_fun_evals, 600);
}

// Noisy mode keeps PyVBMC's 80 GP hyperparameter samples (ns_gp_max), unless the user sets it;
// exact runs take 50.
static void test_noisy_mode_samples_pyvbmc_gp_count(void**) {
    assert_int_equal(defaults(3).ns_gp_max, 50);
    OptionValues options;
    options.set_number("specify_target_noise", 1.0);
    assert_int_equal(Settings::resolve(options, 3).ns_gp_max, 80);
    options.set_number("ns_gp_max", 30);
    assert_int_equal(Settings::resolve(options, 3).ns_gp_max, 30);
    OptionValues unknown_noise;
    unknown_noise.set_number("uncertainty_handling", 1.0);
    assert_int_equal(Settings::resolve(unknown_noise, 6).ns_gp_max, 80);
}

static void test_reliability_index_matches_its_definition(void**) {
    const Settings s = defaults(2);
    std::vector<IterationRecord> history = {record(0, -3.0, 0.5, INFINITY), record(1, -2.5, 0.2, INFINITY)};
    assert_true(std::isinf(reliability_index(history, s).first));  // undefined before the third iteration
    history.push_back(record(2, -2.43, 0.04, 0.0));
    history.back().skl = 0.003;
    // rho = (|dELBO| / tol_sd + ELBO SD / tol_sd + sKL / tol_skl) / 3, tol_skl = 0.01 sqrt(2).
    const double expected = (0.07 / 0.1 + 0.04 / 0.1 + 0.003 / (0.01 * std::sqrt(2.0))) / 3.0;
    assert_close(reliability_index(history, s).first, expected, 1e-14);
    // A noise SD of 0.4 raises tol_sd to sqrt(0.4 / 0.1) * 0.1 = 0.2; a huge one caps it at 10 tol_sd.
    history.back().sn2_hpd = 0.16;
    const double raised = (0.07 / 0.2 + 0.04 / 0.2 + 0.003 / (0.01 * std::sqrt(2.0))) / 3.0;
    assert_close(reliability_index(history, s).first, raised, 1e-14);
    history.back().sn2_hpd = 1e6;
    const double capped = (0.07 / 1.0 + 0.04 / 1.0 + 0.003 / (0.01 * std::sqrt(2.0))) / 3.0;
    assert_close(reliability_index(history, s).first, capped, 1e-14);
}

static void test_elcbo_slope_is_a_least_squares_fit_over_half_the_window(void**) {
    const Settings s = defaults(2);  // window 12: the slope uses the last 6 iterations
    std::vector<IterationRecord> history;
    for (int i = 0; i < 10; ++i) {
        // ELCBO (weight elcbo_impro_weight) rises by 0.02 per evaluation from iteration 4 on, and
        // jumps by 100 before, so a fit over more than 6 iterations would see the jump.
        const double elcbo = (i < 4 ? -100.0 : 0.0) + 0.02 * (10 + 5 * i);
        history.push_back(record(i, elcbo + s.elcbo_impro_weight * 0.1, 0.1, 0.5));
    }
    assert_close(reliability_index(history, s).second, 0.02, 1e-12);
}

static std::vector<IterationRecord> reliable_history(int n) {
    std::vector<IterationRecord> history;
    for (int i = 0; i < n; ++i) history.push_back(record(i, -2.0, 0.01, 0.5));
    return history;
}

static void test_stability_needs_the_window_with_few_exceptions(void**) {
    const Settings s = defaults(2);  // window 12, exceptions floor(12 * 0.2) = 2
    assert_false(is_stable(reliable_history(11), s));
    std::vector<IterationRecord> history = reliable_history(12);
    assert_true(is_stable(history, s));
    history[3].r_index = history[5].r_index = 1.5;  // two exceptions allowed
    assert_true(is_stable(history, s));
    history[7].r_index = INFINITY;  // a third is not
    assert_false(is_stable(history, s));
    history = reliable_history(12);
    history.back().r_index = 1.0;  // the current iteration itself must be reliable
    assert_false(is_stable(history, s));
    history.back().r_index = 0.5;
    history.back().elcbo_impro = 0.05;  // and the ELCBO must have stopped improving
    assert_false(is_stable(history, s));
    history.back().elcbo_impro = NAN;
    assert_false(is_stable(history, s));
}

// A stop as stable waits until the whole window lies after the last rotoscaling kept: with the
// window of 12 iterations and a warp at iteration 9, iteration 21 is the first that may stop.
static void test_stop_waits_a_whole_window_after_a_rotoscaling(void**) {
    Settings s = defaults(2);
    assert_false(settled_after_warping(9, 9, s));
    assert_false(settled_after_warping(20, 9, s));
    assert_true(settled_after_warping(21, 9, s));
    assert_true(settled_after_warping(0, -1000000, s));  // never warped
    s.fun_evals_per_iter = 7;                            // window ceil(60 / 7) = 9
    assert_false(settled_after_warping(17, 9, s));
    assert_true(settled_after_warping(18, 9, s));
}

static void test_warmup_ends_when_elcbo_and_lcb_stop_improving(void**) {
    const Settings s = defaults(2);  // threshold 0.2 * 5 = 1 per iteration, window ceil(15 / 5) = 3
    std::vector<IterationRecord> history = reliable_history(6);
    for (IterationRecord& r : history) r.lcb_max = -3.0;
    const int n_train = 35, func_count = history.back().func_count;
    assert_true(warmup_should_end(history, s, {}, n_train, func_count));
    // Not within 10 points of a trim of the training set.
    assert_false(warmup_should_end(history, s, {n_train - 5}, n_train, func_count));
    assert_true(warmup_should_end(history, s, {n_train - 10}, n_train, func_count));
    // The maximum LCB rose by more than the threshold in the recent past.
    history[4].lcb_max = -1.0;
    assert_false(warmup_should_end(history, s, {}, n_train, func_count));
    history[4].lcb_max = -3.0;
    // The ELCBO still improves: warm-up goes on, unless the LCB has not improved for 20 + 5 D
    // evaluations (reached at 10 evaluations: 35 is too soon, 45 is not).
    history.back().elbo = 0.0;
    assert_false(warmup_should_end(history, s, {}, n_train, func_count));
    history.back().func_count = 45;
    assert_true(warmup_should_end(history, s, {}, n_train, 45));
}

static void test_stable_run_returns_its_last_iteration(void**) {
    const Settings s = defaults(2);
    std::vector<IterationRecord> history = reliable_history(20);
    history.back().stable = true;
    history.back().elbo_sd = 0.2;  // a worse ELCBO than the window's does not matter once stable
    history[12].elbo = -1.0;
    assert_int_equal(best_iteration(history, s), 19);
}

static void test_unstable_run_ranks_or_looks_back_by_elcbo(void**) {
    Settings s = defaults(2);
    std::vector<IterationRecord> history = reliable_history(8);
    for (int i = 0; i < 8; ++i) history[static_cast<size_t>(i)].r_index = 8.0 - i;  // later is more reliable
    // Iteration 7 is the most recent, most reliable and best, but was never stable; iteration 5 was.
    // Rank sums (recency + ELCBO + reliability): 1 + 1 + 1 = 3 against 3 + 2 + 3 = 8; the penalty
    // for never-stable iterations (last = 7 against 1) turns that into 10 against 9.
    history[7].elbo = -0.5;
    history[5].elbo = -1.0;
    history[5].stable = true;
    assert_int_equal(best_iteration(history, s), 5);
    // Without the rank: the best ELCBO from the last stable iteration on.
    s.rank_criterion = false;
    assert_int_equal(best_iteration(history, s), 7);
    // Never stable: the best ELCBO in the last quarter of the run (iterations ceil(7 - 1.75) = 6 on).
    history[5].stable = false;
    history[7].elbo = -2.0;
    history[6].elbo = -1.5;
    history[2].elbo = 5.0;
    assert_int_equal(best_iteration(history, s), 6);
}

// A run whose surrogate blew up late (ELBO SDs above the reliability bound of 1 from iteration 10
// on, their ELBOs far higher) returns an iteration from before, with or without the rank.
static void test_uncertain_late_iterations_are_passed_over(void**) {
    Settings s = defaults(2);
    std::vector<IterationRecord> history = reliable_history(16);
    for (int i = 10; i < 16; ++i) {
        history[static_cast<size_t>(i)].elbo = 1000.0 * i;
        history[static_cast<size_t>(i)].elbo_sd = 50.0;
    }
    history[6].elbo = 0.5;  // the best certain ELCBO
    assert_true(best_iteration(history, s) < 10);
    s.rank_criterion = false;
    assert_int_equal(best_iteration(history, s), 6);
    // When every iteration is uncertain, the rule is as before (the best ELCBO looked back on).
    for (IterationRecord& r : history) r.elbo_sd = 50.0;
    assert_true(best_iteration(history, s) >= 12);
}

// Hyperparameter samples settle when 1/2 gp_sample_var(now) + 1/2 sum_i w_i gp_sample_var(i) < tol,
// w_i proportional to exp(-(evaluations now - evaluations at i) / 10); never before the third iteration.
static void test_gp_sampling_settles_on_weighted_sample_variance(void**) {
    Settings s = defaults(2);
    std::vector<IterationRecord> history = {record(0, -3.0, 0.5, INFINITY), record(1, -2.5, 0.2, INFINITY)};
    history[0].gp_sample_var = 0.0;
    history[1].gp_sample_var = 0.0;
    assert_false(gp_sampling_settled(history, s));
    history.push_back(record(2, -2.4, 0.1, 0.5));
    history[0].gp_sample_var = 1e-2;  // 10 evaluations before the last: weight e^-1 / (e^-1 + e^-0.5 + 1)
    history[1].gp_sample_var = 0.0;
    history[2].gp_sample_var = 5e-5;
    const double weights = std::exp(-1.0) + std::exp(-0.5) + 1.0;
    const double statistic = 0.5 * 5e-5 + 0.5 * (std::exp(-1.0) * 1e-2 + 5e-5) / weights;
    s.tol_gp_var_mcmc = statistic * (1.0 + 1e-9);
    assert_true(gp_sampling_settled(history, s));
    s.tol_gp_var_mcmc = statistic * (1.0 - 1e-9);
    assert_false(gp_sampling_settled(history, s));
    // Older iterations fade: with 100 more evaluations of small variance the early spread no longer counts.
    s = defaults(2);
    for (int i = 3; i < 23; ++i) {
        history.push_back(record(i, -2.4, 0.1, 0.5));
        history.back().gp_sample_var = 2e-5;
    }
    assert_true(gp_sampling_settled(history, s));
    s.tol_gp_var_mcmc = 0.0;  // the rule switched off
    assert_false(gp_sampling_settled(history, s));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stable_window_is_evaluations_over_batch_size),
        cmocka_unit_test(test_noisy_stable_window_is_half_the_budget),
        cmocka_unit_test(test_noisy_mode_mean_shape),
        cmocka_unit_test(test_noisy_runs_spend_the_noisy_budget),
        cmocka_unit_test(test_noisy_mode_samples_pyvbmc_gp_count),
        cmocka_unit_test(test_reliability_index_matches_its_definition),
        cmocka_unit_test(test_elcbo_slope_is_a_least_squares_fit_over_half_the_window),
        cmocka_unit_test(test_stability_needs_the_window_with_few_exceptions),
        cmocka_unit_test(test_stop_waits_a_whole_window_after_a_rotoscaling),
        cmocka_unit_test(test_warmup_ends_when_elcbo_and_lcb_stop_improving),
        cmocka_unit_test(test_stable_run_returns_its_last_iteration),
        cmocka_unit_test(test_unstable_run_ranks_or_looks_back_by_elcbo),
        cmocka_unit_test(test_uncertain_late_iterations_are_passed_over),
        cmocka_unit_test(test_gp_sampling_settles_on_weighted_sample_variance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
