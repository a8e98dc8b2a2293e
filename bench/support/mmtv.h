/* Marginal total variation between draws and a true marginal given by bin masses on a grid
 * (problems/marginals.h): the mean marginal total variation (MMTV) of Acerbi (2020), "Variational
 * Bayesian Monte Carlo with noisy likelihoods", section 4, is its mean over the coordinates.
 *
 * The draws' marginal is estimated by a Gaussian kernel density of SD h, computed on the grid as
 * the draws' histogram convolved with the kernel; the true marginal is convolved with the same
 * kernel, so the smoothing biases neither side and the estimate
 *   TV = 1/2 sum_g |K*hist_g - K*true_g| + 1/2 |draws outside the grid - true mass outside (0)|
 * errs only by the draws' sampling noise, about 0.4 (n h / SD)^(-1/2) for a unimodal marginal
 * (the same for any two sets of n draws, so sets of equal size compare fairly). */
#ifndef VBMC_BENCH_MMTV_H
#define VBMC_BENCH_MMTV_H

#include <stddef.h>

#include "marginals.h"

/* TV between the marginal of x[i*stride] (i < n) and mass[grid.bins], smoothed by a kernel of SD
 * h. Returns NaN if memory runs out. */
double bench_marginal_tv(bench_grid grid, const double *mass, const double *x, size_t n, int stride, double h);

#endif
