/* Noisy mode through the public API (Acerbi 2020; paper sections 3.9-3.10): a run told noisy
 * log joints with their SDs is seeded (the same seed and the same told values give the same asks),
 * reasonable on a 2-D Gaussian with noise SD 1, resumes bitwise from checkpoints, keeps failed
 * evaluations, and with uncertainty_handling (SD 0 told) infers the noise level itself. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

#define DIM 2
#define PI 3.14159265358979323846
#define MAX_ASKS 400

static const double plb[DIM] = {-2.0, -2.5}, pub[DIM] = {2.5, 2.0};
static const double kLogZ = -1.3; /* log of the target's normaliser */

/* A correlated Gaussian (mean (0.3, -0.2), unit variances, correlation 0.6) times exp(kLogZ). */
static double log_joint(const double *x) {
    const double a = x[0] - 0.3, b = x[1] + 0.2, rho = 0.6;
    return -0.5 * (a * a - 2.0 * rho * a * b + b * b) / (1.0 - rho * rho) - log(2.0 * PI) -
           0.5 * log(1.0 - rho * rho) + kLogZ;
}

static uint64_t splitmix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Standard normal noise that depends only on the point (Box-Muller on a hash of its bits): the
 * same point is always told the same value. */
static double noise_at(const double *x) {
    uint64_t h = 0;
    for (int d = 0; d < DIM; ++d) {
        uint64_t bits;
        memcpy(&bits, &x[d], sizeof bits);
        h = splitmix64(h ^ bits);
    }
    const double u1 = ((double)(splitmix64(h) >> 11) + 0.5) / 9007199254740992.0;
    const double u2 = ((double)(splitmix64(h + 1) >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * PI * u2);
}

typedef struct {
    double noise_sd;     /* SD of the noise added */
    double told_sd;      /* SD told with each value */
    int failure_period;  /* > 0: every failure_period-th tell is NaN */
} target;

static double told_value(const target *t, const double *x, int tell_index) {
    if (t->failure_period > 0 && tell_index % t->failure_period == t->failure_period - 1) return NAN;
    return log_joint(x) + t->noise_sd * noise_at(x);
}

static vbmc *make_run(unsigned seed, int budget, const char *option) {
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", seed), VBMC_OK);
    if (budget > 0) assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", budget), VBMC_OK);
    if (option) { /* "name" sets a switch on, "name=value" sets a value */
        char name[64];
        const char *equals = strchr(option, '=');
        const size_t length = equals ? (size_t)(equals - option) : strlen(option);
        assert_true(length < sizeof name);
        memcpy(name, option, length);
        name[length] = '\0';
        assert_int_equal(vbmc_opts_set(opts, name, equals ? equals + 1 : "true"), VBMC_OK);
    }
    assert_int_equal(vbmc_create(&run, DIM, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    return run;
}

static double stat_of(const vbmc *run, const char *name) {
    double v = NAN;
    assert_int_equal(vbmc_stat(run, name, &v), VBMC_OK);
    return v;
}

typedef struct {
    int n_asks;
    double asks[MAX_ASKS][DIM];
    double elbo, elbo_sd, mean[DIM], cov[DIM * DIM];
} trace;

static vbmc *reload(vbmc *run, const char *path) {
    vbmc *loaded = NULL;
    assert_int_equal(vbmc_save(run, path), VBMC_OK);
    vbmc_destroy(run);
    if (vbmc_load(&loaded, path) != VBMC_OK) {
        print_error("vbmc_load: %s\n", vbmc_last_error(NULL));
        fail();
    }
    return loaded;
}

/* Ask and tell until the run finishes; with a path, save and load after every completed
 * iteration. Returns the finished run. */
static vbmc *drive(vbmc *run, const target *t, const char *path, trace *out) {
    memset(out, 0, sizeof *out);
    double x[DIM];
    for (;;) {
        const vbmc_status status = vbmc_ask(run, x);
        if (status == VBMC_DONE) break;
        assert_int_equal(status, VBMC_OK);
        assert_true(out->n_asks < MAX_ASKS);
        memcpy(out->asks[out->n_asks], x, sizeof x);
        const double iteration = stat_of(run, "iteration");
        const vbmc_status told = vbmc_tell(run, x, told_value(t, x, out->n_asks), t->told_sd);
        if (told != VBMC_OK) print_error("tell %d: %s\n", out->n_asks, vbmc_last_error(run));
        assert_int_equal(told, VBMC_OK);
        ++out->n_asks;
        if (path && stat_of(run, "iteration") != iteration) run = reload(run, path);
    }
    vbmc_post *post = NULL;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(post, &out->elbo, &out->elbo_sd), VBMC_OK);
    assert_int_equal(vbmc_post_moments(post, out->mean, out->cov), VBMC_OK);
    vbmc_post_destroy(post);
    return run;
}

static void assert_same_trace(const trace *a, const trace *b) {
    assert_int_equal(a->n_asks, b->n_asks);
    for (int i = 0; i < a->n_asks; ++i)
        if (memcmp(a->asks[i], b->asks[i], sizeof a->asks[i]) != 0) {
            print_error("ask %d differs: (%.17g, %.17g) vs (%.17g, %.17g)\n", i, a->asks[i][0], a->asks[i][1],
                        b->asks[i][0], b->asks[i][1]);
            fail();
        }
    assert_memory_equal(&a->elbo, &b->elbo, sizeof a->elbo);
    assert_memory_equal(&a->elbo_sd, &b->elbo_sd, sizeof a->elbo_sd);
    assert_memory_equal(a->mean, b->mean, sizeof a->mean);
    assert_memory_equal(a->cov, b->cov, sizeof a->cov);
}

static const char *unique(const char *stem) {
    static char name[128];
    snprintf(name, sizeof name, "%s.%ld", stem, (long)getpid());
    return name;
}

static trace trace_a, trace_b;

/* Noise SD 1 told with each value: noisy mode is on, two runs with the same seed ask the same
 * points, and the posterior is close to the truth: the ELBO within 0.5 of log Z (the noise of a
 * single value is 1; with 150 evaluations the errors of PyVBMC's noisy mode are about 0.1-0.2),
 * the mean within 0.3 of the true mean in each coordinate (unit marginal SDs). */
static void test_noisy_run_is_seeded_and_reasonable(void **state) {
    (void)state;
    const target t = {1.0, 1.0, 0};
    vbmc *a = drive(make_run(3, 150, NULL), &t, NULL, &trace_a);
    assert_true(stat_of(a, "noisy") == 1.0);
    vbmc *b = drive(make_run(3, 150, NULL), &t, NULL, &trace_b);
    assert_same_trace(&trace_a, &trace_b);
    assert_close(trace_a.elbo, kLogZ, 0.5);
    assert_close(trace_a.mean[0], 0.3, 0.3);
    assert_close(trace_a.mean[1], -0.2, 0.3);
    vbmc_destroy(a);
    vbmc_destroy(b);
}

/* A noisy run saved and loaded after every iteration continues bitwise (the noise shaping and the
 * reference value of each surrogate are part of the checkpoint). */
static void test_noisy_checkpoint_resume_is_bitwise(void **state) {
    (void)state;
    const char *path = unique("test_noisy.ckpt");
    const target t = {1.0, 1.0, 0};
    vbmc_destroy(drive(make_run(11, 60, NULL), &t, NULL, &trace_a));
    vbmc_destroy(drive(make_run(11, 60, NULL), &t, path, &trace_b));
    assert_same_trace(&trace_a, &trace_b);
    remove(path);
}

/* The same with two acquisition functions taking turns: a rotoscaling that the run undoes
 * restores the noise shaping of the surrogate it keeps (a checkpoint saved after one once
 * rebuilt that surrogate with the rejected warp's shaping and drifted in the 9th digit). */
static void test_noisy_checkpoint_resume_mixed_acquisitions(void **state) {
    (void)state;
    const char *path = unique("test_noisy_mixed.ckpt");
    const target t = {1.0, 1.0, 0};
    vbmc_destroy(drive(make_run(11, 60, "search_acq_fcn=viqr,ivr"), &t, NULL, &trace_a));
    vbmc_destroy(drive(make_run(11, 60, "search_acq_fcn=viqr,ivr"), &t, path, &trace_b));
    assert_same_trace(&trace_a, &trace_b);
    remove(path);
}

/* Failed evaluations (NaN told) in noisy mode stay in the record, never reach the surrogate, and
 * the run still finishes with a finite ELBO; resuming from checkpoints changes nothing. */
static void test_noisy_failed_evaluations(void **state) {
    (void)state;
    const char *path = unique("test_noisy_failed.ckpt");
    const target t = {1.0, 1.0, 7};
    vbmc *run = drive(make_run(5, 60, NULL), &t, NULL, &trace_a);
    assert_true(stat_of(run, "noisy") == 1.0);
    assert_int_equal((int)stat_of(run, "func_count"), trace_a.n_asks);
    assert_int_equal((int)stat_of(run, "failed_count"), trace_a.n_asks / 7);
    assert_true(stat_of(run, "train_count") <= trace_a.n_asks - trace_a.n_asks / 7);
    assert_true(isfinite(trace_a.elbo));
    vbmc_destroy(run);
    vbmc_destroy(drive(make_run(5, 60, NULL), &t, path, &trace_b));
    assert_same_trace(&trace_a, &trace_b);
    remove(path);
}

/* Option uncertainty_handling with SD 0 told: the surrogate infers a noise level near the true SD
 * of 1 (its noise prior is wide enough to reach it), where an exact run's surrogate keeps its
 * noise at the floor sqrt(1e-5). Sixty evaluations do not always pin the level: a run may
 * explain the noise as short-scale signal (seed 7 ends at SD 0.01 in the sanitizer build, 1.04 in
 * the release build; seeds 1-8 end at 0.78-1.09 in the release build), so the check is on the
 * median of three seeds' final levels. */
static void test_uncertainty_handling_infers_noise(void **state) {
    (void)state;
    const target t = {1.0, 0.0, 0};
    double final_sd[3];
    for (int s = 0; s < 3; ++s) {
        vbmc *run = drive(make_run((unsigned)(s + 1), 60, "uncertainty_handling"), &t, NULL, &trace_a);
        assert_true(stat_of(run, "noisy") == 1.0);
        const int n = (int)stat_of(run, "iteration");
        double sd[MAX_ASKS];
        assert_int_equal(vbmc_history(run, "gp_noise_sd", (size_t)n, sd), VBMC_OK);
        final_sd[s] = sd[n - 1];
        vbmc_destroy(run);
    }
    const double low = fmin(final_sd[0], fmin(final_sd[1], final_sd[2]));
    const double high = fmax(final_sd[0], fmax(final_sd[1], final_sd[2]));
    const double median = final_sd[0] + final_sd[1] + final_sd[2] - low - high;
    if (!(median > 0.5 && median < 2.0)) {
        print_error("median inferred noise SD %.17g (seeds 1-3: %g, %g, %g), expected near 1\n", median,
                    final_sd[0], final_sd[1], final_sd[2]);
        fail();
    }
}

/* Noisy mode by option or by the first SD > 0 told brings PyVBMC's noisy budget, 75 (D + 2);
 * a budget the user set stays. */
static void test_noisy_defaults(void **state) {
    (void)state;
    double x[DIM];
    vbmc *exact = make_run(1, 0, NULL);
    assert_true(stat_of(exact, "noisy") == 0.0);
    assert_true(stat_of(exact, "max_fun_evals") == 50 * (DIM + 2));
    assert_int_equal(vbmc_ask(exact, x), VBMC_OK);
    assert_int_equal(vbmc_tell(exact, x, log_joint(x), 0.5), VBMC_OK);
    assert_true(stat_of(exact, "noisy") == 1.0);
    assert_true(stat_of(exact, "max_fun_evals") == 75 * (DIM + 2));
    vbmc_destroy(exact);
    vbmc *declared = make_run(1, 0, "specify_target_noise");
    assert_true(stat_of(declared, "noisy") == 1.0);
    assert_true(stat_of(declared, "max_fun_evals") == 75 * (DIM + 2));
    vbmc_destroy(declared);
    vbmc *fixed = make_run(1, 40, "specify_target_noise");
    assert_true(stat_of(fixed, "max_fun_evals") == 40);
    vbmc_destroy(fixed);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_noisy_defaults),
        cmocka_unit_test(test_noisy_run_is_seeded_and_reasonable),
        cmocka_unit_test(test_noisy_checkpoint_resume_is_bitwise),
        cmocka_unit_test(test_noisy_checkpoint_resume_mixed_acquisitions),
        cmocka_unit_test(test_noisy_failed_evaluations),
        cmocka_unit_test(test_uncertainty_handling_infers_noise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
