/* The target of one vbmc_bench run: a synthetic problem of problems/ ("cigar_D2") or a real
 * posterior of real/ ("real:arK"), with its hard bounds, plausible box and ground truth, behind
 * one log joint. Synthetic problems have no hard bounds and their own plausible box; a real
 * posterior has its model's bounds and the chosen box of real/ground_truth.json. */
#ifndef VBMC_BENCH_TARGET_H
#define VBMC_BENCH_TARGET_H

#include <stddef.h>

#include <vbmc/vbmc.h>

#include "problems.h"
#include "real_models.h"

#define BENCH_REAL_PREFIX "real:"

typedef enum bench_box {
    BENCH_BOX_PRIOR,   /* the central 68% of each prior marginal */
    BENCH_BOX_INFORMED /* posterior mean +- 1 SD */
} bench_box;

typedef struct bench_target {
    const char *name;   /* as given on the command line */
    const char *family; /* "lumpy", "student", "cigar", "rosenbrock" or "real" */
    int dim;
    double lml;               /* ground-truth log evidence */
    const double *mean, *cov; /* [dim], [dim*dim] ground-truth posterior moments */
    double lb[VBMC_MAX_DIM], ub[VBMC_MAX_DIM], plb[VBMC_MAX_DIM], pub[VBMC_MAX_DIM];
    const bench_problem *problem; /* the synthetic problem, or NULL */
    real_target real;             /* the real model with its data (real.model NULL if synthetic) */
} bench_target;

/* Opens the target called name; a real one reads DATA_DIR/<model>.data. Returns 0, or -1 with
 * a sentence in error[error_size]. Release with bench_target_close. */
int bench_target_open(bench_target *target, const char *name, bench_box box, const char *data_dir,
                      char *error, size_t error_size);

void bench_target_close(bench_target *target);

/* The log joint at x[dim]: -INFINITY outside the hard bounds, NaN for a failed evaluation. */
double bench_target_log_joint(const bench_target *target, const double *x);

#endif
