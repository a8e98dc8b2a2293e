/* vbmc_stat "log_z_bbq" / "log_z_bbq_sd": NaN before the first iteration, BBQ's log evidence of a
 * 2-D Gaussian target (known exactly) after a run, the same value when read twice, and from the
 * run's posterior snapshot (vbmc_post_log_evidence_bbq), also after a save and load. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

/* Unnormalised N((0, 1), diag(1, 4)): Z = sqrt(2 pi) sqrt(8 pi) = 4 pi. */
static double log_joint(const double *x) { return -0.5 * (x[0] * x[0] + (x[1] - 1.0) * (x[1] - 1.0) / 4.0); }

static void test_bbq_stat(void **state) {
    (void)state;
    const double plb[2] = {-2, -3}, pub[2] = {2, 5}, x0[2] = {0.3, 0.5};
    const double log_z_true = log(16.0 * atan(1.0)); /* log(4 pi) */
    vbmc_opts *opts = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", 60), VBMC_OK);
    vbmc *run = NULL;
    assert_int_equal(vbmc_create(&run, 2, x0, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    double value = 0.0, sd = 0.0, again = 0.0, x[2];
    assert_int_equal(vbmc_stat(run, "log_z_bbq", &value), VBMC_OK);
    assert_true(isnan(value));
    assert_int_equal(vbmc_stat(run, "log_z_bbq_sd", &sd), VBMC_OK);
    assert_true(isnan(sd));
    while (vbmc_ask(run, x) == VBMC_OK) assert_int_equal(vbmc_tell(run, x, log_joint(x), 0.0), VBMC_OK);
    assert_int_equal(vbmc_stat(run, "log_z_bbq", &value), VBMC_OK);
    assert_int_equal(vbmc_stat(run, "log_z_bbq_sd", &sd), VBMC_OK);
    assert_int_equal(vbmc_stat(run, "log_z_bbq", &again), VBMC_OK);
    print_message("log Z by BBQ %.6f +/- %.6f, true %.6f\n", value, sd, log_z_true);
    assert_true(value == again);
    assert_true(sd > 0.0);
    assert_close(value, log_z_true, 0.05);
    /* The snapshot gives the same, also after a save and load. */
    vbmc_post *post = NULL, *loaded = NULL;
    double post_value = NAN, post_sd = NAN, loaded_value = NAN;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_log_evidence_bbq(post, &post_value, &post_sd), VBMC_OK);
    assert_true(post_value == value && post_sd == sd);
    char path[] = "/tmp/vbmc_bbq_XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(vbmc_post_save(post, path), VBMC_OK);
    assert_int_equal(vbmc_post_load(&loaded, path), VBMC_OK);
    unlink(path);
    assert_int_equal(vbmc_post_log_evidence_bbq(loaded, &loaded_value, NULL), VBMC_OK);
    assert_true(loaded_value == value);
    assert_int_equal(vbmc_post_log_evidence_bbq(NULL, &loaded_value, NULL), VBMC_E_ARG);
    vbmc_post_destroy(loaded);
    vbmc_post_destroy(post);
    vbmc_destroy(run);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bbq_stat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
