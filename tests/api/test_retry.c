/* Option retry_max_fun_evals: a run that spends its budget without converging goes on once with
 * that many more evaluations, from where it stopped (its first evaluations are bitwise those of
 * the same run without the option, which stops there); the retry is in the history's actions and
 * the log, at most once, and survives a checkpoint. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

enum { DIM = 2, BUDGET = 20, RETRY = 10, MAX_EVALS = BUDGET + RETRY };

static double log_joint(const double *x) { return -0.5 * (x[0] * x[0] / 0.25 + (x[1] - 0.5) * (x[1] - 0.5)); }

static double stat(const vbmc *run, const char *name) {
    double value = NAN;
    assert_int_equal(vbmc_stat(run, name, &value), VBMC_OK);
    return value;
}

typedef struct {
    int retry_lines;
    char line[512];
} log_capture;

static void capture(void *userdata, int level, const char *line) {
    log_capture *c = userdata;
    if (level == VBMC_LOG_WARN && strstr(line, "retry") != NULL) {
        ++c->retry_lines;
        snprintf(c->line, sizeof c->line, "%s", line);
    }
}

static vbmc *create(int retry) {
    const double plb[DIM] = {-2, -2}, pub[DIM] = {2, 2};
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "notify"), VBMC_OK); /* warnings: the retry's line */
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", BUDGET), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_gp_max", 4), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "min_final_components", 5), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", 21), VBMC_OK);
    if (retry > 0) assert_int_equal(vbmc_opts_set_int(opts, "retry_max_fun_evals", retry), VBMC_OK);
    assert_int_equal(vbmc_create(&run, DIM, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    return run;
}

/* Asks and tells until the run is done or `limit` evaluations were told. */
static void advance(vbmc *run, int limit) {
    double x[DIM];
    while (stat(run, "func_count") < limit && vbmc_ask(run, x) == VBMC_OK)
        assert_int_equal(vbmc_tell(run, x, log_joint(x), 0.0), VBMC_OK);
}

/* How many iterations' actions mention "retry"; the first such iteration into *first. */
static int retry_actions(const vbmc *run, int *first) {
    const int n = (int)stat(run, "iteration");
    int count = 0;
    char action[256];
    *first = -1;
    for (int i = 0; i < n; ++i) {
        assert_int_equal(vbmc_history_action(run, i, action, sizeof action), VBMC_OK);
        if (strstr(action, "retry") == NULL) continue;
        if (*first < 0) *first = i;
        ++count;
    }
    return count;
}

static void test_retry_goes_on_from_where_the_run_stopped(void **state) {
    (void)state;
    vbmc *plain = create(0), *retried = create(RETRY);
    log_capture log = {0, ""}, plain_log = {0, ""};
    assert_int_equal(vbmc_set_logger(retried, capture, &log), VBMC_OK);
    assert_int_equal(vbmc_set_logger(plain, capture, &plain_log), VBMC_OK);
    advance(plain, MAX_EVALS + 1);
    advance(retried, MAX_EVALS + 1);

    /* Without the option the run stops at its budget, unconverged, as before. */
    assert_true(stat(plain, "finished") == 1.0 && stat(plain, "converged") == 0.0);
    assert_true(stat(plain, "func_count") == BUDGET && stat(plain, "retried") == 0.0);
    int first = 0;
    assert_int_equal(retry_actions(plain, &first), 0);
    assert_int_equal(plain_log.retry_lines, 0);

    /* With it the run goes on once, to the larger budget, and the retry is recorded. */
    assert_true(stat(retried, "finished") == 1.0 && stat(retried, "converged") == 0.0);
    assert_true(stat(retried, "retried") == 1.0);
    assert_true(stat(retried, "func_count") == MAX_EVALS);
    assert_true(stat(retried, "max_fun_evals") == MAX_EVALS);
    assert_int_equal(retry_actions(retried, &first), 1);
    double counts[64];
    const size_t n = (size_t)stat(retried, "iteration");
    assert_true(n <= 64);
    assert_int_equal(vbmc_history(retried, "func_count", n, counts), VBMC_OK);
    assert_true(counts[first] == BUDGET);
    assert_int_equal(log.retry_lines, 1);
    assert_message_mentions(log.line, "retry_max_fun_evals = 10");
    assert_message_mentions(vbmc_result_message(retried), "max_fun_evals");

    /* Up to the retry the two runs are the same run, bitwise. */
    double xp[BUDGET * DIM], xr[MAX_EVALS * DIM], first_elbo_p[64], first_elbo_r[64];
    assert_int_equal(vbmc_evaluations(plain, BUDGET, xp, NULL, NULL, NULL), VBMC_OK);
    assert_int_equal(vbmc_evaluations(retried, MAX_EVALS, xr, NULL, NULL, NULL), VBMC_OK);
    assert_memory_equal(xp, xr, sizeof xp);
    const size_t n_plain = (size_t)stat(plain, "iteration");
    assert_int_equal(n_plain, (size_t)first + 1);
    assert_int_equal(vbmc_history(plain, "elbo", n_plain, first_elbo_p), VBMC_OK);
    assert_int_equal(vbmc_history(retried, "elbo", n, first_elbo_r), VBMC_OK);
    assert_memory_equal(first_elbo_p, first_elbo_r, n_plain * sizeof(double));
    vbmc_destroy(plain);
    vbmc_destroy(retried);
}

/* A checkpoint taken after the retry resumes with the retry's budget, bitwise. */
static void test_retry_survives_a_checkpoint(void **state) {
    (void)state;
    vbmc *run = create(RETRY);
    log_capture quiet = {0, ""};
    assert_int_equal(vbmc_set_logger(run, capture, &quiet), VBMC_OK);
    advance(run, BUDGET + 2);
    assert_true(stat(run, "retried") == 1.0 && stat(run, "finished") == 0.0);
    char path[64];
    snprintf(path, sizeof path, "test_retry.ckpt.%ld", (long)getpid());
    assert_int_equal(vbmc_save(run, path), VBMC_OK);
    vbmc *loaded = NULL;
    assert_int_equal(vbmc_load(&loaded, path), VBMC_OK);
    remove(path);
    assert_int_equal(vbmc_set_logger(loaded, capture, &quiet), VBMC_OK);
    assert_true(stat(loaded, "retried") == 1.0 && stat(loaded, "max_fun_evals") == MAX_EVALS);
    advance(run, MAX_EVALS + 1);
    advance(loaded, MAX_EVALS + 1);
    double xa[MAX_EVALS * DIM], xb[MAX_EVALS * DIM];
    assert_true(stat(loaded, "func_count") == MAX_EVALS && stat(loaded, "finished") == 1.0);
    assert_int_equal(vbmc_evaluations(run, MAX_EVALS, xa, NULL, NULL, NULL), VBMC_OK);
    assert_int_equal(vbmc_evaluations(loaded, MAX_EVALS, xb, NULL, NULL, NULL), VBMC_OK);
    assert_memory_equal(xa, xb, sizeof xa);
    vbmc_destroy(loaded);
    vbmc_destroy(run);
}

static void test_retry_option_is_checked(void **state) {
    (void)state;
    vbmc_opts *opts = NULL;
    char value[32];
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_get(opts, "retry_max_fun_evals", value, sizeof value), VBMC_OK);
    assert_string_equal(value, "0");
    assert_int_equal(vbmc_opts_set_int(opts, "retry_max_fun_evals", -1), VBMC_E_OPTION);
    assert_message_mentions(vbmc_opts_error(opts), "retry_max_fun_evals");
    assert_int_equal(vbmc_opts_set(opts, "retry_max_fun_evals", "2.5"), VBMC_E_OPTION);
    vbmc_opts_destroy(opts);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_retry_goes_on_from_where_the_run_stopped),
        cmocka_unit_test(test_retry_survives_a_checkpoint),
        cmocka_unit_test(test_retry_option_is_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
