/* The true posterior's one-dimensional marginals of the synthetic problems, as the probability
 * mass of each bin of a regular grid (for the marginal total variation of support/mmtv.h):
 *   lumpy   a Gaussian mixture times the Gaussian prior: a Gaussian mixture, closed form;
 *   cigar   a Gaussian: the ground truth's mean and variance, closed form;
 *   student independent coordinates, t(x) N(x; prior) normalised by quadrature;
 *   rosenbrock  x1: exp(-(x1-1)^2/100) N(x1; prior) N(x1^2; m2, v2 + 1/2) (x2 integrated out in
 *           closed form), x2: quadrature over x1 of the joint; both normalised numerically.
 * The grid covers the true mean +- BENCH_GRID_SDS true SDs, where all but a negligible mass lies. */
#ifndef VBMC_BENCH_MARGINALS_H
#define VBMC_BENCH_MARGINALS_H

#include "problems.h"

#define BENCH_GRID_SDS 12.0

typedef struct bench_grid {
    double lo;    /* left edge of bin 0 */
    double width; /* of each bin */
    int bins;
} bench_grid;

/* The grid of coordinate d with `bins` bins. */
bench_grid bench_marginal_grid(const bench_problem *p, int d, int bins);

/* mass[grid.bins]: the true marginal of coordinate d on grid (sums to 1 within quadrature error).
 * Returns 0, or -1 if memory runs out. */
int bench_marginal_mass(const bench_problem *p, int d, bench_grid grid, double *mass);

#endif
