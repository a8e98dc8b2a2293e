/* Cholesky and Gaussian KL divergences for the benchmark metrics. */
#include "gauss.h"

#include <math.h>
#include <string.h>

#define GAUSS_MAX_DIM 64

int bench_cholesky(int dim, const double *a, double *chol) {
    memset(chol, 0, sizeof(double) * (size_t)dim * (size_t)dim);
    for (int j = 0; j < dim; ++j) {
        double diag = a[j * dim + j];
        for (int k = 0; k < j; ++k) diag -= chol[j * dim + k] * chol[j * dim + k];
        if (!(diag > 0.0) || !isfinite(diag)) return -1;
        const double pivot = sqrt(diag);
        chol[j * dim + j] = pivot;
        for (int i = j + 1; i < dim; ++i) {
            double value = a[i * dim + j];
            for (int k = 0; k < j; ++k) value -= chol[i * dim + k] * chol[j * dim + k];
            chol[i * dim + j] = value / pivot;
        }
    }
    return 0;
}

/* Solve L y = b in place (L lower triangular, row-major). */
static void forward_solve(int dim, const double *chol, double *b) {
    for (int i = 0; i < dim; ++i) {
        double value = b[i];
        for (int k = 0; k < i; ++k) value -= chol[i * dim + k] * b[k];
        b[i] = value / chol[i * dim + i];
    }
}

/* KL(q || p) = 0.5 [tr(Sp^-1 Sq) + (mp - mq)^T Sp^-1 (mp - mq) - D + log|Sp| - log|Sq|].
 * With Sp = Lp Lp^T: tr(Sp^-1 Sq) = ||Lp^-1 Lq||_F^2 and the quadratic form is
 * ||Lp^-1 (mp - mq)||^2. */
double bench_gauss_kl(int dim, const double *mean_q, const double *cov_q, const double *mean_p,
                      const double *cov_p) {
    if (dim < 1 || dim > GAUSS_MAX_DIM) return NAN;
    double chol_q[GAUSS_MAX_DIM * GAUSS_MAX_DIM];
    double chol_p[GAUSS_MAX_DIM * GAUSS_MAX_DIM];
    double column[GAUSS_MAX_DIM];
    if (bench_cholesky(dim, cov_q, chol_q) != 0 || bench_cholesky(dim, cov_p, chol_p) != 0)
        return INFINITY;
    double trace = 0.0;
    for (int j = 0; j < dim; ++j) {
        for (int i = 0; i < dim; ++i) column[i] = chol_q[i * dim + j];
        forward_solve(dim, chol_p, column);
        for (int i = 0; i < dim; ++i) trace += column[i] * column[i];
    }
    for (int i = 0; i < dim; ++i) column[i] = mean_p[i] - mean_q[i];
    forward_solve(dim, chol_p, column);
    double quad = 0.0;
    for (int i = 0; i < dim; ++i) quad += column[i] * column[i];
    double log_det_ratio = 0.0; /* log|Sp| - log|Sq| */
    for (int i = 0; i < dim; ++i)
        log_det_ratio += 2.0 * (log(chol_p[i * dim + i]) - log(chol_q[i * dim + i]));
    return 0.5 * (trace + quad - dim + log_det_ratio);
}

double bench_gskl(int dim, const double *mean_q, const double *cov_q, const double *mean_p,
                  const double *cov_p) {
    return 0.5 * (bench_gauss_kl(dim, mean_q, cov_q, mean_p, cov_p) +
                  bench_gauss_kl(dim, mean_p, cov_p, mean_q, cov_q));
}
