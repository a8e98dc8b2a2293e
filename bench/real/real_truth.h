/* The ground truth of the real-posterior models, from bench/real/ground_truth.json (computed by
 * bench/real/prepare.py; real_truth.c is generated from it by gen_truth.py and committed). */
#ifndef VBMC_BENCH_REAL_TRUTH_H
#define VBMC_BENCH_REAL_TRUTH_H

typedef struct real_truth {
    const char *name; /* the model's short name */
    int dim;
    double lml;                                /* log marginal likelihood */
    const double *mean, *cov;                  /* [dim], [dim*dim] row-major */
    const double *prior_lower, *prior_upper;   /* [dim] 16% / 84% prior quantiles */
    const double *informed_lower, *informed_upper; /* [dim] posterior mean -+ SD (see README) */
} real_truth;

extern const real_truth real_truths[];
extern const int real_truth_count;

/* The ground truth of the model called name, or NULL. */
const real_truth *real_truth_find(const char *name);

#endif
