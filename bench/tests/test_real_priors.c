/* Checks every real-posterior model's prior (bench/real) without any data:
 *
 * 1. the log prior is normalised: importance sampling of log integral exp(log_prior), in the
 *    unconstrained space (log for a lower bound, logit for an interval) with a Student-t
 *    proposal (nu = 5, scale 1.5^2 x the covariance of prior-sampler draws), is 0 within 5
 *    standard errors, and that SE is below 0.01;
 * 2. the prior sampler and the log prior describe the same distribution: the mean and variance
 *    of each unconstrained coordinate under the sampler's draws and under the log prior
 *    (self-normalised importance sampling) agree within 5 combined standard errors;
 * 3. the ordering constants written into hmm.c are the quadrature's.
 *
 * Usage: test_real_priors [name ...]  (default: every model). Exit code 0 iff all pass. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_rng.h"
#include "gauss.h"
#include "real_models.h"
#include "real_priors.h"

#define SAMPLER_DRAWS 200000
#define PROPOSAL_DRAWS 400000
#define PROPOSAL_NU 5.0
#define PROPOSAL_INFLATION 1.5
#define SE_MULTIPLE 5.0
#define LOG_PI 1.1447298858494001741434273513531

/* u = log(x - lb), logit((x - lb) / (ub - lb)) or x. */
static void unconstrain(const real_model *m, const double *x, double *u) {
    for (int j = 0; j < m->dim; ++j) {
        if (isfinite(m->lb[j]) && isfinite(m->ub[j])) {
            const double p = (x[j] - m->lb[j]) / (m->ub[j] - m->lb[j]);
            u[j] = log(p) - log1p(-p);
        } else {
            u[j] = isfinite(m->lb[j]) ? log(x[j] - m->lb[j]) : x[j];
        }
    }
}

/* x = T(u); returns log |det dx/du|. */
static double constrain(const real_model *m, const double *u, double *x) {
    double log_jacobian = 0.0;
    for (int j = 0; j < m->dim; ++j) {
        if (isfinite(m->lb[j]) && isfinite(m->ub[j])) {
            const double width = m->ub[j] - m->lb[j], s = 1.0 / (1.0 + exp(-u[j]));
            x[j] = m->lb[j] + width * s;
            log_jacobian += log(width) + log(s) + log1p(-s);
        } else if (isfinite(m->lb[j])) {
            x[j] = m->lb[j] + exp(u[j]);
            log_jacobian += u[j];
        } else {
            x[j] = u[j];
        }
    }
    return log_jacobian;
}

/* Mean and variance of each coordinate, with their standard errors. */
typedef struct moments {
    double mean[REAL_MAX_DIM], var[REAL_MAX_DIM], mean_se[REAL_MAX_DIM], var_se[REAL_MAX_DIM];
} moments;

/* Moments of n draws u[n*dim] with weights w[n] (NULL: equal), with delta-method standard
 * errors of the self-normalised estimates (equal weights: the usual sd / sqrt(n)). */
static void weighted_moments(int dim, size_t n, const double *u, const double *w, moments *out) {
    double total = 0.0;
    for (size_t s = 0; s < n; ++s) total += w ? w[s] : 1.0;
    for (int j = 0; j < dim; ++j) {
        double mean = 0.0, var = 0.0, mean_se2 = 0.0, var_se2 = 0.0;
        for (size_t s = 0; s < n; ++s) mean += (w ? w[s] : 1.0) * u[s * dim + j];
        mean /= total;
        for (size_t s = 0; s < n; ++s) {
            const double d = u[s * dim + j] - mean;
            var += (w ? w[s] : 1.0) * d * d;
        }
        var /= total;
        for (size_t s = 0; s < n; ++s) {
            const double weight = w ? w[s] : 1.0, d = u[s * dim + j] - mean;
            mean_se2 += weight * weight * d * d;
            var_se2 += weight * weight * (d * d - var) * (d * d - var);
        }
        out->mean[j] = mean;
        out->var[j] = var;
        out->mean_se[j] = sqrt(mean_se2) / total;
        out->var_se[j] = sqrt(var_se2) / total;
    }
}

/* A multivariate Student t fitted to draws: location, Cholesky factor of the scale. */
typedef struct proposal {
    double location[REAL_MAX_DIM], chol[REAL_MAX_DIM * REAL_MAX_DIM], log_norm;
} proposal;

static int fit_proposal(int dim, size_t n, const double *u, const moments *m, proposal *q) {
    double scale[REAL_MAX_DIM * REAL_MAX_DIM];
    for (int i = 0; i < dim; ++i) {
        q->location[i] = m->mean[i];
        for (int j = 0; j < dim; ++j) {
            double c = 0.0;
            for (size_t s = 0; s < n; ++s)
                c += (u[s * dim + i] - m->mean[i]) * (u[s * dim + j] - m->mean[j]);
            scale[i * dim + j] = PROPOSAL_INFLATION * PROPOSAL_INFLATION * c / (double)n;
        }
    }
    if (bench_cholesky(dim, scale, q->chol) != 0) return -1;
    double log_det_chol = 0.0;
    for (int i = 0; i < dim; ++i) log_det_chol += log(q->chol[i * dim + i]);
    const double nu = PROPOSAL_NU;
    q->log_norm = lgamma(0.5 * (nu + dim)) - lgamma(0.5 * nu) - 0.5 * dim * (log(nu) + LOG_PI) -
                  log_det_chol;
    return 0;
}

/* One proposal draw into u[dim]; returns its log density. */
static double draw_proposal(bench_rng *rng, int dim, const proposal *q, double *u) {
    double chi2 = 0.0, z[REAL_MAX_DIM], z_norm2 = 0.0;
    for (int k = 0; k < (int)PROPOSAL_NU; ++k) {
        const double g = bench_rng_normal(rng);
        chi2 += g * g;
    }
    const double shrink = sqrt(PROPOSAL_NU / chi2);
    for (int i = 0; i < dim; ++i) {
        z[i] = bench_rng_normal(rng);
        z_norm2 += z[i] * z[i];
    }
    for (int i = 0; i < dim; ++i) {
        double value = 0.0;
        for (int k = 0; k <= i; ++k) value += q->chol[i * dim + k] * z[k];
        u[i] = q->location[i] + shrink * value;
    }
    return q->log_norm -
           0.5 * (PROPOSAL_NU + dim) * log1p(z_norm2 * shrink * shrink / PROPOSAL_NU);
}

static int expect_close(const char *model, const char *what, int j, double a, double b,
                        double se) {
    if (fabs(a - b) <= SE_MULTIPLE * se) return 0;
    printf("  FAIL %s %s[%d]: %.6g vs %.6g, combined SE %.3g\n", model, what, j, a, b, se);
    return 1;
}

/* Checks 1 and 2 for one model; returns the number of failures. */
static int check_model(const real_model *m, uint64_t seed) {
    const int dim = m->dim;
    double *u = malloc(sizeof(double) * SAMPLER_DRAWS * dim);
    double *v = malloc(sizeof(double) * PROPOSAL_DRAWS * dim);
    double *w = malloc(sizeof(double) * PROPOSAL_DRAWS);
    int failures = 0;
    moments sampled, weighted;
    proposal q;
    bench_rng rng;
    bench_rng_seed(&rng, seed);
    double x[REAL_MAX_DIM];
    for (size_t s = 0; u && s < SAMPLER_DRAWS; ++s) {
        m->sample_prior(&rng, x);
        failures += !real_model_inside(m, x);
        unconstrain(m, x, u + s * dim);
    }
    if (u) weighted_moments(dim, SAMPLER_DRAWS, u, NULL, &sampled);
    if (!u || !v || !w || failures || fit_proposal(dim, SAMPLER_DRAWS, u, &sampled, &q) != 0) {
        printf("  FAIL %s: setup (memory, a draw outside the bounds, or a singular fit)\n",
               m->name);
        free(u), free(v), free(w);
        return 1;
    }
    double top = -INFINITY;
    for (size_t s = 0; s < PROPOSAL_DRAWS; ++s) {
        const double log_q = draw_proposal(&rng, dim, &q, v + s * dim);
        const double log_jacobian = constrain(m, v + s * dim, x);
        w[s] = real_log_prior(m, x) + log_jacobian - log_q;
        if (w[s] > top) top = w[s];
    }
    double sum = 0.0, sum_sq = 0.0;
    for (size_t s = 0; s < PROPOSAL_DRAWS; ++s) {
        w[s] = exp(w[s] - top);
        sum += w[s];
        sum_sq += w[s] * w[s];
    }
    const double mean_w = sum / PROPOSAL_DRAWS;
    const double log_z = top + log(mean_w);
    const double log_z_se = sqrt(sum_sq / PROPOSAL_DRAWS - mean_w * mean_w) /
                            (mean_w * sqrt((double)PROPOSAL_DRAWS));
    failures += expect_close(m->name, "log normaliser", 0, log_z, 0.0, log_z_se);
    if (!(log_z_se < 0.01)) {
        printf("  FAIL %s: SE of the log normaliser %.3g is not below 0.01\n", m->name, log_z_se);
        ++failures;
    }
    weighted_moments(dim, PROPOSAL_DRAWS, v, w, &weighted);
    for (int j = 0; j < dim; ++j) {
        failures += expect_close(m->name, "mean", j, sampled.mean[j], weighted.mean[j],
                                 hypot(sampled.mean_se[j], weighted.mean_se[j]));
        failures += expect_close(m->name, "variance", j, sampled.var[j], weighted.var[j],
                                 hypot(sampled.var_se[j], weighted.var_se[j]));
    }
    printf("%-18s log normaliser %+.5f (SE %.1e), ESS %.0f / %d  %s\n", m->name, log_z, log_z_se,
           sum * sum / sum_sq, PROPOSAL_DRAWS, failures ? "FAIL" : "ok");
    free(u), free(v), free(w);
    return failures;
}

/* Check 3: the log prior of the HMMs at one point equals their components minus the
 * quadrature's log P(0 < X1 < X2). */
static int check_ordering_constants(void) {
    const double example_x[4] = {0.3, 0.6, 3.5, 6.0};
    const double example = real_lpdf_normal(3.5, 3.0, 1.0) + real_lpdf_normal(9.5, 10.0, 1.0) -
                           real_log_prob_positive_ordered(3.0, 1.0, 10.0, 1.0);
    const double drive_x[6] = {0.3, 0.6, 0.5, 2.0, 0.7, 1.5};
    const double drive = real_lpdf_beta(0.3, 4.0, 2.0) + real_lpdf_beta(0.6, 2.0, 4.0) +
                         real_lpdf_normal(0.5, 0.0, 1.0) + real_lpdf_normal(2.5, 3.0, 1.0) +
                         real_lpdf_normal(0.7, 0.0, 1.0) + real_lpdf_normal(2.2, 3.0, 1.0) -
                         2.0 * real_log_prob_positive_ordered(0.0, 1.0, 3.0, 1.0);
    const double got_example = real_log_prior(real_model_find("hmm_example"), example_x);
    const double got_drive = real_log_prior(real_model_find("hmm_drive"), drive_x);
    const double tolerance = 1e-12;
    const int failures = (fabs(got_example - example) > tolerance) +
                         (fabs(got_drive - drive) > tolerance);
    printf("ordering constants: hmm_example %.17g vs %.17g, hmm_drive %.17g vs %.17g  %s\n",
           got_example, example, got_drive, drive, failures ? "FAIL" : "ok");
    return failures;
}

int main(int argc, char **argv) {
    int passed = 0, failed = 0;
    for (int k = 0; k < real_model_count; ++k) {
        const real_model *m = real_models[k];
        int selected = argc < 2;
        for (int a = 1; a < argc; ++a) selected |= strcmp(argv[a], m->name) == 0;
        if (!selected) continue;
        if (check_model(m, 777u + (uint64_t)k) == 0)
            ++passed;
        else
            ++failed;
    }
    if (check_ordering_constants() == 0)
        ++passed;
    else
        ++failed;
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
