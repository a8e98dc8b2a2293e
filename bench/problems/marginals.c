/* True marginals of the synthetic problems (marginals.h). */
#include "marginals.h"

#include <math.h>
#include <stdlib.h>

#define LOG_2PI 1.8378770664093454835606594728112
#define LOG_PI 1.1447298858494001741434273513531
#define QUADRATURE_POINTS_PER_BIN 8

bench_grid bench_marginal_grid(const bench_problem *p, int d, int bins) {
    const double sd = sqrt(p->cov[d * p->dim + d]);
    bench_grid grid = {p->mean[d] - BENCH_GRID_SDS * sd, 2.0 * BENCH_GRID_SDS * sd / bins, bins};
    return grid;
}

static double normal_cdf(double z) { return 0.5 * erfc(-z / sqrt(2.0)); }

static double log_normal(double x, double mean, double var) {
    return -0.5 * (LOG_2PI + log(var) + (x - mean) * (x - mean) / var);
}

/* Mass of N(mean, var) in every bin, added with weight w. */
static void add_gaussian(bench_grid grid, double w, double mean, double var, double *mass) {
    const double sd = sqrt(var);
    double left = normal_cdf((grid.lo - mean) / sd);
    for (int g = 0; g < grid.bins; ++g) {
        const double right = normal_cdf((grid.lo + (g + 1) * grid.width - mean) / sd);
        mass[g] += w * (right - left);
        left = right;
    }
}

/* lumpy: each likelihood component times the prior is a Gaussian of weight
 * w_m prod_j N(mu_mj; prior_mean_j, var_mj + prior_var_j); its marginal d is N(m_md, v_md). */
static int lumpy_mass(const bench_problem *p, int d, bench_grid grid, double *mass) {
    const int dim = p->dim, count = p->lumpy_count;
    double *log_w = malloc(sizeof(double) * (size_t)count);
    if (!log_w) return -1;
    double top = -INFINITY, total = 0.0;
    for (int m = 0; m < count; ++m) {
        log_w[m] = log(p->lumpy_weight[m]);
        for (int j = 0; j < dim; ++j)
            log_w[m] += log_normal(p->lumpy_location[m * dim + j], p->prior_mean[j],
                                   p->lumpy_variance[m * dim + j] + p->prior_var[j]);
        if (log_w[m] > top) top = log_w[m];
    }
    for (int m = 0; m < count; ++m) total += exp(log_w[m] - top);
    for (int g = 0; g < grid.bins; ++g) mass[g] = 0.0;
    for (int m = 0; m < count; ++m) {
        const double v = p->lumpy_variance[m * dim + d], pv = p->prior_var[d];
        const double var = 1.0 / (1.0 / v + 1.0 / pv);
        const double mean = var * (p->lumpy_location[m * dim + d] / v + p->prior_mean[d] / pv);
        add_gaussian(grid, exp(log_w[m] - top) / total, mean, var, mass);
    }
    free(log_w);
    return 0;
}

/* An unnormalised log density of coordinate d, for quadrature. */
typedef double (*log_density_fn)(const bench_problem *p, int d, double x);

static double student_log_density(const bench_problem *p, int d, double x) {
    const double nu = 2.0 + 0.5 * (d + 1);
    const double t = (x - p->student_location[d]) / p->student_scale[d];
    return -0.5 * (nu + 1.0) * log1p(t * t / nu) + log_normal(x, p->prior_mean[d], p->prior_var[d]);
}

/* rosenbrock x1: -(x1^2 - x2)^2 integrates over x2 ~ N(m2, v2) to N(x1^2; m2, v2 + 1/2) up to a
 * constant. */
static double rosenbrock_x1_log_density(const bench_problem *p, int d, double x) {
    (void)d;
    return -(x - 1.0) * (x - 1.0) / 100.0 + log_normal(x, p->prior_mean[0], p->prior_var[0]) +
           log_normal(x * x, p->prior_mean[1], p->prior_var[1] + 0.5);
}

/* rosenbrock x2: the joint integrated over x1 by the midpoint rule on x1's own grid. */
static double rosenbrock_x2_log_density(const bench_problem *p, int d, double x) {
    (void)d;
    const bench_grid g1 = bench_marginal_grid(p, 0, 1024);
    double sum = 0.0;
    for (int i = 0; i < g1.bins; ++i) {
        const double x1 = g1.lo + (i + 0.5) * g1.width;
        const double a = x1 * x1 - x;
        sum += exp(-a * a - (x1 - 1.0) * (x1 - 1.0) / 100.0 + log_normal(x1, p->prior_mean[0], p->prior_var[0]));
    }
    return log(sum) + log_normal(x, p->prior_mean[1], p->prior_var[1]);
}

/* Bin masses by the midpoint rule with QUADRATURE_POINTS_PER_BIN points, normalised on the grid.
 * Returns -1 if memory runs out. */
static int quadrature_mass(const bench_problem *p, int d, bench_grid grid, log_density_fn f, double *mass) {
    const int n = grid.bins * QUADRATURE_POINTS_PER_BIN;
    const double h = grid.width / QUADRATURE_POINTS_PER_BIN;
    double *log_f = malloc(sizeof(double) * (size_t)n);
    if (!log_f) return -1;
    double top = -INFINITY, total = 0.0;
    for (int i = 0; i < n; ++i) {
        log_f[i] = f(p, d, grid.lo + (i + 0.5) * h);
        if (log_f[i] > top) top = log_f[i];
    }
    for (int g = 0; g < grid.bins; ++g) {
        double sum = 0.0;
        for (int s = 0; s < QUADRATURE_POINTS_PER_BIN; ++s) sum += exp(log_f[g * QUADRATURE_POINTS_PER_BIN + s] - top);
        mass[g] = sum;
        total += sum;
    }
    for (int g = 0; g < grid.bins; ++g) mass[g] /= total;
    free(log_f);
    return 0;
}

int bench_marginal_mass(const bench_problem *p, int d, bench_grid grid, double *mass) {
    switch (p->family) {
    case BENCH_LUMPY: return lumpy_mass(p, d, grid, mass);
    case BENCH_CIGAR:
        for (int g = 0; g < grid.bins; ++g) mass[g] = 0.0;
        add_gaussian(grid, 1.0, p->mean[d], p->cov[d * p->dim + d], mass);
        return 0;
    case BENCH_STUDENT: return quadrature_mass(p, d, grid, student_log_density, mass);
    case BENCH_ROSENBROCK:
        return quadrature_mass(p, d, grid, d == 0 ? rosenbrock_x1_log_density : rosenbrock_x2_log_density, mass);
    }
    return -1;
}
