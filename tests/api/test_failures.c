/* Failed evaluations: a target that returns NaN (or -Inf / +Inf) on 20% of the plausible box
 * still gives a usable posterior; the failures are counted against the budget and kept. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

#define LOG_2PI 1.8378770664093454836

static const double plb[2] = {-2.0, -2.0}, pub[2] = {2.0, 2.0};

static double normal_log_joint(const double *x) { return -1.0 - 0.5 * (x[0] * x[0] + x[1] * x[1]) - LOG_2PI; }

/* Standard normal in 2-D times exp(-1): log Z = -1. Fails where x0 > 1.2 (the top 20% of the
 * plausible box along x0), with the failure value given by `bad`. */
static double failing_log_joint(const double *x, double bad, int *failed) {
    if (x[0] > pub[0] - 0.2 * (pub[0] - plb[0])) {
        ++*failed;
        return bad;
    }
    return normal_log_joint(x);
}

static void check_failing_target(double bad) {
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", 2), VBMC_OK);
    assert_int_equal(vbmc_create(&run, 2, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    double x[2], failed_stat, count, train, budget;
    int failed = 0, asked = 0;
    vbmc_status status;
    while ((status = vbmc_ask(run, x)) == VBMC_OK) {
        ++asked;
        assert_int_equal(vbmc_tell(run, x, failing_log_joint(x, bad, &failed), 0.0), VBMC_OK);
    }
    assert_int_equal(status, VBMC_DONE);
    assert_int_equal(vbmc_stat(run, "failed_count", &failed_stat), VBMC_OK);
    assert_int_equal(vbmc_stat(run, "func_count", &count), VBMC_OK);
    assert_int_equal(vbmc_stat(run, "train_count", &train), VBMC_OK);
    assert_int_equal(vbmc_stat(run, "max_fun_evals", &budget), VBMC_OK);
    /* Every failure is kept and counted against the budget, none reaches the surrogate. */
    assert_true(failed > 0);
    assert_int_equal((int)failed_stat, failed);
    assert_int_equal((int)count, asked);
    assert_true(count <= budget);
    assert_true(train <= count - failed_stat);

    vbmc_post *post = NULL;
    double elbo, elbo_sd, mean[2], cov[4];
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(post, &elbo, &elbo_sd), VBMC_OK);
    assert_true(isfinite(elbo) && isfinite(elbo_sd));
    assert_int_equal(vbmc_post_moments(post, mean, cov), VBMC_OK);
    /* The surrogate never sees the failed strip, so only a loose agreement is required there. */
    assert_close(elbo, -1.0, 0.5);
    assert_close(mean[0], 0.0, 0.4);
    assert_close(mean[1], 0.0, 0.2);
    assert_close(cov[3], 1.0, 0.3);
    assert_true(cov[0] > 0.4 && cov[0] < 2.0);
    double lp;
    assert_int_equal(vbmc_post_log_pdf(post, 1, mean, &lp), VBMC_OK);
    assert_true(isfinite(lp));
    vbmc_post_destroy(post);
    vbmc_destroy(run);
}

static void test_nan_on_a_fifth_of_the_box(void **state) {
    (void)state;
    check_failing_target(NAN);
}

static void test_minus_infinity_on_a_fifth_of_the_box(void **state) {
    (void)state;
    check_failing_target(-INFINITY);
}

/* Every value of the initial design fails except a few: the run draws more points, and a run
 * whose every value fails ends without crashing, with no posterior. */
static void test_all_failures(void **state) {
    (void)state;
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", 25), VBMC_OK);
    assert_int_equal(vbmc_create(&run, 2, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    double x[2], count, failed;
    int asked = 0;
    while (vbmc_ask(run, x) == VBMC_OK) {
        assert_int_equal(vbmc_tell(run, x, (asked % 2) ? NAN : INFINITY, 0.0), VBMC_OK);
        ++asked;
        assert_true(asked <= 25);
    }
    assert_int_equal(vbmc_stat(run, "func_count", &count), VBMC_OK);
    assert_int_equal(vbmc_stat(run, "failed_count", &failed), VBMC_OK);
    assert_int_equal((int)count, 25);
    assert_int_equal((int)failed, 25);
    assert_int_equal(vbmc_ask(run, x), VBMC_DONE);
    vbmc_post *post = NULL;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_E_STATE);
    assert_null(post);
    /* The messages say what happened, not that the run is still to come. */
    assert_message_mentions(vbmc_last_error(run),
                            "no posterior: the run has finished; the budget max_fun_evals = 25 was spent "
                            "without a single finite log-joint value");
    assert_message_mentions(vbmc_result_message(run), "without a single finite log-joint value.");
    assert_message_mentions(vbmc_result_message(run), "There is no posterior.");
    /* The finished run still saves, loads and answers. */
    char path[64];
    snprintf(path, sizeof path, "test_failures_all.ckpt.%ld", (long)getpid());
    assert_int_equal(vbmc_save(run, path), VBMC_OK);
    vbmc *loaded = NULL;
    assert_int_equal(vbmc_load(&loaded, path), VBMC_OK);
    assert_int_equal(vbmc_ask(loaded, x), VBMC_DONE);
    assert_int_equal(vbmc_posterior(loaded, &post), VBMC_E_STATE);
    assert_message_mentions(vbmc_last_error(loaded), "no posterior: the run has finished");
    remove(path);
    vbmc_destroy(loaded);
    vbmc_destroy(run);
}

/* Penalties scattered through the posterior mass: the same 2-D normal (log Z = -1) returns `bad`
 * at 30% of the points, picked by a hash of x. Penalties leave the surrogate as failed values do
 * (before, -1e300 and -DBL_MAX were fitted as data floored at best - 1e6: ELBOs from -55167 to 0.19
 * where the truth is 0). */
static int is_scattered_penalty_point(const double *x) {
    const double h = sin(12.9898 * x[0] + 78.233 * x[1]) * 43758.5453;
    return h - floor(h) < 0.3;
}

static void check_scattered_penalties(double bad, int seed) {
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", seed), VBMC_OK);
    assert_int_equal(vbmc_create(&run, 2, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    double x[2], penalties, elbo, elbo_sd;
    int told_penalties = 0;
    vbmc_status status;
    while ((status = vbmc_ask(run, x)) == VBMC_OK) {
        const int penalty = is_scattered_penalty_point(x);
        told_penalties += penalty;
        assert_int_equal(vbmc_tell(run, x, penalty ? bad : normal_log_joint(x), 0.0), VBMC_OK);
    }
    assert_int_equal(status, VBMC_DONE);
    assert_int_equal(vbmc_stat(run, "penalty_count", &penalties), VBMC_OK);
    assert_true(told_penalties > 0);
    assert_true(penalties <= told_penalties && penalties >= told_penalties - 3);
    vbmc_post *post = NULL;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(post, &elbo, &elbo_sd), VBMC_OK);
    print_message("bad = %g, seed %d: %d penalties, ELBO %.4f +- %.4f (log Z = -1)\n", bad, seed, told_penalties, elbo,
                  elbo_sd);
    assert_close(elbo, -1.0, 0.1);
    vbmc_post_destroy(post);
    vbmc_destroy(run);
}

static void test_scattered_penalties(void **state) {
    (void)state;
    for (int seed = 1; seed <= 2; ++seed) {
        check_scattered_penalties(-1e300, seed);
        check_scattered_penalties(-DBL_MAX, seed + 2);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nan_on_a_fifth_of_the_box),
        cmocka_unit_test(test_minus_infinity_on_a_fifth_of_the_box),
        cmocka_unit_test(test_all_failures),
        cmocka_unit_test(test_scattered_penalties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
