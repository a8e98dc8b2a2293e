/* vbmc_create_warm: a run started from a previous run's posterior re-uses the previous training
 * set bitwise and asks no initial design it already has, converges with its own budget to the
 * same posterior; without re-use its initial design lies in the box the previous posterior spans,
 * inside the hard bounds; a loaded checkpoint warm-starts the same run; errors name the argument. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

enum { DIM = 2, FIRST_BUDGET = 40, MAX_EVALS = 400, BOX_DRAWS = 100000 };

/* N(mean, diag(sd^2)) up to a constant: the posterior's moments are known. */
static const double kMean[DIM] = {0.4, -0.3}, kSd[DIM] = {0.3, 0.6};

static double gaussian(const double *x, double *log_joint_sd, void *userdata) {
    (void)log_joint_sd;
    (void)userdata;
    double q = 0.0;
    for (int d = 0; d < DIM; ++d) q += (x[d] - kMean[d]) * (x[d] - kMean[d]) / (kSd[d] * kSd[d]);
    return -0.5 * q;
}

static double stat(const vbmc *run, const char *name) {
    double value = NAN;
    assert_int_equal(vbmc_stat(run, name, &value), VBMC_OK);
    return value;
}

static vbmc_opts *options(int max_fun_evals, int seed) {
    vbmc_opts *opts = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", max_fun_evals), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", seed), VBMC_OK);
    return opts;
}

/* A first run with a small budget, bounded in coordinate 0 when `bounded`. */
static vbmc *first_run(int bounded) {
    const double lb[DIM] = {-1.0, -INFINITY}, ub[DIM] = {2.0, INFINITY};
    const double plb[DIM] = {-0.5, -2.0}, pub[DIM] = {1.5, 2.0};
    vbmc_opts *opts = options(FIRST_BUDGET, 3);
    vbmc *run = NULL;
    assert_int_equal(vbmc_create(&run, DIM, NULL, bounded ? lb : NULL, bounded ? ub : NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    assert_int_equal(vbmc_run(run, gaussian, NULL), VBMC_DONE);
    return run;
}

typedef struct {
    size_t n;
    double x[MAX_EVALS * DIM], y[MAX_EVALS], sd[MAX_EVALS];
    int in_training[MAX_EVALS];
} evaluation_log;

static void read_log(const vbmc *run, evaluation_log *log) {
    log->n = (size_t)stat(run, "func_count");
    assert_true(log->n <= MAX_EVALS);
    assert_int_equal(vbmc_evaluations(run, log->n, log->x, log->y, log->sd, log->in_training), VBMC_OK);
}

static void posterior_moments(const vbmc *run, double *mean, double *cov) {
    vbmc_post *post = NULL;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_moments(post, mean, cov), VBMC_OK);
    vbmc_post_destroy(post);
}

/* Re-use: the log starts with the previous training set bitwise, the first ask runs the first
 * iteration (no initial design), the budget counts only new evaluations, the run converges and
 * agrees with the previous posterior and the target. */
static void test_reuse_takes_the_training_set(void **state) {
    (void)state;
    vbmc *before = first_run(0);
    static evaluation_log old, old_after, now;
    read_log(before, &old);
    const double train_count = stat(before, "train_count");

    vbmc_opts *opts = options(100, 11);
    vbmc *warm = NULL;
    assert_int_equal(vbmc_create_warm(&warm, before, opts, 1), VBMC_OK);
    vbmc_opts_destroy(opts);
    assert_true(stat(warm, "reused_count") == train_count);
    assert_true(stat(warm, "func_count") == train_count);
    assert_true(stat(warm, "iteration") == 0.0);
    read_log(warm, &now);
    size_t j = 0;
    for (size_t i = 0; i < old.n; ++i) {
        if (!old.in_training[i]) continue;
        assert_memory_equal(now.x + j * DIM, old.x + i * DIM, DIM * sizeof(double));
        assert_memory_equal(&now.y[j], &old.y[i], sizeof(double));
        assert_memory_equal(&now.sd[j], &old.sd[i], sizeof(double));
        ++j;
    }
    assert_int_equal(j, now.n);
    /* The previous run is not modified. */
    read_log(before, &old_after);
    assert_int_equal(old_after.n, old.n);
    assert_memory_equal(old_after.x, old.x, old.n * DIM * sizeof(double));

    double x[DIM];
    assert_int_equal(vbmc_ask(warm, x), VBMC_OK);
    assert_true(stat(warm, "iteration") == 1.0); /* the first iteration ran on the re-used values */
    assert_true(stat(warm, "locate_evals") == 0.0);
    assert_int_equal(vbmc_tell(warm, x, gaussian(x, NULL, NULL), 0.0), VBMC_OK);
    assert_int_equal(vbmc_run(warm, gaussian, NULL), VBMC_DONE);
    assert_true(stat(warm, "converged") == 1.0);
    const double spent = stat(warm, "func_count") - stat(warm, "reused_count");
    assert_true(spent >= 1.0 && spent <= stat(warm, "max_fun_evals"));

    /* The same posterior as before and as the target, within what 40 and ~100 evaluations of a
     * 2-D Gaussian give (mean errors of a few hundredths of an SD in PyVBMC's benchmarks). */
    double mean_before[DIM], cov_before[DIM * DIM], mean_warm[DIM], cov_warm[DIM * DIM];
    posterior_moments(before, mean_before, cov_before);
    posterior_moments(warm, mean_warm, cov_warm);
    for (int d = 0; d < DIM; ++d) {
        assert_close(mean_warm[d], mean_before[d], 0.1 * kSd[d]);
        assert_close(mean_warm[d], kMean[d], 0.1 * kSd[d]);
        assert_close(sqrt(cov_warm[d * DIM + d]), kSd[d], 0.1 * kSd[d]);
        assert_close(sqrt(cov_warm[d * DIM + d]), sqrt(cov_before[d * DIM + d]), 0.15 * kSd[d]);
    }
    vbmc_destroy(warm);
    vbmc_destroy(before);
}

static int compare_doubles(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Without re-use: nothing is re-used, the initial design (x0 first, then draws in the plausible
 * box) lies inside the hard bounds and within the 5%-95% quantile box of the previous posterior's
 * draws (the library's rule, recomputed here from the same draws), x0 where the previous posterior
 * is dense, and the design spreads over that box. */
static void test_without_reuse_the_box_comes_from_the_posterior(void **state) {
    (void)state;
    vbmc *before = first_run(1);
    vbmc_post *post = NULL;
    assert_int_equal(vbmc_posterior(before, &post), VBMC_OK);
    static double draws[BOX_DRAWS * DIM], column[BOX_DRAWS], log_pdf[BOX_DRAWS];
    assert_int_equal(vbmc_post_sample(post, BOX_DRAWS, 0, draws), VBMC_OK);
    const size_t low = (size_t)lround(0.05 * (BOX_DRAWS - 1)), high = BOX_DRAWS - 1 - low;
    double plb[DIM], pub[DIM];
    for (int d = 0; d < DIM; ++d) {
        for (size_t i = 0; i < BOX_DRAWS; ++i) column[i] = draws[i * DIM + d];
        qsort(column, BOX_DRAWS, sizeof(double), compare_doubles);
        plb[d] = column[low];
        pub[d] = column[high];
    }
    assert_int_equal(vbmc_post_log_pdf(post, BOX_DRAWS, draws, log_pdf), VBMC_OK);
    qsort(log_pdf, BOX_DRAWS, sizeof(double), compare_doubles);
    const double median_log_pdf = log_pdf[BOX_DRAWS / 2];

    vbmc_opts *opts = options(60, 5);
    assert_int_equal(vbmc_opts_set(opts, "locate", "off"), VBMC_OK);
    vbmc *warm = NULL;
    assert_int_equal(vbmc_create_warm(&warm, before, opts, 0), VBMC_OK);
    vbmc_opts_destroy(opts);
    assert_true(stat(warm, "func_count") == 0.0 && stat(warm, "reused_count") == 0.0);
    enum { DESIGN = 10 }; /* fun_eval_start's default max(D, 10) */
    double x[DIM], low_seen[DIM] = {INFINITY, INFINITY}, high_seen[DIM] = {-INFINITY, -INFINITY};
    for (int i = 0; i < DESIGN; ++i) {
        assert_int_equal(vbmc_ask(warm, x), VBMC_OK);
        assert_true(stat(warm, "iteration") == 0.0);
        for (int d = 0; d < DIM; ++d) {
            assert_true(x[d] >= plb[d] && x[d] <= pub[d]);
            low_seen[d] = fmin(low_seen[d], x[d]);
            high_seen[d] = fmax(high_seen[d], x[d]);
        }
        assert_true(x[0] > -1.0 && x[0] < 2.0);
        if (i == 0) {
            double log_q;
            assert_int_equal(vbmc_post_log_pdf(post, 1, x, &log_q), VBMC_OK);
            assert_true(log_q > median_log_pdf);
        }
        assert_int_equal(vbmc_tell(warm, x, gaussian(x, NULL, NULL), 0.0), VBMC_OK);
    }
    /* Ten uniform draws cover more than a third of the box in each coordinate (probability of
     * failing below 1e-3). */
    for (int d = 0; d < DIM; ++d) assert_true(high_seen[d] - low_seen[d] > (pub[d] - plb[d]) / 3.0);
    assert_int_equal(vbmc_ask(warm, x), VBMC_OK);
    assert_true(stat(warm, "iteration") == 1.0);
    vbmc_post_destroy(post);
    vbmc_destroy(warm);
    vbmc_destroy(before);
}

/* A previous run loaded from a checkpoint starts the same warm run, bitwise; the warm run's own
 * checkpoint keeps its re-used count. */
static void test_warm_start_from_a_checkpoint(void **state) {
    (void)state;
    vbmc *before = first_run(0);
    char path[64];
    snprintf(path, sizeof path, "test_warm.ckpt.%ld", (long)getpid());
    assert_int_equal(vbmc_save(before, path), VBMC_OK);
    vbmc *loaded = NULL;
    assert_int_equal(vbmc_load(&loaded, path), VBMC_OK);
    vbmc_opts *opts = options(60, 9);
    vbmc *a = NULL, *b = NULL;
    assert_int_equal(vbmc_create_warm(&a, before, opts, 1), VBMC_OK);
    assert_int_equal(vbmc_create_warm(&b, loaded, opts, 1), VBMC_OK);
    vbmc_opts_destroy(opts);
    double xa[DIM], xb[DIM];
    for (int i = 0; i < 8; ++i) {
        assert_int_equal(vbmc_ask(a, xa), VBMC_OK);
        assert_int_equal(vbmc_ask(b, xb), VBMC_OK);
        assert_memory_equal(xa, xb, sizeof xa);
        assert_int_equal(vbmc_tell(a, xa, gaussian(xa, NULL, NULL), 0.0), VBMC_OK);
        assert_int_equal(vbmc_tell(b, xb, gaussian(xb, NULL, NULL), 0.0), VBMC_OK);
    }
    assert_int_equal(vbmc_save(a, path), VBMC_OK);
    vbmc *reloaded = NULL;
    assert_int_equal(vbmc_load(&reloaded, path), VBMC_OK);
    remove(path);
    assert_true(stat(reloaded, "reused_count") == stat(a, "reused_count"));
    assert_true(stat(reloaded, "reused_count") > 0.0);
    assert_int_equal(vbmc_ask(a, xa), VBMC_OK);
    assert_int_equal(vbmc_ask(reloaded, xb), VBMC_OK);
    assert_memory_equal(xa, xb, sizeof xa);
    vbmc_destroy(reloaded);
    vbmc_destroy(a);
    vbmc_destroy(b);
    vbmc_destroy(loaded);
    vbmc_destroy(before);
}

static void test_warm_start_errors(void **state) {
    (void)state;
    const double plb[DIM] = {-1, -1}, pub[DIM] = {1, 1};
    vbmc *fresh = NULL, *warm = (vbmc *)&warm;
    assert_int_equal(vbmc_create(&fresh, DIM, NULL, NULL, NULL, plb, pub, NULL), VBMC_OK);
    assert_int_equal(vbmc_create_warm(&warm, fresh, NULL, 1), VBMC_E_STATE);
    assert_null(warm);
    assert_message_mentions(vbmc_last_error(NULL), "previous has no posterior");
    assert_message_mentions(vbmc_last_error(NULL), "first iteration has not completed");
    assert_string_equal(vbmc_last_error(fresh), "");

    assert_int_equal(vbmc_create_warm(NULL, fresh, NULL, 1), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "out is NULL");
    assert_int_equal(vbmc_create_warm(&warm, NULL, NULL, 1), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "previous is NULL");
    vbmc *before = first_run(0);
    assert_int_equal(vbmc_create_warm(&warm, before, NULL, 2), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "reuse_evaluations = 2");
    vbmc_opts *opts = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    assert_int_equal(vbmc_create_warm(&warm, before, opts, 1), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "opts is not a live handle");
    opts = options(5, 1);
    assert_int_equal(vbmc_create_warm(&warm, before, opts, 1), VBMC_E_OPTION); /* fun_eval_start 10 > 5 */
    assert_message_mentions(vbmc_last_error(NULL), "fun_eval_start");
    vbmc_opts_destroy(opts);
    vbmc_destroy(fresh);
    assert_int_equal(vbmc_create_warm(&warm, fresh, NULL, 1), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "previous is not a live handle");
    /* The previous run is still usable. */
    assert_int_equal(vbmc_create_warm(&warm, before, NULL, 0), VBMC_OK);
    vbmc_destroy(warm);
    vbmc_destroy(before);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse_takes_the_training_set),
        cmocka_unit_test(test_without_reuse_the_box_comes_from_the_posterior),
        cmocka_unit_test(test_warm_start_from_a_checkpoint),
        cmocka_unit_test(test_warm_start_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
