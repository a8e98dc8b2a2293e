/* Refined draws through the public API: on a finished run's snapshot they are finite, inside the
 * hard bounds, reproducible from the seed and independent of n; a saved and loaded snapshot refines
 * bitwise as the original, settings included; the auxiliary ELBO is never below the mixture's and
 * equals it with aux_count = 1; bad arguments are refused with a message and change nothing. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

#define DIM 2

static const double lb[DIM] = {0.0, -INFINITY}, ub[DIM] = {INFINITY, INFINITY};

/* A log-normal times a Gaussian, correlated: coordinate 0 is bounded below by 0. */
static double log_joint(const double *x) {
    const double l = log(x[0]), d = x[1] - 0.5 * l;
    return -0.5 * (l * l / 0.25) - l - 0.5 * d * d / 0.3;
}

static int setup(void **state) {
    const double plb[DIM] = {0.3, -1.0}, pub[DIM] = {3.0, 1.0};
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    vbmc_opts_create(&opts);
    vbmc_opts_set(opts, "display", "off");
    vbmc_opts_set_int(opts, "max_fun_evals", 40);
    vbmc_opts_set_int(opts, "ns_gp_max", 4);
    vbmc_opts_set_int(opts, "ns_search", 512);
    vbmc_opts_set_int(opts, "min_final_components", 10);
    vbmc_opts_set_int(opts, "seed", 3);
    if (vbmc_create(&run, DIM, NULL, lb, ub, plb, pub, opts) != VBMC_OK) return -1;
    vbmc_opts_destroy(opts);
    double x[DIM];
    while (vbmc_ask(run, x) == VBMC_OK) vbmc_tell(run, x, log_joint(x), 0.0);
    vbmc_post *post = NULL;
    if (vbmc_posterior(run, &post) != VBMC_OK) return -1;
    vbmc_destroy(run);
    *state = post;
    return 0;
}

static int teardown(void **state) {
    vbmc_post_destroy((vbmc_post *)*state);
    return 0;
}

static void test_draws_are_valid_reproducible_and_independent_of_n(void **state) {
    vbmc_post *post = (vbmc_post *)*state;
    double a[200 * DIM], b[200 * DIM], c[50 * DIM];
    assert_int_equal(vbmc_post_sample_refined(post, 200, 5, a), VBMC_OK);
    for (int i = 0; i < 200; ++i) {
        assert_true(isfinite(a[i * DIM]) && isfinite(a[i * DIM + 1]));
        assert_true(a[i * DIM] > lb[0]);
    }
    assert_int_equal(vbmc_post_sample_refined(post, 200, 5, b), VBMC_OK);
    assert_memory_equal(a, b, sizeof a);
    assert_int_equal(vbmc_post_sample_refined(post, 50, 5, c), VBMC_OK);
    assert_memory_equal(a, c, sizeof c);
    assert_int_equal(vbmc_post_sample_refined(post, 200, 6, b), VBMC_OK);
    assert_true(memcmp(a, b, sizeof a) != 0);
}

static void test_loaded_snapshot_refines_bitwise(void **state) {
    vbmc_post *post = (vbmc_post *)*state;
    char path[64];
    snprintf(path, sizeof path, "test_refine.post.%ld", (long)getpid());
    assert_int_equal(vbmc_post_set_refinement(post, 4, 0.5), VBMC_OK);
    double a[100 * DIM], b[100 * DIM], elbo_a, elbo_b, sd_a, sd_b;
    assert_int_equal(vbmc_post_sample_refined(post, 100, 9, a), VBMC_OK);
    assert_int_equal(vbmc_post_refined_elbo(post, 100, 9, &elbo_a, &sd_a), VBMC_OK);
    assert_int_equal(vbmc_post_save(post, path), VBMC_OK);
    assert_int_equal(vbmc_post_set_refinement(post, 3, 0.7), VBMC_OK);
    vbmc_post *loaded = NULL;
    assert_int_equal(vbmc_post_load(&loaded, path), VBMC_OK);
    remove(path);
    assert_int_equal(vbmc_post_sample_refined(loaded, 100, 9, b), VBMC_OK);
    assert_memory_equal(a, b, sizeof a);
    assert_int_equal(vbmc_post_refined_elbo(loaded, 100, 9, &elbo_b, &sd_b), VBMC_OK);
    assert_true(elbo_a == elbo_b && sd_a == sd_b);
    vbmc_post_destroy(loaded);
}

static void test_auxiliary_elbo_is_never_below_the_mixtures(void **state) {
    vbmc_post *post = (vbmc_post *)*state;
    double elbo, elbo_sd, aux, aux_sd;
    assert_int_equal(vbmc_post_elbo(post, &elbo, &elbo_sd), VBMC_OK);
    for (int aux_count = 1; aux_count <= 4; ++aux_count) {
        assert_int_equal(vbmc_post_set_refinement(post, aux_count, 0.7), VBMC_OK);
        assert_int_equal(vbmc_post_refined_elbo(post, 200, 1, &aux, &aux_sd), VBMC_OK);
        assert_true(aux >= elbo);
        assert_true(aux_sd >= elbo_sd);
        if (aux_count == 1) {
            assert_true(aux == elbo);
            assert_close(aux_sd, elbo_sd, 1e-15 * elbo_sd);
        }
    }
    assert_int_equal(vbmc_post_set_refinement(post, 3, 0.7), VBMC_OK);
}

static void test_bad_arguments_are_refused(void **state) {
    vbmc_post *post = (vbmc_post *)*state;
    double before[20 * DIM], after[20 * DIM], elbo;
    assert_int_equal(vbmc_post_sample_refined(post, 20, 2, before), VBMC_OK);
    assert_int_equal(vbmc_post_sample_refined(NULL, 20, 2, after), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "post is NULL");
    assert_int_equal(vbmc_post_sample_refined(post, 20, 2, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "x is NULL");
    assert_int_equal(vbmc_post_sample_refined(post, 0, 2, NULL), VBMC_OK);
    assert_int_equal(vbmc_post_refined_elbo(post, 1, 2, &elbo, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "n = 1");
    const struct {
        int aux_count;
        double ratio;
        const char *message;
    } bad[] = {{0, 0.7, "aux_count = 0"}, {21, 0.7, "aux_count = 21"}, {3, 0.0, "variance_ratio = 0"},
               {3, 1.0, "variance_ratio = 1"}, {3, NAN, "variance_ratio = nan"}, {-1, 0.5, "aux_count = -1"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        assert_int_equal(vbmc_post_set_refinement(post, bad[i].aux_count, bad[i].ratio), VBMC_E_ARG);
        assert_message_mentions(vbmc_last_error(NULL), bad[i].message);
    }
    assert_int_equal(vbmc_post_set_refinement(NULL, 3, 0.7), VBMC_E_ARG);
    assert_int_equal(vbmc_post_sample_refined(post, 20, 2, after), VBMC_OK);
    assert_memory_equal(before, after, sizeof before);
    vbmc_post *gone = NULL;
    const vbmc_post *copy = NULL;
    char path[64];
    snprintf(path, sizeof path, "test_refine_gone.post.%ld", (long)getpid());
    assert_int_equal(vbmc_post_save(post, path), VBMC_OK);
    assert_int_equal(vbmc_post_load(&gone, path), VBMC_OK);
    remove(path);
    copy = gone;
    vbmc_post_destroy(gone);
    assert_int_equal(vbmc_post_sample_refined(copy, 20, 2, after), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "not a live handle");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_draws_are_valid_reproducible_and_independent_of_n),
        cmocka_unit_test(test_loaded_snapshot_refines_bitwise),
        cmocka_unit_test(test_auxiliary_elbo_is_never_below_the_mixtures),
        cmocka_unit_test(test_bad_arguments_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
