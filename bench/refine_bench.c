/* refine_bench: mixture draws against refined draws (vbmc_post_sample_refined) of one saved
 * posterior of a synthetic problem, through the public C API only.
 *
 *   refine_bench --problem NAME --post FILE --seed S --out FILE [--draws N] [--elbo-draws M]
 *                [--aux K] [--ratio R] [--bandwidth H]
 *
 * FILE is a posterior saved by vbmc_bench --save-post. Draws N refined draws
 * (vbmc_post_sample_refined, timed), N mixture draws and N exact draws of the true posterior, and
 * appends one JSON line: for each set its MMTV (support/mmtv.h, kernel SD H true SDs) against the
 * true marginals (problems/marginals.h) and its gsKL from the draws' mean and covariance; the
 * exact draws' figures are the estimator's floor at this N. The mixture draws are refined draws
 * with aux_count = 1 and the same seed: draw i is then the mixture draw that refined draw i starts
 * from (vbmc_post_sample_refined pairs draws across settings), so where no refit of a draw is kept
 * the two sets hold the same point, and the two MMTVs differ by what the refits change, not by
 * the draws' noise. Also the mixture's ELBO and the
 * auxiliary ELBO of the refined distribution (vbmc_post_refined_elbo over M draws) and the wall
 * and CPU time per refined draw. --aux / --ratio set vbmc_post_set_refinement (default: the
 * snapshot's). Exit code 0, 1 on a usage error, 2 if the library failed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vbmc/vbmc.h>

#include "bench_rng.h"
#include "gauss.h"
#include "bench_clock.h"
#include "json_out.h"
#include "marginals.h"
#include "mmtv.h"
#include "problems.h"

#define GRID_BINS 4096

typedef struct refine_args {
    const char *problem, *post_path, *out_path;
    long long seed, draws, elbo_draws;
    int aux_count;        /* 0: the snapshot's */
    double ratio;         /* 0: the snapshot's */
    double bandwidth;     /* kernel SD in true SDs */
} refine_args;

static int parse_args(int argc, char **argv, refine_args *a) {
    memset(a, 0, sizeof *a);
    a->seed = -1;
    a->draws = 10000;
    a->elbo_draws = 2000;
    a->bandwidth = 0.1;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *arg = argv[i], *value = argv[i + 1];
        char *end = NULL;
        if (strcmp(arg, "--problem") == 0) a->problem = value;
        else if (strcmp(arg, "--post") == 0) a->post_path = value;
        else if (strcmp(arg, "--out") == 0) a->out_path = value;
        else if (strcmp(arg, "--seed") == 0) a->seed = strtoll(value, &end, 10);
        else if (strcmp(arg, "--draws") == 0) a->draws = strtoll(value, &end, 10);
        else if (strcmp(arg, "--elbo-draws") == 0) a->elbo_draws = strtoll(value, &end, 10);
        else if (strcmp(arg, "--aux") == 0) a->aux_count = (int)strtol(value, &end, 10);
        else if (strcmp(arg, "--ratio") == 0) a->ratio = strtod(value, &end);
        else if (strcmp(arg, "--bandwidth") == 0) a->bandwidth = strtod(value, &end);
        else {
            fprintf(stderr, "refine_bench: unknown argument %s\n", arg);
            return -1;
        }
        if (end && *end) {
            fprintf(stderr, "refine_bench: %s needs a number\n", arg);
            return -1;
        }
    }
    if (argc % 2 == 0 || !a->problem || !a->post_path || !a->out_path || a->seed < 0 || a->draws < 2 ||
        a->elbo_draws < 2 || !(a->bandwidth > 0)) {
        fprintf(stderr, "usage: refine_bench --problem NAME --post FILE --seed S --out FILE [--draws N >= 2]\n"
                        "                    [--elbo-draws M >= 2] [--aux K] [--ratio R] [--bandwidth H > 0]\n");
        return -1;
    }
    return 0;
}

/* Draws from the true posterior's marginal of coordinate d by inverting its grid CDF, uniform within
 * a bin (exact up to the bin width, 1/170 of an SD). */
static double grid_draw(const bench_grid *grid, const double *mass, bench_rng *rng) {
    double u = bench_rng_uniform(rng), cumulative = 0.0;
    for (int g = 0; g < grid->bins; ++g) {
        cumulative += mass[g];
        if (u < cumulative || g == grid->bins - 1) return grid->lo + (g + bench_rng_uniform(rng)) * grid->width;
    }
    return NAN;
}

/* n exact draws of the true posterior into x[n*dim]: lumpy a Gaussian mixture, cigar a Gaussian,
 * student independent coordinates from their grid marginals, rosenbrock x1 from its grid marginal
 * and x2 | x1 ~ N (the likelihood's exp(-(x2 - x1^2)^2) times the Gaussian prior). */
static void exact_draws(const bench_problem *p, bench_grid *grids, double **mass, size_t n, bench_rng *rng, double *x) {
    const int dim = p->dim;
    double chol[VBMC_MAX_DIM * VBMC_MAX_DIM], z[VBMC_MAX_DIM];
    if (p->family == BENCH_CIGAR) bench_cholesky(dim, p->cov, chol);
    for (size_t i = 0; i < n; ++i) {
        double *row = x + i * (size_t)dim;
        if (p->family == BENCH_CIGAR) {
            for (int d = 0; d < dim; ++d) z[d] = bench_rng_normal(rng);
            for (int d = 0; d < dim; ++d) {
                row[d] = p->mean[d];
                for (int e = 0; e <= d; ++e) row[d] += chol[d * dim + e] * z[e];
            }
        } else if (p->family == BENCH_ROSENBROCK) {
            row[0] = grid_draw(&grids[0], mass[0], rng);
            const double var = 1.0 / (2.0 + 1.0 / p->prior_var[1]);
            const double mean = var * (2.0 * row[0] * row[0] + p->prior_mean[1] / p->prior_var[1]);
            row[1] = mean + sqrt(var) * bench_rng_normal(rng);
        } else if (p->family == BENCH_STUDENT) {
            for (int d = 0; d < dim; ++d) row[d] = grid_draw(&grids[d], mass[d], rng);
        } else {
            /* lumpy: a component by its posterior weight, then its Gaussian (marginals.c's closed form). */
            double log_w[64], top = -INFINITY, total = 0.0;
            for (int m = 0; m < p->lumpy_count; ++m) {
                log_w[m] = log(p->lumpy_weight[m]);
                for (int j = 0; j < dim; ++j) {
                    const double v = p->lumpy_variance[m * dim + j] + p->prior_var[j];
                    const double diff = p->lumpy_location[m * dim + j] - p->prior_mean[j];
                    log_w[m] -= 0.5 * (log(v) + diff * diff / v);
                }
                if (log_w[m] > top) top = log_w[m];
            }
            for (int m = 0; m < p->lumpy_count; ++m) total += exp(log_w[m] - top);
            double u = bench_rng_uniform(rng) * total;
            int m = 0;
            for (; m < p->lumpy_count - 1; ++m) {
                u -= exp(log_w[m] - top);
                if (u < 0) break;
            }
            for (int d = 0; d < dim; ++d) {
                const double v = p->lumpy_variance[m * dim + d], pv = p->prior_var[d];
                const double var = 1.0 / (1.0 / v + 1.0 / pv);
                const double mean = var * (p->lumpy_location[m * dim + d] / v + p->prior_mean[d] / pv);
                row[d] = mean + sqrt(var) * bench_rng_normal(rng);
            }
        }
    }
}

/* MMTV and sample gsKL of n draws x[n*dim]. */
static void score(const bench_problem *p, bench_grid *grids, double **mass, const double *x, size_t n, double h,
                  double *mmtv, double *gskl) {
    const int dim = p->dim;
    double mean[VBMC_MAX_DIM] = {0}, cov[VBMC_MAX_DIM * VBMC_MAX_DIM] = {0};
    *mmtv = 0.0;
    for (int d = 0; d < dim; ++d)
        *mmtv += bench_marginal_tv(grids[d], mass[d], x + d, n, dim, h * sqrt(p->cov[d * dim + d])) / dim;
    for (size_t i = 0; i < n; ++i)
        for (int d = 0; d < dim; ++d) mean[d] += x[i * (size_t)dim + d] / (double)n;
    for (size_t i = 0; i < n; ++i)
        for (int d = 0; d < dim; ++d)
            for (int e = 0; e < dim; ++e)
                cov[d * dim + e] += (x[i * (size_t)dim + d] - mean[d]) * (x[i * (size_t)dim + e] - mean[e]) / (double)(n - 1);
    *gskl = bench_gskl(dim, mean, cov, p->mean, p->cov);
}

int main(int argc, char **argv) {
    refine_args a;
    if (parse_args(argc, argv, &a) != 0) return 1;
    const bench_problem *p = bench_problem_find(a.problem);
    if (!p) {
        fprintf(stderr, "refine_bench: unknown problem %s\n", a.problem);
        return 1;
    }
    const int dim = p->dim;
    const size_t n = (size_t)a.draws;
    vbmc_post *post = NULL;
    const char *failed = NULL;
    vbmc_status status = vbmc_post_load(&post, a.post_path);
    if (status < 0) failed = "vbmc_post_load";
    if (!failed && (a.aux_count || a.ratio)) {
        status = vbmc_post_set_refinement(post, a.aux_count ? a.aux_count : 3, a.ratio ? a.ratio : 0.7);
        if (status < 0) failed = "vbmc_post_set_refinement";
    }
    vbmc_post *mixture_post = NULL; /* the same snapshot with aux_count = 1 */
    if (!failed && (status = vbmc_post_load(&mixture_post, a.post_path)) >= 0)
        status = vbmc_post_set_refinement(mixture_post, 1, 0.7);
    if (!failed && status < 0) failed = "mixture snapshot";
    bench_grid grids[VBMC_MAX_DIM];
    double *mass[VBMC_MAX_DIM] = {0};
    double *mixture = malloc(sizeof(double) * n * (size_t)dim), *refined = malloc(sizeof(double) * n * (size_t)dim);
    double *exact = malloc(sizeof(double) * n * (size_t)dim);
    double elbo = NAN, elbo_sd = NAN, elbo_aux = NAN, elbo_aux_sd = NAN, wall = NAN, cpu = NAN;
    double mmtv[3] = {NAN, NAN, NAN}, gskl[3] = {NAN, NAN, NAN};
    for (int d = 0; d < dim && !failed; ++d) {
        grids[d] = bench_marginal_grid(p, d, GRID_BINS);
        mass[d] = malloc(sizeof(double) * GRID_BINS);
        if (!mass[d] || bench_marginal_mass(p, d, grids[d], mass[d]) != 0) failed = "marginals";
    }
    if (!mixture || !refined || !exact) failed = "malloc";
    if (!failed && (status = vbmc_post_sample_refined(mixture_post, n, (uint64_t)a.seed, mixture)) < 0)
        failed = "vbmc_post_sample_refined (aux_count = 1)";
    if (!failed) {
        const double wall0 = bench_seconds(CLOCK_MONOTONIC), cpu0 = bench_seconds(CLOCK_PROCESS_CPUTIME_ID);
        status = vbmc_post_sample_refined(post, n, (uint64_t)a.seed, refined);
        wall = (bench_seconds(CLOCK_MONOTONIC) - wall0) / (double)n;
        cpu = (bench_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / (double)n;
        if (status < 0) failed = "vbmc_post_sample_refined";
    }
    if (!failed && (status = vbmc_post_elbo(post, &elbo, &elbo_sd)) < 0) failed = "vbmc_post_elbo";
    if (!failed && (status = vbmc_post_refined_elbo(post, (size_t)a.elbo_draws, (uint64_t)a.seed + 1, &elbo_aux, &elbo_aux_sd)) < 0)
        failed = "vbmc_post_refined_elbo";
    if (!failed) {
        bench_rng rng;
        bench_rng_seed(&rng, (uint64_t)a.seed + 0x7275ull);
        exact_draws(p, grids, mass, n, &rng, exact);
        score(p, grids, mass, mixture, n, a.bandwidth, &mmtv[0], &gskl[0]);
        score(p, grids, mass, refined, n, a.bandwidth, &mmtv[1], &gskl[1]);
        score(p, grids, mass, exact, n, a.bandwidth, &mmtv[2], &gskl[2]);
    }
    json_out line;
    json_init(&line);
    json_begin_object(&line);
    json_key(&line, "problem"); json_string(&line, p->name);
    json_key(&line, "D"); json_int(&line, dim);
    json_key(&line, "seed"); json_int(&line, a.seed);
    json_key(&line, "post"); json_string(&line, a.post_path);
    json_key(&line, "status"); json_string(&line, vbmc_status_name(status));
    json_key(&line, "failed_call"); json_string(&line, failed);
    json_key(&line, "error"); json_string(&line, failed ? vbmc_last_error(NULL) : NULL);
    json_key(&line, "draws"); json_int(&line, a.draws);
    json_key(&line, "elbo_draws"); json_int(&line, a.elbo_draws);
    json_key(&line, "aux_count"); json_int(&line, a.aux_count);
    json_key(&line, "ratio"); json_double(&line, a.ratio);
    json_key(&line, "bandwidth"); json_double(&line, a.bandwidth);
    json_key(&line, "components"); json_int(&line, vbmc_post_components(post));
    json_key(&line, "lml"); json_double(&line, p->lml);
    json_key(&line, "elbo"); json_double(&line, elbo);
    json_key(&line, "elbo_sd"); json_double(&line, elbo_sd);
    json_key(&line, "elbo_aux"); json_double(&line, elbo_aux);
    json_key(&line, "elbo_aux_sd"); json_double(&line, elbo_aux_sd);
    json_key(&line, "mmtv_mixture"); json_double(&line, mmtv[0]);
    json_key(&line, "mmtv_refined"); json_double(&line, mmtv[1]);
    json_key(&line, "mmtv_exact"); json_double(&line, mmtv[2]);
    json_key(&line, "gskl_mixture"); json_double(&line, gskl[0]);
    json_key(&line, "gskl_refined"); json_double(&line, gskl[1]);
    json_key(&line, "gskl_exact"); json_double(&line, gskl[2]);
    json_key(&line, "refined_wall_s_per_draw"); json_double(&line, wall);
    json_key(&line, "refined_cpu_s_per_draw"); json_double(&line, cpu);
    json_end_object(&line);
    json_end_line(&line);
    FILE *out = strcmp(a.out_path, "-") == 0 ? stdout : fopen(a.out_path, "a");
    int write_failed = !out || line.failed || fputs(line.text, out) < 0;
    if (out && out != stdout) write_failed |= fclose(out) != 0;
    json_free(&line);
    for (int d = 0; d < dim; ++d) free(mass[d]);
    free(mixture);
    free(refined);
    free(exact);
    vbmc_post_destroy(post);
    vbmc_post_destroy(mixture_post);
    if (write_failed) {
        fprintf(stderr, "refine_bench: cannot write %s\n", a.out_path);
        return 1;
    }
    if (failed) {
        fprintf(stderr, "refine_bench: %s %s failed: %s\n", p->name, failed, vbmc_last_error(NULL));
        return 2;
    }
    return 0;
}
