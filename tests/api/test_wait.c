/* VBMC_WAIT: vbmc_ask's answer when every point the run may hand out now is pending (the initial
 * design, max_pending, the budget's last evaluations). Not an error: x is left untouched, no
 * message is set, and telling or abandoning a pending point lets the next ask hand one out. */
#include <math.h>
#include <string.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

#define DIM 2
#define MAX_PENDING 16

static const double plb[DIM] = {-2, -2}, pub[DIM] = {2, 2};

static double log_joint(const double *x) { return -0.5 * (x[0] * x[0] + 4.0 * x[1] * x[1]); }

static vbmc *make_run(int max_pending, int max_fun_evals) {
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", 3), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_pending", max_pending), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", max_fun_evals), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "fun_eval_start", 6), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_gp_max", 4), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_search", 256), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "min_final_components", 5), VBMC_OK);
    assert_int_equal(vbmc_create(&run, DIM, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    return run;
}

static double stat_of(const vbmc *run, const char *name) {
    double v = NAN;
    assert_int_equal(vbmc_stat(run, name, &v), VBMC_OK);
    return v;
}

/* Asks until the run stops handing out points; returns the answer that stopped it and the
 * number of points handed out into points[]. */
static vbmc_status ask_all(vbmc *run, double points[][DIM], int *n) {
    for (;;) {
        double x[DIM] = {123.0, 456.0};
        const vbmc_status status = vbmc_ask(run, x);
        if (status != VBMC_OK) {
            if (status == VBMC_WAIT) {
                assert_close(x[0], 123.0, 0.0); /* untouched */
                assert_close(x[1], 456.0, 0.0);
                assert_string_equal(vbmc_last_error(run), "");
            }
            return status;
        }
        assert_true(*n < MAX_PENDING);
        memcpy(points[(*n)++], x, sizeof x);
    }
}

/* Tells points[i] and removes it from the list. */
static void tell_one(vbmc *run, double points[][DIM], int *n, int i) {
    assert_int_equal(vbmc_tell(run, points[i], log_joint(points[i]), 0.0), VBMC_OK);
    memmove(points[i], points[i + 1], sizeof points[0] * (size_t)(*n - i - 1));
    --*n;
}

static void test_initial_design_waits_for_its_values(void **state) {
    (void)state;
    vbmc *run = make_run(MAX_PENDING, 100);
    double points[MAX_PENDING][DIM];
    int n = 0;
    /* The 6 design points are handed out, then the run needs their values to go on. */
    assert_int_equal(ask_all(run, points, &n), VBMC_WAIT);
    assert_int_equal(n, 6);
    tell_one(run, points, &n, 2);
    assert_int_equal(ask_all(run, points, &n), VBMC_WAIT);
    assert_int_equal(n, 5);
    /* Abandoning a design point puts it back: the next ask hands out the same point. */
    double abandoned[DIM];
    memcpy(abandoned, points[0], sizeof abandoned);
    assert_int_equal(vbmc_abandon(run, abandoned), VBMC_OK);
    memmove(points[0], points[1], sizeof points[0] * 4);
    n = 4;
    assert_int_equal(ask_all(run, points, &n), VBMC_WAIT);
    assert_int_equal(n, 5);
    assert_memory_equal(points[4], abandoned, sizeof abandoned);
    /* Told in reverse order: the last value completes the design and runs the first iteration. */
    while (n > 0) tell_one(run, points, &n, n - 1);
    assert_close(stat_of(run, "iteration"), 1.0, 0.0);
    /* Active points are now handed out up to max_pending. */
    assert_int_equal(ask_all(run, points, &n), VBMC_WAIT);
    assert_int_equal(n, MAX_PENDING);
    assert_close(stat_of(run, "pending"), MAX_PENDING, 0.0);
    tell_one(run, points, &n, 7);
    assert_int_equal(ask_all(run, points, &n), VBMC_WAIT);
    assert_int_equal(n, MAX_PENDING);
    vbmc_destroy(run);
}

static void test_budget_waits_then_finishes(void **state) {
    (void)state;
    const int budget = 9;
    vbmc *run = make_run(MAX_PENDING, budget);
    double points[MAX_PENDING][DIM];
    int n = 0;
    assert_int_equal(ask_all(run, points, &n), VBMC_WAIT);
    while (n > 0) tell_one(run, points, &n, 0);
    /* 6 told: only 3 more fit the budget, though 16 may be pending. */
    assert_int_equal(ask_all(run, points, &n), VBMC_WAIT);
    assert_int_equal(n, budget - 6);
    tell_one(run, points, &n, 1);
    assert_int_equal(ask_all(run, points, &n), VBMC_WAIT);
    assert_int_equal(n, 2);
    while (n > 0) tell_one(run, points, &n, 0);
    assert_int_equal(ask_all(run, points, &n), VBMC_DONE);
    assert_close(stat_of(run, "func_count"), budget, 0.0);
    vbmc_destroy(run);
}

static void test_sequential_run_never_waits(void **state) {
    (void)state;
    vbmc *run = make_run(1, 20);
    double x[DIM];
    vbmc_status status;
    while ((status = vbmc_ask(run, x)) == VBMC_OK) {
        assert_int_equal(vbmc_ask(run, x), VBMC_WAIT); /* the one allowed point is out */
        assert_int_equal(vbmc_tell(run, x, log_joint(x), 0.0), VBMC_OK);
    }
    assert_int_equal(status, VBMC_DONE);
    vbmc_destroy(run);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_initial_design_waits_for_its_values),
        cmocka_unit_test(test_budget_waits_then_finishes),
        cmocka_unit_test(test_sequential_run_never_waits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
