/* low_dim_gauss_mix-low_dim_gauss_mix of posteriordb: a two-component normal mixture with
 * ordered means (Stan source: models/stan/low_dim_gauss_mix.stan). The ordered pair mu[2] is
 * reparametrised as (mu[1], gap = mu[2] - mu[1] > 0), with unit Jacobian. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "real_models.h"
#include "real_priors.h"

#define LOG_2 0.69314718055994530941723212145818

typedef struct sample {
    int count;
    const double *y; /* [count] */
} sample;

static void *load(const real_data *file, char *error) {
    sample s;
    if (real_data_int(file, "N", &s.count, error) != 0) return NULL;
    s.y = s.count > 0 ? real_data_array(file, "y", s.count, error) : NULL;
    if (s.count <= 0) snprintf(error, REAL_ERROR_SIZE, "N = %d is not positive", s.count);
    sample *copy = s.y ? malloc(sizeof s) : NULL;
    if (copy) *copy = s;
    return copy;
}

/* log(exp(a) + exp(b)) without overflow. */
static double log_add(double a, double b) {
    const double high = fmax(a, b);
    return high == -INFINITY ? -INFINITY : high + log1p(exp(fmin(a, b) - high));
}

/* x = (mu[1], gap, sigma[1], sigma[2], theta): y[n] ~ theta N(mu[1], sigma[1])
 * + (1 - theta) N(mu[1] + gap, sigma[2]) (Stan's log_mix). */
static double log_likelihood(const void *data, const double *x) {
    const sample *s = data;
    const double mu1 = x[0], mu2 = x[0] + x[1], sigma1 = x[2], sigma2 = x[3], theta = x[4];
    const double log_theta = log(theta), log_rest = log1p(-theta);
    double total = 0.0;
    for (int n = 0; n < s->count; ++n)
        total += log_add(log_theta + real_lpdf_normal(s->y[n], mu1, sigma1),
                         log_rest + real_lpdf_normal(s->y[n], mu2, sigma2));
    return total;
}

/* mu[1], mu[2] ~ N(0, 2) restricted to mu[1] < mu[2] (probability 1/2, hence the factor 2);
 * sigma ~ half-normal(0, 2); theta ~ Beta(5, 5). */
static double log_prior(const double *x) {
    return LOG_2 + real_lpdf_normal(x[0], 0.0, 2.0) + real_lpdf_normal(x[0] + x[1], 0.0, 2.0) +
           real_lpdf_half_normal(x[2], 2.0) + real_lpdf_half_normal(x[3], 2.0) +
           real_lpdf_beta(x[4], 5.0, 5.0);
}

static void sample_prior(bench_rng *rng, double *x) {
    const double a = real_draw_normal(rng, 0.0, 2.0), b = real_draw_normal(rng, 0.0, 2.0);
    x[0] = fmin(a, b);
    x[1] = fabs(a - b);
    x[2] = real_draw_half_normal(rng, 2.0);
    x[3] = real_draw_half_normal(rng, 2.0);
    x[4] = real_draw_beta(rng, 5.0, 5.0);
}

const real_model real_model_low_dim_gauss_mix = {
    .name = "low_dim_gauss_mix",
    .posterior = "low_dim_gauss_mix-low_dim_gauss_mix",
    .dim = 5,
    .param_names = {"mu[1]", "mu[2]-mu[1]", "sigma[1]", "sigma[2]", "theta"},
    .lb = {-INFINITY, 0.0, 0.0, 0.0, 0.0},
    .ub = {INFINITY, INFINITY, INFINITY, INFINITY, 1.0},
    .load = load,
    .log_likelihood = log_likelihood,
    .log_prior = log_prior,
    .sample_prior = sample_prior};
