/* Two-state hidden Markov models of posteriordb, marginalised by the forward algorithm:
 * hmm_example-hmm_example (normal emissions; Stan source models/stan/hmm_example.stan) and
 * bball_drive_event_0-hmm_drive_0 (exponential emissions of two series; hmm_drive_0.stan).
 *
 * Reparametrisation (unit Jacobian): each row of the transition matrix, a simplex[2], is its
 * first element p in (0, 1); a positive_ordered[2] pair is (first > 0, gap = second - first > 0).
 * Stan's forward algorithm starts from weight 1 on each state; here the initial distribution is
 * uniform (1/2 each), so that the likelihood is a density of the data: the posterior is the
 * same and the log evidence is Stan's minus log 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "real_models.h"
#include "real_priors.h"

#define STATES 2
#define MAX_LENGTH 4096
#define LOG_2 0.69314718055994530941723212145818
/* log P(0 < X1 < X2) of the ordered priors, real_log_prob_positive_ordered(mean1, 1, mean2, 1),
 * checked against the quadrature in tests/test_real_priors.c. */
#define LOG_ORDERED_3_10 (-0.0013511820163243573) /* X1 ~ N(3, 1), X2 ~ N(10, 1) */
#define LOG_ORDERED_0_3 (-0.72733253621190563)    /* X1 ~ N(0, 1), X2 ~ N(3, 1) */

typedef struct series {
    int length;
    const double *first, *second; /* [length]; hmm_example uses only first */
} series;

static double log_add(double a, double b) {
    const double high = fmax(a, b);
    return high == -INFINITY ? -INFINITY : high + log1p(exp(fmin(a, b) - high));
}

/* Forward algorithm (Rabiner 1989, eqs. 19-21, in log space): log p(y) for the chain with
 * uniform initial distribution, transition rows (p[j], 1 - p[j]) and log emission densities
 * log_emission[t * 2 + k]. */
static double log_forward(int length, const double *log_emission, const double *p) {
    const double log_transition[STATES][STATES] = {{log(p[0]), log1p(-p[0])},
                                                   {log(p[1]), log1p(-p[1])}};
    double alpha[STATES] = {log_emission[0] - LOG_2, log_emission[1] - LOG_2};
    for (int t = 1; t < length; ++t) {
        double next[STATES];
        for (int k = 0; k < STATES; ++k)
            next[k] = log_add(alpha[0] + log_transition[0][k], alpha[1] + log_transition[1][k]) +
                      log_emission[t * STATES + k];
        alpha[0] = next[0];
        alpha[1] = next[1];
    }
    return log_add(alpha[0], alpha[1]);
}

static void *load_series(const real_data *file, char *error, const char *first_name,
                         const char *second_name) {
    series s = {0, NULL, NULL};
    int states;
    if (real_data_int(file, "N", &s.length, error) != 0 ||
        real_data_int(file, "K", &states, error) != 0)
        return NULL;
    if (states != STATES || s.length < 1 || s.length > MAX_LENGTH) {
        snprintf(error, REAL_ERROR_SIZE, "expected K = %d and N in [1, %d], got K = %d, N = %d",
                 STATES, MAX_LENGTH, states, s.length);
        return NULL;
    }
    s.first = real_data_array(file, first_name, s.length, error);
    if (s.first && second_name) s.second = real_data_array(file, second_name, s.length, error);
    series *copy = (s.first && (!second_name || s.second)) ? malloc(sizeof s) : NULL;
    if (copy) *copy = s;
    return copy;
}

/* ---- hmm_example: x = (theta1[1], theta2[1], mu[1], mu[2] - mu[1]) ---- */

static void *example_load(const real_data *file, char *error) {
    return load_series(file, error, "y", NULL);
}

/* y[t] | state k ~ N(mu[k], 1). */
static double example_log_likelihood(const void *data, const double *x) {
    const series *s = data;
    const double mu[STATES] = {x[2], x[2] + x[3]};
    double log_emission[MAX_LENGTH * STATES];
    for (int t = 0; t < s->length; ++t)
        for (int k = 0; k < STATES; ++k)
            log_emission[t * STATES + k] = real_lpdf_normal(s->first[t], mu[k], 1.0);
    return log_forward(s->length, log_emission, x);
}

/* theta1, theta2 uniform on the simplex (Stan's default); mu[1] ~ N(3, 1), mu[2] ~ N(10, 1)
 * restricted to 0 < mu[1] < mu[2]. */
static double example_log_prior(const double *x) {
    return real_lpdf_normal(x[2], 3.0, 1.0) + real_lpdf_normal(x[2] + x[3], 10.0, 1.0) -
           LOG_ORDERED_3_10;
}

static void example_sample_prior(bench_rng *rng, double *x) {
    x[0] = bench_rng_uniform(rng);
    x[1] = bench_rng_uniform(rng);
    real_draw_positive_ordered(rng, 3.0, 1.0, 10.0, 1.0, &x[2], &x[3]);
}

const real_model real_model_hmm_example = {
    .name = "hmm_example",
    .posterior = "hmm_example-hmm_example",
    .dim = 4,
    .param_names = {"theta1[1]", "theta2[1]", "mu[1]", "mu[2]-mu[1]"},
    .lb = {0.0, 0.0, 0.0, 0.0},
    .ub = {1.0, 1.0, INFINITY, INFINITY},
    .load = example_load,
    .log_likelihood = example_log_likelihood,
    .log_prior = example_log_prior,
    .sample_prior = example_sample_prior};

/* ---- hmm_drive: x = (theta1[1], theta2[1], phi[1], phi[2] - phi[1], lambda[1],
 * lambda[2] - lambda[1]) ---- */

/* The Dirichlet prior rows of the transition matrix, part of the model (the data file's alpha
 * must match). */
static const double drive_dirichlet[STATES][STATES] = {{4.0, 2.0}, {2.0, 4.0}};

static void *drive_load(const real_data *file, char *error) {
    const double *alpha = real_data_array(file, "alpha", STATES * STATES, error);
    if (!alpha) return NULL;
    for (int i = 0; i < STATES * STATES; ++i)
        if (alpha[i] != drive_dirichlet[i / STATES][i % STATES]) {
            snprintf(error, REAL_ERROR_SIZE, "data alpha differs from the model's [[4, 2], [2, 4]]");
            return NULL;
        }
    return load_series(file, error, "u", "v");
}

/* u[t] | k ~ Exponential(phi[k]), v[t] | k ~ Exponential(lambda[k]). */
static double drive_log_likelihood(const void *data, const double *x) {
    const series *s = data;
    const double phi[STATES] = {x[2], x[2] + x[3]}, lambda[STATES] = {x[4], x[4] + x[5]};
    double log_emission[MAX_LENGTH * STATES];
    for (int t = 0; t < s->length; ++t)
        for (int k = 0; k < STATES; ++k)
            log_emission[t * STATES + k] = log(phi[k]) - phi[k] * s->first[t] + log(lambda[k]) -
                                           lambda[k] * s->second[t];
    return log_forward(s->length, log_emission, x);
}

/* theta[k] ~ Dirichlet(alpha[k]), i.e. theta1[1] ~ Beta(4, 2), theta2[1] ~ Beta(2, 4);
 * phi[1] ~ N(0, 1), phi[2] ~ N(3, 1) restricted to 0 < phi[1] < phi[2]; lambda likewise. */
static double drive_log_prior(const double *x) {
    return real_lpdf_beta(x[0], drive_dirichlet[0][0], drive_dirichlet[0][1]) +
           real_lpdf_beta(x[1], drive_dirichlet[1][0], drive_dirichlet[1][1]) +
           real_lpdf_normal(x[2], 0.0, 1.0) + real_lpdf_normal(x[2] + x[3], 3.0, 1.0) +
           real_lpdf_normal(x[4], 0.0, 1.0) + real_lpdf_normal(x[4] + x[5], 3.0, 1.0) -
           2.0 * LOG_ORDERED_0_3;
}

static void drive_sample_prior(bench_rng *rng, double *x) {
    x[0] = real_draw_beta(rng, drive_dirichlet[0][0], drive_dirichlet[0][1]);
    x[1] = real_draw_beta(rng, drive_dirichlet[1][0], drive_dirichlet[1][1]);
    real_draw_positive_ordered(rng, 0.0, 1.0, 3.0, 1.0, &x[2], &x[3]);
    real_draw_positive_ordered(rng, 0.0, 1.0, 3.0, 1.0, &x[4], &x[5]);
}

const real_model real_model_hmm_drive = {
    .name = "hmm_drive",
    .posterior = "bball_drive_event_0-hmm_drive_0",
    .dim = 6,
    .param_names = {"theta1[1]", "theta2[1]", "phi[1]", "phi[2]-phi[1]", "lambda[1]",
                    "lambda[2]-lambda[1]"},
    .lb = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
    .ub = {1.0, 1.0, INFINITY, INFINITY, INFINITY, INFINITY},
    .load = drive_load,
    .log_likelihood = drive_log_likelihood,
    .log_prior = drive_log_prior,
    .sample_prior = drive_sample_prior};
