/*
 * MEX gateway to the libvbmc C API, one file for MATLAB's `mex` and Octave's `mkoctfile --mex`.
 * Called as vbmc_mex(command, ...) by the classes VBMC and VBMCPosterior; every command converts
 * its arguments, makes one library call and converts the result back.
 *
 * Handles: runs and posteriors are kept in a registry inside the MEX file and passed to MATLAB as
 * numeric ids, checked on every use, so a stale or forged id raises an error instead of touching
 * freed memory. Everything still registered is released when the MEX file is cleared.
 *
 * Point sets: MATLAB holds n points as an n x dim matrix (column-major); the C API takes row-major
 * x[n*dim]; the gateway transposes. Errors are raised with identifiers "vbmc:E_ARG", ... and the
 * library's message.
 *
 * Output: every run's logger prints with mexPrintf, so the iteration table appears in the MATLAB
 * desktop or Octave's console (and in evalc), not on C's stderr.
 *
 * A prior given as a MATLAB function (VBMCRun.set_prior_fn): the library calls the prior callback
 * inside vbmc_tell and vbmc_log_prior, where no MATLAB code may run (an error there would jump over
 * the library's frames). The class evaluates the function first and passes its value with x; the
 * gateway leaves (x, value) in the run's prior cell, which the callback answers from.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mex.h"

#include <vbmc/vbmc.h>

/* ---- handle registry ------------------------------------------------------------------- */

enum handle_kind { KIND_RUN = 1, KIND_POST = 2 };

/* The value of a run's MATLAB prior function at the last point the class evaluated it at. A warm
 * start copies the callback with this cell as its userdata, so the cell counts its runs. */
struct prior_cell {
    int dim, users;
    double value;
    double x[];
};

struct registered {
    double id;
    enum handle_kind kind;
    void *address;
    struct prior_cell *prior; /* runs given a prior function only */
    struct registered *next;
};

/* The library's prior callback: the value left for exactly this x; NaN (the call fails with the
 * library's message) for any other. */
static double cell_log_prior(const double *x, void *userdata)
{
    const struct prior_cell *cell = (const struct prior_cell *)userdata;
    return memcmp(x, cell->x, (size_t)cell->dim * sizeof *x) == 0 ? cell->value : mxGetNaN();
}

static void cell_release(struct prior_cell *cell)
{
    if (cell != NULL && --cell->users == 0)
        free(cell);
}

static struct registered *registry = NULL;
static double next_id = 1.0;

static void release(struct registered *entry)
{
    if (entry->kind == KIND_RUN) {
        vbmc_destroy((vbmc *)entry->address);
        cell_release(entry->prior);
    } else {
        vbmc_post_destroy((vbmc_post *)entry->address);
    }
    free(entry);
}

static void release_all(void)
{
    while (registry != NULL) {
        struct registered *entry = registry;
        registry = entry->next;
        release(entry);
    }
}

static mxArray *register_handle(void *address, enum handle_kind kind)
{
    struct registered *entry = (struct registered *)malloc(sizeof *entry);
    if (entry == NULL) {
        if (kind == KIND_RUN)
            vbmc_destroy((vbmc *)address);
        else
            vbmc_post_destroy((vbmc_post *)address);
        mexErrMsgIdAndTxt("vbmc:E_NOMEM", "out of memory registering a handle");
    }
    entry->id = next_id;
    next_id += 1.0;
    entry->kind = kind;
    entry->address = address;
    entry->prior = NULL;
    entry->next = registry;
    registry = entry;
    return mxCreateDoubleScalar(entry->id);
}

static struct registered *lookup_entry(const mxArray *id, enum handle_kind kind)
{
    if (mxIsDouble(id) && mxGetNumberOfElements(id) == 1) {
        const double wanted = mxGetScalar(id);
        for (struct registered *entry = registry; entry != NULL; entry = entry->next)
            if (entry->id == wanted && entry->kind == kind)
                return entry;
    }
    mexErrMsgIdAndTxt("vbmc:handle", "not a live %s handle (released, or from a cleared MEX file)",
                      kind == KIND_RUN ? "run" : "posterior");
    return NULL;
}

static void *lookup(const mxArray *id, enum handle_kind kind)
{
    return lookup_entry(id, kind)->address;
}

static void unregister(const mxArray *id, enum handle_kind kind)
{
    if (!mxIsDouble(id) || mxGetNumberOfElements(id) != 1)
        return;
    const double wanted = mxGetScalar(id);
    for (struct registered **link = &registry; *link != NULL; link = &(*link)->next) {
        if ((*link)->id == wanted && (*link)->kind == kind) {
            struct registered *entry = *link;
            *link = entry->next;
            release(entry);
            return;
        }
    }
}

/* ---- errors and arguments -------------------------------------------------------------- */

static void raise_status(vbmc_status status, const char *message)
{
    char id[64];
    snprintf(id, sizeof id, "vbmc:%s", vbmc_status_name(status) + strlen("VBMC_"));
    mexErrMsgIdAndTxt(id, "%s", message);
}

static void check_run(vbmc_status status, const vbmc *run)
{
    if (status < 0)
        raise_status(status, vbmc_last_error(run));
}

/* Failed vbmc_post_* calls leave their message in the thread's handle-less error. */
static void check_post(vbmc_status status)
{
    if (status < 0)
        raise_status(status, vbmc_last_error(NULL));
}

static void print_line(void *userdata, int level, const char *line)
{
    (void)userdata;
    mexPrintf("%s%s\n", level <= VBMC_LOG_WARN ? "Warning: " : "", line);
}

static mxArray *register_run(vbmc *run)
{
    vbmc_set_logger(run, print_line, NULL);
    return register_handle(run, KIND_RUN);
}

static void need_args(int nrhs, int wanted, const char *command)
{
    if (nrhs != wanted)
        mexErrMsgIdAndTxt("vbmc:E_ARG", "vbmc_mex('%s', ...) takes %d arguments, not %d", command,
                          wanted - 1, nrhs - 1);
}

/* A real vector of dim elements, or NULL for []. */
static const double *optional_vector(const mxArray *value, size_t dim, const char *what)
{
    if (mxIsEmpty(value))
        return NULL;
    if (!mxIsDouble(value) || mxIsComplex(value) || mxGetNumberOfElements(value) != dim)
        mexErrMsgIdAndTxt("vbmc:E_ARG", "%s must be a real vector of %d elements", what, (int)dim);
    return mxGetPr(value);
}

static const double *required_vector(const mxArray *value, size_t dim, const char *what)
{
    const double *values = optional_vector(value, dim, what);
    if (values == NULL)
        mexErrMsgIdAndTxt("vbmc:E_ARG", "%s must be a real vector of %d elements", what, (int)dim);
    return values;
}

static double scalar(const mxArray *value, const char *what)
{
    if (!mxIsNumeric(value) || mxIsComplex(value) || mxGetNumberOfElements(value) != 1)
        mexErrMsgIdAndTxt("vbmc:E_ARG", "%s must be a real scalar", what);
    return mxGetScalar(value);
}

/* A string owned by MATLAB's allocator (freed automatically when the MEX call returns). */
static char *text(const mxArray *value, const char *what)
{
    char *chars = mxIsChar(value) ? mxArrayToString(value) : NULL;
    if (chars == NULL)
        mexErrMsgIdAndTxt("vbmc:E_ARG", "%s must be a character vector", what);
    return chars;
}

/* Row-major copy of an n x dim matrix (mxMalloc: freed when the MEX call returns). */
static double *row_major(const mxArray *matrix, size_t n, size_t dim)
{
    const double *columns = mxGetPr(matrix);
    double *rows = (double *)mxMalloc((n * dim + 1) * sizeof(double));
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < dim; ++j)
            rows[i * dim + j] = columns[i + j * n];
    return rows;
}

static mxArray *column_major(const double *rows, size_t n, size_t dim)
{
    mxArray *matrix = mxCreateDoubleMatrix(n, dim, mxREAL);
    double *columns = mxGetPr(matrix);
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < dim; ++j)
            columns[i + j * n] = rows[i * dim + j];
    return matrix;
}

/* ---- commands -------------------------------------------------------------------------- */

static mxArray *options_table(void)
{
    const char *fields[4] = {"name", "type", "default", "help"};
    const char *(*columns[4])(int) = {vbmc_opts_name, vbmc_opts_type, vbmc_opts_default,
                                      vbmc_opts_help};
    const int count = vbmc_opts_count();
    mxArray *table = mxCreateStructMatrix((size_t)count, 1, 4, fields);
    for (int i = 0; i < count; ++i)
        for (int c = 0; c < 4; ++c)
            mxSetFieldByNumber(table, (size_t)i, c, mxCreateString(columns[c](i)));
    return table;
}

/* Options from a scalar struct: logical -> "true"/"false", numeric -> double, char -> text.
 * On failure returns the status and writes the reason into message[size]. */
static vbmc_status apply_options(vbmc_opts *opts, const mxArray *settings, char *message,
                                 size_t size)
{
    if (mxIsEmpty(settings))
        return VBMC_OK;
    if (!mxIsStruct(settings) || mxGetNumberOfElements(settings) != 1) {
        snprintf(message, size, "options must be a scalar struct");
        return VBMC_E_ARG;
    }
    for (int f = 0; f < mxGetNumberOfFields(settings); ++f) {
        const char *name = mxGetFieldNameByNumber(settings, f);
        const mxArray *value = mxGetFieldByNumber(settings, 0, f);
        vbmc_status status;
        if (value != NULL && mxIsLogical(value) && mxGetNumberOfElements(value) == 1)
            status = vbmc_opts_set(opts, name, mxIsLogicalScalarTrue(value) ? "true" : "false");
        else if (value != NULL && mxIsChar(value))
            status = vbmc_opts_set(opts, name, text(value, name));
        else if (value != NULL && mxIsNumeric(value) && !mxIsComplex(value) &&
                 mxGetNumberOfElements(value) == 1)
            status = vbmc_opts_set_double(opts, name, mxGetScalar(value));
        else {
            snprintf(message, size, "option %s must be a logical or real scalar or a string", name);
            return VBMC_E_OPTION;
        }
        if (status != VBMC_OK) {
            snprintf(message, size, "%s", vbmc_opts_error(opts));
            return status;
        }
    }
    return VBMC_OK;
}

/* create(lb, ub, plb, pub, x0, options): dim is numel(plb). */
static mxArray *create(const mxArray *const *args)
{
    const size_t dim = mxGetNumberOfElements(args[2]);
    const double *lb = optional_vector(args[0], dim, "lb");
    const double *ub = optional_vector(args[1], dim, "ub");
    const double *plb = optional_vector(args[2], dim, "plb");
    const double *pub = optional_vector(args[3], dim, "pub");
    const double *x0 = optional_vector(args[4], dim, "x0");
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    vbmc_status status;
    if (vbmc_opts_create(&opts) != VBMC_OK)
        mexErrMsgIdAndTxt("vbmc:E_NOMEM", "vbmc_opts_create failed");
    char message[512];
    status = apply_options(opts, args[5], message, sizeof message);
    if (status != VBMC_OK) {
        vbmc_opts_destroy(opts);
        raise_status(status, message);
    }
    status = vbmc_create(&run, (int)dim, x0, lb, ub, plb, pub, opts);
    vbmc_opts_destroy(opts);
    check_run(status, NULL);
    return register_run(run);
}

/* One series of vbmc_history, n x 1 over the completed iterations. */
static mxArray *history_series(vbmc *run, const char *name)
{
    double iterations = 0.0;
    check_run(vbmc_stat(run, "iteration", &iterations), run);
    mxArray *values = mxCreateDoubleMatrix((size_t)iterations, 1, mxREAL);
    check_run(vbmc_history(run, name, (size_t)iterations, mxGetPr(values)), run);
    return values;
}

/* struct(X (n x dim), log_joint, log_joint_sd (n x 1), in_training (n x 1 logical)) */
static mxArray *evaluations(vbmc *run)
{
    const char *fields[4] = {"X", "log_joint", "log_joint_sd", "in_training"};
    const size_t dim = (size_t)vbmc_dim(run);
    double count = 0.0;
    check_run(vbmc_stat(run, "func_count", &count), run);
    const size_t n = (size_t)count;
    double *rows = (double *)mxMalloc((n * dim + 1) * sizeof(double));
    int *used = (int *)mxMalloc((n + 1) * sizeof(int));
    mxArray *log_joint = mxCreateDoubleMatrix(n, 1, mxREAL);
    mxArray *sd = mxCreateDoubleMatrix(n, 1, mxREAL);
    check_run(vbmc_evaluations(run, n, rows, mxGetPr(log_joint), mxGetPr(sd), used), run);
    mxArray *in_training = mxCreateLogicalMatrix(n, 1);
    for (size_t i = 0; i < n; ++i)
        mxGetLogicals(in_training)[i] = used[i] != 0;
    mxArray *record = mxCreateStructMatrix(1, 1, 4, fields);
    mxSetFieldByNumber(record, 0, 0, column_major(rows, n, dim));
    mxSetFieldByNumber(record, 0, 1, log_joint);
    mxSetFieldByNumber(record, 0, 2, sd);
    mxSetFieldByNumber(record, 0, 3, in_training);
    return record;
}

/* A whole number in [lowest, 1e9] (a 1-based index or a count). */
static int whole(const mxArray *value, const char *what, int lowest)
{
    const double number = scalar(value, what);
    if (!(number >= lowest && number <= 1e9 && number == (double)(int)number))
        mexErrMsgIdAndTxt("vbmc:E_ARG", "%s must be a whole number >= %d", what, lowest);
    return (int)number;
}

/* Leave value (the class's prior function at x) for cell_log_prior; the run must have a cell. */
static void prime_prior(struct registered *entry, const double *x, const mxArray *value)
{
    struct prior_cell *cell = entry->prior;
    if (cell == NULL)
        mexErrMsgIdAndTxt("vbmc:E_STATE", "this run has no prior function (set_prior_fn)");
    cell->value = scalar(value, "log_prior");
    memcpy(cell->x, x, (size_t)cell->dim * sizeof *x);
}

/* set_prior_fn: a new prior cell for the run, its callback given to the library. */
static void set_prior_fn(struct registered *entry, size_t dim)
{
    struct prior_cell *cell = (struct prior_cell *)calloc(1, sizeof *cell + dim * sizeof(double));
    if (cell == NULL)
        mexErrMsgIdAndTxt("vbmc:E_NOMEM", "out of memory");
    cell->dim = (int)dim;
    cell->users = 1;
    for (size_t d = 0; d < dim; ++d)
        cell->x[d] = mxGetNaN(); /* no point primed yet */
    vbmc *run = (vbmc *)entry->address;
    const vbmc_status status = vbmc_set_prior_fn(run, cell_log_prior, cell);
    if (status != VBMC_OK) {
        free(cell);
        check_run(status, run);
    }
    cell_release(entry->prior);
    entry->prior = cell;
}

/* The run commands of priors and past iterations: set_prior (coord 1-based, kind, params),
 * set_prior_fn, log_prior (x [, value of the prior function at x]), evaluations_prior,
 * history_posterior (iteration 1-based), history_action (iteration 1-based).
 * Returns 0 for another command. */
static int workflow_command(const char *command, struct registered *entry, size_t dim, mxArray **plhs, int nrhs,
                            const mxArray **prhs)
{
    vbmc *run = (vbmc *)entry->address;
    if (strcmp(command, "set_prior_fn") == 0) {
        need_args(nrhs, 2, command);
        set_prior_fn(entry, dim);
    } else if (strcmp(command, "set_prior") == 0) {
        need_args(nrhs, 5, command);
        const mxArray *params = prhs[4];
        if (!mxIsDouble(params) || mxIsComplex(params))
            mexErrMsgIdAndTxt("vbmc:E_ARG", "params must be a real vector");
        check_run(vbmc_set_prior(run, whole(prhs[2], "coord", 1) - 1, text(prhs[3], "kind"), mxGetPr(params),
                                 (int)mxGetNumberOfElements(params)),
                  run);
    } else if (strcmp(command, "log_prior") == 0) {
        if (nrhs != 3)
            need_args(nrhs, 4, command);
        const double *x = required_vector(prhs[2], dim, "x");
        if (nrhs == 4)
            prime_prior(entry, x, prhs[3]);
        plhs[0] = mxCreateDoubleMatrix(1, 1, mxREAL);
        check_run(vbmc_log_prior(run, x, mxGetPr(plhs[0])), run);
    } else if (strcmp(command, "history_posterior") == 0) {
        need_args(nrhs, 3, command);
        vbmc_post *post = NULL;
        check_run(vbmc_history_posterior(run, whole(prhs[2], "iteration", 1) - 1, &post), run);
        plhs[0] = register_handle(post, KIND_POST);
    } else if (strcmp(command, "evaluations_prior") == 0) {
        /* [log_likelihood, log_prior], n x 1 each, for a run with a prior */
        double count = 0.0;
        check_run(vbmc_stat(run, "func_count", &count), run);
        plhs[0] = mxCreateDoubleMatrix((size_t)count, 1, mxREAL);
        plhs[1] = mxCreateDoubleMatrix((size_t)count, 1, mxREAL);
        check_run(vbmc_evaluations_prior(run, (size_t)count, mxGetPr(plhs[0]), mxGetPr(plhs[1])), run);
    } else if (strcmp(command, "history_action") == 0) {
        need_args(nrhs, 3, command);
        char action[1024];
        check_run(vbmc_history_action(run, whole(prhs[2], "iteration", 1) - 1, action, sizeof action), run);
        plhs[0] = mxCreateString(action);
    } else {
        return 0;
    }
    return 1;
}

static void run_command(const char *command, int nlhs, mxArray **plhs, int nrhs,
                        const mxArray **prhs)
{
    struct registered *entry = lookup_entry(prhs[1], KIND_RUN);
    vbmc *run = (vbmc *)entry->address;
    const size_t dim = (size_t)vbmc_dim(run);
    (void)nlhs;
    if (strcmp(command, "dim") == 0) {
        plhs[0] = mxCreateDoubleScalar((double)dim);
    } else if (strcmp(command, "ask") == 0) {
        /* [x, status]: x is 1 x dim, or [] when status is VBMC_DONE or VBMC_WAIT. */
        mxArray *x = mxCreateDoubleMatrix(1, dim, mxREAL);
        const vbmc_status status = vbmc_ask(run, mxGetPr(x));
        check_run(status, run);
        if (status != VBMC_OK) {
            mxDestroyArray(x);
            x = mxCreateDoubleMatrix(0, 0, mxREAL);
        }
        plhs[0] = x;
        plhs[1] = mxCreateDoubleScalar((double)status);
    } else if (strcmp(command, "tell") == 0 || strcmp(command, "tell_extra") == 0) {
        /* x, log_joint, sd [, value of the prior function at x] */
        if (nrhs != 5)
            need_args(nrhs, 6, command);
        const double *x = required_vector(prhs[2], dim, "x");
        const double log_joint = scalar(prhs[3], "log_joint");
        const double sd = scalar(prhs[4], "sd");
        if (nrhs == 6)
            prime_prior(entry, x, prhs[5]);
        check_run(strcmp(command, "tell") == 0 ? vbmc_tell(run, x, log_joint, sd)
                                               : vbmc_tell_extra(run, x, log_joint, sd),
                  run);
    } else if (strcmp(command, "abandon") == 0) {
        need_args(nrhs, 3, command);
        check_run(vbmc_abandon(run, required_vector(prhs[2], dim, "x")), run);
    } else if (strcmp(command, "pending") == 0) {
        double count = 0.0;
        check_run(vbmc_stat(run, "pending", &count), run);
        double *rows = (double *)mxMalloc(((size_t)count * dim + 1) * sizeof(double));
        for (int i = 0; i < (int)count; ++i)
            check_run(vbmc_pending_point(run, i, rows + (size_t)i * dim), run);
        plhs[0] = column_major(rows, (size_t)count, dim);
    } else if (strcmp(command, "stat") == 0) {
        need_args(nrhs, 3, command);
        double value = 0.0;
        check_run(vbmc_stat(run, text(prhs[2], "name"), &value), run);
        plhs[0] = mxCreateDoubleScalar(value);
    } else if (strcmp(command, "result_message") == 0) {
        plhs[0] = mxCreateString(vbmc_result_message(run));
    } else if (strcmp(command, "posterior") == 0) {
        vbmc_post *post = NULL;
        check_run(vbmc_posterior(run, &post), run);
        plhs[0] = register_handle(post, KIND_POST);
    } else if (strcmp(command, "save") == 0) {
        need_args(nrhs, 3, command);
        check_run(vbmc_save(run, text(prhs[2], "path")), run);
    } else if (strcmp(command, "history") == 0) {
        need_args(nrhs, 3, command);
        plhs[0] = history_series(run, text(prhs[2], "name"));
    } else if (strcmp(command, "evaluations") == 0) {
        plhs[0] = evaluations(run);
    } else if (!workflow_command(command, entry, dim, plhs, nrhs, prhs)) {
        mexErrMsgIdAndTxt("vbmc:E_ARG", "unknown command '%s'", command);
    }
}

/* n and seed of a draw command: whole numbers in [0, 1e12] and [0, 2^53]. */
static void draw_counts(const mxArray **prhs, size_t *n, uint64_t *seed)
{
    const double n_value = scalar(prhs[2], "n"), seed_value = scalar(prhs[3], "seed");
    if (!(n_value >= 0.0 && n_value <= 1e12 && n_value == (double)(size_t)n_value))
        mexErrMsgIdAndTxt("vbmc:E_ARG", "n must be a whole number >= 0");
    if (!(seed_value >= 0.0 && seed_value <= 9007199254740992.0 && seed_value == (double)(uint64_t)seed_value))
        mexErrMsgIdAndTxt("vbmc:E_ARG", "seed must be a whole number between 0 and 2^53");
    *n = (size_t)n_value;
    *seed = (uint64_t)seed_value;
}

/* The refined-draw commands: post_sample_refined (n, seed) -> n x dim, post_refined_elbo (n, seed)
 * -> [elbo, elbo_sd], post_set_refinement (aux_count, variance_ratio). Returns 0 for another command. */
static int refine_command(const char *command, vbmc_post *post, size_t dim, mxArray **plhs, int nrhs,
                          const mxArray **prhs)
{
    size_t n;
    uint64_t seed;
    if (strcmp(command, "post_sample_refined") == 0) {
        need_args(nrhs, 4, command);
        draw_counts(prhs, &n, &seed);
        double *rows = (double *)mxMalloc((n * dim + 1) * sizeof(double));
        check_post(vbmc_post_sample_refined(post, n, seed, rows));
        plhs[0] = column_major(rows, n, dim);
    } else if (strcmp(command, "post_refined_elbo") == 0) {
        need_args(nrhs, 4, command);
        draw_counts(prhs, &n, &seed);
        plhs[0] = mxCreateDoubleMatrix(1, 1, mxREAL);
        plhs[1] = mxCreateDoubleMatrix(1, 1, mxREAL);
        check_post(vbmc_post_refined_elbo(post, n, seed, mxGetPr(plhs[0]), mxGetPr(plhs[1])));
    } else if (strcmp(command, "post_set_refinement") == 0) {
        need_args(nrhs, 4, command);
        const double aux_count = scalar(prhs[2], "aux_count");
        if (!(aux_count >= -1e9 && aux_count <= 1e9 && aux_count == (double)(int)aux_count))
            mexErrMsgIdAndTxt("vbmc:E_ARG", "aux_count must be a whole number");
        check_post(vbmc_post_set_refinement(post, (int)aux_count, scalar(prhs[3], "variance_ratio")));
    } else {
        return 0;
    }
    return 1;
}

/* The comparison commands: post_mode -> 1 x dim, post_marginal_pdf (coord 1-based, values) ->
 * pdf of the values' shape, post_kl (other, n, seed) -> [kl (1 x 2), kl_sd (1 x 2)], post_mtv
 * (other, n, seed) -> 1 x dim, post_log_evidence -> [log_z, log_z_sd]. Returns 0 for another command. */
static int compare_command(const char *command, vbmc_post *post, size_t dim, mxArray **plhs, int nrhs,
                           const mxArray **prhs)
{
    size_t n;
    uint64_t seed;
    if (strcmp(command, "post_mode") == 0) {
        plhs[0] = mxCreateDoubleMatrix(1, dim, mxREAL);
        check_post(vbmc_post_mode(post, mxGetPr(plhs[0])));
    } else if (strcmp(command, "post_log_evidence") == 0) {
        plhs[0] = mxCreateDoubleMatrix(1, 1, mxREAL);
        plhs[1] = mxCreateDoubleMatrix(1, 1, mxREAL);
        check_post(vbmc_post_log_evidence(post, mxGetPr(plhs[0]), mxGetPr(plhs[1])));
    } else if (strcmp(command, "post_marginal_pdf") == 0) {
        need_args(nrhs, 4, command);
        const mxArray *values = prhs[3];
        if (!mxIsDouble(values) || mxIsComplex(values))
            mexErrMsgIdAndTxt("vbmc:E_ARG", "values must be a real array");
        plhs[0] = mxCreateNumericArray(mxGetNumberOfDimensions(values), mxGetDimensions(values),
                                       mxDOUBLE_CLASS, mxREAL);
        check_post(vbmc_post_marginal_pdf(post, whole(prhs[2], "coord", 1) - 1, mxGetNumberOfElements(values),
                                          mxGetPr(values), mxGetPr(plhs[0])));
    } else if (strcmp(command, "post_kl") == 0 || strcmp(command, "post_mtv") == 0) {
        need_args(nrhs, 5, command);
        vbmc_post *other = (vbmc_post *)lookup(prhs[2], KIND_POST);
        draw_counts(prhs + 1, &n, &seed);
        if (strcmp(command, "post_kl") == 0) {
            plhs[0] = mxCreateDoubleMatrix(1, 2, mxREAL);
            plhs[1] = mxCreateDoubleMatrix(1, 2, mxREAL);
            check_post(vbmc_post_kl(post, other, n, seed, mxGetPr(plhs[0]), mxGetPr(plhs[1])));
        } else {
            plhs[0] = mxCreateDoubleMatrix(1, dim, mxREAL);
            check_post(vbmc_post_mtv(post, other, n, seed, mxGetPr(plhs[0]), NULL));
        }
    } else {
        return 0;
    }
    return 1;
}

static void post_command(const char *command, int nlhs, mxArray **plhs, int nrhs,
                         const mxArray **prhs)
{
    vbmc_post *post = (vbmc_post *)lookup(prhs[1], KIND_POST);
    const size_t dim = (size_t)vbmc_post_dim(post);
    (void)nlhs;
    if (strcmp(command, "post_info") == 0) {
        /* [dim, components, elbo, elbo_sd] */
        double elbo = 0.0, elbo_sd = 0.0;
        check_post(vbmc_post_elbo(post, &elbo, &elbo_sd));
        plhs[0] = mxCreateDoubleMatrix(1, 4, mxREAL);
        double *info = mxGetPr(plhs[0]);
        info[0] = (double)dim;
        info[1] = (double)vbmc_post_components(post);
        info[2] = elbo;
        info[3] = elbo_sd;
    } else if (strcmp(command, "post_sample") == 0) {
        need_args(nrhs, 4, command);
        size_t n;
        uint64_t seed;
        draw_counts(prhs, &n, &seed);
        /* [X, I]: I (n x 1) the 1-based mixture component of each draw, when asked for. */
        double *rows = (double *)mxMalloc((n * dim + 1) * sizeof(double));
        if (nlhs < 2) {
            check_post(vbmc_post_sample(post, n, seed, rows));
        } else {
            int *labels = (int *)mxMalloc((n + 1) * sizeof(int));
            check_post(vbmc_post_sample_components(post, n, seed, rows, labels));
            plhs[1] = mxCreateDoubleMatrix(n, 1, mxREAL);
            for (size_t i = 0; i < n; ++i)
                mxGetPr(plhs[1])[i] = labels[i] + 1.0;
        }
        plhs[0] = column_major(rows, n, dim);
    } else if (strcmp(command, "post_log_pdf") == 0) {
        need_args(nrhs, 3, command);
        const mxArray *x = prhs[2];
        if (!mxIsDouble(x) || mxIsComplex(x) || mxGetNumberOfDimensions(x) != 2 ||
            mxGetN(x) != dim)
            mexErrMsgIdAndTxt("vbmc:E_ARG", "X must be a real matrix with %d columns (one point per row), not %d x %d",
                              (int)dim, (int)mxGetM(x), (int)mxGetN(x));
        const size_t n = mxGetM(x);
        plhs[0] = mxCreateDoubleMatrix(n, 1, mxREAL);
        check_post(vbmc_post_log_pdf(post, n, row_major(x, n, dim), mxGetPr(plhs[0])));
    } else if (strcmp(command, "post_moments") == 0) {
        /* [mean (1 x dim), cov (dim x dim)] */
        double *cov_rows = (double *)mxMalloc((dim * dim + 1) * sizeof(double));
        plhs[0] = mxCreateDoubleMatrix(1, dim, mxREAL);
        check_post(vbmc_post_moments(post, mxGetPr(plhs[0]), cov_rows));
        plhs[1] = column_major(cov_rows, dim, dim);
    } else if (strcmp(command, "post_save") == 0) {
        need_args(nrhs, 3, command);
        check_post(vbmc_post_save(post, text(prhs[2], "path")));
    } else if (!refine_command(command, post, dim, plhs, nrhs, prhs) &&
               !compare_command(command, post, dim, plhs, nrhs, prhs)) {
        mexErrMsgIdAndTxt("vbmc:E_ARG", "unknown command '%s'", command);
    }
}

/* create_warm(previous, reuse, options) */
static mxArray *create_warm(const mxArray *const *args)
{
    struct registered *previous_entry = lookup_entry(args[0], KIND_RUN);
    const vbmc *previous = (const vbmc *)previous_entry->address;
    const int reuse = mxIsLogicalScalarTrue(args[1]) || (mxIsNumeric(args[1]) && scalar(args[1], "reuse") != 0);
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    if (vbmc_opts_create(&opts) != VBMC_OK)
        mexErrMsgIdAndTxt("vbmc:E_NOMEM", "vbmc_opts_create failed");
    char message[512];
    vbmc_status status = apply_options(opts, args[2], message, sizeof message);
    if (status != VBMC_OK) {
        vbmc_opts_destroy(opts);
        raise_status(status, message);
    }
    status = vbmc_create_warm(&run, previous, opts, reuse);
    vbmc_opts_destroy(opts);
    check_run(status, NULL);
    mxArray *id = register_run(run);
    registry->prior = previous_entry->prior; /* the new run's callback is the previous run's */
    if (registry->prior != NULL)
        ++registry->prior->users;
    return id;
}

/* diagnose(ids, seed) -> struct(agree, best (1-based), converged_count, elbo_spread, max_skl,
 * max_mtv, skl, mtv (n x n), message); the diagnosis is released before any error is raised. */
static mxArray *diagnose(const mxArray *ids, const mxArray *seed_arg)
{
    static const char *stats[6] = {"agree", "best", "converged_count", "elbo_spread", "max_skl", "max_mtv"};
    const char *fields[9] = {"agree", "best", "converged_count", "elbo_spread", "max_skl", "max_mtv",
                             "skl", "mtv", "message"};
    if (!mxIsDouble(ids))
        mexErrMsgIdAndTxt("vbmc:E_ARG", "runs must be an array of VBMCRun objects");
    const int n = (int)mxGetNumberOfElements(ids);
    const double seed_value = scalar(seed_arg, "seed");
    if (!(seed_value >= 0.0 && seed_value <= 9007199254740992.0 && seed_value == (double)(uint64_t)seed_value))
        mexErrMsgIdAndTxt("vbmc:E_ARG", "seed must be a whole number between 0 and 2^53");
    const vbmc **runs = (const vbmc **)mxMalloc(((size_t)n + 1) * sizeof(vbmc *));
    for (int i = 0; i < n; ++i) {
        mxArray *id = mxCreateDoubleScalar(mxGetPr(ids)[i]);
        runs[i] = (const vbmc *)lookup(id, KIND_RUN);
        mxDestroyArray(id);
    }
    vbmc_diag *diag = NULL;
    check_post(vbmc_diagnose(runs, n, (uint64_t)seed_value, &diag));
    mxArray *out = mxCreateStructMatrix(1, 1, 9, fields);
    vbmc_status status = VBMC_OK;
    for (int i = 0; i < 6 && status == VBMC_OK; ++i) {
        double value = 0.0;
        status = vbmc_diag_stat(diag, stats[i], &value);
        mxSetFieldByNumber(out, 0, i, mxCreateDoubleScalar(i == 1 ? value + 1.0 : value));
    }
    for (int i = 0; i < 2 && status == VBMC_OK; ++i) {
        mxArray *matrix = mxCreateDoubleMatrix((size_t)n, (size_t)n, mxREAL);
        status = vbmc_diag_pairwise(diag, i == 0 ? "skl" : "mtv", (size_t)n, mxGetPr(matrix)); /* symmetric */
        mxSetFieldByNumber(out, 0, 6 + i, matrix);
    }
    mxSetFieldByNumber(out, 0, 8, mxCreateString(vbmc_diag_message(diag)));
    vbmc_diag_destroy(diag);
    check_post(status);
    return out;
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static int registered_exit = 0;
    const char *command;
    if (!registered_exit) {
        mexAtExit(release_all);
        registered_exit = 1;
    }
    if (nrhs < 1)
        mexErrMsgIdAndTxt("vbmc:E_ARG", "usage: vbmc_mex(command, ...)");
    command = text(prhs[0], "command");

    if (strcmp(command, "version") == 0) {
        plhs[0] = mxCreateString(vbmc_version());
    } else if (strcmp(command, "status_name") == 0) {
        need_args(nrhs, 2, command);
        plhs[0] = mxCreateString(vbmc_status_name((vbmc_status)scalar(prhs[1], "status")));
    } else if (strcmp(command, "options") == 0) {
        plhs[0] = options_table();
    } else if (strcmp(command, "create") == 0) {
        need_args(nrhs, 7, command);
        plhs[0] = create(prhs + 1);
    } else if (strcmp(command, "load") == 0) {
        need_args(nrhs, 2, command);
        vbmc *run = NULL;
        check_run(vbmc_load(&run, text(prhs[1], "path")), NULL);
        plhs[0] = register_run(run);
    } else if (strcmp(command, "create_warm") == 0) {
        need_args(nrhs, 4, command);
        plhs[0] = create_warm(prhs + 1);
    } else if (strcmp(command, "diagnose") == 0) {
        need_args(nrhs, 3, command);
        plhs[0] = diagnose(prhs[1], prhs[2]);
    } else if (strcmp(command, "post_load") == 0) {
        need_args(nrhs, 2, command);
        vbmc_post *post = NULL;
        check_run(vbmc_post_load(&post, text(prhs[1], "path")), NULL);
        plhs[0] = register_handle(post, KIND_POST);
    } else if (nrhs < 2) {
        mexErrMsgIdAndTxt("vbmc:E_ARG", "vbmc_mex('%s', handle, ...) needs a handle", command);
    } else if (strcmp(command, "destroy") == 0 || strcmp(command, "post_destroy") == 0) {
        /* Like free(NULL): an id that is not live (already released, or released with the MEX
         * file when Octave/MATLAB exits before the objects are deleted) is ignored. */
        unregister(prhs[1], strcmp(command, "destroy") == 0 ? KIND_RUN : KIND_POST);
    } else if (strncmp(command, "post_", 5) == 0) {
        post_command(command, nlhs, plhs, nrhs, prhs);
    } else {
        run_command(command, nlhs, plhs, nrhs, prhs);
    }
}
