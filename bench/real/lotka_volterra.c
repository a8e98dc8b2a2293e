/* hudson_lynx_hare-lotka_volterra of posteriordb: the Lotka-Volterra predator-prey ODE fitted
 * to the Hudson's Bay lynx and hare pelts, 1900-1920 (Stan source:
 * models/stan/lotka_volterra.stan; Carpenter's case study). Stan integrates with rk45 at
 * rtol 1e-5, atol 1e-3; here Dormand-Prince (ode.h) at 1e-8 / 1e-8, so that the log
 * likelihood is smooth in the parameters to far below the ELBO's precision. A solver failure
 * (step limit, non-positive or non-finite populations) gives NaN, a failed evaluation: the
 * exact solution is positive, so the density there is not 0. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ode.h"
#include "real_models.h"
#include "real_priors.h"

#define MAX_TIMES 64
#define SPECIES 2

typedef struct pelts {
    int count;
    const double *times;   /* [count] measurement times (years after 1900), > 0 */
    const double *initial; /* [2] measured populations at time 0 (hare, lynx) */
    const double *counts;  /* [count * 2] measured populations, row-major */
} pelts;

static void *load(const real_data *file, char *error) {
    pelts p;
    if (real_data_int(file, "N", &p.count, error) != 0) return NULL;
    if (p.count < 1 || p.count > MAX_TIMES) {
        snprintf(error, REAL_ERROR_SIZE, "N = %d outside [1, %d]", p.count, MAX_TIMES);
        return NULL;
    }
    p.times = real_data_array(file, "ts", p.count, error);
    p.initial = p.times ? real_data_array(file, "y_init", SPECIES, error) : NULL;
    p.counts = p.initial ? real_data_array(file, "y", p.count * SPECIES, error) : NULL;
    pelts *copy = p.counts ? malloc(sizeof p) : NULL;
    if (copy) *copy = p;
    return copy;
}

/* du/dt = (alpha - beta v) u, dv/dt = (-gamma + delta u) v; params = theta[4]. */
static void rhs(double t, const double *z, double *dzdt, const void *params) {
    const double *theta = params;
    (void)t;
    dzdt[0] = (theta[0] - theta[1] * z[1]) * z[0];
    dzdt[1] = (-theta[2] + theta[3] * z[0]) * z[1];
}

/* x = (theta[1..4], z_init[1..2], sigma[1..2]): y_init[k] ~ lognormal(log z_init[k], sigma[k]),
 * y[n, k] ~ lognormal(log z(t_n)[k], sigma[k]). */
static double log_likelihood(const void *data, const double *x) {
    const pelts *p = data;
    const real_ode_settings settings = {1e-8, 1e-8, 100000};
    double z[MAX_TIMES * SPECIES];
    if (real_ode_solve(rhs, x, SPECIES, 0.0, x + 4, p->count, p->times, &settings, z, NULL) != 0)
        return NAN;
    double total = 0.0;
    for (int k = 0; k < SPECIES; ++k) {
        const double sigma = x[6 + k];
        total += real_lpdf_lognormal(p->initial[k], log(x[4 + k]), sigma);
        for (int n = 0; n < p->count; ++n) {
            const double population = z[n * SPECIES + k];
            if (!(population > 0.0)) return NAN;
            total += real_lpdf_lognormal(p->counts[n * SPECIES + k], log(population), sigma);
        }
    }
    return total;
}

/* theta[1], theta[3] ~ N(1, 0.5) and theta[2], theta[4] ~ N(0.05, 0.05), each truncated to
 * > 0; z_init ~ lognormal(log 10, 1); sigma ~ lognormal(-1, 1). */
static double log_prior(const double *x) {
    double total = real_lpdf_normal_positive(x[0], 1.0, 0.5) +
                   real_lpdf_normal_positive(x[1], 0.05, 0.05) +
                   real_lpdf_normal_positive(x[2], 1.0, 0.5) +
                   real_lpdf_normal_positive(x[3], 0.05, 0.05);
    for (int k = 0; k < SPECIES; ++k)
        total += real_lpdf_lognormal(x[4 + k], log(10.0), 1.0) +
                 real_lpdf_lognormal(x[6 + k], -1.0, 1.0);
    return total;
}

static void sample_prior(bench_rng *rng, double *x) {
    x[0] = real_draw_normal_positive(rng, 1.0, 0.5);
    x[1] = real_draw_normal_positive(rng, 0.05, 0.05);
    x[2] = real_draw_normal_positive(rng, 1.0, 0.5);
    x[3] = real_draw_normal_positive(rng, 0.05, 0.05);
    for (int k = 0; k < SPECIES; ++k) x[4 + k] = real_draw_lognormal(rng, log(10.0), 1.0);
    for (int k = 0; k < SPECIES; ++k) x[6 + k] = real_draw_lognormal(rng, -1.0, 1.0);
}

const real_model real_model_lotka_volterra = {
    .name = "lotka_volterra",
    .posterior = "hudson_lynx_hare-lotka_volterra",
    .dim = 8,
    .param_names = {"theta[1]", "theta[2]", "theta[3]", "theta[4]", "z_init[1]", "z_init[2]",
                    "sigma[1]", "sigma[2]"},
    .lb = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
    .ub = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY},
    .load = load,
    .log_likelihood = log_likelihood,
    .log_prior = log_prior,
    .sample_prior = sample_prior};
