/* The locating stage through the public API: a narrow Gaussian inside a plausible box 10^4 times
 * wider is found and fitted (the run converges with the right evidence and mean), a far, dominant
 * second mode is found from a start in the minor one, a gradient's difference points and a star
 * design go out at once, a restart leaves a local top, mass far beyond the box given is no
 * reliable result, a run that ends still climbing is not reliable, a checkpoint taken while
 * locating (also with part of a gradient out) resumes bitwise, a good box skips the stage, the
 * closing verdict is readable with vbmc_result_message, and the optional gradient climb takes
 * exact values only. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

#define DIM 3

/* N(x; mu, diag(sd^2)): log evidence 0. */
static const double kMu[DIM] = {1.234, -2.5, 0.4};
static const double kSd[DIM] = {1e-3, 2e-3, 5e-4};

static double narrow_gaussian(const double *x) {
    double total = 0.0;
    for (int d = 0; d < DIM; ++d) {
        const double z = (x[d] - kMu[d]) / kSd[d];
        total += -0.5 * z * z - log(kSd[d]) - 0.91893853320467274;  /* log sqrt(2 pi) */
    }
    return total;
}

typedef double (*log_joint)(const double *x);

/* Two narrow modes (SD 0.01) in the plane: 5% of the mass at the box centre, where x0 starts, and
 * 95% at (3, -2), 360 SDs away; log evidence 0. */
static double far_dominant_mode(const double *x) {
    static const double kMinor[2] = {0.0, 0.0}, kMajor[2] = {3.0, -2.0}, kModeSd = 0.01;
    double q_minor = 0.0, q_major = 0.0;
    for (int d = 0; d < 2; ++d) {
        const double z_minor = (x[d] - kMinor[d]) / kModeSd, z_major = (x[d] - kMajor[d]) / kModeSd;
        q_minor += z_minor * z_minor;
        q_major += z_major * z_major;
    }
    const double log_norm = -2.0 * log(kModeSd) - 1.8378770664093453;  /* log 2 pi */
    const double a = log(0.05) - 0.5 * q_minor, b = log(0.95) - 0.5 * q_major;
    const double top = a > b ? a : b;
    return log_norm + top + log(exp(a - top) + exp(b - top));
}

/* A hill over most of the plane, top (-2, 0) at 0 (SD 1), and a narrow peak 20 higher at
 * (3.5, 3.5) (SD 0.3) whose basin holds a few percent of the box: a search from the design's best
 * point settles on the hill's top. Not normalised. */
static double hill_and_narrow_peak(const double *x) {
    const double hill = -0.5 * ((x[0] + 2.0) * (x[0] + 2.0) + x[1] * x[1]);
    const double dx = (x[0] - 3.5) / 0.3, dy = (x[1] - 3.5) / 0.3;
    const double peak = 20.0 - 0.5 * (dx * dx + dy * dy);
    const double top = hill > peak ? hill : peak;
    return top + log(exp(hill - top) + exp(peak - top));
}

/* A quiet, seeded run in the box [-5, 5]^dim; `options` holds further name, value pairs, then NULL. */
static vbmc *wide_box_run(int dim, const char *const *options) {
    const double plb[DIM] = {-5, -5, -5}, pub[DIM] = {5, 5, 5};
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", 3), VBMC_OK);
    for (const char *const *option = options; option && *option; option += 2)
        assert_int_equal(vbmc_opts_set(opts, option[0], option[1]), VBMC_OK);
    assert_int_equal(vbmc_create(&run, dim, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    return run;
}

static double stat(const vbmc *run, const char *name) {
    double value = NAN;
    assert_int_equal(vbmc_stat(run, name, &value), VBMC_OK);
    return value;
}

/* The final posterior's mean (the run's dimension) into mean. */
static void posterior_mean(const vbmc *run, double *mean) {
    vbmc_post *post = NULL;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_moments(post, mean, NULL), VBMC_OK);
    vbmc_post_destroy(post);
}

/* Runs to the end; after `save_at` tells (0: never) the run is saved, destroyed and loaded. */
static vbmc *finish(vbmc *run, log_joint target, int save_at) {
    char path[64];
    snprintf(path, sizeof path, "test_locate.ckpt.%ld", (long)getpid());
    double x[DIM];
    int told = 0;
    while (vbmc_ask(run, x) == VBMC_OK) {
        assert_int_equal(vbmc_tell(run, x, target(x), 0.0), VBMC_OK);
        if (++told == save_at) {
            assert_int_equal(stat(run, "locating"), 1);
            vbmc *loaded = NULL;
            assert_int_equal(vbmc_save(run, path), VBMC_OK);
            assert_int_equal(vbmc_load(&loaded, path), VBMC_OK);
            vbmc_destroy(run);
            run = loaded;
        }
    }
    remove(path);
    return run;
}

static void test_narrow_gaussian_in_a_box_ten_thousand_times_wider(void **state) {
    (void)state;
    vbmc *run = finish(wide_box_run(DIM, NULL), narrow_gaussian, 0);
    assert_true(stat(run, "locate_evals") > 0);
    assert_int_equal(stat(run, "converged"), 1);
    assert_int_equal(stat(run, "reliable"), 1);
    vbmc_post *post = NULL;
    double elbo, elbo_sd, mean[DIM];
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(post, &elbo, &elbo_sd), VBMC_OK);
    assert_int_equal(vbmc_post_moments(post, mean, NULL), VBMC_OK);
    assert_close(elbo, 0.0, 0.1);
    for (int d = 0; d < DIM; ++d) assert_close(mean[d], kMu[d], 0.1 * kSd[d]);
    assert_message_mentions(vbmc_result_message(run), "Inference terminated: the variational solution was stable");
    vbmc_post_destroy(post);
    vbmc_destroy(run);
}

enum { kOut = 8 };

/* The run's locating stage as batches with up to kOut points out: how many batches, how many
 * points they held, the largest. */
typedef struct {
    int batches, points, largest;
} batches;

/* Asks up to kOut points at a time and tells them in reverse order, until the run finishes. When
 * save_at_batch > 0, the run is saved, destroyed and loaded after the first value of that batch
 * of the locating stage (its other points still out, told to the loaded run). */
static vbmc *run_in_batches(vbmc *run, log_joint target, int save_at_batch, batches *seen) {
    char path[64];
    snprintf(path, sizeof path, "test_locate_batches.ckpt.%ld", (long)getpid());
    double out[kOut][DIM];
    for (;;) {
        const int locating = stat(run, "locating") == 1;
        int n = 0;
        while (n < kOut && vbmc_ask(run, out[n]) == VBMC_OK) ++n;
        if (n == 0) break;
        if (locating) {
            ++seen->batches;
            seen->points += n;
            if (n > seen->largest) seen->largest = n;
        }
        const int save_here = locating && n > 1 && seen->batches == save_at_batch;
        while (n > 0) {
            --n;
            assert_int_equal(vbmc_tell(run, out[n], target(out[n]), 0.0), VBMC_OK);
            if (save_here && n == 1) {
                vbmc *loaded = NULL;
                assert_int_equal(vbmc_save(run, path), VBMC_OK);
                assert_int_equal(vbmc_load(&loaded, path), VBMC_OK);
                assert_close(stat(loaded, "pending"), 1, 0.0);
                vbmc_destroy(run);
                run = loaded;
            }
        }
    }
    remove(path);
    return run;
}

static double final_elbo(const vbmc *run) {
    vbmc_post *post = NULL;
    double elbo = NAN;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(post, &elbo, NULL), VBMC_OK);
    vbmc_post_destroy(post);
    return elbo;
}

/* With several points allowed out, the stage hands out the points that do not wait for each
 * other's values at once (a gradient's D difference points, a trial with the D points of its
 * speculative gradient, a star design, the valley probes, the companion climb's points beside the
 * first search's): here 101 points in 35 batches, against 1 point per batch one at a time; told
 * in reverse order, the run still finds the narrow Gaussian. */
static void test_independent_points_go_out_at_once(void **state) {
    (void)state;
    static const char *const kEightOut[] = {"max_pending", "8", NULL};
    batches seen = {0, 0, 0};
    vbmc *run = run_in_batches(wide_box_run(DIM, kEightOut), narrow_gaussian, 0, &seen);
    assert_true(stat(run, "locate_evals") > 0);
    assert_int_equal(seen.largest, kOut);
    assert_true(seen.points >= 2 * seen.batches);
    assert_int_equal(stat(run, "finished"), 1);
    assert_close(final_elbo(run), 0.0, 0.5);
    vbmc_destroy(run);
}

/* A checkpoint taken with all but one point of a locating batch still out resumes bitwise. */
static void test_checkpoint_with_points_out_resumes_bitwise(void **state) {
    (void)state;
    static const char *const kEightOut[] = {"max_pending", "8", NULL};
    batches straight = {0, 0, 0}, resumed = {0, 0, 0};
    vbmc *a = run_in_batches(wide_box_run(DIM, kEightOut), narrow_gaussian, 0, &straight);
    vbmc *b = run_in_batches(wide_box_run(DIM, kEightOut), narrow_gaussian, 3, &resumed);
    assert_true(resumed.batches >= 3);
    assert_int_equal(straight.batches, resumed.batches);
    assert_close(stat(b, "func_count"), stat(a, "func_count"), 0.0);
    assert_close(final_elbo(b), final_elbo(a), 0.0);
    vbmc_destroy(a);
    vbmc_destroy(b);
}

/* The run ended with its mass on far_dominant_mode's major mode (destroys the run). */
static void assert_dominant_mode_found(vbmc *run) {
    assert_true(stat(run, "locate_evals") > 0);
    assert_int_equal(stat(run, "converged"), 1);
    double mean[2];
    posterior_mean(run, mean);
    assert_close(final_elbo(run), log(0.95), 0.5);
    assert_close(mean[0], 3.0, 0.2);
    assert_close(mean[1], -2.0, 0.2);
    vbmc_destroy(run);
}

/* Started in the minor mode, the run finds the dominant one and puts its mass there: the ELBO is
 * near log 0.95 (the minor mode alone would give log 0.05) and the mean near (3, -2); one point
 * at a time, and with up to 8 out (the valley probes of every segment at once, speculative
 * gradients, the trust region's star design along the climb's curvature), told in reverse order. */
static void test_a_far_dominant_second_mode_is_found(void **state) {
    (void)state;
    static const char *const kEightOut[] = {"max_pending", "8", NULL};
    batches seen = {0, 0, 0};
    assert_dominant_mode_found(finish(wide_box_run(2, NULL), far_dominant_mode, 0));
    assert_dominant_mode_found(run_in_batches(wide_box_run(2, kEightOut), far_dominant_mode, 0, &seen));
}

/* Counts logged lines that announce a restart of the locating stage. */
static void count_restart_lines(void *userdata, int level, const char *line) {
    (void)level;
    if (strstr(line, "climbs from a point drawn in the plausible box")) ++*(int *)userdata;
}

/* The first search settles on the broad hill's top; a restart from a point drawn in the box
 * finds the narrow peak 20 higher, and the stage ends on it. */
static void test_a_restart_leaves_a_local_top(void **state) {
    (void)state;
    static const char *const kOptions[] = {"display", "iter", "locate", "on", NULL};
    vbmc *run = wide_box_run(2, kOptions);
    int restarts = 0;
    assert_int_equal(vbmc_set_logger(run, count_restart_lines, &restarts), VBMC_OK);
    double x[2], best = -INFINITY;
    int located = 0;
    while (vbmc_ask(run, x) == VBMC_OK) {
        const double value = hill_and_narrow_peak(x);
        if (value > best) best = value;
        assert_int_equal(vbmc_tell(run, x, value, 0.0), VBMC_OK);
        if (stat(run, "locating") == 1) located = 1;
        else if (located) break;
    }
    assert_true(located);
    assert_true(restarts >= 1);
    assert_true(best > 19.0);
    vbmc_destroy(run);
}

/* With up to 8 points out, the companion climb from a point drawn in the box (or a restart)
 * leaves the broad hill's top too: the posterior's mass ends on the narrow peak. */
static void test_a_local_top_is_left_with_points_out(void **state) {
    (void)state;
    static const char *const kOptions[] = {"locate", "on", "max_pending", "8", NULL};
    batches seen = {0, 0, 0};
    vbmc *run = run_in_batches(wide_box_run(2, kOptions), hill_and_narrow_peak, 0, &seen);
    assert_true(stat(run, "locate_evals") > 0);
    double mean[2];
    posterior_mean(run, mean);
    assert_close(mean[0], 3.5, 0.3);
    assert_close(mean[1], 3.5, 0.3);
    vbmc_destroy(run);
}

/* A Gaussian (SD 1) centred 2.5 widths of the plausible box [-5, 5]^2 beyond it: the stage finds
 * it and VBMC fits it, but the box given does not bracket the mass, so the result is reported as
 * unreliable (and not converged), saying why. */
static double far_beyond_the_box(const double *x) {
    const double dx = x[0] - 30.0, dy = x[1] - 30.0;
    return -0.5 * (dx * dx + dy * dy) - 1.8378770664093453;
}

static void test_mass_far_beyond_the_box_is_no_reliable_result(void **state) {
    (void)state;
    vbmc *run = finish(wide_box_run(2, NULL), far_beyond_the_box, 0);
    assert_true(stat(run, "locate_evals") > 0);
    assert_true(stat(run, "box_excess") > 2.0);
    assert_int_equal(stat(run, "reliable"), 0);
    assert_int_equal(stat(run, "converged"), 0);
    assert_message_mentions(vbmc_result_message(run), "plausible-box widths beyond the box given");
    double mean[2];
    posterior_mean(run, mean);
    assert_close(mean[0], 30.0, 0.2);
    assert_close(mean[1], 30.0, 0.2);
    vbmc_destroy(run);
}

/* Without the locating stage, 60 evaluations leave VBMC far below the top and still climbing (the
 * best value rises by orders of magnitude over the last 20): no reliable result, and the message
 * says why. */
static void test_a_run_still_climbing_is_no_reliable_result(void **state) {
    (void)state;
    static const char *const kShortClimb[] = {"locate", "off", "max_fun_evals", "60", "tol_stable_count", "20", NULL};
    vbmc *run = finish(wide_box_run(DIM, kShortClimb), narrow_gaussian, 0);
    assert_int_equal(stat(run, "reliable"), 0);
    assert_int_equal(stat(run, "converged"), 0);
    assert_message_mentions(vbmc_result_message(run), "over the last 20 evaluations");
    assert_message_mentions(vbmc_result_message(run), "the run was still climbing");
    vbmc_destroy(run);
}

/* Saved after `save_at` tells (while locating), loaded and finished: bitwise the run that was never
 * interrupted. */
static void assert_resumes_bitwise(const char *const *options, int save_at) {
    vbmc *straight = finish(wide_box_run(DIM, options), narrow_gaussian, 0);
    vbmc *resumed = finish(wide_box_run(DIM, options), narrow_gaussian, save_at);
    const double a = stat(straight, "elbo"), b = stat(resumed, "elbo");
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(stat(straight, "func_count"), stat(resumed, "func_count"));
    vbmc_destroy(straight);
    vbmc_destroy(resumed);
}

static void test_checkpoint_while_locating_resumes_bitwise(void **state) {
    (void)state;
    assert_resumes_bitwise(NULL, 16);
}

/* The same with the gradient climb, saved in the middle of its first gradient. */
static void test_checkpoint_while_climbing_resumes_bitwise(void **state) {
    (void)state;
    static const char *const kClimb[] = {"locate_climb", "on", NULL};
    assert_resumes_bitwise(kClimb, 12);
}

/* A box around the mass: no locating stage; no verdict before the end. */
static void test_a_good_box_skips_the_stage(void **state) {
    (void)state;
    const double plb[DIM] = {-2, -2, -2}, pub[DIM] = {2, 2, 2};
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", 40), VBMC_OK);
    assert_int_equal(vbmc_create(&run, DIM, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    double x[DIM];
    assert_int_equal(vbmc_ask(run, x), VBMC_OK);
    assert_string_equal(vbmc_result_message(run), "");
    assert_true(isnan(stat(run, "reliable")));
    do {
        double q = 0.0;
        for (int d = 0; d < DIM; ++d) q += x[d] * x[d];
        assert_int_equal(vbmc_tell(run, x, -0.5 * q, 0.0), VBMC_OK);
    } while (vbmc_ask(run, x) == VBMC_OK);
    assert_int_equal(stat(run, "locate_evals"), 0);
    assert_false(isnan(stat(run, "reliable")));
    assert_message_mentions(vbmc_result_message(run), "Inference terminated:");
    assert_string_equal(vbmc_result_message(NULL), "");
    vbmc_destroy(run);
}

/* Counts logged lines that mention the gradient climb. */
static void count_climb_lines(void *userdata, int level, const char *line) {
    (void)level;
    if (strstr(line, "gradient climb")) ++*(int *)userdata;
}

/* Runs the narrow Gaussian until the locating stage ends, telling each value with log_joint_sd,
 * option locate_climb = climb; returns how many logged lines mention the gradient climb. */
static int climb_lines_while_locating(double log_joint_sd, const char *climb) {
    const char *const options[] = {"display", "iter", "locate_climb", climb, NULL};
    vbmc *run = wide_box_run(DIM, options);
    int lines = 0;
    assert_int_equal(vbmc_set_logger(run, count_climb_lines, &lines), VBMC_OK);
    double x[DIM];
    int located = 0;
    while (vbmc_ask(run, x) == VBMC_OK) {
        assert_int_equal(vbmc_tell(run, x, narrow_gaussian(x), log_joint_sd), VBMC_OK);
        if (stat(run, "locating") == 1) located = 1;
        else if (located) break;
    }
    assert_true(located);
    vbmc_destroy(run);
    return lines;
}

/* With locate_climb on, exact values open the stage with a gradient climb (its rows and its stop
 * are logged); values told with a noise SD leave the climb to the trust region alone (differences
 * of noisy values are no gradients). */
static void test_the_climb_takes_exact_values_when_asked(void **state) {
    (void)state;
    assert_true(climb_lines_while_locating(0.0, "on") > 0);
    assert_int_equal(climb_lines_while_locating(0.5, "on"), 0);
    assert_int_equal(climb_lines_while_locating(0.0, "off"), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_narrow_gaussian_in_a_box_ten_thousand_times_wider),
        cmocka_unit_test(test_independent_points_go_out_at_once),
        cmocka_unit_test(test_a_far_dominant_second_mode_is_found),
        cmocka_unit_test(test_a_restart_leaves_a_local_top),
        cmocka_unit_test(test_a_local_top_is_left_with_points_out),
        cmocka_unit_test(test_mass_far_beyond_the_box_is_no_reliable_result),
        cmocka_unit_test(test_a_run_still_climbing_is_no_reliable_result),
        cmocka_unit_test(test_checkpoint_while_locating_resumes_bitwise),
        cmocka_unit_test(test_checkpoint_while_climbing_resumes_bitwise),
        cmocka_unit_test(test_checkpoint_with_points_out_resumes_bitwise),
        cmocka_unit_test(test_a_good_box_skips_the_stage),
        cmocka_unit_test(test_the_climb_takes_exact_values_when_asked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
