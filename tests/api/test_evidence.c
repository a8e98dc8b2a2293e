/* The log evidence estimate through the public API: on a finished run of a target whose evidence
 * is known (a bounded coordinate, so the transform's Jacobian counts) it lands near the truth with a
 * finite SD; a saved and loaded snapshot gives bitwise the same values; NULL outputs are allowed and
 * a NULL or dead snapshot is refused with a message. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

#define DIM 2

/* A log-normal x0 (log x0 ~ N(0, 0.5^2)) and x1 | x0 ~ N(0.5 log x0, 0.3), unnormalised: log Z is
 * 0.5 log(2 pi 0.25) + 0.5 log(2 pi 0.3). */
static double log_joint(const double *x) {
    const double l = log(x[0]), d = x[1] - 0.5 * l;
    return -0.5 * (l * l / 0.25) - l - 0.5 * d * d / 0.3;
}

static const double kLogZ = 0.5427434836864321; /* 0.5 log(2 pi 0.25) + 0.5 log(2 pi 0.3) */

static int setup(void **state) {
    const double lb[DIM] = {0.0, -INFINITY}, ub[DIM] = {INFINITY, INFINITY};
    const double plb[DIM] = {0.3, -1.0}, pub[DIM] = {3.0, 1.0};
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    vbmc_opts_create(&opts);
    vbmc_opts_set(opts, "display", "off");
    vbmc_opts_set_int(opts, "max_fun_evals", 60);
    vbmc_opts_set_int(opts, "seed", 4);
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

static void test_estimate_is_near_the_known_evidence(void **state) {
    const vbmc_post *post = (const vbmc_post *)*state;
    double log_z = NAN, log_z_sd = NAN, elbo = NAN;
    assert_int_equal(vbmc_post_log_evidence(post, &log_z, &log_z_sd), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(post, &elbo, NULL), VBMC_OK);
    assert_true(isfinite(log_z) && log_z_sd > 0.0 && log_z_sd < 0.2);
    assert_close(log_z, kLogZ, 0.05);
    assert_true(log_z > elbo - 0.05);  /* not a bound, but it cannot fall far below the ELBO here */
}

static void test_saved_snapshot_gives_the_same_estimate(void **state) {
    const vbmc_post *post = (const vbmc_post *)*state;
    char path[] = "/tmp/vbmc_evidence_XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    vbmc_post *loaded = NULL;
    assert_int_equal(vbmc_post_save(post, path), VBMC_OK);
    assert_int_equal(vbmc_post_load(&loaded, path), VBMC_OK);
    unlink(path);
    double a[2], b[2];
    assert_int_equal(vbmc_post_log_evidence(post, &a[0], &a[1]), VBMC_OK);
    assert_int_equal(vbmc_post_log_evidence(loaded, &b[0], &b[1]), VBMC_OK);
    assert_true(a[0] == b[0] && a[1] == b[1]);
    assert_int_equal(vbmc_post_log_evidence(loaded, NULL, NULL), VBMC_OK);
    vbmc_post_destroy(loaded);
}

static void test_bad_snapshot_is_refused(void **state) {
    (void)state;
    double log_z = 1.5;
    assert_int_equal(vbmc_post_log_evidence(NULL, &log_z, NULL), VBMC_E_ARG);
    assert_non_null(strstr(vbmc_last_error(NULL), "post is NULL"));
    assert_true(log_z == 1.5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_estimate_is_near_the_known_evidence),
        cmocka_unit_test(test_saved_snapshot_gives_the_same_estimate),
        cmocka_unit_test(test_bad_snapshot_is_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
