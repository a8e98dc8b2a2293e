/* The noise-aware acquisitions (search_acq_fcn = npro, viqr, imiqr, bbq, and a list of them with
 * two asks out) through the public API on a noisy 2-D target whose noise SD is told: each run
 * finishes with a finite ELBO, the same seed gives the same asks, and a run saved and loaded
 * halfway asks the same points as the uninterrupted one (viqr's integration points come from
 * the run's own stream). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

enum { kBudget = 30, kDim = 2 };

/* A standard normal from a counter (the target's noise, the same in every run). */
static double noise_of(int count) {
    const double u1 = (count * 0.6180339887498949 + 0.1) - floor(count * 0.6180339887498949 + 0.1);
    const double u2 = (count * 0.7548776662466927 + 0.3) - floor(count * 0.7548776662466927 + 0.3);
    return sqrt(-2.0 * log(u1 + 1e-12)) * cos(6.283185307179586 * u2);
}

static double log_joint(const double *x) { return -0.5 * (x[0] * x[0] + 2.0 * x[1] * x[1] - 0.8 * x[0] * x[1]); }

static vbmc *create_run(const char *acq, int max_pending) {
    const double lb[kDim] = {-6, -6}, ub[kDim] = {6, 6}, plb[kDim] = {-2, -2}, pub[kDim] = {2, 2};
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "search_acq_fcn", acq), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", kBudget), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "fun_eval_start", 6), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_gp_max", 4), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_search", 512), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "min_final_components", 5), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_pending", max_pending), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", 7), VBMC_OK);
    assert_int_equal(vbmc_create(&run, kDim, NULL, lb, ub, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    return run;
}

/* Runs to the end, recording the asks (at most kBudget); with save_at > 0 the run is saved and
 * replaced by its loaded copy after that many tells. With max_pending > 1 the run is asked
 * until it waits or holds max_pending points, which are then told oldest first. Returns the
 * number of asks. */
static int run_recording(const char *acq, int max_pending, int save_at, double asks[][kDim]) {
    vbmc *run = create_run(acq, max_pending);
    char path[80];
    snprintf(path, sizeof path, "test_noisy_acq.ckpt.%ld", (long)getpid());
    int asked = 0, told = 0;
    double held[2][kDim];
    int holding = 0;
    for (;;) {
        double x[kDim];
        const vbmc_status status = vbmc_ask(run, x);
        if (status == VBMC_OK) {
            memcpy(asks[asked++], x, sizeof x);
            memcpy(held[holding++], x, sizeof x);
            if (holding < max_pending && asked < kBudget) continue;
        } else {
            assert_true(status == VBMC_DONE || status == VBMC_WAIT);
            if (holding == 0) break;
        }
        for (int h = 0; h < holding; ++h) {
            assert_int_equal(vbmc_tell(run, held[h], log_joint(held[h]) + 0.7 * noise_of(told), 0.7), VBMC_OK);
            if (++told == save_at) {
                vbmc *loaded = NULL;
                assert_int_equal(vbmc_save(run, path), VBMC_OK);
                assert_int_equal(vbmc_load(&loaded, path), VBMC_OK);
                vbmc_destroy(run);
                run = loaded;
            }
        }
        holding = 0;
    }
    remove(path);
    vbmc_post *post = NULL;
    double elbo, elbo_sd;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(post, &elbo, &elbo_sd), VBMC_OK);
    assert_true(isfinite(elbo) && isfinite(elbo_sd));
    vbmc_post_destroy(post);
    vbmc_destroy(run);
    return asked;
}

static double first[kBudget][kDim], again[kBudget][kDim], resumed[kBudget][kDim];

static void check_acquisition(const char *acq, int max_pending) {
    const int n = run_recording(acq, max_pending, 0, first);
    assert_true(n > 6);
    assert_int_equal(run_recording(acq, max_pending, 0, again), n);
    assert_memory_equal(first, again, sizeof(double) * kDim * (size_t)n);
    assert_int_equal(run_recording(acq, max_pending, 14, resumed), n);
    assert_memory_equal(first, resumed, sizeof(double) * kDim * (size_t)n);
}

static void test_npro(void **state) { (void)state; check_acquisition("npro", 1); }
/* The option takes effect: viqr's asks after the initial design are not npro's. */
static void test_viqr(void **state) {
    (void)state;
    static double npro_asks[kBudget][kDim];
    const int n = run_recording("npro", 1, 0, npro_asks);
    check_acquisition("viqr", 1);
    assert_true(n > 10);
    assert_memory_not_equal(first[8], npro_asks[8], sizeof(double) * kDim * 2);
}
static void test_imiqr(void **state) { (void)state; check_acquisition("imiqr", 1); }
/* BBQ's expected variance of the evidence; its Delta candidates come from the run's stream. */
static void test_bbq(void **state) { (void)state; check_acquisition("bbq", 1); }
static void test_list_with_pending(void **state) { (void)state; check_acquisition("viqr,npro,ivr", 2); }

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_npro),
        cmocka_unit_test(test_viqr),
        cmocka_unit_test(test_imiqr),
        cmocka_unit_test(test_bbq),
        cmocka_unit_test(test_list_with_pending),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
