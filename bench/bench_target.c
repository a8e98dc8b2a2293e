/* Synthetic and real targets behind one interface (bench_target.h). */
#include "bench_target.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "real_truth.h"

static int open_synthetic(bench_target *t, const bench_problem *p) {
    t->problem = p;
    t->family = bench_family_name(p->family);
    t->dim = p->dim;
    t->lml = p->lml;
    t->mean = p->mean;
    t->cov = p->cov;
    for (int i = 0; i < p->dim; ++i) {
        t->lb[i] = -INFINITY; /* no hard bounds */
        t->ub[i] = INFINITY;
        t->plb[i] = p->plb[i];
        t->pub[i] = p->pub[i];
    }
    return 0;
}

static int open_real(bench_target *t, const char *model_name, bench_box box, const char *data_dir,
                     char *error, size_t error_size) {
    const real_model *model = real_model_find(model_name);
    const real_truth *truth = real_truth_find(model_name);
    if (!model || !truth || truth->dim != model->dim) {
        snprintf(error, error_size, "unknown real problem %s (see --list-real)", model_name);
        return -1;
    }
    char path[4096], detail[REAL_ERROR_SIZE];
    snprintf(path, sizeof path, "%s/%s.data", data_dir, model_name);
    if (real_target_load(&t->real, model, path, detail) != 0) {
        snprintf(error, error_size, "%s", detail);
        return -1;
    }
    t->family = "real";
    t->dim = model->dim;
    t->lml = truth->lml;
    t->mean = truth->mean;
    t->cov = truth->cov;
    const double *lower = box == BENCH_BOX_PRIOR ? truth->prior_lower : truth->informed_lower;
    const double *upper = box == BENCH_BOX_PRIOR ? truth->prior_upper : truth->informed_upper;
    for (int i = 0; i < model->dim; ++i) {
        t->lb[i] = model->lb[i];
        t->ub[i] = model->ub[i];
        t->plb[i] = lower[i];
        t->pub[i] = upper[i];
    }
    return 0;
}

int bench_target_open(bench_target *target, const char *name, bench_box box, const char *data_dir,
                      char *error, size_t error_size) {
    memset(target, 0, sizeof *target);
    target->name = name;
    const size_t prefix = strlen(BENCH_REAL_PREFIX);
    if (strncmp(name, BENCH_REAL_PREFIX, prefix) == 0)
        return open_real(target, name + prefix, box, data_dir, error, error_size);
    const bench_problem *p = bench_problem_find(name);
    if (!p) {
        snprintf(error, error_size, "unknown problem %s (see --list and --list-real)", name);
        return -1;
    }
    return open_synthetic(target, p);
}

void bench_target_close(bench_target *target) {
    if (target->real.model) real_target_free(&target->real);
}

double bench_target_log_joint(const bench_target *target, const double *x) {
    return target->problem ? bench_log_joint(target->problem, x)
                           : real_log_joint(&target->real, x);
}
