/* A short complete run (D = 1, 15 evaluations, cheap settings) through every call: the run that
 * the valgrind memcheck step of scripts/check-sanitizers checks. It reaches several iterations,
 * a failed value, a checkpoint round trip, the final boost and every posterior call, refined draws
 * included. Also which lines each display level passes to the logger. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

/* Options of a cheap short run: display level, budget, and small samples and searches. */
static vbmc_opts *cheap_options(const char *display, long long max_fun_evals) {
    vbmc_opts *opts = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", display), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", max_fun_evals), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "fun_eval_start", 5), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_gp_max", 4), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_search", 256), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "min_final_components", 5), VBMC_OK);
    return opts;
}

static void test_short_run(void **state) {
    (void)state;
    const double lb[1] = {-5}, ub[1] = {5}, plb[1] = {-2}, pub[1] = {2};
    vbmc_opts *opts = cheap_options("off", 15);
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_set_int(opts, "fun_evals_per_iter", 2), VBMC_OK);
    assert_int_equal(vbmc_create(&run, 1, NULL, lb, ub, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    char path[64];
    snprintf(path, sizeof path, "test_short_run.ckpt.%ld", (long)getpid());
    double x[1], iteration;
    int told = 0;
    while (vbmc_ask(run, x) == VBMC_OK) {
        assert_int_equal(vbmc_tell(run, x, told == 3 ? NAN : -0.5 * x[0] * x[0], 0.0), VBMC_OK);
        if (++told == 9) {
            vbmc *loaded = NULL;
            assert_int_equal(vbmc_save(run, path), VBMC_OK);
            assert_int_equal(vbmc_load(&loaded, path), VBMC_OK);
            vbmc_destroy(run);
            run = loaded;
        }
    }
    remove(path);
    assert_int_equal(vbmc_stat(run, "iteration", &iteration), VBMC_OK);
    assert_true(iteration >= 2);
    vbmc_post *post = NULL;
    double elbo, elbo_sd, mean[1], cov[1], draws[20], lp[20];
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(post, &elbo, &elbo_sd), VBMC_OK);
    assert_true(isfinite(elbo));
    assert_int_equal(vbmc_post_moments(post, mean, cov), VBMC_OK);
    assert_int_equal(vbmc_post_sample(post, 20, 1, draws), VBMC_OK);
    assert_int_equal(vbmc_post_log_pdf(post, 20, draws, lp), VBMC_OK);
    assert_int_equal(vbmc_post_sample_refined(post, 5, 1, draws), VBMC_OK);
    assert_int_equal(vbmc_post_refined_elbo(post, 5, 1, &elbo, &elbo_sd), VBMC_OK);
    snprintf(path, sizeof path, "test_short_run.post.%ld", (long)getpid());
    assert_int_equal(vbmc_post_save(post, path), VBMC_OK);
    vbmc_post *again = NULL;
    assert_int_equal(vbmc_post_load(&again, path), VBMC_OK);
    remove(path);
    vbmc_post_destroy(again);
    vbmc_post_destroy(post);
    vbmc_destroy(run);
}

/* Lines a logger received, by kind. */
typedef struct {
    int table, summary, warnings, other;
} log_counts;

static void count_line(void *userdata, int level, const char *line) {
    log_counts *counts = (log_counts *)userdata;
    if (level <= VBMC_LOG_WARN)
        ++counts->warnings;
    else if (strncmp(line, "Inference terminated", 20) == 0 || strncmp(line, "Estimated ELBO", 14) == 0 ||
             strncmp(line, "Estimated log evidence", 22) == 0)
        ++counts->summary;
    else if (level == VBMC_LOG_INFO)
        ++counts->table;
    else
        ++counts->other;
}

/* The same short run (without the failed value, so no warning) under each display level. */
static log_counts run_with_display(const char *display) {
    const double plb[1] = {-2}, pub[1] = {2};
    vbmc_opts *opts = cheap_options(display, 12);
    vbmc *run = NULL;
    log_counts counts = {0, 0, 0, 0};
    assert_int_equal(vbmc_create(&run, 1, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    assert_int_equal(vbmc_set_logger(run, count_line, &counts), VBMC_OK);
    double x[1];
    while (vbmc_ask(run, x) == VBMC_OK) assert_int_equal(vbmc_tell(run, x, -0.5 * x[0] * x[0], 0.0), VBMC_OK);
    vbmc_destroy(run);
    assert_int_equal(counts.other, 0);
    return counts;
}

/* display: "iter" shows the table and the summary, "final" only the summary, "notify" and "off"
 * neither; warnings (here: the 12-evaluation budget ends the run unconverged) for all but "off". */
static void test_display_levels(void **state) {
    (void)state;
    const log_counts iter = run_with_display("iter"), final = run_with_display("final"),
                     notify = run_with_display("notify"), off = run_with_display("off");
    assert_true(iter.table >= 3);
    assert_int_equal(iter.summary, 3);
    assert_true(iter.warnings >= 1);
    assert_int_equal(final.table, 0);
    assert_int_equal(final.summary, 3);
    assert_int_equal(final.warnings, iter.warnings);
    assert_int_equal(notify.table + notify.summary, 0);
    assert_int_equal(notify.warnings, iter.warnings);
    assert_int_equal(off.table + off.summary + off.warnings, 0);
}

/* Without x0 the first asked point is the centre of the plausible box in the original space, also
 * for bounded coordinates (where the transformed box is not symmetric about it). */
static void test_default_x0_is_plausible_centre(void **state) {
    (void)state;
    const double lb[2] = {0, 0}, ub[2] = {INFINITY, 1}, plb[2] = {1, 0.1}, pub[2] = {6, 0.7};
    vbmc_opts *opts = cheap_options("off", 20);
    vbmc *run = NULL;
    assert_int_equal(vbmc_create(&run, 2, NULL, lb, ub, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    double x[2];
    assert_int_equal(vbmc_ask(run, x), VBMC_OK);
    assert_true(x[0] == 3.5 && x[1] == 0.5 * (0.1 + 0.7));
    vbmc_destroy(run);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_short_run), cmocka_unit_test(test_display_levels),
                                        cmocka_unit_test(test_default_x0_is_plausible_centre)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
