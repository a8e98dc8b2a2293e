/*
 * .Call glue between R and the libvbmc C API. Every routine converts its arguments, makes one
 * library call and converts the result; nothing is computed here. Runs and posteriors live in
 * external pointers whose finalizers call the library's _destroy. Errors are raised through the
 * R function vbmc_raise() of the package namespace, as conditions of class "vbmc_error" carrying
 * the status and the library's message.
 *
 * Point sets: R holds n points as an n x dim matrix (column-major); the C API takes row-major
 * x[n*dim]; the glue transposes into and out of buffers from R_alloc (freed by R after the call).
 *
 * Library output: a run's logger appends each line to a buffer of its box (no R call may happen
 * inside the library, where an R error would unwind through C++ frames); the R wrappers take the
 * buffered lines after each call (take_log) and show them with message() / warning().
 *
 * A prior given as an R function: the library calls the prior callback inside vbmc_tell and
 * vbmc_log_prior, so the glue evaluates the R function before that call and leaves (x, value) in
 * the run's prior cell; the callback returns that value for that x (prior_cell below).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define R_NO_REMAP
#include <R.h>
#include <R_ext/Rdynload.h>
#include <Rinternals.h>

#include <vbmc/vbmc.h>

/* ---- errors ---------------------------------------------------------------------------- */

/* Signal a vbmc_error condition (does not return). */
static void raise_status(vbmc_status status, const char *message)
{
    SEXP namespace_env = PROTECT(R_FindNamespace(Rf_mkString("vbmc")));
    SEXP code = PROTECT(Rf_ScalarInteger((int)status));
    SEXP name = PROTECT(Rf_mkString(vbmc_status_name(status)));
    SEXP text = PROTECT(Rf_mkString(message));
    SEXP call = PROTECT(Rf_lang4(Rf_install("vbmc_raise"), code, name, text));
    Rf_eval(call, namespace_env);
    UNPROTECT(5);
    Rf_error("%s: %s", vbmc_status_name(status), message); /* not reached */
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

/* ---- handles --------------------------------------------------------------------------- */

/* The R function of vbmc_set_prior_fn and its value at the last point the glue evaluated it at.
 * A warm start copies the callback with this cell as its userdata, so the cell counts the runs
 * using it and releases the function with the last. */
struct prior_cell {
    SEXP fn;
    int dim, users;
    double value;
    double x[];
};

/* A run, its R prior function (if any), and the output its logger buffered since the R side last
 * took it: records "<level><line>\n" (level one digit), in `log`. */
struct run_box {
    vbmc *run;
    struct prior_cell *prior; /* NULL: no R prior function */
    char *log;
    size_t length, capacity;
};

/* The library's prior callback: the value the glue left for exactly this x; NaN (the call fails
 * with the library's message) for any other. */
static double cell_log_prior(const double *x, void *userdata)
{
    const struct prior_cell *cell = (const struct prior_cell *)userdata;
    return memcmp(x, cell->x, (size_t)cell->dim * sizeof *x) == 0 ? cell->value : R_NaN;
}

static void cell_release(struct prior_cell *cell)
{
    if (cell != NULL && --cell->users == 0) {
        R_ReleaseObject(cell->fn);
        free(cell);
    }
}

/* Evaluate the run's R prior function at x (an R error leaves here, before the library is
 * entered) and leave the value for cell_log_prior. */
static void prime_prior(const struct run_box *box, const double *x)
{
    struct prior_cell *cell = box->prior;
    if (cell == NULL)
        return;
    SEXP point = PROTECT(Rf_allocVector(REALSXP, cell->dim));
    memcpy(REAL(point), x, (size_t)cell->dim * sizeof *x);
    SEXP call = PROTECT(Rf_lang2(cell->fn, point));
    SEXP value = PROTECT(Rf_eval(call, R_GlobalEnv));
    if (!Rf_isNumeric(value) || XLENGTH(value) != 1)
        Rf_error("the prior function must return one number (the log prior density at x)");
    cell->value = Rf_asReal(value);
    memcpy(cell->x, x, (size_t)cell->dim * sizeof *x);
    UNPROTECT(3);
}

static void buffer_line(void *userdata, int level, const char *line)
{
    struct run_box *box = (struct run_box *)userdata;
    const size_t need = box->length + strlen(line) + 3;
    if (need > box->capacity) {
        size_t capacity = box->capacity ? 2 * box->capacity : 1024;
        while (capacity < need)
            capacity *= 2;
        char *grown = (char *)realloc(box->log, capacity);
        if (grown == NULL)
            return; /* out of memory: the line is dropped, never the run */
        box->log = grown;
        box->capacity = capacity;
    }
    box->length += (size_t)sprintf(box->log + box->length, "%d%s\n", level < 0 || level > 9 ? 2 : level,
                                   line);
}

static void run_finalizer(SEXP handle)
{
    struct run_box *box = (struct run_box *)R_ExternalPtrAddr(handle);
    if (box != NULL) {
        vbmc_destroy(box->run);
        cell_release(box->prior);
        free(box->log);
        free(box);
    }
    R_ClearExternalPtr(handle);
}

static void post_finalizer(SEXP handle)
{
    vbmc_post_destroy((vbmc_post *)R_ExternalPtrAddr(handle));
    R_ClearExternalPtr(handle);
}

static SEXP wrap_handle(void *address, const char *tag, R_CFinalizer_t finalizer)
{
    SEXP handle = PROTECT(R_MakeExternalPtr(address, Rf_install(tag), R_NilValue));
    R_RegisterCFinalizerEx(handle, finalizer, TRUE);
    UNPROTECT(1);
    return handle;
}

/* The external pointer of a new run: boxed with its log buffer, its logger pointed at it. */
static SEXP wrap_run(vbmc *run)
{
    struct run_box *box = (struct run_box *)calloc(1, sizeof *box);
    if (box == NULL) {
        vbmc_destroy(run);
        Rf_error("out of memory");
    }
    box->run = run;
    vbmc_set_logger(run, buffer_line, box);
    return wrap_handle(box, "vbmc_run", run_finalizer);
}

static void *unwrap_handle(SEXP handle, const char *tag)
{
    void *address;
    if (TYPEOF(handle) != EXTPTRSXP || R_ExternalPtrTag(handle) != Rf_install(tag))
        Rf_error("expected a %s handle", tag);
    address = R_ExternalPtrAddr(handle);
    if (address == NULL)
        Rf_error("this %s handle was released or comes from another R session", tag);
    return address;
}

#define BOX(handle) ((struct run_box *)unwrap_handle(handle, "vbmc_run"))
#define RUN(handle) (BOX(handle)->run)
#define POST(handle) ((vbmc_post *)unwrap_handle(handle, "vbmc_post"))

/* ---- argument conversion --------------------------------------------------------------- */

/* A double vector of length dim, or NULL for R's NULL. */
static const double *optional_vector(SEXP values, int dim, const char *what)
{
    if (Rf_isNull(values))
        return NULL;
    if (TYPEOF(values) != REALSXP || XLENGTH(values) != dim)
        Rf_error("%s must be a numeric vector of length %d", what, dim);
    return REAL(values);
}

static const char *string_arg(SEXP value, const char *what)
{
    if (!Rf_isString(value) || XLENGTH(value) != 1 || STRING_ELT(value, 0) == NA_STRING)
        Rf_error("%s must be a single string", what);
    return Rf_translateCharUTF8(STRING_ELT(value, 0));
}

/* Row-major copy x[n*dim] of an n x dim R matrix. */
static double *row_major(SEXP matrix, size_t n, int dim)
{
    const double *column_major = REAL(matrix);
    double *rows = (double *)R_alloc(n * (size_t)dim + 1, sizeof(double));
    for (size_t i = 0; i < n; ++i)
        for (int j = 0; j < dim; ++j)
            rows[i * (size_t)dim + (size_t)j] = column_major[i + (size_t)j * n];
    return rows;
}

/* An n x dim R matrix from row-major rows[n*dim]. */
static SEXP column_major(const double *rows, size_t n, int dim)
{
    SEXP matrix = PROTECT(Rf_allocMatrix(REALSXP, (int)n, dim));
    double *out = REAL(matrix);
    for (size_t i = 0; i < n; ++i)
        for (int j = 0; j < dim; ++j)
            out[i + (size_t)j * n] = rows[i * (size_t)dim + (size_t)j];
    UNPROTECT(1);
    return matrix;
}

/* ---- library and options --------------------------------------------------------------- */

static SEXP r_version(void)
{
    return Rf_mkString(vbmc_version());
}

static SEXP r_options(void)
{
    const int count = vbmc_opts_count();
    SEXP table = PROTECT(Rf_allocVector(VECSXP, 4));
    SEXP names = PROTECT(Rf_allocVector(STRSXP, 4));
    const char *(*columns[4])(int) = {vbmc_opts_name, vbmc_opts_type, vbmc_opts_default,
                                      vbmc_opts_help};
    const char *column_names[4] = {"name", "type", "default", "help"};
    for (int c = 0; c < 4; ++c) {
        SEXP column = Rf_allocVector(STRSXP, count);
        SET_VECTOR_ELT(table, c, column);
        for (int i = 0; i < count; ++i)
            SET_STRING_ELT(column, i, Rf_mkCharCE(columns[c](i), CE_UTF8));
        SET_STRING_ELT(names, c, Rf_mkChar(column_names[c]));
    }
    Rf_setAttrib(table, R_NamesSymbol, names);
    UNPROTECT(2);
    return table;
}

/* Set every entry of a named list on opts. On failure returns the status and writes the reason
 * into message[size] (the library's sentence, or why the R value cannot be an option value). */
static vbmc_status apply_options(vbmc_opts *opts, SEXP settings, char *message, size_t size)
{
    SEXP names = Rf_getAttrib(settings, R_NamesSymbol);
    for (R_xlen_t i = 0; i < XLENGTH(settings); ++i) {
        SEXP value = VECTOR_ELT(settings, i);
        const char *name = Rf_translateCharUTF8(STRING_ELT(names, i));
        vbmc_status status;
        if (XLENGTH(value) != 1 || !(Rf_isLogical(value) || Rf_isInteger(value) ||
                                     Rf_isReal(value) || Rf_isString(value))) {
            snprintf(message, size, "option %s must be a single logical, number or string", name);
            return VBMC_E_OPTION;
        }
        if (Rf_isLogical(value))
            status = vbmc_opts_set(opts, name, LOGICAL(value)[0] ? "true" : "false");
        else if (Rf_isInteger(value))
            status = vbmc_opts_set_int(opts, name, INTEGER(value)[0]);
        else if (Rf_isReal(value))
            status = vbmc_opts_set_double(opts, name, REAL(value)[0]);
        else
            status = vbmc_opts_set(opts, name, Rf_translateCharUTF8(STRING_ELT(value, 0)));
        if (status != VBMC_OK) {
            snprintf(message, size, "%s", vbmc_opts_error(opts));
            return status;
        }
    }
    return VBMC_OK;
}

/* ---- runs ------------------------------------------------------------------------------ */

static SEXP r_create(SEXP lb, SEXP ub, SEXP plb, SEXP pub, SEXP x0, SEXP settings)
{
    const int dim = Rf_isNull(plb) ? 0 : (int)XLENGTH(plb);
    const double *lb_values = optional_vector(lb, dim, "lb");
    const double *ub_values = optional_vector(ub, dim, "ub");
    const double *plb_values = optional_vector(plb, dim, "plb");
    const double *pub_values = optional_vector(pub, dim, "pub");
    const double *x0_values = optional_vector(x0, dim, "x0");
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    vbmc_status status;
    char message[512];

    if (vbmc_opts_create(&opts) != VBMC_OK)
        Rf_error("vbmc_opts_create failed");
    status = apply_options(opts, settings, message, sizeof message);
    if (status != VBMC_OK) {
        vbmc_opts_destroy(opts);
        raise_status(status, message);
    }
    status = vbmc_create(&run, dim, x0_values, lb_values, ub_values, plb_values, pub_values, opts);
    vbmc_opts_destroy(opts);
    check_run(status, NULL);
    return wrap_run(run);
}

static SEXP r_load(SEXP path)
{
    vbmc *run = NULL;
    check_run(vbmc_load(&run, string_arg(path, "path")), NULL);
    return wrap_run(run);
}

static SEXP r_save(SEXP handle, SEXP path)
{
    vbmc *run = RUN(handle);
    check_run(vbmc_save(run, string_arg(path, "path")), run);
    return R_NilValue;
}

static SEXP r_dim(SEXP handle)
{
    return Rf_ScalarInteger(vbmc_dim(RUN(handle)));
}

/* The next point, or NULL when the run has finished. */
static SEXP r_ask(SEXP handle)
{
    vbmc *run = RUN(handle);
    SEXP x = PROTECT(Rf_allocVector(REALSXP, vbmc_dim(run)));
    const vbmc_status status = vbmc_ask(run, REAL(x));
    check_run(status, run);
    UNPROTECT(1);
    return status == VBMC_OK ? x : R_NilValue;
}

/* list(status, x): x is NULL unless status is VBMC_OK (VBMC_DONE, VBMC_WAIT). */
static SEXP r_ask_status(SEXP handle)
{
    vbmc *run = RUN(handle);
    SEXP x = PROTECT(Rf_allocVector(REALSXP, vbmc_dim(run)));
    const vbmc_status status = vbmc_ask(run, REAL(x));
    check_run(status, run);
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
    SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(status));
    SET_VECTOR_ELT(out, 1, status == VBMC_OK ? x : R_NilValue);
    UNPROTECT(2);
    return out;
}

static SEXP r_tell(SEXP handle, SEXP x, SEXP log_joint, SEXP sd, SEXP extra)
{
    vbmc *run = RUN(handle);
    const double *point = optional_vector(x, vbmc_dim(run), "x");
    const double value = Rf_asReal(log_joint);
    const double noise = Rf_asReal(sd);
    if (point == NULL)
        Rf_error("x must be a numeric vector of length %d", vbmc_dim(run));
    prime_prior(BOX(handle), point);
    check_run(Rf_asLogical(extra) ? vbmc_tell_extra(run, point, value, noise)
                                  : vbmc_tell(run, point, value, noise),
              run);
    return R_NilValue;
}

static SEXP r_abandon(SEXP handle, SEXP x)
{
    vbmc *run = RUN(handle);
    const double *point = optional_vector(x, vbmc_dim(run), "x");
    if (point == NULL)
        Rf_error("x must be a numeric vector of length %d", vbmc_dim(run));
    check_run(vbmc_abandon(run, point), run);
    return R_NilValue;
}

static SEXP r_pending(SEXP handle)
{
    vbmc *run = RUN(handle);
    const int dim = vbmc_dim(run);
    double count = 0.0;
    double *rows;
    check_run(vbmc_stat(run, "pending", &count), run);
    rows = (double *)R_alloc((size_t)count * (size_t)dim + 1, sizeof(double));
    for (int i = 0; i < (int)count; ++i)
        check_run(vbmc_pending_point(run, i, rows + (size_t)i * (size_t)dim), run);
    return column_major(rows, (size_t)count, dim);
}

static SEXP r_stat(SEXP handle, SEXP name)
{
    vbmc *run = RUN(handle);
    double value = 0.0;
    check_run(vbmc_stat(run, string_arg(name, "name"), &value), run);
    return Rf_ScalarReal(value);
}

/* How the run ended ("" while it is going on). */
static SEXP r_result_message(SEXP handle)
{
    SEXP text = PROTECT(Rf_allocVector(STRSXP, 1));
    SET_STRING_ELT(text, 0, Rf_mkCharCE(vbmc_result_message(RUN(handle)), CE_UTF8));
    UNPROTECT(1);
    return text;
}

static SEXP r_posterior(SEXP handle)
{
    vbmc *run = RUN(handle);
    vbmc_post *post = NULL;
    check_run(vbmc_posterior(run, &post), run);
    return wrap_handle(post, "vbmc_post", post_finalizer);
}

/* Whether an external pointer still points at something (FALSE after saveRDS / readRDS). */
static SEXP r_alive(SEXP handle)
{
    return Rf_ScalarLogical(TYPEOF(handle) == EXTPTRSXP && R_ExternalPtrAddr(handle) != NULL);
}

/* The buffered output lines (character), with attribute "level" (integer VBMC_LOG_*); emptied. */
static SEXP r_take_log(SEXP handle)
{
    struct run_box *box = BOX(handle);
    R_xlen_t count = 0;
    for (size_t i = 0; i < box->length; ++i)
        count += box->log[i] == '\n';
    SEXP lines = PROTECT(Rf_allocVector(STRSXP, count));
    SEXP levels = PROTECT(Rf_allocVector(INTSXP, count));
    const char *record = box->log;
    for (R_xlen_t i = 0; i < count; ++i) {
        const char *end = strchr(record, '\n');
        INTEGER(levels)[i] = record[0] - '0';
        SET_STRING_ELT(lines, i, Rf_mkCharLenCE(record + 1, (int)(end - record - 1), CE_UTF8));
        record = end + 1;
    }
    box->length = 0;
    Rf_setAttrib(lines, Rf_install("level"), levels);
    UNPROTECT(2);
    return lines;
}

/* One series of vbmc_history over the completed iterations. */
static SEXP r_history(SEXP handle, SEXP name)
{
    vbmc *run = RUN(handle);
    double iterations = 0.0;
    check_run(vbmc_stat(run, "iteration", &iterations), run);
    SEXP values = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)iterations));
    check_run(vbmc_history(run, string_arg(name, "name"), (size_t)iterations, REAL(values)), run);
    UNPROTECT(1);
    return values;
}

/* list(x = n x dim matrix, log_joint, log_joint_sd, in_training (logical)) */
static SEXP r_evaluations(SEXP handle)
{
    vbmc *run = RUN(handle);
    const int dim = vbmc_dim(run);
    double count = 0.0;
    check_run(vbmc_stat(run, "func_count", &count), run);
    const size_t n = (size_t)count;
    double *rows = (double *)R_alloc(n * (size_t)dim + 1, sizeof(double));
    int *used = (int *)R_alloc(n + 1, sizeof(int));
    SEXP record = PROTECT(Rf_allocVector(VECSXP, 4));
    SEXP names = PROTECT(Rf_allocVector(STRSXP, 4));
    SEXP log_joint = Rf_allocVector(REALSXP, (R_xlen_t)n);
    SET_VECTOR_ELT(record, 1, log_joint);
    SEXP sd = Rf_allocVector(REALSXP, (R_xlen_t)n);
    SET_VECTOR_ELT(record, 2, sd);
    SEXP in_training = Rf_allocVector(LGLSXP, (R_xlen_t)n);
    SET_VECTOR_ELT(record, 3, in_training);
    check_run(vbmc_evaluations(run, n, rows, REAL(log_joint), REAL(sd), used), run);
    for (size_t i = 0; i < n; ++i)
        LOGICAL(in_training)[i] = used[i];
    SET_VECTOR_ELT(record, 0, column_major(rows, n, dim));
    const char *fields[4] = {"x", "log_joint", "log_joint_sd", "in_training"};
    for (int i = 0; i < 4; ++i)
        SET_STRING_ELT(names, i, Rf_mkChar(fields[i]));
    Rf_setAttrib(record, R_NamesSymbol, names);
    UNPROTECT(2);
    return record;
}

/* list(log_likelihood, log_prior): the two parts of every evaluation of a run with a prior. */
static SEXP r_evaluations_prior(SEXP handle)
{
    vbmc *run = RUN(handle);
    double count = 0.0;
    check_run(vbmc_stat(run, "func_count", &count), run);
    SEXP parts = PROTECT(Rf_allocVector(VECSXP, 2));
    SEXP names = PROTECT(Rf_allocVector(STRSXP, 2));
    SEXP log_likelihood = Rf_allocVector(REALSXP, (R_xlen_t)count);
    SET_VECTOR_ELT(parts, 0, log_likelihood);
    SEXP log_prior = Rf_allocVector(REALSXP, (R_xlen_t)count);
    SET_VECTOR_ELT(parts, 1, log_prior);
    check_run(vbmc_evaluations_prior(run, (size_t)count, REAL(log_likelihood), REAL(log_prior)), run);
    SET_STRING_ELT(names, 0, Rf_mkChar("log_likelihood"));
    SET_STRING_ELT(names, 1, Rf_mkChar("log_prior"));
    Rf_setAttrib(parts, R_NamesSymbol, names);
    UNPROTECT(2);
    return parts;
}

/* ---- posteriors ------------------------------------------------------------------------ */

static SEXP r_post_load(SEXP path)
{
    vbmc_post *post = NULL;
    check_run(vbmc_post_load(&post, string_arg(path, "path")), NULL);
    return wrap_handle(post, "vbmc_post", post_finalizer);
}

static SEXP r_post_save(SEXP handle, SEXP path)
{
    check_post(vbmc_post_save(POST(handle), string_arg(path, "path")));
    return R_NilValue;
}

/* list(dim, components, elbo, elbo_sd) */
static SEXP r_post_info(SEXP handle)
{
    vbmc_post *post = POST(handle);
    double elbo = 0.0, elbo_sd = 0.0;
    SEXP info = PROTECT(Rf_allocVector(VECSXP, 4));
    SEXP names = PROTECT(Rf_allocVector(STRSXP, 4));
    check_post(vbmc_post_elbo(post, &elbo, &elbo_sd));
    SET_VECTOR_ELT(info, 0, Rf_ScalarInteger(vbmc_post_dim(post)));
    SET_VECTOR_ELT(info, 1, Rf_ScalarInteger(vbmc_post_components(post)));
    SET_VECTOR_ELT(info, 2, Rf_ScalarReal(elbo));
    SET_VECTOR_ELT(info, 3, Rf_ScalarReal(elbo_sd));
    SET_STRING_ELT(names, 0, Rf_mkChar("dim"));
    SET_STRING_ELT(names, 1, Rf_mkChar("components"));
    SET_STRING_ELT(names, 2, Rf_mkChar("elbo"));
    SET_STRING_ELT(names, 3, Rf_mkChar("elbo_sd"));
    Rf_setAttrib(info, R_NamesSymbol, names);
    UNPROTECT(2);
    return info;
}

/* n and seed of a draw call: whole numbers in [0, INT32_MAX] and [0, 2^53]. */
static void draw_counts(SEXP count, SEXP seed, size_t *n, uint64_t *seed_value)
{
    const double n_value = Rf_asReal(count), seed_double = Rf_asReal(seed);
    if (!(n_value >= 0.0 && n_value <= (double)INT32_MAX && n_value == (double)(size_t)n_value))
        Rf_error("n must be a whole number between 0 and %d", INT32_MAX);
    if (!(seed_double >= 0.0 && seed_double <= 9007199254740992.0 &&
          seed_double == (double)(uint64_t)seed_double))
        Rf_error("seed must be a whole number between 0 and 2^53");
    *n = (size_t)n_value;
    *seed_value = (uint64_t)seed_double;
}

/* n draws as an n x dim matrix; with components TRUE, attribute "component" holds each draw's
 * mixture component (1-based, as R counts). */
static SEXP r_post_sample(SEXP handle, SEXP count, SEXP seed, SEXP components)
{
    vbmc_post *post = POST(handle);
    const int dim = vbmc_post_dim(post);
    size_t n;
    uint64_t seed_value;
    double *rows;
    SEXP draws, labels;
    draw_counts(count, seed, &n, &seed_value);
    rows = (double *)R_alloc(n * (size_t)dim + 1, sizeof(double));
    if (!Rf_asLogical(components)) {
        check_post(vbmc_post_sample(post, n, seed_value, rows));
        return column_major(rows, n, dim);
    }
    labels = PROTECT(Rf_allocVector(INTSXP, (R_xlen_t)n));
    check_post(vbmc_post_sample_components(post, n, seed_value, rows, INTEGER(labels)));
    for (R_xlen_t i = 0; i < (R_xlen_t)n; ++i)
        INTEGER(labels)[i] += 1;
    draws = PROTECT(column_major(rows, (size_t)n, dim));
    Rf_setAttrib(draws, Rf_install("component"), labels);
    UNPROTECT(2);
    return draws;
}

static SEXP r_post_sample_refined(SEXP handle, SEXP count, SEXP seed)
{
    vbmc_post *post = POST(handle);
    const int dim = vbmc_post_dim(post);
    size_t n;
    uint64_t seed_value;
    draw_counts(count, seed, &n, &seed_value);
    double *rows = (double *)R_alloc(n * (size_t)dim + 1, sizeof(double));
    check_post(vbmc_post_sample_refined(post, n, seed_value, rows));
    return column_major(rows, n, dim);
}

static SEXP r_post_refined_elbo(SEXP handle, SEXP count, SEXP seed)
{
    size_t n;
    uint64_t seed_value;
    draw_counts(count, seed, &n, &seed_value);
    SEXP values = PROTECT(Rf_allocVector(REALSXP, 2));
    check_post(vbmc_post_refined_elbo(POST(handle), n, seed_value, REAL(values), REAL(values) + 1));
    UNPROTECT(1);
    return values;
}

static SEXP r_post_set_refinement(SEXP handle, SEXP aux_count, SEXP variance_ratio)
{
    check_post(vbmc_post_set_refinement(POST(handle), Rf_asInteger(aux_count), Rf_asReal(variance_ratio)));
    return R_NilValue;
}

static SEXP r_post_log_pdf(SEXP handle, SEXP x)
{
    vbmc_post *post = POST(handle);
    const int dim = vbmc_post_dim(post);
    size_t n;
    SEXP values;
    if (!Rf_isMatrix(x) || TYPEOF(x) != REALSXP || Rf_ncols(x) != dim)
        Rf_error("x must be a numeric matrix with %d columns", dim);
    n = (size_t)Rf_nrows(x);
    values = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)n));
    check_post(vbmc_post_log_pdf(post, n, row_major(x, n, dim), REAL(values)));
    UNPROTECT(1);
    return values;
}

/* list(mean, cov) */
static SEXP r_post_moments(SEXP handle)
{
    vbmc_post *post = POST(handle);
    const int dim = vbmc_post_dim(post);
    SEXP moments = PROTECT(Rf_allocVector(VECSXP, 2));
    SEXP names = PROTECT(Rf_allocVector(STRSXP, 2));
    SEXP mean = Rf_allocVector(REALSXP, dim);
    double *cov_rows = (double *)R_alloc((size_t)dim * (size_t)dim, sizeof(double));
    SET_VECTOR_ELT(moments, 0, mean);
    check_post(vbmc_post_moments(post, REAL(mean), cov_rows));
    SET_VECTOR_ELT(moments, 1, column_major(cov_rows, (size_t)dim, dim));
    SET_STRING_ELT(names, 0, Rf_mkChar("mean"));
    SET_STRING_ELT(names, 1, Rf_mkChar("cov"));
    Rf_setAttrib(moments, R_NamesSymbol, names);
    UNPROTECT(2);
    return moments;
}

/* The highest point of the density. */
static SEXP r_post_mode(SEXP handle)
{
    vbmc_post *post = POST(handle);
    SEXP x = PROTECT(Rf_allocVector(REALSXP, vbmc_post_dim(post)));
    check_post(vbmc_post_mode(post, REAL(x)));
    UNPROTECT(1);
    return x;
}

/* The marginal density of coordinate `coord` (0-based here) at the values. */
static SEXP r_post_marginal_pdf(SEXP handle, SEXP coord, SEXP values)
{
    vbmc_post *post = POST(handle);
    if (TYPEOF(values) != REALSXP)
        Rf_error("values must be a numeric vector");
    const size_t n = (size_t)XLENGTH(values);
    SEXP pdf = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)n));
    check_post(vbmc_post_marginal_pdf(post, Rf_asInteger(coord), n, REAL(values), REAL(pdf)));
    UNPROTECT(1);
    return pdf;
}

/* list(kl = c(KL(p||q), KL(q||p)), kl_sd) */
static SEXP r_post_kl(SEXP p, SEXP q, SEXP count, SEXP seed)
{
    size_t n;
    uint64_t seed_value;
    draw_counts(count, seed, &n, &seed_value);
    SEXP values = PROTECT(Rf_allocVector(REALSXP, 4));
    check_post(vbmc_post_kl(POST(p), POST(q), n, seed_value, REAL(values), REAL(values) + 2));
    UNPROTECT(1);
    return values;
}

/* c(log_z, log_z_sd): the log evidence estimate that is not a bound. */
static SEXP r_post_log_evidence(SEXP handle)
{
    SEXP values = PROTECT(Rf_allocVector(REALSXP, 2));
    check_post(vbmc_post_log_evidence(POST(handle), REAL(values), REAL(values) + 1));
    UNPROTECT(1);
    return values;
}

/* The marginal total variation of each coordinate. */
static SEXP r_post_mtv(SEXP p, SEXP q, SEXP count, SEXP seed)
{
    vbmc_post *first = POST(p);
    size_t n;
    uint64_t seed_value;
    draw_counts(count, seed, &n, &seed_value);
    SEXP values = PROTECT(Rf_allocVector(REALSXP, vbmc_post_dim(first)));
    check_post(vbmc_post_mtv(first, POST(q), n, seed_value, REAL(values), NULL));
    UNPROTECT(1);
    return values;
}

/* ---- diagnostics of several runs ------------------------------------------------------- */

/* Reads the diagnosis: list(stats (named numeric), pairwise (list of n x n matrices), message);
 * the diagnosis is destroyed before any R error can be raised. */
static SEXP diagnosis_list(vbmc_diag *diag, int n, SEXP stat_names, SEXP pairwise_names)
{
    const R_xlen_t n_stats = XLENGTH(stat_names), n_pairwise = XLENGTH(pairwise_names);
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 3));
    SEXP stats = Rf_allocVector(REALSXP, n_stats);
    SET_VECTOR_ELT(out, 0, stats);
    SEXP pairwise = Rf_allocVector(VECSXP, n_pairwise);
    SET_VECTOR_ELT(out, 1, pairwise);
    vbmc_status status = VBMC_OK;
    for (R_xlen_t i = 0; i < n_stats && status == VBMC_OK; ++i)
        status = vbmc_diag_stat(diag, CHAR(STRING_ELT(stat_names, i)), REAL(stats) + i);
    for (R_xlen_t i = 0; i < n_pairwise && status == VBMC_OK; ++i) {
        SEXP matrix = Rf_allocMatrix(REALSXP, n, n);
        SET_VECTOR_ELT(pairwise, i, matrix);
        /* row-major from C, symmetric either way */
        status = vbmc_diag_pairwise(diag, CHAR(STRING_ELT(pairwise_names, i)), (size_t)n, REAL(matrix));
    }
    SET_VECTOR_ELT(out, 2, Rf_mkString(vbmc_diag_message(diag)));
    vbmc_diag_destroy(diag);
    check_post(status);
    UNPROTECT(1);
    return out;
}

static SEXP r_diagnose(SEXP handles, SEXP seed, SEXP stat_names, SEXP pairwise_names)
{
    size_t unused;
    uint64_t seed_value;
    if (TYPEOF(handles) != VECSXP)
        Rf_error("runs must be a list of runs");
    const int n = (int)XLENGTH(handles);
    draw_counts(Rf_ScalarReal(0.0), seed, &unused, &seed_value);
    const vbmc **runs = (const vbmc **)R_alloc((size_t)n + 1, sizeof(vbmc *));
    for (int i = 0; i < n; ++i)
        runs[i] = RUN(VECTOR_ELT(handles, i));
    vbmc_diag *diag = NULL;
    check_post(vbmc_diagnose(runs, n, seed_value, &diag));
    return diagnosis_list(diag, n, stat_names, pairwise_names);
}

/* ---- priors, warm starts, past iterations ---------------------------------------------- */

/* The prior of coordinate `coord` (0-based here). */
static SEXP r_set_prior(SEXP handle, SEXP coord, SEXP kind, SEXP params)
{
    vbmc *run = RUN(handle);
    if (TYPEOF(params) != REALSXP)
        Rf_error("params must be a numeric vector");
    check_run(vbmc_set_prior(run, Rf_asInteger(coord), string_arg(kind, "kind"), REAL(params),
                             (int)XLENGTH(params)),
              run);
    return R_NilValue;
}

/* The prior as an R function of x (vbmc_set_prior_fn through prior_cell). */
static SEXP r_set_prior_fn(SEXP handle, SEXP fn)
{
    struct run_box *box = BOX(handle);
    if (!Rf_isFunction(fn))
        Rf_error("fn must be a function of x returning the log prior density");
    const int dim = vbmc_dim(box->run);
    struct prior_cell *cell = (struct prior_cell *)calloc(1, sizeof *cell + (size_t)dim * sizeof(double));
    if (cell == NULL)
        Rf_error("out of memory");
    cell->fn = fn;
    cell->dim = dim;
    cell->users = 1;
    for (int d = 0; d < dim; ++d)
        cell->x[d] = R_NaN; /* no point primed yet */
    const vbmc_status status = vbmc_set_prior_fn(box->run, cell_log_prior, cell);
    if (status != VBMC_OK) {
        free(cell);
        check_run(status, box->run);
    }
    R_PreserveObject(fn);
    cell_release(box->prior);
    box->prior = cell;
    return R_NilValue;
}

static SEXP r_log_prior(SEXP handle, SEXP x)
{
    vbmc *run = RUN(handle);
    const double *point = optional_vector(x, vbmc_dim(run), "x");
    double value = 0.0;
    if (point == NULL)
        Rf_error("x must be a numeric vector of length %d", vbmc_dim(run));
    prime_prior(BOX(handle), point);
    check_run(vbmc_log_prior(run, point, &value), run);
    return Rf_ScalarReal(value);
}

static SEXP r_create_warm(SEXP previous, SEXP settings, SEXP reuse)
{
    vbmc *old = RUN(previous);
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    char message[512];
    if (vbmc_opts_create(&opts) != VBMC_OK)
        Rf_error("vbmc_opts_create failed");
    vbmc_status status = apply_options(opts, settings, message, sizeof message);
    if (status != VBMC_OK) {
        vbmc_opts_destroy(opts);
        raise_status(status, message);
    }
    status = vbmc_create_warm(&run, old, opts, Rf_asLogical(reuse) ? 1 : 0);
    vbmc_opts_destroy(opts);
    check_run(status, NULL);
    SEXP handle = PROTECT(wrap_run(run));
    struct run_box *box = BOX(handle);
    box->prior = BOX(previous)->prior; /* the new run's callback is the previous run's */
    if (box->prior != NULL)
        ++box->prior->users;
    UNPROTECT(1);
    return handle;
}

/* The posterior of completed iteration `iteration` (0-based here). */
static SEXP r_history_posterior(SEXP handle, SEXP iteration)
{
    vbmc *run = RUN(handle);
    vbmc_post *post = NULL;
    check_run(vbmc_history_posterior(run, Rf_asInteger(iteration), &post), run);
    return wrap_handle(post, "vbmc_post", post_finalizer);
}

static SEXP r_history_action(SEXP handle, SEXP iteration)
{
    vbmc *run = RUN(handle);
    char action[1024];
    check_run(vbmc_history_action(run, Rf_asInteger(iteration), action, sizeof action), run);
    return Rf_mkString(action);
}

/* ---- registration ---------------------------------------------------------------------- */

static const R_CallMethodDef call_methods[] = {
    {"version", (DL_FUNC)&r_version, 0},
    {"options", (DL_FUNC)&r_options, 0},
    {"create", (DL_FUNC)&r_create, 6},
    {"load", (DL_FUNC)&r_load, 1},
    {"save", (DL_FUNC)&r_save, 2},
    {"dim", (DL_FUNC)&r_dim, 1},
    {"ask", (DL_FUNC)&r_ask, 1},
    {"ask_status", (DL_FUNC)&r_ask_status, 1},
    {"tell", (DL_FUNC)&r_tell, 5},
    {"abandon", (DL_FUNC)&r_abandon, 2},
    {"pending", (DL_FUNC)&r_pending, 1},
    {"stat", (DL_FUNC)&r_stat, 2},
    {"result_message", (DL_FUNC)&r_result_message, 1},
    {"posterior", (DL_FUNC)&r_posterior, 1},
    {"take_log", (DL_FUNC)&r_take_log, 1},
    {"alive", (DL_FUNC)&r_alive, 1},
    {"history", (DL_FUNC)&r_history, 2},
    {"evaluations", (DL_FUNC)&r_evaluations, 1},
    {"evaluations_prior", (DL_FUNC)&r_evaluations_prior, 1},
    {"post_load", (DL_FUNC)&r_post_load, 1},
    {"post_save", (DL_FUNC)&r_post_save, 2},
    {"post_info", (DL_FUNC)&r_post_info, 1},
    {"post_sample", (DL_FUNC)&r_post_sample, 4},
    {"post_log_pdf", (DL_FUNC)&r_post_log_pdf, 2},
    {"post_moments", (DL_FUNC)&r_post_moments, 1},
    {"post_sample_refined", (DL_FUNC)&r_post_sample_refined, 3},
    {"post_refined_elbo", (DL_FUNC)&r_post_refined_elbo, 3},
    {"post_set_refinement", (DL_FUNC)&r_post_set_refinement, 3},
    {"post_mode", (DL_FUNC)&r_post_mode, 1},
    {"post_log_evidence", (DL_FUNC)&r_post_log_evidence, 1},
    {"post_marginal_pdf", (DL_FUNC)&r_post_marginal_pdf, 3},
    {"post_kl", (DL_FUNC)&r_post_kl, 4},
    {"post_mtv", (DL_FUNC)&r_post_mtv, 4},
    {"diagnose", (DL_FUNC)&r_diagnose, 4},
    {"set_prior", (DL_FUNC)&r_set_prior, 4},
    {"set_prior_fn", (DL_FUNC)&r_set_prior_fn, 2},
    {"log_prior", (DL_FUNC)&r_log_prior, 2},
    {"create_warm", (DL_FUNC)&r_create_warm, 3},
    {"history_posterior", (DL_FUNC)&r_history_posterior, 2},
    {"history_action", (DL_FUNC)&r_history_action, 2},
    {NULL, NULL, 0}};

void R_init_vbmc(DllInfo *info)
{
    R_registerRoutines(info, NULL, call_methods, NULL, NULL);
    R_useDynamicSymbols(info, FALSE);
    R_forceSymbols(info, TRUE);
}
