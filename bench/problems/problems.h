/* The benchmark's target problems: the synthetic families of the VBMC paper (Acerbi 2018,
 * section 4.1) as specified in shared/bench/README.md, with their ground truth.
 *
 * Every problem is a log joint = log likelihood + log prior with an axis-aligned Gaussian prior
 * N(prior_mean, diag(prior_var)) and no hard bounds. The constants live in problem_data.c,
 * generated from the shared JSON files by gen_problem_data.py. */
#ifndef VBMC_BENCH_PROBLEMS_H
#define VBMC_BENCH_PROBLEMS_H

typedef enum bench_family {
    BENCH_LUMPY,     /* mixture of 12 axis-aligned Gaussians, floored at the smallest normal */
    BENCH_STUDENT,   /* product of location-scale Student t, nu_i = 2 + i/2 */
    BENCH_CIGAR,     /* Gaussian elongated 100x along a rotated direction */
    BENCH_ROSENBROCK /* the 2-D banana */
} bench_family;

typedef struct bench_problem {
    const char *name; /* "cigar_D2", ... */
    bench_family family;
    int dim;
    double lml;               /* ground-truth log marginal likelihood */
    const double *mean;       /* [dim] true posterior mean */
    const double *cov;        /* [dim*dim] true posterior covariance, row-major */
    const double *plb, *pub;  /* [dim] plausible box */
    const double *prior_mean; /* [dim] */
    const double *prior_var;  /* [dim] */
    const double *cigar_rotation;   /* [dim*dim] R, row-major: Sigma = R^T diag(l^2) R */
    const double *student_location; /* [dim] */
    const double *student_scale;    /* [dim] */
    int lumpy_count;                /* number of mixture components */
    const double *lumpy_weight;     /* [lumpy_count] */
    const double *lumpy_location;   /* [lumpy_count*dim] */
    const double *lumpy_variance;   /* [lumpy_count*dim] diagonal covariances */
} bench_problem;

extern const bench_problem bench_problems[];
extern const int bench_problem_count;

/* The family's name as used in problem names ("lumpy", "student", "cigar", "rosenbrock"). */
const char *bench_family_name(bench_family family);

/* The problem called name, or NULL. */
const bench_problem *bench_problem_find(const char *name);

/* Log likelihood at x[dim]. */
double bench_log_likelihood(const bench_problem *problem, const double *x);

/* Log prior density at x[dim]. */
double bench_log_prior(const bench_problem *problem, const double *x);

/* Log joint = log likelihood + log prior: the target given to VBMC. */
double bench_log_joint(const bench_problem *problem, const double *x);

#endif
