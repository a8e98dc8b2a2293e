/* Hostile input beyond tests/api/test_errors.c: each bad call gives its status and a message
 * naming the argument and the value, and leaves the handle usable. Checkpoint files that are
 * truncated at every length, corrupted at every byte, foreign, or of a future format version
 * give VBMC_E_FORMAT, never a crash; endless devices and streams, huge files and huge declared
 * lengths are refused without reading or allocating more than the header. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

static const double plb2[2] = {-1, -1}, pub2[2] = {1, 1};

static vbmc *small_run(int budget) {
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", budget), VBMC_OK);
    assert_int_equal(vbmc_create(&run, 2, NULL, NULL, NULL, plb2, pub2, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    return run;
}

static double target(const double *x) { return -0.5 * (x[0] * x[0] + 2.0 * x[1] * x[1]); }

static void test_create_hostile_bounds(void **state) {
    (void)state;
    vbmc *run = (vbmc *)0x1;
    const double lb[2] = {-3, -3}, ub[2] = {3, 3};
    const double nan_lb[2] = {NAN, -3}, inf_ub[2] = {3, -INFINITY}, swapped_ub[2] = {-4, 3};
    const double nan_plb[2] = {-1, NAN}, x0_on_bound[2] = {-3, 0}, x0_inf[2] = {INFINITY, 0};
    const double x0_far[2] = {1e200, 0}, x0_beyond[2] = {0, -2.5e150}; /* box width 2: 5e199, 1.25e150 widths */
    struct {
        int dim;
        const double *x0, *lb, *ub, *plb, *pub;
        const char *needle;
    } cases[] = {
        {-1, NULL, NULL, NULL, plb2, pub2, "dim = -1"},
        {INT_MIN, NULL, NULL, NULL, plb2, pub2, "dim = -2147483648"},
        {INT_MAX, NULL, NULL, NULL, plb2, pub2, "dim = 2147483647"},
        {2, NULL, nan_lb, ub, plb2, pub2, "lb[0] = nan"},
        {2, NULL, lb, inf_ub, plb2, pub2, "ub[1] = -inf"},
        {2, NULL, lb, swapped_ub, plb2, pub2, "ub[0] = -4"},
        {2, NULL, lb, ub, nan_plb, pub2, "plb[1] = nan"},
        {2, NULL, lb, ub, plb2, NULL, "pub"},
        {2, x0_on_bound, lb, ub, plb2, pub2, "x0[0] = -3"},
        {2, x0_inf, NULL, NULL, plb2, pub2, "x0[0] = inf"},
        {2, x0_far, NULL, NULL, plb2, pub2, "x0[0] = 9.9999999999999997e+199 lies more than 1e150 plausible-box widths"},
        {2, x0_beyond, NULL, NULL, plb2, pub2, "x0[1] = -2.5e+150 lies more than 1e150 plausible-box widths"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        assert_int_equal(vbmc_create(&run, cases[i].dim, cases[i].x0, cases[i].lb, cases[i].ub, cases[i].plb,
                                     cases[i].pub, NULL),
                         VBMC_E_ARG);
        assert_null(run);
        assert_message_mentions(vbmc_last_error(NULL), cases[i].needle);
    }
    /* Options inconsistent with the dimension: more initial points than the budget. */
    vbmc_opts *opts = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", 5), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "fun_eval_start", 8), VBMC_OK);
    assert_int_equal(vbmc_create(&run, 2, NULL, NULL, NULL, plb2, pub2, opts), VBMC_E_OPTION);
    assert_message_mentions(vbmc_last_error(NULL), "fun_eval_start = 8");
    /* An initial design too large to draw when the run is created is refused when set (fuzz_options
       found fun_eval_start = 55555555 with a budget as large running out of memory). */
    assert_int_equal(vbmc_opts_set_int(opts, "fun_eval_start", 55555555), VBMC_E_OPTION);
    assert_message_mentions(vbmc_opts_error(opts), "fun_eval_start = 55555555 is outside [1, 100000]");
    /* A budget that the initial design uses up: one iteration on those points, then done. */
    assert_int_equal(vbmc_opts_set_int(opts, "fun_eval_start", 5), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_create(&run, 2, NULL, NULL, NULL, plb2, pub2, opts), VBMC_OK);
    double x[2], evaluations = 0, elbo = NAN, elbo_sd = NAN;
    vbmc_status status;
    while ((status = vbmc_ask(run, x)) == VBMC_OK) assert_int_equal(vbmc_tell(run, x, target(x), 0.0), VBMC_OK);
    if (status != VBMC_DONE) print_error("%s\n", vbmc_last_error(run));
    assert_int_equal(status, VBMC_DONE);
    assert_int_equal(vbmc_stat(run, "func_count", &evaluations), VBMC_OK);
    assert_true(evaluations == 5);
    vbmc_post *post = NULL;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(post, &elbo, &elbo_sd), VBMC_OK);
    assert_true(isfinite(elbo) && isfinite(elbo_sd));
    vbmc_post_destroy(post);
    vbmc_destroy(run);
    vbmc_opts_destroy(opts);
}

static void test_options_hostile_values(void **state) {
    (void)state;
    vbmc_opts *opts = NULL;
    char buf[64];
    assert_int_equal(vbmc_opts_create(NULL), VBMC_E_ARG);
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    const char *bad[][2] = {
        {"max_fun_evals", "-3"},  {"max_fun_evals", "1e400"}, {"max_fun_evals", ""},  {"max_fun_evals", "nan"},
        {"tol_sd", "-1"},         {"tol_sd", "0"},          {"seed", "-1"},          {"max_pending", "0"},
        {"do_final_boost", "2"},  {"bounded_transform", "x"}, {"checkpoint_every", "0"}, {"", "1"},
        {"MAX_FUN_EVALS", "10"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        if (vbmc_opts_set(opts, bad[i][0], bad[i][1]) != VBMC_E_OPTION) {
            print_error("option %s = \"%s\" was accepted\n", bad[i][0], bad[i][1]);
            fail();
        }
        assert_true(strlen(vbmc_opts_error(opts)) > 0);
        if (bad[i][0][0] != '\0') assert_message_mentions(vbmc_opts_error(opts), bad[i][0]);
    }
    assert_int_equal(vbmc_opts_set_double(opts, "max_pending", INFINITY), VBMC_E_OPTION);
    assert_int_equal(vbmc_opts_set_double(opts, "seed", 1e300), VBMC_E_OPTION);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", LLONG_MIN), VBMC_E_OPTION);
    assert_int_equal(vbmc_opts_set_int(opts, "checkpoint_file", 3), VBMC_E_OPTION);
    assert_int_equal(vbmc_opts_get(opts, "no_such", buf, sizeof buf), VBMC_E_OPTION);
    assert_message_mentions(vbmc_opts_error(opts), "no_such");
    assert_int_equal(vbmc_opts_get(opts, "seed", NULL, 10), VBMC_E_ARG);
    assert_int_equal(vbmc_opts_get(opts, "seed", buf, 0), VBMC_E_ARG);
    assert_int_equal(vbmc_opts_set(NULL, "seed", "1"), VBMC_E_ARG);
    assert_non_null(vbmc_opts_error(NULL));
    /* Nothing changed; the object still works. */
    assert_int_equal(vbmc_opts_get(opts, "max_fun_evals", buf, sizeof buf), VBMC_OK);
    assert_string_equal(buf, "50*(D+2)");
    assert_int_equal(vbmc_opts_set(opts, "max_fun_evals", "30"), VBMC_OK);
    assert_string_equal(vbmc_opts_error(opts), "");
    vbmc_opts_destroy(opts);
}

/* Options are stored as doubles: an integer beyond 2^53, which a double would round (seed 2^53 + 1
 * to 2^53, silently colliding with another seed), is refused by every setter of every option; an
 * integer option's text is read exactly and must denote an integer. */
static void test_options_refuse_inexact_integers(void **state) {
    (void)state;
    vbmc_opts *opts = NULL;
    char buf[64];
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", 9007199254740993LL), VBMC_E_OPTION);
    assert_message_mentions(vbmc_opts_error(opts), "seed = 9007199254740993 is beyond 2^53");
    assert_int_equal(vbmc_opts_set(opts, "seed", "9007199254740993"), VBMC_E_OPTION);
    assert_message_mentions(vbmc_opts_error(opts), "seed = 9007199254740993 is beyond 2^53");
    assert_int_equal(vbmc_opts_set(opts, "seed", "1e30"), VBMC_E_OPTION);
    assert_message_mentions(vbmc_opts_error(opts), "seed = \"1e30\" is beyond 2^53");
    assert_int_equal(vbmc_opts_set_int(opts, "locate_spread", -9007199254740993LL), VBMC_E_OPTION);
    assert_message_mentions(vbmc_opts_error(opts), "locate_spread = -9007199254740993");
    /* 2^53 itself is held exactly. */
    assert_int_equal(vbmc_opts_set_int(opts, "seed", 9007199254740992LL), VBMC_OK);
    assert_int_equal(vbmc_opts_get(opts, "seed", buf, sizeof buf), VBMC_OK);
    assert_string_equal(buf, "9007199254740992");
    assert_int_equal(vbmc_opts_set(opts, "seed", "9007199254740991"), VBMC_OK);
    assert_int_equal(vbmc_opts_get(opts, "seed", buf, sizeof buf), VBMC_OK);
    assert_string_equal(buf, "9007199254740991");
    /* Integer text in other notations is read exactly; a fraction strtod would round away is not. */
    assert_int_equal(vbmc_opts_set(opts, "max_fun_evals", " 3.00e2 "), VBMC_OK);
    assert_int_equal(vbmc_opts_get(opts, "max_fun_evals", buf, sizeof buf), VBMC_OK);
    assert_string_equal(buf, "300");
    assert_int_equal(vbmc_opts_set(opts, "max_fun_evals", "5.0000000000000001"), VBMC_E_OPTION);
    assert_message_mentions(vbmc_opts_error(opts), "must be an integer");
    assert_int_equal(vbmc_opts_set(opts, "max_fun_evals", "0x20"), VBMC_E_OPTION);
    assert_int_equal(vbmc_opts_get(opts, "max_fun_evals", buf, sizeof buf), VBMC_OK);
    assert_string_equal(buf, "300");
    /* Every integer option, whatever its range. */
    for (int i = 0; i < vbmc_opts_count(); ++i) {
        if (strcmp(vbmc_opts_type(i), "int") != 0) continue;
        assert_int_equal(vbmc_opts_set_int(opts, vbmc_opts_name(i), 9007199254740993LL), VBMC_E_OPTION);
        assert_message_mentions(vbmc_opts_error(opts), vbmc_opts_name(i));
        assert_int_equal(vbmc_opts_set(opts, vbmc_opts_name(i), "9007199254740993"), VBMC_E_OPTION);
        assert_message_mentions(vbmc_opts_error(opts), vbmc_opts_name(i));
    }
    vbmc_opts_destroy(opts);
}

/* The farthest x0 vbmc_create accepts (1e150 plausible-box widths out, told a finite value) still
 * gives a run whose iterations work and give a posterior: the rule on x0 is where the surrogate
 * stops working, not a guess. */
static void test_farthest_x0_still_runs(void **state) {
    (void)state;
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    const double x0[2] = {0, -2e150}; /* box width 2: 1e150 widths from the centre */
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", 40), VBMC_OK);
    assert_int_equal(vbmc_create(&run, 2, x0, NULL, NULL, plb2, pub2, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    double x[2], iteration = 0;
    int told = 0;
    vbmc_status status;
    /* Up to the first iteration after the initial design: the surrogate has been trained on the
     * far point and a posterior exists (the final boost, slow at such distances, is not needed). */
    while (iteration < 2 && (status = vbmc_ask(run, x)) == VBMC_OK) {
        /* A finite value at x0, so the far point reaches the surrogate. */
        assert_int_equal(vbmc_tell(run, x, told == 0 ? -1e3 : target(x), 0.0), VBMC_OK);
        ++told;
        assert_int_equal(vbmc_stat(run, "iteration", &iteration), VBMC_OK);
    }
    if (iteration < 2) print_error("%s\n", vbmc_last_error(run));
    assert_true(iteration >= 2);
    vbmc_post *post = NULL;
    double elbo, elbo_sd;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(post, &elbo, &elbo_sd), VBMC_OK);
    assert_true(isfinite(elbo) && isfinite(elbo_sd));
    vbmc_post_destroy(post);
    vbmc_destroy(run);
}

/* vbmc_opts_get leaves "" in the buffer after every error (the header promises a NUL-terminated
 * buffer whenever size > 0), never the old contents or a truncated value. */
static void test_options_get_errors_leave_empty_text(void **state) {
    (void)state;
    vbmc_opts *opts = NULL;
    char buf[16];
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    memset(buf, 'X', sizeof buf);
    assert_int_equal(vbmc_opts_get(opts, "max_fun_evals", buf, 4), VBMC_E_ARG);
    assert_message_mentions(vbmc_opts_error(opts), "buf has 4 bytes");
    assert_string_equal(buf, "");
    memset(buf, 'X', sizeof buf);
    assert_int_equal(vbmc_opts_get(opts, "no_such", buf, sizeof buf), VBMC_E_OPTION);
    assert_string_equal(buf, "");
    memset(buf, 'X', sizeof buf);
    assert_int_equal(vbmc_opts_get(opts, NULL, buf, sizeof buf), VBMC_E_ARG);
    assert_string_equal(buf, "");
    memset(buf, 'X', sizeof buf);
    assert_int_equal(vbmc_opts_get(NULL, "seed", buf, sizeof buf), VBMC_E_ARG);
    assert_string_equal(buf, "");
    /* size 1 holds only the terminator: too small for any value, still terminated. */
    memset(buf, 'X', sizeof buf);
    assert_int_equal(vbmc_opts_get(opts, "seed", buf, 1), VBMC_E_ARG);
    assert_int_equal(buf[0], '\0');
    assert_int_equal(buf[1], 'X');
    vbmc_opts_destroy(opts);
}

/* Asks and tells that are not valid now, then the run carries on to the end; after it ends,
 * ask answers VBMC_DONE and every tell is refused. */
static void test_calls_out_of_order(void **state) {
    (void)state;
    vbmc *run = small_run(20);
    double x[2], y[2], v;
    assert_int_equal(vbmc_ask(run, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "x");
    assert_int_equal(vbmc_ask(run, x), VBMC_OK);
    assert_int_equal(vbmc_tell(run, x, target(x), NAN), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "log_joint_sd = nan");
    assert_int_equal(vbmc_tell(run, x, target(x), -INFINITY), VBMC_E_ARG);
    assert_int_equal(vbmc_tell(run, x, target(x), 1e200), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "at most 1e150");
    assert_int_equal(vbmc_tell(run, x, 1e300, 0.0), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "log_joint = 1.0000000000000001e+300 is above 1e150");
    assert_int_equal(vbmc_stat(run, "func_count", &v), VBMC_OK);
    assert_close(v, 0.0, 0.0);
    /* A point that differs in the last bit is not the asked one. */
    memcpy(y, x, sizeof y);
    y[1] = nextafter(y[1], INFINITY);
    assert_int_equal(vbmc_tell(run, y, target(y), 0.0), VBMC_E_STATE);
    assert_int_equal(vbmc_abandon(run, y), VBMC_E_STATE);
    assert_int_equal(vbmc_abandon(run, NULL), VBMC_E_ARG);
    assert_int_equal(vbmc_pending_point(run, -1, y), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "i = -1");
    assert_int_equal(vbmc_pending_point(run, 1, y), VBMC_E_ARG);
    assert_int_equal(vbmc_pending_point(run, 0, NULL), VBMC_E_ARG);
    assert_int_equal(vbmc_stat(run, NULL, &v), VBMC_E_ARG);
    assert_int_equal(vbmc_stat(run, "iteration", NULL), VBMC_E_ARG);
    /* tell_extra outside the hard bounds of a bounded run is refused; inside it is kept. */
    assert_int_equal(vbmc_tell(run, x, target(x), 0.0), VBMC_OK);
    const double extra[2] = {0.25, -0.5};
    assert_int_equal(vbmc_tell_extra(run, extra, target(extra), 0.0), VBMC_OK);
    assert_int_equal(vbmc_tell_extra(run, extra, target(extra), -1.0), VBMC_E_ARG);
    /* Finite but absurdly far from the plausible box: its square would overflow the surrogate. */
    const double far[2] = {1e200, 0.0};
    assert_int_equal(vbmc_tell_extra(run, far, 0.0, 0.0), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "x[0] = 9.9999999999999997e+199 lies more than 1e150 plausible-box widths");
    assert_int_equal(vbmc_stat(run, "func_count", &v), VBMC_OK);
    assert_close(v, 2.0, 0.0);
    assert_int_equal(vbmc_run(run, NULL, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "f");
    assert_int_equal(vbmc_set_logger(NULL, NULL, NULL), VBMC_E_ARG);
    while (vbmc_ask(run, x) == VBMC_OK) assert_int_equal(vbmc_tell(run, x, target(x), 0.0), VBMC_OK);
    assert_int_equal(vbmc_stat(run, "finished", &v), VBMC_OK);
    assert_close(v, 1.0, 0.0);
    for (int i = 0; i < 3; ++i) assert_int_equal(vbmc_ask(run, x), VBMC_DONE);
    assert_int_equal(vbmc_tell(run, x, target(x), 0.0), VBMC_E_STATE);
    assert_int_equal(vbmc_tell_extra(run, extra, target(extra), 0.0), VBMC_E_STATE);
    assert_message_mentions(vbmc_last_error(run), "finished");
    vbmc_post *post = NULL;
    assert_int_equal(vbmc_posterior(run, NULL), VBMC_E_ARG);
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    /* Posterior calls with bad arguments. */
    double lp, mean[2];
    const double nan_point[2] = {0, NAN};
    assert_int_equal(vbmc_post_log_pdf(post, 1, nan_point, &lp), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "x[1]");
    assert_int_equal(vbmc_post_log_pdf(post, 1, NULL, &lp), VBMC_E_ARG);
    assert_int_equal(vbmc_post_sample(post, 3, 1, NULL), VBMC_E_ARG);
    assert_int_equal(vbmc_post_sample(post, SIZE_MAX, 1, mean), VBMC_E_ARG);
    assert_int_equal(vbmc_post_moments(post, NULL, NULL), VBMC_E_ARG);
    assert_int_equal(vbmc_post_save(post, NULL), VBMC_E_ARG);
    assert_int_equal(vbmc_post_save(post, "/nonexistent/dir/p.post"), VBMC_E_IO);
    assert_int_equal(vbmc_post_moments(post, mean, NULL), VBMC_OK);
    assert_true(isfinite(mean[0]) && isfinite(mean[1]));
    vbmc_post_destroy(post);
    vbmc_destroy(run);
}

/* ---- Checkpoint files ----------------------------------------------------------------------- */

static unsigned char *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(*size);
    assert_int_equal(fread(bytes, 1, *size, f), *size);
    fclose(f);
    return bytes;
}

static void write_all(const char *path, const unsigned char *bytes, size_t size) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, size, f), size);
    fclose(f);
}

/* The container's CRC-32 (IEEE, reflected), to craft files whose checksum is right. */
static uint32_t crc32_of(const unsigned char *data, size_t size) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < size; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static uint64_t get_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

/* Container layout (src/io/file_format.hpp): magic[8] | format u32 | version text (u64 length +
 * bytes) | payload length u64 | payload | CRC-32 u32. Returns the payload offset. */
static size_t payload_offset(const unsigned char *bytes) { return 8 + 4 + 8 + (size_t)get_u64(bytes + 12) + 8; }

static void reseal(unsigned char *bytes, size_t size) {
    const size_t start = payload_offset(bytes);
    const uint32_t crc = crc32_of(bytes + start, size - 4 - start);
    for (int i = 0; i < 4; ++i) bytes[size - 4 + (size_t)i] = (unsigned char)(crc >> (8 * i));
}

static vbmc_status load_status(const char *path) {
    vbmc *run = (vbmc *)0x1;
    const vbmc_status status = vbmc_load(&run, path);
    if (status != VBMC_OK && status != VBMC_E_FORMAT)
        print_error("vbmc_load: %s: %s\n", vbmc_status_name(status), vbmc_last_error(NULL));
    if (status == VBMC_OK) {
        double x[2];
        assert_non_null(run);
        assert_true(vbmc_ask(run, x) <= VBMC_DONE); /* the loaded run answers */
        vbmc_destroy(run);
    } else {
        assert_null(run);
        assert_true(strlen(vbmc_last_error(NULL)) > 0);
    }
    return status;
}

/* Penalty values (-1e300, -DBL_MAX) where the target is "impossible": recorded as told, given to
 * the surrogate as the best value minus 1e6, and the run ends with the posterior of the rest. */
static void test_penalty_values(void **state) {
    (void)state;
    vbmc *run = small_run(200);
    double x[2], v, elbo, elbo_sd;
    int told = 0;
    vbmc_status status;
    while ((status = vbmc_ask(run, x)) == VBMC_OK) {
        const double value = told == 2 ? -1e300 : told == 5 ? -DBL_MAX : target(x);
        assert_int_equal(vbmc_tell(run, x, value, 0.0), VBMC_OK);
        ++told;
    }
    assert_int_equal(status, VBMC_DONE);
    assert_int_equal(vbmc_stat(run, "failed_count", &v), VBMC_OK);
    assert_close(v, 0.0, 0.0);
    vbmc_post *post = NULL;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(post, &elbo, &elbo_sd), VBMC_OK);
    /* log Z of exp(-(x0^2 + 2 x1^2) / 2) is log(2 pi / sqrt 2). */
    assert_close(elbo, log(2.0 * 3.14159265358979323846 / sqrt(2.0)), 0.1);
    vbmc_post_destroy(post);
    vbmc_destroy(run);
}

/* vbmc_run stopped by a bad value from f resumes on the next call, starting with the point left
 * pending; so does a run loaded with a point pending. */
static int calls_until_bad_sd;
static double driver_f(const double *x, double *log_joint_sd, void *userdata) {
    (void)userdata;
    *log_joint_sd = --calls_until_bad_sd == 0 ? NAN : 0.0;
    return target(x);
}

static void test_run_driver_resumes(void **state) {
    (void)state;
    vbmc *run = small_run(20);
    double x[2], v;
    calls_until_bad_sd = 3;
    assert_int_equal(vbmc_run(run, driver_f, NULL), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "log_joint_sd = nan");
    assert_int_equal(vbmc_stat(run, "pending", &v), VBMC_OK);
    assert_close(v, 1.0, 0.0);
    assert_int_equal(vbmc_stat(run, "func_count", &v), VBMC_OK);
    assert_close(v, 2.0, 0.0);
    char path[64];
    snprintf(path, sizeof path, "test_hostile_driver.ckpt.%ld", (long)getpid());
    assert_int_equal(vbmc_save(run, path), VBMC_OK);
    vbmc_destroy(run);
    run = NULL;
    assert_int_equal(vbmc_load(&run, path), VBMC_OK);
    remove(path);
    assert_int_equal(vbmc_ask(run, x), VBMC_WAIT); /* the pending point fills max_pending = 1 */
    calls_until_bad_sd = 1000;
    assert_int_equal(vbmc_run(run, driver_f, NULL), VBMC_DONE);
    assert_int_equal(vbmc_stat(run, "func_count", &v), VBMC_OK);
    assert_close(v, 20.0, 0.0);
    assert_int_equal(vbmc_stat(run, "pending", &v), VBMC_OK);
    assert_close(v, 0.0, 0.0);
    vbmc_destroy(run);
}

static void test_checkpoint_files(void **state) {
    (void)state;
    char good_path[64], path[64]; /* unique: several builds may run the suite in one directory */
    snprintf(good_path, sizeof good_path, "test_hostile_good.ckpt.%ld", (long)getpid());
    snprintf(path, sizeof path, "test_hostile_bad.ckpt.%ld", (long)getpid());
    /* A real checkpoint after the first iteration (surrogate and posterior present). */
    vbmc *run = small_run(30);
    double x[2], iteration = 0;
    while (iteration < 1 && vbmc_ask(run, x) == VBMC_OK) {
        assert_int_equal(vbmc_tell(run, x, target(x), 0.0), VBMC_OK);
        assert_int_equal(vbmc_stat(run, "iteration", &iteration), VBMC_OK);
    }
    assert_int_equal(vbmc_save(run, NULL), VBMC_E_ARG);
    assert_int_equal(vbmc_save(run, good_path), VBMC_OK);
    size_t size;
    unsigned char *good = read_all(good_path, &size);
    unsigned char *bad = malloc(size + 16);
    assert_int_equal(load_status(good_path), VBMC_OK);

    /* Truncated at every length. */
    for (size_t n = 0; n < size; ++n) {
        write_all(path, good, n);
        assert_int_equal(load_status(path), VBMC_E_FORMAT);
    }
    /* Trailing bytes. */
    memcpy(bad, good, size);
    bad[size] = 0;
    write_all(path, bad, size + 1);
    assert_int_equal(load_status(path), VBMC_E_FORMAT);
    /* Every byte flipped: caught by the magic, the lengths or the checksum. Only the bytes of
     * the writer's version text are informational. */
    const size_t version_start = 20, version_end = 20 + (size_t)get_u64(good + 12);
    for (size_t i = 0; i < size; ++i) {
        memcpy(bad, good, size);
        bad[i] ^= (unsigned char)(1u << (i % 8));
        write_all(path, bad, size);
        const vbmc_status status = load_status(path);
        if (i >= version_start && i < version_end) assert_true(status == VBMC_OK || status == VBMC_E_FORMAT);
        else assert_int_equal(status, VBMC_E_FORMAT);
    }
    /* A payload length that wraps around 2^64 onto a 3-byte tail. */
    const size_t length_at = payload_offset(good) - 8;
    memcpy(bad, good, length_at);
    memset(bad + length_at, 0xFF, 8);
    memset(bad + length_at + 8, 1, 3);
    write_all(path, bad, length_at + 11);
    assert_int_equal(load_status(path), VBMC_E_FORMAT);
    assert_message_mentions(vbmc_last_error(NULL), "truncated");
    /* A future format version. */
    memcpy(bad, good, size);
    bad[8] = (unsigned char)(good[8] + 1);
    write_all(path, bad, size);
    assert_int_equal(load_status(path), VBMC_E_FORMAT);
    char expected[32];
    snprintf(expected, sizeof expected, "format version %d", good[8] + 1);
    assert_message_mentions(vbmc_last_error(NULL), expected);
    /* Resealed payloads (right checksum, wrong content): flipped bytes and zeroed tails must be
     * caught by the payload reader. */
    const size_t start = payload_offset(good), end = size - 4;
    for (size_t i = start; i < end; i += 7) {
        memcpy(bad, good, size);
        bad[i] ^= 0xFF;
        reseal(bad, size);
        write_all(path, bad, size);
        const vbmc_status status = load_status(path);
        assert_true(status == VBMC_OK || status == VBMC_E_FORMAT);
    }
    for (size_t i = start; i < end; i += 13) {
        memcpy(bad, good, size);
        memset(bad + i, 0xFF, end - i < 8 ? end - i : 8);
        reseal(bad, size);
        write_all(path, bad, size);
        const vbmc_status status = load_status(path);
        assert_true(status == VBMC_OK || status == VBMC_E_FORMAT);
    }
    /* A posterior file is foreign to vbmc_load, and a checkpoint to vbmc_post_load. */
    vbmc_post *post = NULL;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_save(post, path), VBMC_OK);
    vbmc_post_destroy(post);
    assert_int_equal(load_status(path), VBMC_E_FORMAT);
    assert_message_mentions(vbmc_last_error(NULL), "not a libvbmc checkpoint");
    post = (vbmc_post *)0x1;
    assert_int_equal(vbmc_post_load(&post, good_path), VBMC_E_FORMAT);
    assert_null(post);
    assert_int_equal(vbmc_post_load(&post, NULL), VBMC_E_ARG);
    assert_int_equal(vbmc_load(NULL, good_path), VBMC_E_ARG);
    /* A directory is not a file. */
    assert_true(load_status(".") == VBMC_E_IO || load_status(".") == VBMC_E_FORMAT);
    /* The run that saved is untouched by all this. */
    while (vbmc_ask(run, x) == VBMC_OK) assert_int_equal(vbmc_tell(run, x, target(x), 0.0), VBMC_OK);
    free(good);
    free(bad);
    remove(path);
    remove(good_path);
    vbmc_destroy(run);
}

/* ---- Endless and huge inputs ---------------------------------------------------------------- */

#define MIB ((size_t)1 << 20)

/* The process's peak resident size in KiB (getrusage's ru_maxrss on Linux). */
static long peak_rss_kib(void) {
    struct rusage usage;
    assert_int_equal(getrusage(RUSAGE_SELF, &usage), 0);
    return usage.ru_maxrss;
}

/* A real checkpoint's header (magic, versions, payload length), its declared payload length
 * replaced by `length`. Returns the header's size. */
static size_t checkpoint_header(unsigned char *header, size_t capacity, uint64_t length) {
    char path[64];
    snprintf(path, sizeof path, "test_hostile_header.ckpt.%ld", (long)getpid());
    vbmc *run = small_run(30);
    assert_int_equal(vbmc_save(run, path), VBMC_OK);
    vbmc_destroy(run);
    size_t size;
    unsigned char *good = read_all(path, &size);
    remove(path);
    const size_t header_size = payload_offset(good);
    assert_true(header_size <= capacity);
    memcpy(header, good, header_size);
    free(good);
    for (int i = 0; i < 8; ++i) header[header_size - 8 + (size_t)i] = (unsigned char)(length >> (8 * i));
    return header_size;
}

/* Teardown of the tests that set alarm() against hanging: a failed assertion skips their end. */
static int cancel_alarm(void **state) {
    (void)state;
    alarm(0);
    return 0;
}

/* /dev/zero is refused after its first 8 bytes by both loaders. Reading the whole file before
 * the magic number never returned here; the alarm turns that into a prompt failure. */
static void test_endless_device(void **state) {
    (void)state;
    alarm(10);
    vbmc *run = (vbmc *)0x1;
    vbmc_post *post = (vbmc_post *)0x1;
    assert_int_equal(vbmc_load(&run, "/dev/zero"), VBMC_E_FORMAT);
    assert_null(run);
    assert_message_mentions(vbmc_last_error(NULL), "\"/dev/zero\" is not a libvbmc checkpoint file (bad magic number)");
    assert_int_equal(vbmc_post_load(&post, "/dev/zero"), VBMC_E_FORMAT);
    assert_null(post);
    assert_message_mentions(vbmc_last_error(NULL), "\"/dev/zero\" is not a libvbmc posterior file (bad magic number)");
}

/* A sparse file of `size` bytes that starts with head[head_size]. */
static void make_sparse(const char *path, const unsigned char *head, size_t head_size, size_t size) {
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, head, head_size), (ssize_t)head_size);
    assert_int_equal(ftruncate(fd, (off_t)size), 0);
    assert_int_equal(close(fd), 0);
}

/* vbmc_load and vbmc_post_load refuse path with VBMC_E_FORMAT and a message mentioning needle,
 * without raising the peak resident size by 16 MiB. */
static void assert_refused_cheaply(const char *path, const char *needle) {
    const long before = peak_rss_kib();
    vbmc_post *post = (vbmc_post *)0x1;
    assert_int_equal(load_status(path), VBMC_E_FORMAT);
    assert_message_mentions(vbmc_last_error(NULL), needle);
    assert_int_equal(vbmc_post_load(&post, path), VBMC_E_FORMAT);
    assert_null(post);
    assert_message_mentions(vbmc_last_error(NULL), path);
    const long growth = peak_rss_kib() - before;
    if (growth >= 16 * 1024) print_error("refusing \"%s\" raised the peak resident size by %ld KiB\n", path, growth);
    assert_true(growth < 16 * 1024);
}

/* 64 MiB sparse files are refused from their header: a foreign one by its magic number, one with
 * a checkpoint header declaring a 1 TiB payload by the file's size, before allocating anything. */
static void test_huge_files(void **state) {
    (void)state;
    char dir[] = "test_hostile_huge.XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/huge", dir);
    unsigned char header[256];
    const size_t header_size = checkpoint_header(header, sizeof header, (uint64_t)1 << 40);
    make_sparse(path, header, 0, 64 * MIB);
    assert_refused_cheaply(path, "bad magic number");
    make_sparse(path, header, header_size, 64 * MIB);
    assert_refused_cheaply(path, "truncated");
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* A writer feeding a pipe: head, then up to tail_size zero bytes, counting what it wrote. */
typedef struct {
    int fd;
    const unsigned char *head;
    size_t head_size, tail_size, written;
} stream_writer;

static void *write_stream(void *arg) {
    stream_writer *w = arg;
    static const unsigned char zeros[4096];
    const size_t total = w->head_size + w->tail_size;
    while (w->written < total) {
        const int in_head = w->written < w->head_size;
        const size_t left = total - w->written, n = in_head ? w->head_size - w->written : sizeof zeros;
        const ssize_t done = write(w->fd, in_head ? w->head + w->written : zeros, n < left ? n : left);
        if (done <= 0) break; /* EPIPE once the reader has closed the pipe */
        w->written += (size_t)done;
    }
    close(w->fd);
    return NULL;
}

/* vbmc_load of a pipe carrying head and tail_size zero bytes; returns the bytes the writer got
 * out before the reader closed the pipe. */
static size_t load_stream(const unsigned char *head, size_t head_size, size_t tail_size, const char *needle) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    stream_writer w = {fds[1], head, head_size, tail_size, 0};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, write_stream, &w), 0);
    char path[32];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    assert_int_equal(load_status(path), VBMC_E_FORMAT);
    assert_message_mentions(vbmc_last_error(NULL), path);
    assert_message_mentions(vbmc_last_error(NULL), needle);
    close(fds[0]);
    assert_int_equal(pthread_join(thread, NULL), 0);
    return w.written;
}

/* Streams are read no further than their header declares: one declaring an empty payload and
 * followed by 64 MiB is refused once the byte after its checksum arrives (the writer gets at most
 * what the pipe holds further); one declaring 1 TiB and ending after 1 MiB is truncated. */
static void test_streams(void **state) {
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    alarm(30);
    unsigned char header[256];
    size_t header_size = checkpoint_header(header, sizeof header, 0);
    assert_true(load_stream(header, header_size, 64 * MIB, "trailing bytes") < 4 * MIB);
    header_size = checkpoint_header(header, sizeof header, (uint64_t)1 << 40);
    load_stream(header, header_size, MIB, "truncated");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        /* First, while the peak resident size is low: test_huge_files watches it. */
        cmocka_unit_test(test_huge_files),
        cmocka_unit_test_teardown(test_endless_device, cancel_alarm),
        cmocka_unit_test_teardown(test_streams, cancel_alarm),
        cmocka_unit_test(test_create_hostile_bounds),
        cmocka_unit_test(test_farthest_x0_still_runs),
        cmocka_unit_test(test_options_hostile_values),
        cmocka_unit_test(test_options_get_errors_leave_empty_text),
        cmocka_unit_test(test_options_refuse_inexact_integers),
        cmocka_unit_test(test_calls_out_of_order),
        cmocka_unit_test(test_penalty_values),
        cmocka_unit_test(test_run_driver_resumes),
        cmocka_unit_test(test_checkpoint_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
