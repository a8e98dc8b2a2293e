/* sblrc-blr and sblri-blr of posteriordb: Bayesian linear regression, the same model on two
 * simulated data sets (Stan source: models/stan/blr.stan). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "real_models.h"
#include "real_priors.h"

#define PREDICTORS 5

typedef struct regression {
    int count;
    const double *design; /* [count * PREDICTORS] row-major X */
    const double *y;      /* [count] */
} regression;

static void *load(const real_data *file, char *error) {
    regression r;
    int predictors;
    if (real_data_int(file, "N", &r.count, error) != 0 ||
        real_data_int(file, "D", &predictors, error) != 0)
        return NULL;
    if (predictors != PREDICTORS || r.count < 1) {
        snprintf(error, REAL_ERROR_SIZE, "expected D = %d and N >= 1, got D = %d, N = %d",
                 PREDICTORS, predictors, r.count);
        return NULL;
    }
    r.design = real_data_array(file, "X", r.count * PREDICTORS, error);
    r.y = r.design ? real_data_array(file, "y", r.count, error) : NULL;
    regression *copy = r.y ? malloc(sizeof r) : NULL;
    if (copy) *copy = r;
    return copy;
}

/* x = (beta[1..5], sigma): y ~ N(X beta, sigma^2 I). */
static double log_likelihood(const void *data, const double *x) {
    const regression *r = data;
    double total = 0.0;
    for (int n = 0; n < r->count; ++n) {
        double mean = 0.0;
        for (int k = 0; k < PREDICTORS; ++k) mean += r->design[n * PREDICTORS + k] * x[k];
        total += real_lpdf_normal(r->y[n], mean, x[PREDICTORS]);
    }
    return total;
}

/* beta ~ N(0, 10); sigma ~ half-normal(0, 10) (Stan's normal_lpdf(sigma | 0, 10) on sigma > 0). */
static double log_prior(const double *x) {
    double total = real_lpdf_half_normal(x[PREDICTORS], 10.0);
    for (int k = 0; k < PREDICTORS; ++k) total += real_lpdf_normal(x[k], 0.0, 10.0);
    return total;
}

static void sample_prior(bench_rng *rng, double *x) {
    for (int k = 0; k < PREDICTORS; ++k) x[k] = real_draw_normal(rng, 0.0, 10.0);
    x[PREDICTORS] = real_draw_half_normal(rng, 10.0);
}

#define BLR_MODEL(short_name, posterior_name)                                                  \
    {                                                                                          \
        .name = short_name, .posterior = posterior_name, .dim = PREDICTORS + 1,                \
        .param_names = {"beta[1]", "beta[2]", "beta[3]", "beta[4]", "beta[5]", "sigma"},       \
        .lb = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, 0.0},                    \
        .ub = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY}, .load = load,      \
        .log_likelihood = log_likelihood, .log_prior = log_prior, .sample_prior = sample_prior \
    }

const real_model real_model_sblrc = BLR_MODEL("sblrc", "sblrc-blr");
const real_model real_model_sblri = BLR_MODEL("sblri", "sblri-blr");
