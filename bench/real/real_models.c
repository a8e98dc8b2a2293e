/* The registry of real-posterior models and the bounds-aware log densities. */
#include "real_models.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const real_model real_model_arK, real_model_arma11, real_model_eight_schools,
    real_model_gp_regr, real_model_lotka_volterra, real_model_low_dim_gauss_mix,
    real_model_hmm_drive, real_model_sblrc, real_model_sblri, real_model_hmm_example;

const real_model *const real_models[] = {
    &real_model_arK,        &real_model_arma11,   &real_model_eight_schools,
    &real_model_gp_regr,    &real_model_lotka_volterra, &real_model_low_dim_gauss_mix,
    &real_model_hmm_drive,  &real_model_sblrc,    &real_model_sblri,
    &real_model_hmm_example};
const int real_model_count = (int)(sizeof real_models / sizeof real_models[0]);

const real_model *real_model_find(const char *name) {
    for (int i = 0; i < real_model_count; ++i)
        if (strcmp(real_models[i]->name, name) == 0) return real_models[i];
    return NULL;
}

int real_model_inside(const real_model *model, const double *x) {
    for (int i = 0; i < model->dim; ++i)
        if (!(x[i] > model->lb[i] && x[i] < model->ub[i])) return 0;
    return 1;
}

double real_log_prior(const real_model *model, const double *x) {
    return real_model_inside(model, x) ? model->log_prior(x) : -INFINITY;
}

int real_target_load(real_target *target, const real_model *model, const char *path, char *error) {
    target->model = model;
    target->data = NULL;
    if (real_data_read(path, &target->file, error) != 0) return -1;
    char detail[REAL_ERROR_SIZE];
    target->data = model->load(&target->file, detail);
    if (!target->data) {
        snprintf(error, REAL_ERROR_SIZE, "%s: %.200s", path, detail);
        real_data_free(&target->file);
        return -1;
    }
    return 0;
}

void real_target_free(real_target *target) {
    free(target->data);
    target->data = NULL;
    real_data_free(&target->file);
}

double real_log_joint(const real_target *target, const double *x) {
    const real_model *model = target->model;
    if (!real_model_inside(model, x)) return -INFINITY;
    return model->log_likelihood(target->data, x) + model->log_prior(x);
}
