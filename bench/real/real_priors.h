/* Normalised log densities and samplers of the prior distributions of the real-posterior models
 * (Stan's parametrisations, in the original constrained space). Every density integrates to 1
 * over its support, truncation constants included, so that the models' log evidence is a true
 * log marginal likelihood. Samplers draw from the bench's xoshiro generator (bench_rng.h). */
#ifndef VBMC_BENCH_REAL_PRIORS_H
#define VBMC_BENCH_REAL_PRIORS_H

#include "bench_rng.h"

/* N(x; mean, sd^2). */
double real_lpdf_normal(double x, double mean, double sd);
/* Half-normal: N(x; 0, sd^2) truncated to x > 0 (twice the normal density). */
double real_lpdf_half_normal(double x, double sd);
/* Half-Cauchy: Cauchy(x; 0, scale) truncated to x > 0. */
double real_lpdf_half_cauchy(double x, double scale);
/* N(x; mean, sd^2) truncated to x > 0: divided by Phi(mean / sd). */
double real_lpdf_normal_positive(double x, double mean, double sd);
/* Log-normal: log x ~ N(mu, sigma^2). */
double real_lpdf_lognormal(double x, double mu, double sigma);
/* Gamma with shape and rate (Stan's gamma(alpha, beta)). */
double real_lpdf_gamma(double x, double shape, double rate);
/* Beta(a, b) on (0, 1). */
double real_lpdf_beta(double x, double a, double b);

/* log P(0 < X1 < X2) for independent X1 ~ N(mean1, sd1^2), X2 ~ N(mean2, sd2^2): the
 * normalising constant of Stan's positive_ordered[2] with normal priors on its elements. */
double real_log_prob_positive_ordered(double mean1, double sd1, double mean2, double sd2);

double real_draw_normal(bench_rng *rng, double mean, double sd);
double real_draw_half_normal(bench_rng *rng, double sd);
double real_draw_half_cauchy(bench_rng *rng, double scale);
/* By rejection: meant for mean / sd > -1 (acceptance above 16%). */
double real_draw_normal_positive(bench_rng *rng, double mean, double sd);
double real_draw_lognormal(bench_rng *rng, double mu, double sigma);
double real_draw_gamma(bench_rng *rng, double shape, double rate);
double real_draw_beta(bench_rng *rng, double a, double b);
/* (X1, X2 - X1) for X1 ~ N(mean1, sd1^2), X2 ~ N(mean2, sd2^2) conditioned on 0 < X1 < X2, by
 * rejection: meant for priors that put most of their mass on that event. */
void real_draw_positive_ordered(bench_rng *rng, double mean1, double sd1, double mean2, double sd2,
                                double *first, double *gap);

#endif
