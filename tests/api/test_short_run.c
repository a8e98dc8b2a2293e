/* A short complete run (D = 1, 15 evaluations, cheap settings) through every call: the run that
 * the valgrind memcheck step of scripts/check-sanitizers checks. It reaches several iterations,
 * a failed value, a checkpoint round trip, the final boost and every posterior call. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

static void test_short_run(void **state) {
    (void)state;
    const double lb[1] = {-5}, ub[1] = {5}, plb[1] = {-2}, pub[1] = {2};
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", 15), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "fun_eval_start", 5), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "fun_evals_per_iter", 2), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_gp_max", 4), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_search", 256), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "min_final_components", 5), VBMC_OK);
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
    snprintf(path, sizeof path, "test_short_run.post.%ld", (long)getpid());
    assert_int_equal(vbmc_post_save(post, path), VBMC_OK);
    vbmc_post *again = NULL;
    assert_int_equal(vbmc_post_load(&again, path), VBMC_OK);
    remove(path);
    vbmc_post_destroy(again);
    vbmc_post_destroy(post);
    vbmc_destroy(run);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_short_run)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
