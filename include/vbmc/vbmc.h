/*
 * libvbmc — Variational Bayesian Monte Carlo behind a C99 ask-tell interface.
 *
 * The host program asks for the next point, evaluates its log joint (log likelihood + log prior)
 * however it likes, and tells the value back; or, given the prior (vbmc_set_prior), it tells the
 * log likelihood and the library adds the log prior. From those evaluations the library builds a
 * Gaussian-process surrogate of the log joint and a mixture-of-Gaussians variational posterior,
 * and returns the posterior (sample it, evaluate its density, read its moments) together with a
 * lower bound on the log model evidence (the ELBO). Algorithm: Acerbi (2018), NeurIPS.
 *
 * Conventions of this header
 *   - Arrays are row-major: a set of n points in dimension dim is x[n*dim].
 *   - The caller owns everything it passes and allocates every numeric output; the library owns
 *     the objects behind its handles and frees them in the matching _destroy (NULL is a no-op).
 *   - Handles are ids, never dereferenced: a call on a destroyed handle, or on one of another type,
 *     returns VBMC_E_ARG ("... is not a live handle"); destroying one twice is a no-op.
 *   - Every fallible call returns a vbmc_status: 0 is success, positive values are informational,
 *     negative values are errors. After an error on a run, vbmc_last_error(run) says what was wrong;
 *     a failed call leaves the handle as it was before the call.
 *   - One handle is used by one thread at a time; different handles are fully independent.
 */
#ifndef VBMC_VBMC_H
#define VBMC_VBMC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VBMC_VERSION_MAJOR 0
#define VBMC_VERSION_MINOR 3
#define VBMC_VERSION_PATCH 0

/* Largest dimension a run accepts. */
#define VBMC_MAX_DIM 64

#if defined(_WIN32) && defined(VBMC_BUILDING)
#define VBMC_API __declspec(dllexport)
#elif defined(VBMC_BUILDING) && (defined(__GNUC__) || defined(__clang__))
#define VBMC_API __attribute__((visibility("default")))
#else
#define VBMC_API
#endif

/* ---------------------------------------------------------------------------------------------
 * Handles and status codes
 * ------------------------------------------------------------------------------------------- */

typedef struct vbmc_opts vbmc_opts; /* options, opaque; copied by vbmc_create */
typedef struct vbmc vbmc;           /* one inference run, opaque */
typedef struct vbmc_post vbmc_post; /* a variational posterior snapshot, independent of its run */

/* Status codes. The values are part of the ABI and are never renumbered. */
typedef enum vbmc_status {
    VBMC_OK = 0,
    VBMC_DONE = 1,        /* vbmc_ask: the run has finished; nothing more to evaluate */
    VBMC_WAIT = 2,        /* vbmc_ask: every point the run may hand out now is pending; tell (or
                             abandon) one, then ask again. Not an error. */
    VBMC_E_ARG = -1,      /* invalid argument: NULL, bad dimension, lb >= ub, NaN in x0, ... */
    VBMC_E_STATE = -2,    /* call not valid now: tell of a point not pending, no posterior yet, ... */
    VBMC_E_OPTION = -3,   /* unknown option name or value out of range */
    VBMC_E_NOMEM = -4,    /* memory could not be allocated */
    VBMC_E_NUMERIC = -5,  /* numerical failure the run could not recover from */
    VBMC_E_IO = -6,       /* a file could not be read or written */
    VBMC_E_FORMAT = -7,   /* a file is not a valid checkpoint / posterior, or is from an
                             incompatible version */
    VBMC_E_INTERNAL = -8  /* a bug in the library; the message says where */
} vbmc_status;

/* Log levels passed to a vbmc_log_fn. */
#define VBMC_LOG_ERROR 0
#define VBMC_LOG_WARN 1
#define VBMC_LOG_INFO 2 /* the iteration table */
#define VBMC_LOG_DEBUG 3

/* The library version as "MAJOR.MINOR.PATCH". Static string, never freed. */
VBMC_API const char *vbmc_version(void);

/* The name of a status ("VBMC_E_ARG", ...). Total: any value gives a static string
 * ("VBMC_UNKNOWN_STATUS" for values that are not a vbmc_status). */
VBMC_API const char *vbmc_status_name(vbmc_status status);

/* ---------------------------------------------------------------------------------------------
 * Options
 *
 * Options use PyVBMC's snake_case names (max_fun_evals, fun_eval_start, seed, display, ...).
 * Every option can be set as text; numeric options also with the typed setters. A setter that
 * fails leaves the option unchanged. The error of an options call is read with vbmc_opts_error.
 * ------------------------------------------------------------------------------------------- */

/* Create an options object holding the defaults. *out receives a handle owned by the caller and
 * released with vbmc_opts_destroy. Errors: VBMC_E_ARG (out is NULL), VBMC_E_NOMEM. */
VBMC_API vbmc_status vbmc_opts_create(vbmc_opts **out);

/* Release an options object. NULL is a no-op. */
VBMC_API void vbmc_opts_destroy(vbmc_opts *opts);

/* Set option `name` from text ("200", "1e-3", "iter", "true"). The text of an integer option is
 * read exactly and must denote an integer ("300", "3e2", "300.0"; not "2.5" or "0x20"), at most
 * 2^53 in magnitude as for vbmc_opts_set_int. Errors: VBMC_E_ARG (NULL opts, name or value),
 * VBMC_E_OPTION (unknown name, unparsable or out-of-range value). */
VBMC_API vbmc_status vbmc_opts_set(vbmc_opts *opts, const char *name, const char *value);

/* Set an integer-valued (or real-valued) option. Options are stored as doubles, which hold every
 * integer up to 2^53 = 9007199254740992 in magnitude exactly but not every one beyond, so a value
 * beyond 2^53 in magnitude is refused (VBMC_E_OPTION) rather than rounded; the ranges of the
 * integer options (seed: [0, 2^53]) lie within it. Errors as vbmc_opts_set; VBMC_E_OPTION also
 * for a text option. */
VBMC_API vbmc_status vbmc_opts_set_int(vbmc_opts *opts, const char *name, long long value);

/* Set a real-valued option (an integer option accepts a double with an integral value). Errors as
 * vbmc_opts_set_int. */
VBMC_API vbmc_status vbmc_opts_set_double(vbmc_opts *opts, const char *name, double value);

/* Read an option's current value as text into buf[size]. When buf is not NULL and size > 0, buf is
 * always NUL-terminated: it holds the whole value on success and "" after any error (never a
 * truncated value). Errors: VBMC_E_ARG (NULL argument, buffer too small), VBMC_E_OPTION (unknown
 * name). */
VBMC_API vbmc_status vbmc_opts_get(const vbmc_opts *opts, const char *name, char *buf, size_t size);

/* The sentence describing the last failed call on this options object ("" if none). Owned by
 * the object, valid until its next call or its destruction. NULL opts gives a static message. */
VBMC_API const char *vbmc_opts_error(const vbmc_opts *opts);

/* Introspection, for bindings and documentation: the number of options, and for index i in
 * [0, count) its name, its type ("int", "double", "text" or "bool"), its default as text and a
 * one-line help. Static strings; NULL for an index out of range. */
VBMC_API int vbmc_opts_count(void);
VBMC_API const char *vbmc_opts_name(int index);
VBMC_API const char *vbmc_opts_type(int index);
VBMC_API const char *vbmc_opts_default(int index);
VBMC_API const char *vbmc_opts_help(int index);

/* ---------------------------------------------------------------------------------------------
 * Runs
 * ------------------------------------------------------------------------------------------- */

/* Create a run in dimension dim (1 <= dim <= VBMC_MAX_DIM).
 *   x0[dim]   starting point; NULL means the centre of the plausible box. Finite, lb < x0 < ub,
 *             and within 1e150 plausible-box widths of the box in the transformed space (the
 *             surrogate squares distances; a run started further out fails numerically).
 *   lb[dim], ub[dim]  hard bounds; NULL means unbounded; entries may be -INFINITY / +INFINITY.
 *   plb[dim], pub[dim]  finite plausible box, lb < plb < pub < ub; required. Where it is far wider
 *             than the posterior (e.g. set from the prior), the run first locates the posterior's
 *             mass and re-centres the box on it (option locate; see README, "Reading the results").
 *   opts      NULL for defaults; copied, so the caller may destroy it right after the call.
 * *out receives a run owned by the caller, released with vbmc_destroy. On error *out is NULL and,
 * since no run exists, the message is read with vbmc_last_error(NULL).
 * Errors: VBMC_E_ARG (NULL out/plb/pub, bad dim, misordered or non-finite bounds, x0 outside or
 * too far),
 * VBMC_E_OPTION (options inconsistent with dim), VBMC_E_NOMEM. */
VBMC_API vbmc_status vbmc_create(vbmc **out, int dim, const double *x0, const double *lb,
                                 const double *ub, const double *plb, const double *pub,
                                 const vbmc_opts *opts);

/* Release a run and everything it owns. NULL is a no-op. */
VBMC_API void vbmc_destroy(vbmc *run);

/* A sentence about the last failed call on this run ("" if the last call succeeded). Owned by
 * the run, valid until its next call. With run == NULL: the message of the last failed call
 * without a run handle on this thread (vbmc_create, vbmc_load, vbmc_opts_create, vbmc_post_*,
 * any call given a NULL or destroyed run), owned by the library and valid until that thread's
 * next such failure. */
VBMC_API const char *vbmc_last_error(const vbmc *run);

/* The dimension of the run (0 for NULL). */
VBMC_API int vbmc_dim(const vbmc *run);

/* Ask for the next point to evaluate: fills x[dim] (original space) and returns VBMC_OK, or
 * returns VBMC_DONE when the run has finished. Up to option max_pending asks (default 1) may be
 * outstanding; results may be told in any order. VBMC_WAIT (x untouched) says that every point
 * the run may hand out now is pending: max_pending points are out, or the budget's last
 * evaluations, or the whole batch a stage needs before it can go on (the initial design, a step
 * of the locating stage); tell or abandon one of them, then ask again. A loop that keeps many
 * workers busy asks until VBMC_WAIT, then waits for a result. VBMC_WAIT never comes with nothing
 * pending, so a loop that evaluates its pending points first never sees it.
 * Errors: VBMC_E_ARG (NULL), VBMC_E_NUMERIC (the iteration the told values called for, or the
 * search for the next point, failed; the message says why; the run is left as it was before, the
 * told values kept, and the next ask tries again). */
VBMC_API vbmc_status vbmc_ask(vbmc *run, double *x);

/* Tell the log joint (log likelihood + log prior) at a pending point x[dim], bitwise the x that
 * vbmc_ask returned; when the run has a prior (vbmc_set_prior, vbmc_set_prior_fn), the log
 * likelihood instead: the run adds the log prior at x to form the log joint (the checks below
 * apply to the value told; the sum must not exceed 1e150 either). A point where the log prior is
 * -INFINITY (outside its support) records a failed evaluation, as a non-finite value does.
 * log_joint_sd: 0 for an exact target, > 0 the noise SD of a noisy estimate.
 * A non-finite log_joint records a failed evaluation: counted against the budget and kept in the
 * history, never given to the surrogate. A value more than 1e6 below the best told so far (a
 * penalty such as -1e300) reaches the surrogate as best - 1e6. The tell that completes an
 * iteration's batch also runs the iteration (surrogate training, variational optimisation), so
 * it takes longer; if that iteration fails, the value is still recorded, a warning is logged and
 * the next vbmc_ask retries it. With max_pending > 1 the run may finish while points are
 * pending: their values are still accepted and kept in the history (func_count, checkpoints) but
 * no longer change the final posterior.
 * Errors: VBMC_E_ARG (NULL, NaN in x, SD negative, non-finite or above 1e150, log_joint above 1e150,
 * the prior callback returned NaN, +INFINITY or more than 1e150 at x), VBMC_E_STATE (x is not
 * pending; some coordinates have no prior; a prior callback not set again after vbmc_load); after
 * these nothing was recorded and x stays pending. VBMC_E_IO: the value was
 * recorded but the automatic checkpoint (option checkpoint_file) could not be written. */
VBMC_API vbmc_status vbmc_tell(vbmc *run, const double *x, double log_joint, double log_joint_sd);

/* Add an evaluation the run did not ask for (earlier work, a point of interest) to the training
 * set. Same arguments and errors as vbmc_tell; x must lie strictly inside the hard bounds and, as
 * x0 of vbmc_create, within 1e150 plausible-box widths of the box (VBMC_E_ARG otherwise). VBMC_E_STATE once the run
 * has finished. */
VBMC_API vbmc_status vbmc_tell_extra(vbmc *run, const double *x, double log_joint,
                                     double log_joint_sd);

/* Give up a pending point without a value (its job was lost); the run will ask again.
 * Errors: VBMC_E_ARG (NULL), VBMC_E_STATE (x is not pending). */
VBMC_API vbmc_status vbmc_abandon(vbmc *run, const double *x);

/* Copy the i-th pending point (0 <= i < stat "pending") into x[dim], e.g. to re-dispatch work
 * after vbmc_load. Errors: VBMC_E_ARG (NULL, i out of range). */
VBMC_API vbmc_status vbmc_pending_point(const vbmc *run, int i, double *x);

/* A scalar fact about the run, by name: "iteration", "func_count" (evaluations told, failures
 * included), "failed_count", "penalty_count" (values far below the rest, kept but left out of the
 * surrogate: README, Guarantees), "train_count" (points in the surrogate's training set), "elbo",
 * "elbo_sd", "components", "converged" (0/1), "warmup" (0/1), "finished" (0/1), "pending",
 * "stable_count", "gp_samples", "dim", "max_fun_evals", "locating" (0/1: the locating stage is
 * running), "locate_evals" (evaluations it asked for), "has_prior" (0/1: a prior was given, so the
 * values told are log likelihoods). "elbo"/"elbo_sd" are NaN before the first iteration.
 * The verdict on a finished run's result (NaN before it has finished): "reliable" (0/1),
 * "loo_error" (median leave-one-out error of the surrogate at the high-density evaluations),
 * "mass_above_data" and "mass_unexplored" (fractions of the posterior lying where the surrogate
 * predicts log joints above every evaluation, or has seen none), "best_value_gap" (how far the
 * best evaluations rise above anything the posterior covers), "box_excess" (how far the
 * posterior's mean lies beyond the plausible box given, in widths of the box, in the transformed
 * space; above 1 the result is unreliable). "converged" is 1 only for a run
 * that was stable and whose result is reliable; vbmc_result_message says why not.
 * The library's own time, in seconds, since this handle was created or loaded (not saved in
 * checkpoints; the host's time between calls is not counted): "time_<phase>" wall-clock and
 * "cpu_<phase>" CPU of the whole process (other busy threads of the host included), the phase one
 * of "gp_train" (GP hyperparameter training), "vp_optim" (variational posterior optimisation),
 * "acquisition" (choosing actively sampled points and updating the search surrogate at tells),
 * "final_boost", "locate" (the locating stage) and "total" (everything inside vbmc_ask,
 * vbmc_tell, vbmc_tell_extra and vbmc_abandon, automatic checkpoint writes excepted). The phases
 * do not overlap and lie inside "total". Reading them never changes the run.
 * Errors: VBMC_E_ARG (NULL, unknown name). */
VBMC_API vbmc_status vbmc_stat(const vbmc *run, const char *name, double *value);

/* How the run ended, as sentences: why it stopped ("Inference terminated: the variational
 * solution was stable for tol_stable_count evaluations.") and, when its result is unreliable,
 * each reason ("The result is unreliable: 40% of the posterior lies where the surrogate has seen
 * no evaluation ..."); "" while the run is going on or for a NULL or invalid run. Owned by the
 * run, valid until its next call. */
VBMC_API const char *vbmc_result_message(const vbmc *run);

/* ---------------------------------------------------------------------------------------------
 * Priors
 *
 * By default the values told are log joints. A prior given to the run turns them into log
 * likelihoods: the run adds the log prior at each told point (vbmc_tell, vbmc_tell_extra, and so
 * the drivers and every binding) to form the log joint it models, keeps both parts in its record
 * (vbmc_evaluations_prior), and its ELBO bounds the log evidence of likelihood times prior. A prior
 * is given after vbmc_create and before the first value is told (VBMC_E_STATE afterwards): one
 * ready-made prior per coordinate, independent (vbmc_set_prior, for every coordinate before the
 * first tell), or one callback for the whole prior (vbmc_set_prior_fn); not both. Checkpoints keep
 * per-coordinate priors. A callback cannot be saved: a run loaded from a checkpoint saved with one
 * refuses tells (VBMC_E_STATE) until vbmc_set_prior_fn sets it again. With display "iter" the
 * iteration table starts with a line naming the prior.
 * ------------------------------------------------------------------------------------------- */

/* A log prior density callback: log p(x) at x[dim] (-INFINITY outside its support). */
typedef double (*vbmc_log_prior_fn)(const double *x, void *userdata);

/* The prior of coordinate coord (0-based): kind one of "gaussian" (mu, sigma), "student_t" (mu, sigma, nu),
 * "uniform" (a, b), "smoothbox" (a, b, sigma), "trapezoidal" (a, u, v, b), "spline_trapezoidal" (a, u, v, b),
 * "lognormal" (mu, sigma of log x); params[n_params]. The densities, each normalised on the real
 * line (PyVBMC's pyvbmc.priors and scipy.stats):
 *   gaussian            N(mu, sigma^2)
 *   student_t           Student's t with nu degrees of freedom, location mu, scale sigma
 *   uniform             1 / (b - a) on [a, b] (UniformBox)
 *   smoothbox           flat on [a, b] with Gaussian tails of SD sigma outside, height
 *                       1 / (b - a + sqrt(2 pi) sigma) (SmoothBox)
 *   trapezoidal         flat on [u, v], linear ramps down to 0 at a and b, height 2 / (b - a + v - u)
 *                       (Trapezoidal)
 *   spline_trapezoidal  the same with cubic ramps 3 z^2 - 2 z^3 at fraction z of a ramp, flat where
 *                       they meet the plateau and the bounds (SplineTrapezoidal)
 *   lognormal           log x ~ N(mu, sigma^2) for x > 0 (scipy.stats.lognorm(sigma, scale=e^mu))
 * Rules: n_params as listed; every parameter finite; sigma > 0, nu > 0; a < b; a <= u <= v <= b (a
 * ramp or the plateau may be empty, unlike PyVBMC's strict order); a width and scale whose log
 * density stays finite. Against the hard bounds of vbmc_create: uniform and both trapezoids need
 * lb[coord] = a and ub[coord] = b exactly (the target is undefined outside their support, and prior
 * mass beyond the bounds would be lost); a log-normal needs lb[coord] >= 0. Priors of unbounded
 * support accept any bounds and are not renormalised to them: the ELBO then bounds the evidence of
 * the prior restricted to the bounds. Setting a coordinate again replaces its prior.
 * Errors: VBMC_E_ARG (NULL run or kind, unknown kind, coord outside [0, dim), NULL params, a rule
 * broken: the message names the coordinate, the value and the rule), VBMC_E_STATE (a value has been
 * told; the run has a prior callback). */
VBMC_API vbmc_status vbmc_set_prior(vbmc *run, int coord, const char *kind, const double *params, int n_params);

/* The whole prior as a callback (instead of per-coordinate priors): fn(x, userdata) returns log p(x)
 * at x[dim] in the original space, -INFINITY outside the prior's support. The run calls it once for
 * each value told, on the thread that tells it (with vbmc_run_threads, the calling thread), and in
 * vbmc_log_prior; it must not throw or longjmp. A value of NaN, +INFINITY or above 1e150 fails that
 * call with VBMC_E_ARG. An unnormalised prior shifts the ELBO by its missing log constant. Neither
 * pointer is saved in checkpoints. Errors: VBMC_E_ARG (NULL run or fn), VBMC_E_STATE (the run has
 * per-coordinate priors; a value has been told, unless the run was loaded from a checkpoint saved
 * with a prior callback: this call then sets that callback again). */
VBMC_API vbmc_status vbmc_set_prior_fn(vbmc *run, vbmc_log_prior_fn fn, void *userdata);

/* The log prior the run uses, at x[dim]. The sum of the per-coordinate log densities or the
 * callback's value at any finite x (original space, inside the hard bounds or not) into
 * *log_prior. Errors: VBMC_E_ARG (NULL argument, x not finite, the callback returned NaN, +INFINITY
 * or more than 1e150), VBMC_E_STATE (the run has no prior; a coordinate has none; a prior callback
 * not set again after vbmc_load). */
VBMC_API vbmc_status vbmc_log_prior(const vbmc *run, const double *x, double *log_prior);

/* ---------------------------------------------------------------------------------------------
 * Drivers: loops over the calls above for a log joint that is a C function. Built on the public
 * API only; a program with its own scheduler (a batch queue, another language's executor) writes
 * the same loop itself (README, "Running on a cluster"). The MPI driver is in vbmc_mpi.h.
 * ------------------------------------------------------------------------------------------- */

/* The log-joint callback of the drivers: returns the log joint at x[dim] (NaN for a failed
 * evaluation); it may set *log_joint_sd to the noise SD of its estimate (it is 0 on entry). */
typedef double (*vbmc_log_joint_fn)(const double *x, double *log_joint_sd, void *userdata);

/* Sequential driver: loops vbmc_ask / f / vbmc_tell until the run finishes, evaluating any
 * pending points first (left by an earlier error, or in a loaded checkpoint). Returns VBMC_DONE
 * on completion, or the first error status (the run stays usable and a new call resumes it). */
VBMC_API vbmc_status vbmc_run(vbmc *run, vbmc_log_joint_fn f, void *userdata);

/* The run's record of each completed iteration, oldest first, for convergence plots: series
 * `name` over the n = stat "iteration" completed iterations into values[n]. Series: "func_count"
 * (evaluations told by the end of the iteration), "elbo", "elbo_sd", "skl" (symmetrised KL
 * divergence to the previous iteration's posterior), "r_index" (reliability index), "components",
 * "train_count" (the surrogate's training-set size), "gp_samples" (its hyperparameter samples),
 * "stable" (0/1) and "warmup" (0/1). A finished run's returned posterior (after the final boost)
 * has its own ELBO, stat "elbo", which need not equal the last entry. Checkpoints keep the record.
 * n == 0 does nothing (values may then be NULL). Errors: VBMC_E_ARG (NULL run, name or values,
 * unknown series, n not the number of completed iterations). */
VBMC_API vbmc_status vbmc_history(const vbmc *run, const char *name, size_t n, double *values);

/* Every evaluation told so far, in the order told, n = stat "func_count" of them (failures and
 * vbmc_tell_extra included): x[n*dim] bitwise as told (original space), log_joint[n] as told
 * (non-finite for a failed evaluation; with a prior the log likelihood told plus the log prior,
 * see vbmc_evaluations_prior), log_joint_sd[n], and in_training[n]: 1 if the evaluation
 * is in the surrogate's training set, 0 if it failed, was trimmed at the end of warm-up or is a
 * penalty value. Any of the four outputs may be NULL (not filled). Errors: VBMC_E_ARG (NULL run,
 * n not the number of evaluations). */
VBMC_API vbmc_status vbmc_evaluations(const vbmc *run, size_t n, double *x, double *log_joint,
                                      double *log_joint_sd, int *in_training);

/* The two parts of every evaluation of a run with a prior, in the order told, n = stat
 * "func_count": log_likelihood[n] bitwise as told (non-finite for a failed evaluation) and
 * log_prior[n] as the run computed it (-INFINITY outside the prior's support); the log_joint[i] of
 * vbmc_evaluations is log_likelihood[i] + log_prior[i]. Checkpoints keep both. Either output may be
 * NULL. Errors: VBMC_E_ARG (NULL run, n not the number of evaluations), VBMC_E_STATE (the run has
 * no prior: its values told are the log joints). */
VBMC_API vbmc_status vbmc_evaluations_prior(const vbmc *run, size_t n, double *log_likelihood,
                                            double *log_prior);

/* Thread-pool driver for one machine: f runs on `threads` threads of its own (1 <= threads <=
 * 1024) while the calling thread, the only one that uses the run, dispatches pending points
 * (from a loaded checkpoint) and then asks until every thread is busy or vbmc_ask answers
 * VBMC_WAIT, and tells each result as soon as its evaluation finishes, in any order. Set option
 * max_pending to `threads` at creation: at most max_pending evaluations are out at once. f is
 * called concurrently and must be thread-safe; it must not throw or longjmp. With more than one
 * thread the order of the results, and so the run, depends on timing.
 * timeout: seconds after which an evaluation still running is given up (vbmc_abandon; the run
 * asks again) and its slot gets a fresh thread; 0 or INFINITY: never. The late evaluation keeps
 * running on its own detached thread and its value is ignored, so f and userdata must stay valid
 * until it returns, also after vbmc_run_threads has returned.
 * When the run finishes, or a call fails, no new evaluation starts and those still out are
 * waited for (up to the timeout) and told, so no value computed is lost. Returns VBMC_DONE, or
 * the first error (arguments: VBMC_E_ARG; a failed vbmc_ask or vbmc_tell: its status, message in
 * vbmc_last_error(run); the run stays usable, a point whose tell failed stays pending, and a new
 * call resumes). */
VBMC_API vbmc_status vbmc_run_threads(vbmc *run, vbmc_log_joint_fn f, void *userdata, int threads,
                                      double timeout);

/* Library output (the iteration table, warnings) goes to a logger. The default writes to stderr,
 * filtered by option "display" ("off", "final", "notify", "iter"). fn == NULL restores the default.
 * line is one line without its newline, owned by the library and valid only during the call; level
 * is a VBMC_LOG_* value. The userdata pointer is not saved in checkpoints.
 * Errors: VBMC_E_ARG (NULL run). */
typedef void (*vbmc_log_fn)(void *userdata, int level, const char *line);
VBMC_API vbmc_status vbmc_set_logger(vbmc *run, vbmc_log_fn fn, void *userdata);

/* Checkpoints: the whole state of a run, so a killed host resumes where it stopped.
 * vbmc_save writes atomically (its own temporary file beside path, synced, renamed over path): the
 * file at path is either the old one or the complete new one, also while other handles, threads or
 * processes save to the same path (the last rename wins). A save killed part-way may leave a file
 * "<path>.tmp.XXXXXX" (on Linux only when killed between naming the temporary and renaming it).
 * Errors: VBMC_E_ARG, VBMC_E_IO. */
VBMC_API vbmc_status vbmc_save(const vbmc *run, const char *path);

/* Load a run saved by vbmc_save; *out is owned by the caller (vbmc_destroy). The logger is the
 * default one. The header is read first: any other file, device or pipe is refused after its
 * first 8 bytes; nothing is read beyond one byte past what the header declares, and memory grows
 * only with the bytes the file really holds (vbmc_post_load likewise). Errors: VBMC_E_ARG, VBMC_E_IO,
 * VBMC_E_FORMAT (not a checkpoint, truncated, trailing bytes, corrupted, incompatible version),
 * VBMC_E_NOMEM; message via vbmc_last_error(NULL). */
VBMC_API vbmc_status vbmc_load(vbmc **out, const char *path);

/* ---------------------------------------------------------------------------------------------
 * Posterior snapshots
 *
 * A snapshot is immutable apart from its refinement settings (vbmc_post_set_refinement); the
 * message of a failed vbmc_post_* call is read with vbmc_last_error(NULL) on the same thread.
 * ------------------------------------------------------------------------------------------- */

/* Snapshot the current variational posterior (the final, boosted one once the run is done),
 * together with the surrogate it was fitted to (its training set and hyperparameters, for
 * vbmc_post_sample_refined). Available after the first iteration. *out is owned by the caller
 * (vbmc_post_destroy) and does not depend on the run. Errors: VBMC_E_ARG, VBMC_E_STATE (no posterior: the first iteration has
 * not completed, or the run finished without one because every evaluation failed; the message
 * says which). */
VBMC_API vbmc_status vbmc_posterior(const vbmc *run, vbmc_post **out);

/* Release a snapshot. NULL is a no-op. */
VBMC_API void vbmc_post_destroy(vbmc_post *post);

/* The dimension of the snapshot (0 for NULL). */
VBMC_API int vbmc_post_dim(const vbmc_post *post);

/* The number of mixture components (0 for NULL). */
VBMC_API int vbmc_post_components(const vbmc_post *post);

/* The ELBO (estimate of the log evidence lower bound) and its SD. Either pointer may be NULL.
 * Errors: VBMC_E_ARG (NULL post). */
VBMC_API vbmc_status vbmc_post_elbo(const vbmc_post *post, double *elbo, double *elbo_sd);

/* n draws in the original (bounded) space into x[n*dim], from a generator seeded with seed (the
 * same seed gives the same draws). n == 0 does nothing (x may then be NULL). Errors: VBMC_E_ARG. */
VBMC_API vbmc_status vbmc_post_sample(const vbmc_post *post, size_t n, uint64_t seed, double *x);

/* The same n draws x[n*dim] as vbmc_post_sample with the same seed, and component[n]: the index
 * in [0, vbmc_post_components) of the mixture component each draw came from. n == 0 does nothing.
 * Errors: VBMC_E_ARG. */
VBMC_API vbmc_status vbmc_post_sample_components(const vbmc_post *post, size_t n, uint64_t seed,
                                                 double *x, int *component);

/* log density at n points x[n*dim] of the original space (including the bound transform's
 * Jacobian) into log_pdf[n]; -INFINITY outside the bounds. n == 0 does nothing (the arrays may then
 * be NULL). Errors: VBMC_E_ARG (NULL, NaN in x). */
VBMC_API vbmc_status vbmc_post_log_pdf(const vbmc_post *post, size_t n, const double *x,
                                       double *log_pdf);

/* mean[dim] and cov[dim*dim] (row-major; cov may be NULL) of the posterior in the original
 * space. Exact for unbounded coordinates; estimated from a fixed set of 100000 draws when some
 * coordinate is bounded. Errors: VBMC_E_ARG. */
VBMC_API vbmc_status vbmc_post_moments(const vbmc_post *post, double *mean, double *cov);

/* Refined draws: n draws in the original (bounded) space into x[n*dim], each refined locally
 * against the run's surrogate of the log joint (its posterior mean f; no new evaluations):
 * Havasi et al. (2021), "Sampling the variational posterior with local refinement", Algorithm 1,
 * started from the mixture. A draw picks a mixture component and splits it into aux_count
 * additive Gaussian parts whose variances shrink geometrically (each takes variance_ratio of what
 * is left; vbmc_post_set_refinement); each part but the last is drawn from the current Gaussian
 * approximation, which is then refitted to the surrogate's posterior given the parts drawn
 * (closed-form expected log joint, BFGS), the mixture's other components keeping their share; the
 * last part is drawn from the final fit. Where the mixture matches the surrogate's posterior a
 * refined draw is the mixture draw it starts from; elsewhere the draws follow what the mixture
 * misses (curved ridges, modes it covers too little, tails of another shape).
 * Guarantees: (1) a refit is kept only if it raises its conditional ELBO, so the refined
 * distribution's ELBO is at least the auxiliary ELBO (vbmc_post_refined_elbo), itself at least the
 * mixture's ELBO under the same surrogate; (2) trust: it must also raise that ELBO's lower
 * confidence bound, mean - 3 SD of the surrogate's uncertainty, so a kept refit gains at least
 * three times the SD it adds and mass moves into a region the surrogate has not seen only where it
 * promises that much; else a refit half or a quarter of the way, else none (the step keeps the
 * exact conditional of the one before). The draws are as good as the surrogate: nothing corrects
 * it where it is wrong. Draw i has a generator of its own, from seed and i: the same seed gives
 * the same draws, the first m of n draws are those of n = m, and draw i starts from the same
 * mixture draw whatever the settings (with aux_count = 1 it is that draw). Cost: aux_count - 1
 * small optimisations per draw (about a millisecond of CPU at dim 10 and 200 evaluations) and a
 * factorisation of the surrogate per call. Every snapshot holds its surrogate. n == 0 does nothing
 * (x may then be NULL). Errors: VBMC_E_ARG (NULL or dead post, NULL x), VBMC_E_NUMERIC (the
 * surrogate cannot be factorised), VBMC_E_NOMEM. */
VBMC_API vbmc_status vbmc_post_sample_refined(const vbmc_post *post, size_t n, uint64_t seed, double *x);

/* The auxiliary ELBO of the refined distribution (Havasi et al. 2021, eq. 13, for the
 * augmented model of vbmc_post_sample_refined) estimated from the n refined draws that
 * vbmc_post_sample_refined(post, n, seed, x) returns, to be read beside vbmc_post_elbo's:
 * elbo = the mixture's ELBO + the mean over the draws of their refits' conditional-ELBO gains
 * (each >= 0, so elbo >= the mixture's ELBO; with aux_count = 1 they are equal); elbo_sd = the
 * mixture's ELBO SD combined with the standard error of that mean. Either pointer may be NULL.
 * Costs as many refinements as vbmc_post_sample_refined with the same n.
 * Errors: VBMC_E_ARG (NULL or dead post, n < 2), VBMC_E_NUMERIC, VBMC_E_NOMEM. */
VBMC_API vbmc_status vbmc_post_refined_elbo(const vbmc_post *post, size_t n, uint64_t seed, double *elbo,
                                            double *elbo_sd);

/* The tuning of refined draws: aux_count in [1, 20] auxiliary variables per draw (aux_count - 1
 * refits; 1 gives plain mixture draws), each taking variance_ratio in [0.01, 0.99] of the prior
 * variance left (the paper's geometric schedule). Defaults for a new snapshot: 3 and 0.7. Kept by
 * vbmc_post_save / vbmc_post_load. A failed call leaves the settings as they were.
 * Errors: VBMC_E_ARG (NULL or dead post, a value out of range). */
VBMC_API vbmc_status vbmc_post_set_refinement(vbmc_post *post, int aux_count, double variance_ratio);

/* Write a snapshot to a file (atomically, as vbmc_save) / read one back; the file keeps the
 * surrogate and the refinement settings, so a loaded snapshot refines bitwise as the saved one.
 * *out is owned by the caller. Errors: VBMC_E_ARG, VBMC_E_IO, VBMC_E_FORMAT; vbmc_post_load's message via
 * vbmc_last_error(NULL). */
VBMC_API vbmc_status vbmc_post_save(const vbmc_post *post, const char *path);
VBMC_API vbmc_status vbmc_post_load(vbmc_post **out, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* VBMC_VBMC_H */
