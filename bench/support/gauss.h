/* Small dense Gaussian helpers for the benchmark metrics (dim <= a few tens, so plain loops). */
#ifndef VBMC_BENCH_GAUSS_H
#define VBMC_BENCH_GAUSS_H

/* Lower Cholesky factor of the symmetric matrix a[dim*dim] (row-major) into chol[dim*dim]
 * (upper part zeroed). Returns 0, or -1 if a is not positive definite. */
int bench_cholesky(int dim, const double *a, double *chol);

/* KL(N(mean_q, cov_q) || N(mean_p, cov_p)). Returns +INFINITY if either covariance is not
 * positive definite, NaN for dim outside [1, 64]. */
double bench_gauss_kl(int dim, const double *mean_q, const double *cov_q, const double *mean_p,
                      const double *cov_p);

/* gsKL of the VBMC paper (section 4.1): the symmetrised KL,
 * 0.5 * [KL(N_q || N_p) + KL(N_p || N_q)], between two Gaussians given by their moments. */
double bench_gskl(int dim, const double *mean_q, const double *cov_q, const double *mean_p,
                  const double *cov_p);

#endif
