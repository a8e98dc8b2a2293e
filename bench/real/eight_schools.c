/* eight_schools-eight_schools_noncentered of posteriordb: the non-centred hierarchical model of
 * Rubin's eight schools (Stan source: models/stan/eight_schools_noncentered.stan). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "real_models.h"
#include "real_priors.h"

#define SCHOOLS 8

typedef struct schools {
    const double *y, *sigma; /* [SCHOOLS] estimated effects and their SDs */
} schools;

static void *load(const real_data *file, char *error) {
    int count;
    if (real_data_int(file, "J", &count, error) != 0) return NULL;
    if (count != SCHOOLS) {
        snprintf(error, REAL_ERROR_SIZE, "expected J = %d schools, got %d", SCHOOLS, count);
        return NULL;
    }
    schools s = {real_data_array(file, "y", SCHOOLS, error),
                 real_data_array(file, "sigma", SCHOOLS, error)};
    schools *copy = (s.y && s.sigma) ? malloc(sizeof s) : NULL;
    if (copy) *copy = s;
    return copy;
}

/* x = (theta_trans[1..8], mu, tau): y[j] ~ N(mu + tau theta_trans[j], sigma[j]). */
static double log_likelihood(const void *data, const double *x) {
    const schools *s = data;
    const double mu = x[SCHOOLS], tau = x[SCHOOLS + 1];
    double total = 0.0;
    for (int j = 0; j < SCHOOLS; ++j) total += real_lpdf_normal(s->y[j], mu + tau * x[j], s->sigma[j]);
    return total;
}

/* theta_trans ~ N(0, 1); mu ~ N(0, 5); tau ~ half-Cauchy(0, 5). */
static double log_prior(const double *x) {
    double total = real_lpdf_normal(x[SCHOOLS], 0.0, 5.0) + real_lpdf_half_cauchy(x[SCHOOLS + 1], 5.0);
    for (int j = 0; j < SCHOOLS; ++j) total += real_lpdf_normal(x[j], 0.0, 1.0);
    return total;
}

static void sample_prior(bench_rng *rng, double *x) {
    for (int j = 0; j < SCHOOLS; ++j) x[j] = real_draw_normal(rng, 0.0, 1.0);
    x[SCHOOLS] = real_draw_normal(rng, 0.0, 5.0);
    x[SCHOOLS + 1] = real_draw_half_cauchy(rng, 5.0);
}

const real_model real_model_eight_schools = {
    .name = "eight_schools",
    .posterior = "eight_schools-eight_schools_noncentered",
    .dim = SCHOOLS + 2,
    .param_names = {"theta_trans[1]", "theta_trans[2]", "theta_trans[3]", "theta_trans[4]",
                    "theta_trans[5]", "theta_trans[6]", "theta_trans[7]", "theta_trans[8]", "mu",
                    "tau"},
    .lb = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY,
           -INFINITY, -INFINITY, 0.0},
    .ub = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY,
           INFINITY, INFINITY},
    .load = load,
    .log_likelihood = log_likelihood,
    .log_prior = log_prior,
    .sample_prior = sample_prior};
