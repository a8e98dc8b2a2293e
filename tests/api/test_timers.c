/* The library's own time by phase (vbmc_stat "time_<phase>" and "cpu_<phase>"): zero on a new or
 * loaded handle, finite and never decreasing, every phase nonzero after a short run that locates
 * and boosts, the phases together within "total", and reading them changes no ask. No timed
 * thresholds: only signs and orderings, which hold whatever the machine's load. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

#define DIM 2
#define N_PHASES 6
#define MAX_ASKS 64

static const char *const kPhases[N_PHASES] = {"gp_train", "vp_optim", "acquisition", "final_boost", "locate", "total"};

/* The wall-clock ("time_") and CPU ("cpu_") seconds of each phase of kPhases. */
typedef struct {
    double wall[N_PHASES], cpu[N_PHASES];
} phase_times;

static phase_times read_times(const vbmc *run) {
    phase_times t;
    char name[64];
    for (int p = 0; p < N_PHASES; ++p) {
        snprintf(name, sizeof name, "time_%s", kPhases[p]);
        assert_int_equal(vbmc_stat(run, name, &t.wall[p]), VBMC_OK);
        snprintf(name, sizeof name, "cpu_%s", kPhases[p]);
        assert_int_equal(vbmc_stat(run, name, &t.cpu[p]), VBMC_OK);
    }
    return t;
}

/* Every figure finite and at least its value in `before`. */
static void assert_not_decreasing(const phase_times *before, const phase_times *now) {
    for (int p = 0; p < N_PHASES; ++p) {
        assert_true(isfinite(now->wall[p]) && now->wall[p] >= before->wall[p]);
        assert_true(isfinite(now->cpu[p]) && now->cpu[p] >= before->cpu[p]);
    }
}

/* A cheap, quiet, seeded run in a box much wider than the target, the locating stage forced and
 * the final boost on (the default). */
static vbmc *cheap_run(void) {
    const double plb[DIM] = {-20, -20}, pub[DIM] = {20, 20};
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", 5), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "locate", "on"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", 30), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "fun_eval_start", 6), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_gp_max", 4), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_search", 256), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "min_final_components", 5), VBMC_OK);
    assert_int_equal(vbmc_create(&run, DIM, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    return run;
}

static double log_joint(const double *x) { return -0.5 * ((x[0] - 3) * (x[0] - 3) + 4 * (x[1] + 1) * (x[1] + 1)); }

/* Runs to the end, storing the asks; with `watch`, reads the timers after every call and checks
 * they never decrease. Returns the number of asks. */
static int run_to_end(vbmc *run, int watch, double asks[MAX_ASKS][DIM]) {
    phase_times last = read_times(run), now;
    int n = 0;
    double x[DIM];
    while (vbmc_ask(run, x) == VBMC_OK) {
        assert_true(n < MAX_ASKS);
        memcpy(asks[n++], x, sizeof x);
        if (watch) {
            now = read_times(run);
            assert_not_decreasing(&last, &now);
            last = now;
        }
        assert_int_equal(vbmc_tell(run, x, log_joint(x), 0.0), VBMC_OK);
        if (watch) {
            now = read_times(run);
            assert_not_decreasing(&last, &now);
            last = now;
        }
    }
    return n;
}

static void test_new_handle_has_zero_times(void **state) {
    (void)state;
    vbmc *run = cheap_run();
    const phase_times t = read_times(run);
    for (int p = 0; p < N_PHASES; ++p) {
        assert_true(t.wall[p] == 0.0);
        assert_true(t.cpu[p] == 0.0);
    }
    double value;
    assert_int_equal(vbmc_stat(run, "time_", &value), VBMC_E_ARG);
    assert_int_equal(vbmc_stat(run, "cpu_search", &value), VBMC_E_ARG);
    vbmc_destroy(run);
}

/* After a run that located and boosted, each phase took some time, and the phases (which never
 * overlap) add up to at most the total: a monotonic clock's sub-intervals cannot exceed the
 * intervals that hold them; 1e-9 s allows for rounding in the sums. Reading the timers after every
 * call leaves the asks and the ELBO bitwise those of a run that never reads them. */
static void test_phases_after_a_run(void **state) {
    (void)state;
    double asks_watched[MAX_ASKS][DIM], asks_plain[MAX_ASKS][DIM];
    vbmc *watched = cheap_run(), *plain = cheap_run();
    const int n = run_to_end(watched, 1, asks_watched);
    assert_int_equal(run_to_end(plain, 0, asks_plain), n);
    assert_memory_equal(asks_watched, asks_plain, sizeof(double) * DIM * (size_t)n);
    double locate_evals, elbo_watched, elbo_plain;
    assert_int_equal(vbmc_stat(watched, "locate_evals", &locate_evals), VBMC_OK);
    assert_true(locate_evals > 0);
    assert_int_equal(vbmc_stat(watched, "elbo", &elbo_watched), VBMC_OK);
    assert_int_equal(vbmc_stat(plain, "elbo", &elbo_plain), VBMC_OK);
    assert_memory_equal(&elbo_watched, &elbo_plain, sizeof elbo_plain);

    const phase_times t = read_times(watched);
    double wall_sum = 0.0, cpu_sum = 0.0;
    for (int p = 0; p < N_PHASES - 1; ++p) {
        if (t.wall[p] <= 0.0 || t.cpu[p] <= 0.0) print_error("phase %s: wall %g s, CPU %g s\n", kPhases[p], t.wall[p], t.cpu[p]);
        assert_true(t.wall[p] > 0.0);
        assert_true(t.cpu[p] > 0.0);
        wall_sum += t.wall[p];
        cpu_sum += t.cpu[p];
    }
    assert_true(wall_sum <= t.wall[N_PHASES - 1] + 1e-9);
    assert_true(cpu_sum <= t.cpu[N_PHASES - 1] + 1e-9);
    vbmc_destroy(watched);
    vbmc_destroy(plain);
}

/* The timers are not saved: a loaded handle starts from zero and counts its own calls. */
static void test_load_starts_from_zero(void **state) {
    (void)state;
    vbmc *run = cheap_run();
    double x[DIM], total;
    for (int i = 0; i < 8 && vbmc_ask(run, x) == VBMC_OK; ++i) assert_int_equal(vbmc_tell(run, x, log_joint(x), 0.0), VBMC_OK);
    assert_int_equal(vbmc_stat(run, "time_total", &total), VBMC_OK);
    assert_true(total > 0.0);
    char path[64];
    snprintf(path, sizeof path, "test_timers.ckpt.%ld", (long)getpid());
    assert_int_equal(vbmc_save(run, path), VBMC_OK);
    vbmc *loaded = NULL;
    assert_int_equal(vbmc_load(&loaded, path), VBMC_OK);
    remove(path);
    const phase_times t = read_times(loaded);
    for (int p = 0; p < N_PHASES; ++p) assert_true(t.wall[p] == 0.0 && t.cpu[p] == 0.0);
    assert_int_equal(vbmc_ask(loaded, x), VBMC_OK);
    assert_int_equal(vbmc_stat(loaded, "time_total", &total), VBMC_OK);
    assert_true(total > 0.0);
    vbmc_destroy(loaded);
    vbmc_destroy(run);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_new_handle_has_zero_times),
                                       cmocka_unit_test(test_phases_after_a_run),
                                       cmocka_unit_test(test_load_starts_from_zero)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
