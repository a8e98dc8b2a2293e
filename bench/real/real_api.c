/* The real-posterior models as a small shared library for Python (ctypes), so that
 * bench/real/prepare.py computes the ground truth with the same C code the benchmark runs.
 * Models are addressed by their index in the registry; arrays are row-major x[n * dim]. */
#include <stdlib.h>

#include "real_models.h"

#if defined(__GNUC__)
#define REAL_API __attribute__((visibility("default")))
#else
#define REAL_API
#endif

REAL_API int real_api_model_count(void) {
    return real_model_count;
}

REAL_API const char *real_api_model_name(int model) {
    return real_models[model]->name;
}

REAL_API const char *real_api_model_posterior(int model) {
    return real_models[model]->posterior;
}

REAL_API int real_api_model_dim(int model) {
    return real_models[model]->dim;
}

REAL_API const char *real_api_param_name(int model, int param) {
    return real_models[model]->param_names[param];
}

/* lb[dim], ub[dim]: the hard bounds (+-inf where unbounded). */
REAL_API void real_api_bounds(int model, double *lb, double *ub) {
    for (int i = 0; i < real_models[model]->dim; ++i) {
        lb[i] = real_models[model]->lb[i];
        ub[i] = real_models[model]->ub[i];
    }
}

/* The model with its data file at path, or NULL with a sentence in error[REAL_ERROR_SIZE]. */
REAL_API real_target *real_api_load(int model, const char *path, char *error) {
    real_target *target = malloc(sizeof *target);
    if (!target) return NULL;
    if (real_target_load(target, real_models[model], path, error) != 0) {
        free(target);
        return NULL;
    }
    return target;
}

REAL_API void real_api_free(real_target *target) {
    if (!target) return;
    real_target_free(target);
    free(target);
}

/* log_joint[i] at x[i * dim], i < n (-inf outside the bounds, NaN on solver failure). */
REAL_API void real_api_log_joint(const real_target *target, long n, const double *x,
                                 double *log_joint) {
    const int dim = target->model->dim;
    for (long i = 0; i < n; ++i) log_joint[i] = real_log_joint(target, x + i * dim);
}

/* log_prior[i] at x[i * dim] (-inf outside the bounds); needs no data. */
REAL_API void real_api_log_prior(int model, long n, const double *x, double *log_prior) {
    const int dim = real_models[model]->dim;
    for (long i = 0; i < n; ++i) log_prior[i] = real_log_prior(real_models[model], x + i * dim);
}

/* n prior draws into x[n * dim] from the bench generator seeded with seed. */
REAL_API void real_api_sample_prior(int model, long n, unsigned long long seed, double *x) {
    bench_rng rng;
    bench_rng_seed(&rng, seed);
    const int dim = real_models[model]->dim;
    for (long i = 0; i < n; ++i) real_models[model]->sample_prior(&rng, x + i * dim);
}
