/* Error paths of the public API: every bad input gives its status and a message naming the
 * argument, and leaves the handle usable; nothing told is lost. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

static const double plb2[2] = {-1, -1}, pub2[2] = {1, 1};

static vbmc *make_run(int max_pending) {
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_pending", max_pending), VBMC_OK);
    assert_int_equal(vbmc_create(&run, 2, NULL, NULL, NULL, plb2, pub2, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    return run;
}

static void test_status_names_are_total(void **state) {
    (void)state;
    assert_string_equal(vbmc_status_name(VBMC_E_ARG), "VBMC_E_ARG");
    assert_string_equal(vbmc_status_name(VBMC_DONE), "VBMC_DONE");
    assert_string_equal(vbmc_status_name(VBMC_WAIT), "VBMC_WAIT");
    assert_int_equal((int)VBMC_WAIT, 2); /* part of the ABI: never renumbered */
    for (int s = -1000; s <= 1000; ++s) assert_non_null(vbmc_status_name((vbmc_status)s));
    assert_string_equal(vbmc_status_name((vbmc_status)12345), "VBMC_UNKNOWN_STATUS");
}

static void test_create_rejects_bad_arguments(void **state) {
    (void)state;
    vbmc *run = (vbmc *)0x1;
    const double nan_x0[2] = {0, NAN}, out_x0[2] = {0, 5};
    const double lb[2] = {-2, -2}, ub[2] = {2, 2}, bad_lb[2] = {-0.5, -2};
    const double bad_pub[2] = {1, -1}, inf_pub[2] = {1, INFINITY};

    assert_int_equal(vbmc_create(NULL, 2, NULL, NULL, NULL, plb2, pub2, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "out");
    assert_int_equal(vbmc_create(&run, 0, NULL, NULL, NULL, plb2, pub2, NULL), VBMC_E_ARG);
    assert_null(run);
    assert_message_mentions(vbmc_last_error(NULL), "dim = 0");
    assert_int_equal(vbmc_create(&run, VBMC_MAX_DIM + 1, NULL, NULL, NULL, plb2, pub2, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "dim");
    assert_int_equal(vbmc_create(&run, 2, NULL, NULL, NULL, NULL, pub2, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "plb");
    assert_int_equal(vbmc_create(&run, 2, NULL, NULL, NULL, plb2, bad_pub, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "plb[1] = -1 is not below pub[1] = -1");
    assert_int_equal(vbmc_create(&run, 2, NULL, NULL, NULL, plb2, inf_pub, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "pub[1]");
    assert_int_equal(vbmc_create(&run, 2, nan_x0, NULL, NULL, plb2, pub2, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "x0[1]");
    assert_int_equal(vbmc_create(&run, 2, out_x0, lb, ub, plb2, pub2, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "x0[1] = 5");
    assert_int_equal(vbmc_create(&run, 2, NULL, bad_lb, ub, plb2, pub2, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "lb[0] = -0.5 is not below plb[0] = -1");
    assert_null(run);
    /* A good call after the failures works. */
    assert_int_equal(vbmc_create(&run, 2, NULL, lb, ub, plb2, pub2, NULL), VBMC_OK);
    assert_string_equal(vbmc_last_error(run), "");
    assert_int_equal(vbmc_dim(run), 2);
    vbmc_destroy(run);
}

static void test_options_are_validated(void **state) {
    (void)state;
    vbmc_opts *opts = NULL;
    char buf[64];
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "no_such_option", "1"), VBMC_E_OPTION);
    assert_message_mentions(vbmc_opts_error(opts), "no_such_option");
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", 0), VBMC_E_OPTION);
    assert_message_mentions(vbmc_opts_error(opts), "max_fun_evals = 0");
    assert_int_equal(vbmc_opts_set(opts, "max_fun_evals", "12x"), VBMC_E_OPTION);
    assert_int_equal(vbmc_opts_set_double(opts, "max_fun_evals", 2.5), VBMC_E_OPTION);
    assert_int_equal(vbmc_opts_set(opts, "display", "loud"), VBMC_E_OPTION);
    assert_message_mentions(vbmc_opts_error(opts), "display");
    assert_int_equal(vbmc_opts_set_int(opts, "display", 3), VBMC_E_OPTION);
    assert_int_equal(vbmc_opts_set_double(opts, "tol_sd", NAN), VBMC_E_OPTION);
    /* search_acq_fcn takes one function or a comma-separated list of them. */
    assert_int_equal(vbmc_opts_set(opts, "search_acq_fcn", "pro,foo"), VBMC_E_OPTION);
    assert_message_mentions(vbmc_opts_error(opts), "pro,foo");
    assert_int_equal(vbmc_opts_set(opts, "search_acq_fcn", "pro,"), VBMC_E_OPTION);
    assert_int_equal(vbmc_opts_set(opts, "search_acq_fcn", ""), VBMC_E_OPTION);
    assert_int_equal(vbmc_opts_set(opts, "display", "iter,off"), VBMC_E_OPTION);
    assert_int_equal(vbmc_opts_set(opts, "component_scales", "diagonal"), VBMC_E_OPTION);
    assert_message_mentions(vbmc_opts_error(opts), "component_scales");
    assert_int_equal(vbmc_opts_set(opts, "component_scales", "all"), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "search_acq_fcn", "pro,ivr,us"), VBMC_OK);
    assert_int_equal(vbmc_opts_get(opts, "search_acq_fcn", buf, sizeof buf), VBMC_OK);
    assert_string_equal(buf, "pro,ivr,us");
    assert_int_equal(vbmc_opts_set(opts, NULL, "1"), VBMC_E_ARG);
    /* Failed sets changed nothing; good sets read back. */
    assert_int_equal(vbmc_opts_get(opts, "max_fun_evals", buf, sizeof buf), VBMC_OK);
    assert_string_equal(buf, "50*(D+2)");
    assert_int_equal(vbmc_opts_set(opts, "max_fun_evals", "300"), VBMC_OK);
    assert_int_equal(vbmc_opts_get(opts, "max_fun_evals", buf, sizeof buf), VBMC_OK);
    assert_string_equal(buf, "300");
    assert_int_equal(vbmc_opts_get(opts, "max_fun_evals", buf, 2), VBMC_E_ARG);
    assert_int_equal(vbmc_opts_set(opts, "do_final_boost", "false"), VBMC_OK);
    assert_int_equal(vbmc_opts_get(opts, "do_final_boost", buf, sizeof buf), VBMC_OK);
    assert_string_equal(buf, "false");
    /* Introspection lists every option with a type, default and help. */
    const int n = vbmc_opts_count();
    assert_true(n > 10);
    for (int i = 0; i < n; ++i) {
        assert_non_null(vbmc_opts_name(i));
        assert_non_null(vbmc_opts_type(i));
        assert_non_null(vbmc_opts_default(i));
        assert_non_null(vbmc_opts_help(i));
        assert_int_equal(vbmc_opts_get(opts, vbmc_opts_name(i), buf, sizeof buf), VBMC_OK);
    }
    assert_null(vbmc_opts_name(n));
    assert_null(vbmc_opts_name(-1));
    vbmc_opts_destroy(opts);
    vbmc_opts_destroy(NULL);
}

static void test_tell_errors_keep_the_run_usable(void **state) {
    (void)state;
    vbmc *run = make_run(1);
    double x[2], other[2] = {0.123, 0.456}, count;
    assert_int_equal(vbmc_ask(run, x), VBMC_OK);
    /* A second ask beyond max_pending = 1 waits for a tell: not an error, x untouched. */
    assert_int_equal(vbmc_ask(run, other), VBMC_WAIT);
    assert_string_equal(vbmc_last_error(run), "");
    assert_close(other[0], 0.123, 0.0);
    /* Tell of a point never asked. */
    assert_int_equal(vbmc_tell(run, other, -1.0, 0.0), VBMC_E_STATE);
    assert_message_mentions(vbmc_last_error(run), "not a pending point");
    /* Bad SD, NaN coordinate, NULL x. */
    assert_int_equal(vbmc_tell(run, x, -1.0, -0.5), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "log_joint_sd = -0.5");
    assert_int_equal(vbmc_tell(run, x, -1.0, INFINITY), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "log_joint_sd");
    other[1] = NAN;
    assert_int_equal(vbmc_tell(run, other, -1.0, 0.0), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "x[1]");
    assert_int_equal(vbmc_tell(run, NULL, -1.0, 0.0), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "x is NULL");
    assert_int_equal(vbmc_stat(run, "func_count", &count), VBMC_OK);
    assert_close(count, 0.0, 0.0);
    /* The pending point can still be told; then telling it again fails. */
    assert_int_equal(vbmc_tell(run, x, -0.5 * (x[0] * x[0] + x[1] * x[1]), 0.0), VBMC_OK);
    assert_string_equal(vbmc_last_error(run), "");
    assert_int_equal(vbmc_tell(run, x, -1.0, 0.0), VBMC_E_STATE);
    assert_message_mentions(vbmc_last_error(run), "not a pending point");
    assert_int_equal(vbmc_stat(run, "func_count", &count), VBMC_OK);
    assert_close(count, 1.0, 0.0);
    /* Unknown statistic; pending index out of range. */
    assert_int_equal(vbmc_stat(run, "nonsense", &count), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "nonsense");
    assert_int_equal(vbmc_pending_point(run, 0, x), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "i = 0 is outside [0, 0)");
    /* No posterior before the first iteration. */
    vbmc_post *post = NULL;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_E_STATE);
    assert_null(post);
    assert_true(strlen(vbmc_last_error(run)) > 0);
    /* vbmc_run without a function; the run still answers. */
    assert_int_equal(vbmc_run(run, NULL, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "f is NULL");
    assert_int_equal(vbmc_ask(run, x), VBMC_OK);
    vbmc_destroy(run);
}

static void test_abandon_and_pending(void **state) {
    (void)state;
    vbmc *run = make_run(3);
    double a[2], b[2], p[2], pending;
    assert_int_equal(vbmc_ask(run, a), VBMC_OK);
    assert_int_equal(vbmc_ask(run, b), VBMC_OK);
    assert_int_equal(vbmc_stat(run, "pending", &pending), VBMC_OK);
    assert_close(pending, 2.0, 0.0);
    assert_int_equal(vbmc_pending_point(run, 1, p), VBMC_OK);
    assert_memory_equal(p, b, sizeof b);
    assert_int_equal(vbmc_abandon(run, a), VBMC_OK);
    assert_int_equal(vbmc_abandon(run, a), VBMC_E_STATE);
    assert_true(strlen(vbmc_last_error(run)) > 0);
    assert_int_equal(vbmc_stat(run, "pending", &pending), VBMC_OK);
    assert_close(pending, 1.0, 0.0);
    /* The abandoned initial-design point is asked again. */
    assert_int_equal(vbmc_ask(run, p), VBMC_OK);
    assert_memory_equal(p, a, sizeof a);
    vbmc_destroy(run);
}

static void test_null_handles(void **state) {
    (void)state;
    double x[2] = {0, 0}, v;
    vbmc_destroy(NULL);
    vbmc_post_destroy(NULL);
    vbmc_post *post = NULL;
    /* Each call on a NULL handle says so in the thread's handle-less message. */
    assert_int_equal(vbmc_ask(NULL, x), VBMC_E_ARG);
    assert_string_equal(vbmc_last_error(NULL), "run is NULL");
    assert_int_equal(vbmc_post_elbo(NULL, &v, &v), VBMC_E_ARG);
    assert_string_equal(vbmc_last_error(NULL), "post is NULL");
    assert_int_equal(vbmc_tell(NULL, x, 0, 0), VBMC_E_ARG);
    assert_string_equal(vbmc_last_error(NULL), "run is NULL");
    assert_int_equal(vbmc_stat(NULL, "iteration", &v), VBMC_E_ARG);
    assert_int_equal(vbmc_save(NULL, "x"), VBMC_E_ARG);
    assert_int_equal(vbmc_post_elbo(NULL, &v, &v), VBMC_E_ARG);
    assert_int_equal(vbmc_posterior(NULL, &post), VBMC_E_ARG);
    assert_string_equal(vbmc_last_error(NULL), "run is NULL");
    assert_int_equal(vbmc_post_dim(NULL), 0);
    assert_int_equal(vbmc_dim(NULL), 0);
    assert_int_equal(vbmc_run(NULL, NULL, NULL), VBMC_E_ARG);
    assert_string_equal(vbmc_last_error(NULL), "run is NULL");
}

/* Handles are ids the library never dereferences: a destroyed handle, one destroyed twice, or a
 * stale one whose memory a new object now occupies gives VBMC_E_ARG and a message, and never
 * reaches the new object (before, under ASan: heap-use-after-free; without: the stale handle
 * drove the new run). */
static void test_dead_handles(void **state) {
    (void)state;
    double x[2], v;
    vbmc *old = make_run(1);
    vbmc_destroy(old);
    vbmc *fresh = make_run(1);
    assert_int_equal(vbmc_ask(old, x), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "run is not a live handle");
    assert_message_mentions(vbmc_last_error(old), "already destroyed");
    assert_int_equal(vbmc_dim(old), 0);
    assert_string_equal(vbmc_result_message(old), "");
    vbmc_destroy(old); /* twice: ignored */
    assert_int_equal(vbmc_pending_point(fresh, 0, x), VBMC_E_ARG); /* nothing was asked of it */
    assert_int_equal(vbmc_ask(fresh, x), VBMC_OK);
    assert_int_equal(vbmc_stat(fresh, "iteration", &v), VBMC_OK);

    vbmc_opts *opts = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    vbmc_opts_destroy(opts); /* twice: ignored */
    assert_int_equal(vbmc_opts_set(opts, "seed", "1"), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "opts is not a live handle");
    assert_message_mentions(vbmc_opts_error(opts), "not a live handle");
    vbmc *run = NULL;
    assert_int_equal(vbmc_create(&run, 2, NULL, NULL, NULL, plb2, pub2, opts), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "opts is not a live handle");
    assert_null(run);

    /* A handle of one type passed as another is not live either. */
    assert_int_equal(vbmc_post_elbo((const vbmc_post *)fresh, &v, &v), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "post is not a live handle");
    assert_int_equal(vbmc_post_dim((const vbmc_post *)fresh), 0);
    vbmc_destroy(fresh);
}

static void test_bad_files(void **state) {
    (void)state;
    vbmc *run = (vbmc *)0x1;
    vbmc_post *post = (vbmc_post *)0x1;
    assert_int_equal(vbmc_load(&run, "/nonexistent/dir/file.ckpt"), VBMC_E_IO);
    assert_null(run);
    assert_message_mentions(vbmc_last_error(NULL), "/nonexistent/dir/file.ckpt");
    const char *path = "test_errors_garbage.bin";
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("this is not a checkpoint at all", f);
    fclose(f);
    assert_int_equal(vbmc_load(&run, path), VBMC_E_FORMAT);
    assert_message_mentions(vbmc_last_error(NULL), "not a libvbmc checkpoint");
    assert_int_equal(vbmc_post_load(&post, path), VBMC_E_FORMAT);
    assert_null(post);
    remove(path);
    /* A real checkpoint, truncated and corrupted. */
    vbmc *good = make_run(1);
    double x[2];
    assert_int_equal(vbmc_ask(good, x), VBMC_OK);
    assert_int_equal(vbmc_tell(good, x, -1.0, 0.0), VBMC_OK);
    assert_int_equal(vbmc_save(good, path), VBMC_OK);
    assert_int_equal(vbmc_save(good, "/nonexistent/dir/file.ckpt"), VBMC_E_IO);
    f = fopen(path, "rb");
    unsigned char bytes[65536];
    const size_t size = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    f = fopen(path, "wb");
    fwrite(bytes, 1, size - 7, f);
    fclose(f);
    assert_int_equal(vbmc_load(&run, path), VBMC_E_FORMAT);
    bytes[size / 2] ^= 0x40;
    f = fopen(path, "wb");
    fwrite(bytes, 1, size, f);
    fclose(f);
    assert_int_equal(vbmc_load(&run, path), VBMC_E_FORMAT);
    assert_message_mentions(vbmc_last_error(NULL), "corrupted");
    remove(path);
    vbmc_destroy(good);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_names_are_total),
        cmocka_unit_test(test_create_rejects_bad_arguments),
        cmocka_unit_test(test_options_are_validated),
        cmocka_unit_test(test_tell_errors_keep_the_run_usable),
        cmocka_unit_test(test_abandon_and_pending),
        cmocka_unit_test(test_null_handles),
        cmocka_unit_test(test_dead_handles),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
