/* gp_pois_regr-gp_regr of posteriordb: Gaussian-process regression with a squared-exponential
 * kernel (Stan source: models/stan/gp_regr.stan). As in the Stan model, sigma itself (not
 * sigma^2) is added to the diagonal of the covariance. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gauss.h"
#include "real_models.h"
#include "real_priors.h"

#define MAX_POINTS 32
#define LOG_2PI 1.8378770664093454835606594728112

typedef struct gp_data {
    int count;
    const double *x, *y; /* [count] inputs and outputs */
} gp_data;

static void *load(const real_data *file, char *error) {
    gp_data d;
    if (real_data_int(file, "N", &d.count, error) != 0) return NULL;
    if (d.count < 1 || d.count > MAX_POINTS) {
        snprintf(error, REAL_ERROR_SIZE, "N = %d outside [1, %d]", d.count, MAX_POINTS);
        return NULL;
    }
    d.x = real_data_array(file, "x", d.count, error);
    d.y = d.x ? real_data_array(file, "y", d.count, error) : NULL;
    gp_data *copy = d.y ? malloc(sizeof d) : NULL;
    if (copy) *copy = d;
    return copy;
}

/* K[i][j] = alpha^2 exp(-(x_i - x_j)^2 / (2 rho^2)) + sigma delta_ij into cov[n * n]. */
static void covariance(const gp_data *d, double rho, double alpha, double sigma, double *cov) {
    const int n = d->count;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const double r = (d->x[i] - d->x[j]) / rho;
            cov[i * n + j] = alpha * alpha * exp(-0.5 * r * r) + (i == j ? sigma : 0.0);
        }
}

/* x = (rho, alpha, sigma): y ~ N(0, K) with Stan's gp_exp_quad_cov kernel plus sigma on the
 * diagonal (covariance above). With K = L L^T:
 * log N = -1/2 |L^-1 y|^2 - sum_i log L_ii - N/2 log 2 pi. NaN if K is numerically not
 * positive definite. */
static double log_likelihood(const void *data, const double *x) {
    const gp_data *d = data;
    const int n = d->count;
    double cov[MAX_POINTS * MAX_POINTS] = {0}, chol[MAX_POINTS * MAX_POINTS], z[MAX_POINTS];
    covariance(d, x[0], x[1], x[2], cov);
    if (bench_cholesky(n, cov, chol) != 0) return NAN;
    double quad = 0.0, log_det_half = 0.0;
    for (int i = 0; i < n; ++i) {
        double value = d->y[i];
        for (int k = 0; k < i; ++k) value -= chol[i * n + k] * z[k];
        z[i] = value / chol[i * n + i];
        quad += z[i] * z[i];
        log_det_half += log(chol[i * n + i]);
    }
    return -0.5 * quad - log_det_half - 0.5 * n * LOG_2PI;
}

/* rho ~ Gamma(25, 4); alpha ~ half-normal(0, 2); sigma ~ half-normal(0, 1). */
static double log_prior(const double *x) {
    return real_lpdf_gamma(x[0], 25.0, 4.0) + real_lpdf_half_normal(x[1], 2.0) +
           real_lpdf_half_normal(x[2], 1.0);
}

static void sample_prior(bench_rng *rng, double *x) {
    x[0] = real_draw_gamma(rng, 25.0, 4.0);
    x[1] = real_draw_half_normal(rng, 2.0);
    x[2] = real_draw_half_normal(rng, 1.0);
}

const real_model real_model_gp_regr = {
    .name = "gp_regr",
    .posterior = "gp_pois_regr-gp_regr",
    .dim = 3,
    .param_names = {"rho", "alpha", "sigma"},
    .lb = {0.0, 0.0, 0.0},
    .ub = {INFINITY, INFINITY, INFINITY},
    .load = load,
    .log_likelihood = log_likelihood,
    .log_prior = log_prior,
    .sample_prior = sample_prior};
