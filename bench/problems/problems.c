/* Log densities of the benchmark problems (shared/bench/README.md, "Families"). */
#include "problems.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define LOG_2PI 1.8378770664093454835606594728112
#define LOG_PI 1.1447298858494001741434273513531

const char *bench_family_name(bench_family family) {
    switch (family) {
    case BENCH_LUMPY: return "lumpy";
    case BENCH_STUDENT: return "student";
    case BENCH_CIGAR: return "cigar";
    case BENCH_ROSENBROCK: return "rosenbrock";
    }
    return "unknown";
}

const bench_problem *bench_problem_find(const char *name) {
    for (int i = 0; i < bench_problem_count; ++i)
        if (strcmp(bench_problems[i].name, name) == 0) return &bench_problems[i];
    return NULL;
}

/* cigar: N(x; mu, R^T diag(l^2) R) with mu = linspace(-1, 1, D), l = (1, ..., 1, 100).
 * With z = R (x - mu) the quadratic form is sum_k (z_k / l_k)^2, and log det Sigma =
 * 2 sum_k log l_k = 2 log 100. */
static double cigar_log_likelihood(const bench_problem *p, const double *x) {
    const int dim = p->dim;
    double quad = 0.0;
    for (int k = 0; k < dim; ++k) {
        double z = 0.0;
        for (int j = 0; j < dim; ++j) {
            const double mu_j = -1.0 + 2.0 * j / (dim - 1);
            z += p->cigar_rotation[k * dim + j] * (x[j] - mu_j);
        }
        const double length = (k == dim - 1) ? 100.0 : 1.0;
        quad += (z / length) * (z / length);
    }
    return -0.5 * quad - 0.5 * dim * LOG_2PI - log(100.0);
}

/* student: product of location-scale Student t densities, nu_i = 2 + i/2 (i = 1..D). */
static double student_log_likelihood(const bench_problem *p, const double *x) {
    double total = 0.0;
    for (int i = 0; i < p->dim; ++i) {
        const double nu = 2.0 + 0.5 * (i + 1);
        const double scale = p->student_scale[i];
        const double t = (x[i] - p->student_location[i]) / scale;
        total += lgamma(0.5 * (nu + 1.0)) - lgamma(0.5 * nu) - 0.5 * (log(nu) + LOG_PI) -
                 log(scale) - 0.5 * (nu + 1.0) * log1p(t * t / nu);
    }
    return total;
}

/* lumpy: log sum_m w_m N(x; Mu_m, diag(Sigma_m)), a streaming log-sum-exp, floored at
 * log(DBL_MIN) (the smallest normal double, as infbench does). */
static double lumpy_log_likelihood(const bench_problem *p, const double *x) {
    const int dim = p->dim;
    double largest = -INFINITY;
    double scaled_sum = 0.0; /* sum of exp(term - largest) */
    for (int m = 0; m < p->lumpy_count; ++m) {
        double term = log(p->lumpy_weight[m]) - 0.5 * dim * LOG_2PI;
        for (int j = 0; j < dim; ++j) {
            const double var = p->lumpy_variance[m * dim + j];
            const double diff = x[j] - p->lumpy_location[m * dim + j];
            term -= 0.5 * (diff * diff / var + log(var));
        }
        if (term == -INFINITY) continue;
        if (term > largest) {
            scaled_sum = scaled_sum * exp(largest - term) + 1.0;
            largest = term;
        } else {
            scaled_sum += exp(term - largest);
        }
    }
    const double log_lik = largest + log(scaled_sum);
    const double floor_value = log(DBL_MIN);
    return log_lik > floor_value ? log_lik : floor_value;
}

/* rosenbrock (banana): log L = -[(x1^2 - x2)^2 + (x1 - 1)^2 / 100]. */
static double rosenbrock_log_likelihood(const double *x) {
    const double a = x[0] * x[0] - x[1];
    const double b = x[0] - 1.0;
    return -(a * a + b * b / 100.0);
}

double bench_log_likelihood(const bench_problem *problem, const double *x) {
    switch (problem->family) {
    case BENCH_LUMPY: return lumpy_log_likelihood(problem, x);
    case BENCH_STUDENT: return student_log_likelihood(problem, x);
    case BENCH_CIGAR: return cigar_log_likelihood(problem, x);
    case BENCH_ROSENBROCK: return rosenbrock_log_likelihood(x);
    }
    return NAN;
}

double bench_log_prior(const bench_problem *problem, const double *x) {
    double total = 0.0;
    for (int i = 0; i < problem->dim; ++i) {
        const double var = problem->prior_var[i];
        const double diff = x[i] - problem->prior_mean[i];
        total -= 0.5 * (LOG_2PI + log(var) + diff * diff / var);
    }
    return total;
}

double bench_log_joint(const bench_problem *problem, const double *x) {
    return bench_log_likelihood(problem, x) + bench_log_prior(problem, x);
}
