/* The real-posterior benchmark: posteriors of posteriordb (github.com/stan-dev/posteriordb)
 * written in C. Each model is a log likelihood and a normalised log prior in the ORIGINAL,
 * constrained parameter space (no Jacobian: VBMC maps the hard bounds itself), so that
 * log likelihood + log prior integrates to the true log marginal likelihood. Where Stan uses
 * an ordered or simplex type, the parameters are reparametrised to independent bounds with a
 * unit Jacobian (ordered pair -> first element and gap; simplex[2] -> its first element).
 *
 * The data come from a file written by bench/real/posteriordb.py (real_data.h); nothing taken from
 * posteriordb is compiled in. The ground truth lives in real_truth.h. */
#ifndef VBMC_BENCH_REAL_MODELS_H
#define VBMC_BENCH_REAL_MODELS_H

#include "bench_rng.h"
#include "real_data.h"

#define REAL_MAX_DIM 10

typedef struct real_model {
    const char *name;      /* short name: "arK" */
    const char *posterior; /* posteriordb posterior: "arK-arK" */
    int dim;
    const char *param_names[REAL_MAX_DIM];
    double lb[REAL_MAX_DIM], ub[REAL_MAX_DIM]; /* hard bounds; the density is 0 outside */
    /* The model's view of its data file: a block released with free(), or NULL with a
     * sentence in error[REAL_ERROR_SIZE]. It may point into file, which must outlive it. */
    void *(*load)(const real_data *file, char *error);
    /* Log likelihood at x strictly inside the bounds; NaN where a numerical solver failed. */
    double (*log_likelihood)(const void *data, const double *x);
    /* Normalised log prior density at x strictly inside the bounds. */
    double (*log_prior)(const double *x);
    /* One draw from the prior into x[dim]. */
    void (*sample_prior)(bench_rng *rng, double *x);
} real_model;

extern const real_model *const real_models[];
extern const int real_model_count;

/* The model with this short name, or NULL. */
const real_model *real_model_find(const char *name);

/* 1 if lb < x < ub in every coordinate. */
int real_model_inside(const real_model *model, const double *x);

/* Log prior: -INFINITY outside the bounds. */
double real_log_prior(const real_model *model, const double *x);

/* A model with its data loaded. */
typedef struct real_target {
    const real_model *model;
    real_data file;
    void *data;
} real_target;

/* Loads the model's data file at path. Returns 0, or -1 with a sentence in
 * error[REAL_ERROR_SIZE]. Release with real_target_free. */
int real_target_load(real_target *target, const real_model *model, const char *path, char *error);

void real_target_free(real_target *target);

/* Log likelihood + log prior: -INFINITY outside the bounds (where the density is 0), NaN where
 * a numerical solver failed (VBMC records a failed evaluation). */
double real_log_joint(const real_target *target, const double *x);

#endif
