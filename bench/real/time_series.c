/* Autoregressive time-series models of posteriordb: arK-arK (AR(5) with intercept) and
 * arma-arma11 (ARMA(1,1)). Stan sources: posterior_database/models/stan/{arK,arma11}.stan. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "real_models.h"
#include "real_priors.h"

#define AR_ORDER 5

typedef struct series {
    int length;
    const double *y;
} series;

/* The series y[T] of the data file; arK also checks its order K. */
static void *load_series(const real_data *file, char *error, int check_order) {
    series s;
    int order = AR_ORDER;
    if (real_data_int(file, "T", &s.length, error) != 0) return NULL;
    if (check_order && real_data_int(file, "K", &order, error) != 0) return NULL;
    if (order != AR_ORDER || s.length <= AR_ORDER) {
        snprintf(error, REAL_ERROR_SIZE, "expected K = %d and T > K, got K = %d, T = %d",
                 AR_ORDER, order, s.length);
        return NULL;
    }
    s.y = real_data_array(file, "y", s.length, error);
    series *copy = s.y ? malloc(sizeof s) : NULL;
    if (copy) *copy = s;
    return copy;
}

static void *arK_load(const real_data *file, char *error) {
    return load_series(file, error, 1);
}

static void *arma11_load(const real_data *file, char *error) {
    return load_series(file, error, 0);
}

/* arK, x = (alpha, beta[1..5], sigma): y[t] ~ N(alpha + sum_k beta[k] y[t-k], sigma) for
 * t = K+1..T (the first K values condition). */
static double arK_log_likelihood(const void *data, const double *x) {
    const series *s = data;
    double total = 0.0;
    for (int t = AR_ORDER; t < s->length; ++t) {
        double mu = x[0];
        for (int k = 1; k <= AR_ORDER; ++k) mu += x[k] * s->y[t - k];
        total += real_lpdf_normal(s->y[t], mu, x[AR_ORDER + 1]);
    }
    return total;
}

/* alpha, beta ~ N(0, 10); sigma ~ half-Cauchy(0, 2.5). */
static double arK_log_prior(const double *x) {
    double total = real_lpdf_half_cauchy(x[AR_ORDER + 1], 2.5);
    for (int k = 0; k <= AR_ORDER; ++k) total += real_lpdf_normal(x[k], 0.0, 10.0);
    return total;
}

static void arK_sample_prior(bench_rng *rng, double *x) {
    for (int k = 0; k <= AR_ORDER; ++k) x[k] = real_draw_normal(rng, 0.0, 10.0);
    x[AR_ORDER + 1] = real_draw_half_cauchy(rng, 2.5);
}

const real_model real_model_arK = {
    .name = "arK",
    .posterior = "arK-arK",
    .dim = 7,
    .param_names = {"alpha", "beta[1]", "beta[2]", "beta[3]", "beta[4]", "beta[5]", "sigma"},
    .lb = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, 0.0},
    .ub = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY},
    .load = arK_load,
    .log_likelihood = arK_log_likelihood,
    .log_prior = arK_log_prior,
    .sample_prior = arK_sample_prior};

/* arma11, x = (mu, phi, theta, sigma): nu[1] = mu + phi mu (err[0] = 0),
 * nu[t] = mu + phi y[t-1] + theta err[t-1], err[t] = y[t] - nu[t] ~ N(0, sigma), t = 1..T. */
static double arma11_log_likelihood(const void *data, const double *x) {
    const series *s = data;
    const double mu = x[0], phi = x[1], theta = x[2], sigma = x[3];
    double err = s->y[0] - (mu + phi * mu);
    double total = real_lpdf_normal(err, 0.0, sigma);
    for (int t = 1; t < s->length; ++t) {
        err = s->y[t] - (mu + phi * s->y[t - 1] + theta * err);
        total += real_lpdf_normal(err, 0.0, sigma);
    }
    return total;
}

/* mu ~ N(0, 10); phi, theta ~ N(0, 2); sigma ~ half-Cauchy(0, 2.5). */
static double arma11_log_prior(const double *x) {
    return real_lpdf_normal(x[0], 0.0, 10.0) + real_lpdf_normal(x[1], 0.0, 2.0) +
           real_lpdf_normal(x[2], 0.0, 2.0) + real_lpdf_half_cauchy(x[3], 2.5);
}

static void arma11_sample_prior(bench_rng *rng, double *x) {
    x[0] = real_draw_normal(rng, 0.0, 10.0);
    x[1] = real_draw_normal(rng, 0.0, 2.0);
    x[2] = real_draw_normal(rng, 0.0, 2.0);
    x[3] = real_draw_half_cauchy(rng, 2.5);
}

const real_model real_model_arma11 = {
    .name = "arma11",
    .posterior = "arma-arma11",
    .dim = 4,
    .param_names = {"mu", "phi", "theta", "sigma"},
    .lb = {-INFINITY, -INFINITY, -INFINITY, 0.0},
    .ub = {INFINITY, INFINITY, INFINITY, INFINITY},
    .load = arma11_load,
    .log_likelihood = arma11_log_likelihood,
    .log_prior = arma11_log_prior,
    .sample_prior = arma11_sample_prior};
