/* Checks that bench/problems reproduces the ground truth of shared/bench/ground_truth.json: the log
 * evidence and the posterior mean and covariance of every problem, estimated by self-normalised
 * importance sampling of bench_log_joint, must agree with the ground truth within 5 standard
 * errors of the estimate. The proposal is a multivariate Student t (nu = 5) centred on the true
 * mean with scale 1.5 x the true covariance: its heavier tails keep the weights bounded (every
 * posterior has a Gaussian prior). The standard errors must also be small (log evidence: 0.01;
 * mean: 2% of the SD; covariance: 10% of the SD product), so a problem implemented differently
 * cannot pass by noise.
 *
 * Usage: test_problems [name ...]  (default: every problem). Exit code 0 iff all pass. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_rng.h"
#include "gauss.h"
#include "problems.h"

#define SAMPLE_COUNT 400000
/* lumpy_D20's mixture leaves a Student-t proposal an effective sample size near 2% of the draws,
 * so the problems above D = 10 (bench/problems/extended) take more draws to reach the SE bound. */
#define SAMPLE_COUNT_ABOVE_D10 1000000
#define PROPOSAL_NU 5
#define PROPOSAL_INFLATION 1.5
#define SE_MULTIPLE 5.0
#define LOG_PI 1.1447298858494001741434273513531

typedef struct check {
    int failures;
    const char *problem;
} check;

/* |estimate - truth| <= 5 SE, and the SE itself at most max_se (the estimate is informative). */
static void expect_close(check *c, const char *what, int i, int j, double estimate, double truth,
                         double se, double max_se) {
    const int agrees = fabs(estimate - truth) <= SE_MULTIPLE * se + 1e-12 * fabs(truth);
    const int informative = se <= max_se;
    if (agrees && informative) return;
    ++c->failures;
    printf("  FAIL %s %s[%d,%d]: estimate %.6g, truth %.6g, SE %.3g (max SE %.3g)\n", c->problem,
           what, i, j, estimate, truth, se, max_se);
}

/* Returns the number of failed comparisons for one problem. */
static int check_problem(const bench_problem *p, uint64_t seed) {
    const int dim = p->dim;
    const size_t n = dim > 10 ? SAMPLE_COUNT_ABOVE_D10 : SAMPLE_COUNT;
    double *draws = malloc(sizeof(double) * n * (size_t)dim);
    double *log_weight = malloc(sizeof(double) * n);
    double scale[64 * 64], chol[64 * 64], z[64];
    for (int i = 0; i < dim * dim; ++i) scale[i] = PROPOSAL_INFLATION * p->cov[i];
    if (!draws || !log_weight || bench_cholesky(dim, scale, chol) != 0) {
        printf("  FAIL %s: setup (memory or true covariance not positive definite)\n", p->name);
        free(draws);
        free(log_weight);
        return 1;
    }
    double log_det_chol = 0.0;
    for (int i = 0; i < dim; ++i) log_det_chol += log(chol[i * dim + i]);
    const double nu = PROPOSAL_NU;
    const double log_norm = lgamma(0.5 * (nu + dim)) - lgamma(0.5 * nu) -
                            0.5 * dim * (log(nu) + LOG_PI) - log_det_chol;

    bench_rng rng;
    bench_rng_seed(&rng, seed);
    double max_log_weight = -INFINITY;
    for (size_t s = 0; s < n; ++s) {
        double chi2 = 0.0;
        for (int k = 0; k < PROPOSAL_NU; ++k) {
            const double g = bench_rng_normal(&rng);
            chi2 += g * g;
        }
        const double shrink = sqrt(nu / chi2);
        double z_norm2 = 0.0;
        for (int i = 0; i < dim; ++i) {
            z[i] = bench_rng_normal(&rng);
            z_norm2 += z[i] * z[i];
        }
        double *x = draws + s * (size_t)dim;
        for (int i = 0; i < dim; ++i) {
            double value = 0.0;
            for (int k = 0; k <= i; ++k) value += chol[i * dim + k] * z[k];
            x[i] = p->mean[i] + shrink * value;
        }
        const double maha = z_norm2 * shrink * shrink; /* |L^-1 (x - m)|^2 */
        const double log_proposal = log_norm - 0.5 * (nu + dim) * log1p(maha / nu);
        log_weight[s] = bench_log_joint(p, x) - log_proposal;
        if (log_weight[s] > max_log_weight) max_log_weight = log_weight[s];
    }

    /* Weights scaled by exp(-max): w_s in (0, 1]. */
    double sum_w = 0.0, sum_w2 = 0.0;
    double mean[64] = {0};
    for (size_t s = 0; s < n; ++s) {
        const double w = exp(log_weight[s] - max_log_weight);
        log_weight[s] = w;
        sum_w += w;
        sum_w2 += w * w;
        for (int i = 0; i < dim; ++i) mean[i] += w * draws[s * (size_t)dim + (size_t)i];
    }
    for (int i = 0; i < dim; ++i) mean[i] /= sum_w;
    const double mean_w = sum_w / (double)n;
    const double var_w = sum_w2 / (double)n - mean_w * mean_w;
    const double log_z = max_log_weight + log(mean_w);
    const double log_z_se = sqrt(var_w / (double)n) / mean_w;
    const double ess = sum_w * sum_w / sum_w2;

    check c = {0, p->name};
    expect_close(&c, "lml", 0, 0, log_z, p->lml, log_z_se, 0.01);
    for (int i = 0; i < dim; ++i) {
        double se2 = 0.0;
        for (size_t s = 0; s < n; ++s) {
            const double d = draws[s * (size_t)dim + (size_t)i] - mean[i];
            se2 += log_weight[s] * log_weight[s] * d * d;
        }
        const double sd = sqrt(p->cov[i * dim + i]);
        expect_close(&c, "mean", i, 0, mean[i], p->mean[i], sqrt(se2) / sum_w, 0.02 * sd);
    }
    for (int i = 0; i < dim; ++i) {
        for (int j = 0; j <= i; ++j) {
            double cov = 0.0;
            for (size_t s = 0; s < n; ++s)
                cov += log_weight[s] * (draws[s * (size_t)dim + (size_t)i] - mean[i]) *
                       (draws[s * (size_t)dim + (size_t)j] - mean[j]);
            cov /= sum_w;
            double se2 = 0.0;
            for (size_t s = 0; s < n; ++s) {
                const double r = (draws[s * (size_t)dim + (size_t)i] - mean[i]) *
                                     (draws[s * (size_t)dim + (size_t)j] - mean[j]) -
                                 cov;
                se2 += log_weight[s] * log_weight[s] * r * r;
            }
            const double scale_ij = sqrt(p->cov[i * dim + i] * p->cov[j * dim + j]);
            expect_close(&c, "cov", i, j, cov, p->cov[i * dim + j], sqrt(se2) / sum_w,
                         0.1 * scale_ij);
        }
    }
    printf("%-14s lml %10.5f (truth %10.5f, SE %.1e)  ESS %6.0f / %zu  %s\n", p->name, log_z,
           p->lml, log_z_se, ess, n, c.failures ? "FAIL" : "ok");
    free(draws);
    free(log_weight);
    return c.failures;
}

int main(int argc, char **argv) {
    int passed = 0, failed = 0;
    for (int k = 0; k < bench_problem_count; ++k) {
        const bench_problem *p = &bench_problems[k];
        int selected = argc < 2;
        for (int a = 1; a < argc; ++a) selected |= strcmp(argv[a], p->name) == 0;
        if (!selected) continue;
        if (check_problem(p, 12345u + (uint64_t)k) == 0)
            ++passed;
        else
            ++failed;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return (failed == 0 && passed > 0) ? 0 : 1;
}
