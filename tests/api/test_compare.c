/* Posterior summaries and comparisons through the public API, on finished runs of 2-D Gaussian
 * targets (unit variances, correlation 0.5): two runs of the same target from different seeds, one
 * of the target shifted by (2.5, 1.25), and a 1-D run. The mode is the highest point of the density
 * and near the target's mean; marginals are normalised and match histograms of draws; KL(p||p) and
 * MTV(p, p) are 0; the KL estimate is the documented mean over the documented draws, reproducible
 * from the seed, and between the shifted targets within Pinsker's bound of the MTV. The
 * multi-run diagnostics: fits of one target agree, fits of the two targets do not (the message
 * names the criteria and the run), a third run that disagrees is outvoted, an unconverged run is
 * named; its matrices are those of vbmc_post_kl and vbmc_post_mtv with the documented seeds. Every
 * bad argument is refused with a message naming it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

#define DIM 2

/* The target's mean: (0.5, -0.3) shifted by (shift, shift / 2). */
typedef struct {
    vbmc *run;
    vbmc_post *post;
    double mean[DIM];
} fitted_run;

typedef struct {
    fitted_run a1, a2, b, line, short_run;
} fixture;

static double gaussian_log_joint(const double *x, const double *mean) {
    const double a = x[0] - mean[0], b = x[1] - mean[1];
    return -(a * a - a * b + b * b) / (2.0 * 0.75);
}

/* Coordinate 0 has far hard bounds (so the bounded transform is used), coordinate 1 none. */
static fitted_run fit(uint64_t seed, double shift, long long budget) {
    const double lb[DIM] = {-10, -INFINITY}, ub[DIM] = {10, INFINITY}, plb[DIM] = {-4, -4}, pub[DIM] = {5, 5};
    fitted_run f = {NULL, NULL, {0.5 + shift, -0.3 + 0.5 * shift}};
    vbmc_opts *opts = NULL;
    vbmc_opts_create(&opts);
    vbmc_opts_set(opts, "display", "off");
    vbmc_opts_set_int(opts, "max_fun_evals", budget);
    vbmc_opts_set_int(opts, "ns_gp_max", 4);
    vbmc_opts_set_int(opts, "ns_search", 512);
    vbmc_opts_set_int(opts, "min_final_components", 10);
    vbmc_opts_set_int(opts, "seed", (long long)seed);
    vbmc_create(&f.run, DIM, NULL, lb, ub, plb, pub, opts);
    vbmc_opts_destroy(opts);
    double x[DIM];
    while (vbmc_ask(f.run, x) == VBMC_OK) vbmc_tell(f.run, x, gaussian_log_joint(x, f.mean), 0.0);
    vbmc_posterior(f.run, &f.post);
    return f;
}

/* A standard normal in one dimension, short. */
static fitted_run fit_line(void) {
    const double plb[1] = {-2}, pub[1] = {2};
    fitted_run f = {NULL, NULL, {0.0, 0.0}};
    vbmc_opts *opts = NULL;
    vbmc_opts_create(&opts);
    vbmc_opts_set(opts, "display", "off");
    vbmc_opts_set_int(opts, "max_fun_evals", 20);
    vbmc_opts_set_int(opts, "ns_gp_max", 4);
    vbmc_opts_set_int(opts, "min_final_components", 5);
    vbmc_create(&f.run, 1, NULL, NULL, NULL, plb, pub, opts);
    vbmc_opts_destroy(opts);
    double x[1];
    while (vbmc_ask(f.run, x) == VBMC_OK) vbmc_tell(f.run, x, -0.5 * x[0] * x[0], 0.0);
    vbmc_posterior(f.run, &f.post);
    return f;
}

static int setup(void **state) {
    fixture *fx = calloc(1, sizeof *fx);
    fx->a1 = fit(1, 0.0, 150);
    fx->a2 = fit(2, 0.0, 150);
    fx->b = fit(3, 2.5, 150);
    fx->line = fit_line();
    fx->short_run = fit(4, 0.0, 20);
    *state = fx;
    return fx->a1.post && fx->a2.post && fx->b.post && fx->line.post && fx->short_run.post ? 0 : -1;
}

static void release(fitted_run *f) {
    vbmc_post_destroy(f->post);
    vbmc_destroy(f->run);
}

static int teardown(void **state) {
    fixture *fx = (fixture *)*state;
    release(&fx->a1);
    release(&fx->a2);
    release(&fx->b);
    release(&fx->line);
    release(&fx->short_run);
    free(fx);
    return 0;
}

/* The mode is deterministic, at least as high as any of 2000 draws, and within 0.15 (target SDs)
 * of the target's mean: the mixture's ripples move its top by a few hundredths of an SD. */
static void test_mode_is_the_highest_point(void **state) {
    fixture *fx = (fixture *)*state;
    const fitted_run *runs[3] = {&fx->a1, &fx->a2, &fx->b};
    for (int r = 0; r < 3; ++r) {
        double mode[DIM], again[DIM], top, draws[2000 * DIM], lp[2000];
        assert_int_equal(vbmc_post_mode(runs[r]->post, mode), VBMC_OK);
        assert_int_equal(vbmc_post_mode(runs[r]->post, again), VBMC_OK);
        assert_memory_equal(mode, again, sizeof mode);
        for (int d = 0; d < DIM; ++d) assert_close(mode[d], runs[r]->mean[d], 0.15);
        assert_int_equal(vbmc_post_log_pdf(runs[r]->post, 1, mode, &top), VBMC_OK);
        assert_int_equal(vbmc_post_sample(runs[r]->post, 2000, 4, draws), VBMC_OK);
        assert_int_equal(vbmc_post_log_pdf(runs[r]->post, 2000, draws, lp), VBMC_OK);
        for (int i = 0; i < 2000; ++i) assert_true(lp[i] <= top);
    }
}

/* Each marginal integrates to 1 over +-10 target SDs (trapezoid rule, 20001 points) and gives each
 * of 20 bins of width 0.4 the share of 100000 draws that fell in it, within 4 binomial SDs; it is 0
 * outside the hard bounds. */
static void test_marginals_are_normalised_and_match_histograms(void **state) {
    fixture *fx = (fixture *)*state;
    enum { N = 100000, BINS = 20, GRID = 20001 };
    double *draws = malloc(sizeof(double) * N * DIM), *grid = malloc(sizeof(double) * GRID),
           *pdf = malloc(sizeof(double) * GRID);
    assert_int_equal(vbmc_post_sample(fx->a1.post, N, 11, draws), VBMC_OK);
    for (int d = 0; d < DIM; ++d) {
        const double centre = fx->a1.mean[d], h = 20.0 / (GRID - 1);
        for (int i = 0; i < GRID; ++i) grid[i] = centre - 10.0 + i * h;
        assert_int_equal(vbmc_post_marginal_pdf(fx->a1.post, d, GRID, grid, pdf), VBMC_OK);
        double integral = 0.0;
        for (int i = 0; i < GRID; ++i) integral += (i == 0 || i == GRID - 1 ? 0.5 : 1.0) * pdf[i] * h;
        assert_close(integral, 1.0, 1e-6);
        for (int b = 0; b < BINS; ++b) {
            /* Bin [lo, lo + 0.4) starting 4 SDs below the mean: grid points 200 apart. */
            const int first = (int)lround((6.0 + 0.4 * b) / h), last = first + (int)lround(0.4 / h);
            double mass = 0.0;
            for (int i = first; i <= last; ++i) mass += (i == first || i == last ? 0.5 : 1.0) * pdf[i] * h;
            int count = 0;
            for (int i = 0; i < N; ++i) {
                const double v = draws[i * DIM + d];
                count += v >= grid[first] && v < grid[last];
            }
            assert_close((double)count / N, mass, 4.0 * sqrt(mass * (1.0 - mass) / N) + 1e-9);
        }
    }
    const double outside[2] = {-10.5, 10.0};
    assert_int_equal(vbmc_post_marginal_pdf(fx->a1.post, 0, 2, outside, pdf), VBMC_OK);
    assert_true(pdf[0] == 0.0 && pdf[1] == 0.0);
    free(draws);
    free(grid);
    free(pdf);
}

/* kl[0] is the mean of log p - log q over vbmc_post_sample(p, n, seed) and kl[1] over
 * vbmc_post_sample(q, n, seed + 1), kl_sd their standard errors; the same seed gives the same
 * bits; KL(p||p) = 0 with SD 0; two fits of the same target are close. */
static void test_kl_is_the_documented_estimate(void **state) {
    fixture *fx = (fixture *)*state;
    enum { N = 4000 };
    double kl[2], sd[2], again[2], self[2], self_sd[2];
    assert_int_equal(vbmc_post_kl(fx->a1.post, fx->a2.post, N, 21, kl, sd), VBMC_OK);
    assert_int_equal(vbmc_post_kl(fx->a1.post, fx->a2.post, N, 21, again, NULL), VBMC_OK);
    assert_memory_equal(kl, again, sizeof kl);
    vbmc_post *from[2] = {fx->a1.post, fx->a2.post}, *to[2] = {fx->a2.post, fx->a1.post};
    static double x[N * DIM], lp[N], lq[N];
    for (int k = 0; k < 2; ++k) {
        assert_int_equal(vbmc_post_sample(from[k], N, 21 + k, x), VBMC_OK);
        assert_int_equal(vbmc_post_log_pdf(from[k], N, x, lp), VBMC_OK);
        assert_int_equal(vbmc_post_log_pdf(to[k], N, x, lq), VBMC_OK);
        double mean = 0.0, spread = 0.0;
        for (int i = 0; i < N; ++i) mean += (lp[i] - lq[i]) / N;
        for (int i = 0; i < N; ++i) spread += (lp[i] - lq[i] - mean) * (lp[i] - lq[i] - mean);
        assert_close(kl[k], fmax(mean, 0.0), 1e-12);
        assert_close(sd[k], sqrt(spread / (N - 1) / N), 1e-12);
        assert_true(kl[k] < 0.1);
    }
    assert_int_equal(vbmc_post_kl(fx->a1.post, fx->a1.post, N, 5, self, self_sd), VBMC_OK);
    assert_true(self[0] == 0.0 && self[1] == 0.0 && self_sd[0] == 0.0 && self_sd[1] == 0.0);
}

/* Fits of targets 2.5 and 1.25 apart (their KL divergence is 3.125 each way): KL above 1 each way,
 * the MTV large, in [0, 1], its mean the mean of the coordinates', and every marginal total
 * variation within Pinsker's bound sqrt(KL / 2) of both directions (marginalising cannot increase
 * KL), allowing 4 standard errors of each estimate. MTV(p, p) = 0. */
static void test_kl_and_mtv_of_shifted_targets(void **state) {
    fixture *fx = (fixture *)*state;
    enum { N = 20000 };
    double kl[2], sd[2], mtv[DIM], mean_mtv;
    assert_int_equal(vbmc_post_kl(fx->a1.post, fx->b.post, N, 3, kl, sd), VBMC_OK);
    assert_int_equal(vbmc_post_mtv(fx->a1.post, fx->b.post, N, 3, mtv, &mean_mtv), VBMC_OK);
    for (int k = 0; k < 2; ++k) {
        assert_true(kl[k] > 1.0);
        for (int d = 0; d < DIM; ++d) assert_true(mtv[d] <= sqrt(0.5 * (kl[k] + 4.0 * sd[k])) + 4.0 * 0.5 / sqrt(N));
    }
    for (int d = 0; d < DIM; ++d) assert_true(mtv[d] > 0.3 && mtv[d] <= 1.0);
    assert_close(mean_mtv, 0.5 * (mtv[0] + mtv[1]), 1e-15);
    assert_int_equal(vbmc_post_mtv(fx->a1.post, fx->a1.post, 1000, 3, mtv, &mean_mtv), VBMC_OK);
    assert_true(mtv[0] == 0.0 && mtv[1] == 0.0 && mean_mtv == 0.0);
    assert_int_equal(vbmc_post_mtv(fx->a1.post, fx->a2.post, 1000, 3, NULL, NULL), VBMC_OK);
}

static void expect_refused(vbmc_status status, const char *needle) {
    assert_int_equal(status, VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), needle);
}

static void test_bad_arguments_are_refused(void **state) {
    fixture *fx = (fixture *)*state;
    vbmc_post *p = fx->a1.post, *dead = NULL;
    double x[DIM], values[2] = {0.0, NAN}, pdf[2], kl[2], mtv[DIM];
    assert_int_equal(vbmc_posterior(fx->a2.run, &dead), VBMC_OK);
    vbmc_post_destroy(dead);
    expect_refused(vbmc_post_mode(NULL, x), "post is NULL");
    expect_refused(vbmc_post_mode(dead, x), "not a live handle");
    expect_refused(vbmc_post_mode(p, NULL), "x is NULL");
    expect_refused(vbmc_post_marginal_pdf(p, 2, 1, values, pdf), "coord = 2 is not a coordinate of a 2-dimensional posterior");
    expect_refused(vbmc_post_marginal_pdf(p, -1, 1, values, pdf), "coord = -1");
    expect_refused(vbmc_post_marginal_pdf(p, 0, 2, values, pdf), "values[1] is NaN");
    expect_refused(vbmc_post_marginal_pdf(p, 0, 1, NULL, pdf), "values is NULL");
    expect_refused(vbmc_post_marginal_pdf(p, 0, 1, values, NULL), "pdf is NULL");
    assert_int_equal(vbmc_post_marginal_pdf(p, 0, 0, NULL, NULL), VBMC_OK);
    expect_refused(vbmc_post_kl(NULL, p, 100, 1, kl, NULL), "p is NULL");
    expect_refused(vbmc_post_kl(p, dead, 100, 1, kl, NULL), "q is not a live handle");
    expect_refused(vbmc_post_kl(p, p, 100, 1, NULL, NULL), "kl is NULL");
    expect_refused(vbmc_post_kl(p, p, 1, 1, kl, NULL), "n = 1 draws");
    expect_refused(vbmc_post_kl(p, fx->line.post, 100, 1, kl, NULL), "p has dimension 2 and q dimension 1");
    expect_refused(vbmc_post_kl(p, p, SIZE_MAX / 4, 1, kl, NULL), "do not fit in memory");
    expect_refused(vbmc_post_mtv(dead, p, 100, 1, mtv, NULL), "p is not a live handle");
    expect_refused(vbmc_post_mtv(p, NULL, 100, 1, mtv, NULL), "q is NULL");
    expect_refused(vbmc_post_mtv(p, p, 0, 1, mtv, NULL), "n = 0 draws");
    expect_refused(vbmc_post_mtv(fx->line.post, p, 100, 1, mtv, NULL), "p has dimension 1 and q dimension 2");
    /* The snapshots still work. */
    assert_int_equal(vbmc_post_mode(p, x), VBMC_OK);
}

static vbmc_diag *diagnose(const fitted_run *const *fits, int n, uint64_t seed) {
    const vbmc *runs[4];
    for (int i = 0; i < n; ++i) runs[i] = fits[i]->run;
    vbmc_diag *diag = NULL;
    assert_int_equal(vbmc_diagnose(runs, n, seed, &diag), VBMC_OK);
    return diag;
}

static double diag_stat(const vbmc_diag *diag, const char *name) {
    double value = NAN;
    assert_int_equal(vbmc_diag_stat(diag, name, &value), VBMC_OK);
    return value;
}

/* The run with the highest ELBO - 3 SD. */
static int highest_elcbo(const fitted_run *const *fits, int n) {
    int best = 0;
    double best_elcbo = -INFINITY;
    for (int i = 0; i < n; ++i) {
        double elbo, sd;
        assert_int_equal(vbmc_post_elbo(fits[i]->post, &elbo, &sd), VBMC_OK);
        if (elbo - 3.0 * sd > best_elcbo) {
            best = i;
            best_elcbo = elbo - 3.0 * sd;
        }
    }
    return best;
}

/* Two converged fits of one target agree; the best has the highest ELCBO; the pairwise matrices are
 * vbmc_post_kl and vbmc_post_mtv with 10000 draws and seed + 2 (i n + j), bitwise. */
static void test_fits_of_one_target_agree(void **state) {
    fixture *fx = (fixture *)*state;
    const fitted_run *fits[2] = {&fx->a1, &fx->a2};
    vbmc_diag *diag = diagnose(fits, 2, 40);
    assert_true(diag_stat(diag, "agree") == 1.0);
    assert_true(diag_stat(diag, "exit_flag") == 1.0);
    assert_true(diag_stat(diag, "converged_count") == 2.0);
    assert_true(diag_stat(diag, "runs") == 2.0);
    assert_true(diag_stat(diag, "best") == highest_elcbo(fits, 2));
    double elbo[2];
    for (int i = 0; i < 2; ++i) assert_int_equal(vbmc_post_elbo(fits[i]->post, &elbo[i], NULL), VBMC_OK);
    assert_close(diag_stat(diag, "elbo_spread"), fabs(elbo[0] - elbo[1]), 1e-15);
    double skl[4], kl_matrix[4], mtv[4], kl[2], coordinate_mtv[DIM];
    assert_int_equal(vbmc_diag_pairwise(diag, "skl", 2, skl), VBMC_OK);
    assert_int_equal(vbmc_diag_pairwise(diag, "kl", 2, kl_matrix), VBMC_OK);
    assert_int_equal(vbmc_diag_pairwise(diag, "mtv", 2, mtv), VBMC_OK);
    assert_int_equal(vbmc_post_kl(fx->a1.post, fx->a2.post, 10000, 42, kl, NULL), VBMC_OK);
    assert_int_equal(vbmc_post_mtv(fx->a1.post, fx->a2.post, 10000, 42, coordinate_mtv, NULL), VBMC_OK);
    assert_true(kl_matrix[1] == kl[0] && kl_matrix[2] == kl[1]);
    assert_true(skl[1] == 0.5 * (kl[0] + kl[1]) && skl[2] == skl[1]);
    assert_true(mtv[1] == fmax(coordinate_mtv[0], coordinate_mtv[1]) && mtv[2] == mtv[1]);
    assert_true(skl[0] == 0.0 && skl[3] == 0.0 && mtv[0] == 0.0 && kl_matrix[3] == 0.0);
    assert_true(diag_stat(diag, "max_skl") == skl[1] && diag_stat(diag, "max_mtv") == mtv[1]);
    assert_true(skl[1] < 1.0 && mtv[1] < 0.2);
    const char *message = vbmc_diag_message(diag);
    assert_true(strncmp(message, "The runs agree. All 2 runs converged.", 37) == 0);
    char best[32];
    snprintf(best, sizeof best, "Run %d is the best", highest_elcbo(fits, 2));
    assert_message_mentions(message, best);
    vbmc_diag *again = diagnose(fits, 2, 40);
    assert_string_equal(vbmc_diag_message(again), message);
    vbmc_diag_destroy(again);
    vbmc_diag_destroy(diag);
}

/* Fits of targets 2.8 SDs apart have the same evidence, so their ELBOs agree, but their
 * posteriors and marginals do not: the message says so and names the other run. */
static void test_fits_of_two_targets_disagree(void **state) {
    fixture *fx = (fixture *)*state;
    const fitted_run *fits[2] = {&fx->a1, &fx->b};
    vbmc_diag *diag = diagnose(fits, 2, 7);
    assert_true(diag_stat(diag, "agree") == 0.0);
    assert_true(diag_stat(diag, "exit_flag") == -1.0);
    assert_true(diag_stat(diag, "elbo_agree_count") == 2.0);
    assert_true(diag_stat(diag, "skl_agree_count") == 1.0 && diag_stat(diag, "mtv_agree_count") == 1.0);
    assert_true(diag_stat(diag, "max_skl") > 1.0 && diag_stat(diag, "max_mtv") > 0.2);
    const char *message = vbmc_diag_message(diag);
    assert_message_mentions(message, "The runs do not agree: too few agree with the best run on the posterior "
                                     "(symmetrised KL divergence) and on the marginals (total variation).");
    char other[64];
    snprintf(other, sizeof other, "needed): run %d is at", 1 - (int)diag_stat(diag, "best"));
    assert_message_mentions(message, other);
    assert_message_mentions(message, "Posterior: 1 of 2 runs agree with the best run (symmetrised KL divergence below 1");
    assert_message_mentions(message, "Marginals: 1 of 2 runs agree");
    vbmc_diag_destroy(diag);
}

/* With three runs two must agree with the best: the run of the other target is outvoted when the
 * best is a fit of the first target, and named. */
static void test_a_third_run_is_outvoted(void **state) {
    fixture *fx = (fixture *)*state;
    const fitted_run *fits[3] = {&fx->a1, &fx->a2, &fx->b};
    vbmc_diag *diag = diagnose(fits, 3, 9);
    const int best = (int)diag_stat(diag, "best");
    assert_int_equal(best, highest_elcbo(fits, 3));
    if (best != 2) {
        assert_true(diag_stat(diag, "agree") == 1.0);
        assert_message_mentions(vbmc_diag_message(diag), "2 of 3 runs agree with the best run (symmetrised KL divergence below 1; at least 2 needed, so this passes): run 2 is at");
    } else {
        assert_true(diag_stat(diag, "agree") == 0.0);
    }
    vbmc_diag_destroy(diag);
}

/* A run stopped after 20 evaluations has not converged: only one converged run. */
static void test_an_unconverged_run_is_named(void **state) {
    fixture *fx = (fixture *)*state;
    const fitted_run *fits[2] = {&fx->short_run, &fx->a1};
    double converged;
    assert_int_equal(vbmc_stat(fx->short_run.run, "converged", &converged), VBMC_OK);
    assert_true(converged == 0.0);
    vbmc_diag *diag = diagnose(fits, 2, 1);
    assert_true(diag_stat(diag, "agree") == 0.0 && diag_stat(diag, "converged_count") == 1.0);
    assert_true(diag_stat(diag, "exit_flag") <= 0.0 && diag_stat(diag, "best") == 1.0);
    assert_message_mentions(vbmc_diag_message(diag), "The runs do not agree.");
    assert_message_mentions(vbmc_diag_message(diag), "Only run 1 of 2 converged");
    vbmc_diag_destroy(diag);
}

static void test_diagnostics_refuse_bad_arguments(void **state) {
    fixture *fx = (fixture *)*state;
    vbmc *fresh = NULL, *dead = NULL;
    const double plb[DIM] = {-1, -1}, pub[DIM] = {1, 1};
    assert_int_equal(vbmc_create(&fresh, DIM, NULL, NULL, NULL, plb, pub, NULL), VBMC_OK);
    assert_int_equal(vbmc_create(&dead, DIM, NULL, NULL, NULL, plb, pub, NULL), VBMC_OK);
    vbmc_destroy(dead);
    vbmc_diag *diag = (vbmc_diag *)0x1;
    const vbmc *two[2] = {fx->a1.run, fx->a2.run};
    const vbmc *with_null[2] = {fx->a1.run, NULL}, *with_dead[3] = {fx->a1.run, fx->a2.run, dead};
    const vbmc *mixed_dims[2] = {fx->a1.run, fx->line.run}, *unstarted[2] = {fx->a1.run, fresh};
    expect_refused(vbmc_diagnose(two, 2, 1, NULL), "out is NULL");
    expect_refused(vbmc_diagnose(NULL, 2, 1, &diag), "runs is NULL");
    assert_null(diag);
    expect_refused(vbmc_diagnose(two, 1, 1, &diag), "n = 1: the diagnostics compare at least 2 runs");
    expect_refused(vbmc_diagnose(with_null, 2, 1, &diag), "runs[1] is NULL");
    expect_refused(vbmc_diagnose(with_dead, 3, 1, &diag), "runs[2] is not a live handle");
    expect_refused(vbmc_diagnose(mixed_dims, 2, 1, &diag), "runs[1] has dimension 1 but runs[0] has dimension 2");
    assert_int_equal(vbmc_diagnose(unstarted, 2, 1, &diag), VBMC_E_STATE);
    assert_message_mentions(vbmc_last_error(NULL), "runs[1] has no posterior yet");
    assert_null(diag);
    vbmc_destroy(fresh);

    assert_int_equal(vbmc_diagnose(two, 2, 1, &diag), VBMC_OK);
    double value, matrix[4];
    expect_refused(vbmc_diag_stat(NULL, "agree", &value), "diag is NULL");
    expect_refused(vbmc_diag_stat(diag, "nonsense", &value), "unknown diagnostics stat \"nonsense\" (known: agree, best");
    expect_refused(vbmc_diag_stat(diag, NULL, &value), "name is NULL");
    expect_refused(vbmc_diag_stat(diag, "agree", NULL), "value is NULL");
    expect_refused(vbmc_diag_pairwise(diag, "skl", 3, matrix), "n = 3 is not the number of runs diagnosed, 2");
    expect_refused(vbmc_diag_pairwise(diag, "elbo", 2, matrix), "unknown pairwise diagnostics \"elbo\"");
    expect_refused(vbmc_diag_pairwise(diag, "skl", 2, NULL), "values is NULL");
    assert_string_equal(vbmc_diag_message(NULL), "");
    vbmc_diag_destroy(diag);
    assert_string_equal(vbmc_diag_message(diag), "");
    expect_refused(vbmc_diag_stat(diag, "agree", &value), "diag is not a live handle");
    vbmc_diag_destroy(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mode_is_the_highest_point),
        cmocka_unit_test(test_marginals_are_normalised_and_match_histograms),
        cmocka_unit_test(test_kl_is_the_documented_estimate),
        cmocka_unit_test(test_kl_and_mtv_of_shifted_targets),
        cmocka_unit_test(test_bad_arguments_are_refused),
        cmocka_unit_test(test_fits_of_one_target_agree),
        cmocka_unit_test(test_fits_of_two_targets_disagree),
        cmocka_unit_test(test_a_third_run_is_outvoted),
        cmocka_unit_test(test_an_unconverged_run_is_named),
        cmocka_unit_test(test_diagnostics_refuse_bad_arguments),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
