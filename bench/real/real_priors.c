/* Prior densities and samplers of the real-posterior models (see real_priors.h). */
#include "real_priors.h"

#include <math.h>

#define LOG_2PI 1.8378770664093454835606594728112
#define LOG_PI 1.1447298858494001741434273513531
#define PI 3.1415926535897932384626433832795
#define SQRT_HALF 0.70710678118654752440084436210485

/* Standard normal CDF, Phi(z) = erfc(-z / sqrt 2) / 2. */
static double normal_cdf(double z) {
    return 0.5 * erfc(-z * SQRT_HALF);
}

double real_lpdf_normal(double x, double mean, double sd) {
    const double z = (x - mean) / sd;
    return -0.5 * (LOG_2PI + z * z) - log(sd);
}

double real_lpdf_half_normal(double x, double sd) {
    return log(2.0) + real_lpdf_normal(x, 0.0, sd);
}

/* 2 / (pi scale (1 + (x / scale)^2)). */
double real_lpdf_half_cauchy(double x, double scale) {
    const double z = x / scale;
    return log(2.0) - LOG_PI - log(scale) - log1p(z * z);
}

double real_lpdf_normal_positive(double x, double mean, double sd) {
    return real_lpdf_normal(x, mean, sd) - log(normal_cdf(mean / sd));
}

double real_lpdf_lognormal(double x, double mu, double sigma) {
    return real_lpdf_normal(log(x), mu, sigma) - log(x);
}

double real_lpdf_gamma(double x, double shape, double rate) {
    return shape * log(rate) - lgamma(shape) + (shape - 1.0) * log(x) - rate * x;
}

double real_lpdf_beta(double x, double a, double b) {
    return lgamma(a + b) - lgamma(a) - lgamma(b) + (a - 1.0) * log(x) + (b - 1.0) * log1p(-x);
}

/* P(0 < X1 < X2) = integral over x > 0 of N(x; mean1, sd1^2) (1 - Phi((x - mean2) / sd2)),
 * by composite Simpson's rule on [max(0, mean1 - 12 sd1), mean1 + 12 sd1]: the integrand is
 * smooth and the truncated tails weigh below 1e-30. */
double real_log_prob_positive_ordered(double mean1, double sd1, double mean2, double sd2) {
    const int intervals = 4000; /* even */
    const double low = fmax(0.0, mean1 - 12.0 * sd1), high = mean1 + 12.0 * sd1;
    const double h = (high - low) / intervals;
    double sum = 0.0;
    for (int i = 0; i <= intervals; ++i) {
        const double x = low + i * h;
        const double f = exp(real_lpdf_normal(x, mean1, sd1)) * normal_cdf((mean2 - x) / sd2);
        const double weight = (i == 0 || i == intervals) ? 1.0 : (i % 2 ? 4.0 : 2.0);
        sum += weight * f;
    }
    return log(sum * h / 3.0);
}

double real_draw_normal(bench_rng *rng, double mean, double sd) {
    return mean + sd * bench_rng_normal(rng);
}

double real_draw_half_normal(bench_rng *rng, double sd) {
    return fabs(sd * bench_rng_normal(rng));
}

/* Inverse CDF of the half-Cauchy: scale tan(pi u / 2). */
double real_draw_half_cauchy(bench_rng *rng, double scale) {
    return scale * tan(0.5 * PI * bench_rng_uniform(rng));
}

double real_draw_normal_positive(bench_rng *rng, double mean, double sd) {
    double x;
    do {
        x = real_draw_normal(rng, mean, sd);
    } while (!(x > 0.0));
    return x;
}

double real_draw_lognormal(bench_rng *rng, double mu, double sigma) {
    return exp(real_draw_normal(rng, mu, sigma));
}

/* Marsaglia and Tsang (2000), "A simple method for generating gamma variables", section 3;
 * shape < 1 by their boosting, Gamma(a) = Gamma(a + 1) U^(1/a). */
double real_draw_gamma(bench_rng *rng, double shape, double rate) {
    if (shape < 1.0)
        return real_draw_gamma(rng, shape + 1.0, rate) * pow(bench_rng_uniform(rng), 1.0 / shape);
    const double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double z, v;
        do {
            z = bench_rng_normal(rng);
            v = 1.0 + c * z;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = bench_rng_uniform(rng);
        if (log(u) < 0.5 * z * z + d - d * v + d * log(v)) return d * v / rate;
    }
}

/* X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b). */
double real_draw_beta(bench_rng *rng, double a, double b) {
    const double x = real_draw_gamma(rng, a, 1.0), y = real_draw_gamma(rng, b, 1.0);
    return x / (x + y);
}

void real_draw_positive_ordered(bench_rng *rng, double mean1, double sd1, double mean2, double sd2,
                                double *first, double *gap) {
    double x1, x2;
    do {
        x1 = real_draw_normal(rng, mean1, sd1);
        x2 = real_draw_normal(rng, mean2, sd2);
    } while (!(x1 > 0.0 && x2 > x1));
    *first = x1;
    *gap = x2 - x1;
}
