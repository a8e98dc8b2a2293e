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
typedef struct vbmc_diag vbmc_diag; /* diagnostics of several runs, independent of them */

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

/* Create a run that starts from the posterior of a previous run of the same problem (MATLAB
 * VBMC's vbmc(fun, vp, ...)): to refit with a larger budget, or to fit a slightly changed model.
 * The new run has previous's dimension and hard bounds; its plausible box is, per coordinate, the
 * 5% and 95% quantiles of 100000 draws (fixed seed) of previous's posterior (as vbmc_posterior
 * gives it: the final one once previous has finished), kept strictly inside the hard bounds; x0 is
 * the mean of the posterior's mixture component of highest posterior density (in the transformed
 * space, a cheap stand-in for MATLAB's mode), evaluated first when an initial design is asked.
 *   previous  a run with a posterior (after its first iteration), finished or not, created or
 *             loaded from a checkpoint; not modified. Its pending points are not re-used.
 *   opts      the new run's options; NULL for defaults (previous's options are not inherited).
 *   reuse_evaluations  1 (the same model): every evaluation in previous's training set (stat
 *             "train_count": finite, not trimmed at the end of warm-up, not a penalty) enters the
 *             new run as a told value, first in its evaluation log in previous's order and bitwise
 *             as told (vbmc_evaluations), with its noise SD; they count towards the initial design
 *             (only the fun_eval_start - reused points still missing are asked, x0 first; none
 *             when enough are re-used, and the first vbmc_ask then runs the first iteration), the
 *             first posterior starts at x0, and the locating stage does not run (previous located
 *             the posterior's mass). 0 (a changed model): nothing is re-used; the new run asks
 *             its initial design in the new plausible box and locates as option locate says.
 * Prior: the new run has previous's prior (vbmc_set_prior, or the callback of vbmc_set_prior_fn
 * with its userdata), so the values told to it are of the same kind; re-used evaluations keep
 * their told value and log prior (vbmc_evaluations_prior). With reuse_evaluations = 0 the prior may
 * be changed before the first tell (per coordinate; a callback replaces nothing of the other kind).
 * Budget: max_fun_evals (and min_fun_evals) count only the evaluations told to the new run; the
 * re-used ones are stat "reused_count" and are included in stat "func_count", in vbmc_history's
 * "func_count" and in vbmc_evaluations. *out is owned by the caller (vbmc_destroy); on error it is
 * NULL and the message is read with vbmc_last_error(NULL). Errors: VBMC_E_ARG (NULL out, NULL or
 * dead previous or opts, reuse_evaluations neither 0 nor 1), VBMC_E_STATE (previous has no
 * posterior yet, or finished without one; the message says which), VBMC_E_OPTION (options
 * inconsistent with the dimension), VBMC_E_NUMERIC (the posterior is too narrow to span a
 * plausible box), VBMC_E_NOMEM. */
VBMC_API vbmc_status vbmc_create_warm(vbmc **out, const vbmc *previous, const vbmc_opts *opts,
                                      int reuse_evaluations);

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
 * log_joint_sd: 0 for an exact target, > 0 the noise SD of a noisy estimate (the first such value
 * turns noisy mode on, stat "noisy": Acerbi 2020, PyVBMC's specify_target_noise).
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
 * "stable_count", "gp_samples", "dim", "max_fun_evals" (the budget: option max_fun_evals, plus
 * option retry_max_fun_evals once the run has retried), "retried" (0/1: the run spent max_fun_evals
 * without converging and went on with retry_max_fun_evals more evaluations, at most once; that
 * iteration's action is "retry"), "locating" (0/1: the locating stage is running), "locate_evals"
 * (evaluations it asked for), "has_prior" (0/1: a prior was given, so the values told are log
 * likelihoods), "reused_count" (evaluations re-used from the previous run of
 * vbmc_create_warm: included in "func_count", not counted against max_fun_evals), "noisy" (0/1:
 * noisy mode, on with option specify_target_noise or uncertainty_handling or once a value was
 * told with log_joint_sd > 0; it brings noisy defaults for the options not set: max_fun_evals
 * 75(D+2), tol_stable_count 150, search_acq_fcn "viqr"; also noise shaping and a best value
 * taken from the surrogate's mean instead of the largest noisy value). "elbo"/"elbo_sd"
 * are NaN before the first iteration. "log_z" and "log_z_sd": vbmc_post_log_evidence of
 * vbmc_posterior's snapshot, computed on each request (NaN before the first iteration).
 * The verdict on a finished run's result (NaN before it has finished): "reliable" (0/1),
 * "loo_error" (median leave-one-out error of the surrogate at the high-density evaluations),
 * "mass_above_data" and "mass_unexplored" (fractions of the posterior lying where the surrogate
 * predicts log joints above every evaluation, or has seen none), "best_value_gap" (how far the
 * best evaluations rise above anything the posterior covers), "box_excess" (how far the
 * posterior's mean lies beyond the plausible box given, in widths of the box, in the transformed
 * space; above 1 the result is unreliable). "converged" is 1 only for a run
 * that was stable and whose result is reliable; vbmc_result_message says why not.
 * A second estimate of the log evidence, beside the ELBO (which is a lower bound): "log_z_bbq" and
 * "log_z_bbq_sd", doubly Bayesian quadrature (BBQ*, Osborne et al. 2012, sections 3-4) of the
 * run's training set under the current posterior (after the run, the returned one): a GP on the
 * likelihood re-weighted by a Gaussian twice as wide as the posterior, a GP on its log, the
 * linearisation correction and the approximate marginalisation of the input scales; the SD is that
 * of log Z by the delta method. Computed on each request (no evaluations, a fraction of a second
 * for a few hundred points); NaN before the first iteration and when BBQ's mean of Z is not
 * positive (its linearised model does not guarantee it; it happens for heavy-tailed posteriors).
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
 * pointer is saved in checkpoints. The caller owns userdata: it must stay valid while this run, or
 * a run warm-started from it (vbmc_create_warm copies the callback), may still be told a value. Errors: VBMC_E_ARG (NULL run or fn), VBMC_E_STATE (the run has
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
 * "stable" (0/1) and "warmup" (0/1), and summaries of the surrogate's hyperparameters (the GP of
 * paper eq. 7, in the iteration's transformed space: unbounded, standardised by the plausible box),
 * each the median over its hyperparameter samples (the upper of the two middle values for an even
 * count): "gp_output_scale" (the kernel's output scale sf, k(x,x) = sf^2), "gp_length_scale" (the
 * geometric mean over coordinates of the kernel's length scales) and "gp_noise_sd" (the GP's own
 * observation noise SD, added to the SDs told). A finished run's returned posterior (after the
 * final boost) has its own ELBO, stat "elbo", which need not equal the last entry. Checkpoints
 * keep the record. n == 0 does nothing (values may then be NULL). Errors: VBMC_E_ARG (NULL run,
 * name or values, unknown series, n not the number of completed iterations). */
VBMC_API vbmc_status vbmc_history(const vbmc *run, const char *name, size_t n, double *values);

/* The posterior of completed iteration `iteration` (0 <= iteration < stat "iteration"), as
 * vbmc_posterior gave it right after that iteration: its variational mixture (before any final
 * boost), its ELBO and ELBO SD, and the surrogate it was fitted to (the iteration's training set
 * and hyperparameter samples, for vbmc_post_sample_refined). For convergence plots and for
 * comparing an iteration's posterior with the final one. *out is owned by the caller
 * (vbmc_post_destroy) and does not depend on the run. Checkpoints keep what it needs.
 * Errors: VBMC_E_ARG (NULL run or out, iteration out of range; the message gives the range). */
VBMC_API vbmc_status vbmc_history_posterior(const vbmc *run, int iteration, vbmc_post **out);

/* The action completed iteration `iteration` took, as the "Action" column of the iteration table
 * shows it: "" or a comma-separated list of "start warm-up", "end warm-up", "trim data",
 * "rotoscale", "undo rotoscale", "switch to GP opt", "stable", "stable but unreliable",
 * "retry" (option retry_max_fun_evals), ... into buf[size]. When buf is not NULL and size > 0, buf
 * is always NUL-terminated: the whole text on success, "" after any error (never a truncated
 * text), as vbmc_opts_get. Errors: VBMC_E_ARG (NULL run or buf, iteration out of range, buffer
 * too small; the message says the size needed). */
VBMC_API vbmc_status vbmc_history_action(const vbmc *run, int iteration, char *buf, size_t size);

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

/* An estimate of the log evidence log Z = log int p(x) dx that is not a bound, with an SD meant to
 * be read as a calibrated error bar (log_z +- 0.674 log_z_sd a 50% interval, +- 1.96 log_z_sd a 95%
 * one; bench/RESULTS.md, "Evidence", measures how often they hold the truth). It is importance
 * sampling of the surrogate's posterior mean m under the mixture, Z = E_q[exp m(z) / q(z)], from
 * 2000 draws of q, for each hyperparameter sample; log_z is the median over the samples. Unlike
 * the ELBO it counts the mass q covers too thinly. log_z_sd combines: the spread of log Z over the
 * surrogate's posterior functions (200 drawn jointly at 400 of the draws, over the hyperparameter
 * samples); the shift of their median from log_z (Z is convex in f: where the surrogate is unsure,
 * its functions put Z higher than its mean does; the surrogate is as often wrong about that as
 * right, so the shift widens the interval instead of moving the estimate); the importance-sampling
 * error; and a delete-a-group jackknife over the training set (10 groups: how much log Z moves
 * when a tenth of the evaluations is left out). A function of the snapshot (fixed internal seed):
 * a saved and loaded snapshot gives bitwise the same values. Cost: about 10 factorisations of the
 * surrogate, 2000 predictions and one 400 x 400 factorisation per hyperparameter sample (0.01-0.07 s
 * on the benchmark). Either pointer may be NULL.
 * Errors: VBMC_E_ARG (NULL or dead post), VBMC_E_NUMERIC (the surrogate cannot be factorised). */
VBMC_API vbmc_status vbmc_post_log_evidence(const vbmc_post *post, double *log_z, double *log_z_sd);

/* BBQ's log evidence of the snapshot, what vbmc_stat "log_z_bbq" / "log_z_bbq_sd" give for a run's
 * current posterior (see there): from the surrogate's training set and the mixture, no new
 * evaluations; NaN for both when BBQ's mean of Z is not positive. A function of the snapshot (a
 * loaded snapshot gives bitwise the same). Either pointer may be NULL.
 * Errors: VBMC_E_ARG (NULL or dead post). */
VBMC_API vbmc_status vbmc_post_log_evidence_bbq(const vbmc_post *post, double *log_z, double *log_z_sd);

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

/* The mode: the highest point of the posterior density in the original space (Jacobian included,
 * as vbmc_post_log_pdf) into x[dim]. Found by BFGS on the log density with its analytic gradient,
 * in the unbounded space (where the bounds cannot be crossed), from every component mean and from
 * the highest of 1000 draws of a fixed seed; the best end point is returned. Deterministic. The
 * mode of a mixture in the original space is a brittle summary (PyVBMC's mode warns likewise):
 * it is not the transform of the mode in the unbounded space, and where the density rises
 * without bound towards a hard bound it is a point within rounding of that bound.
 * Errors: VBMC_E_ARG (NULL or dead post, NULL x). */
VBMC_API vbmc_status vbmc_post_mode(const vbmc_post *post, double *x);

/* The marginal density of coordinate coord (0-based) in the original space at n values[n] of that
 * coordinate, into pdf[n]; 0 outside the hard bounds. Exact: each mixture component is Gaussian in
 * the space before the coordinate-wise bound transform (also after rotoscaling), so the marginal is
 * a one-dimensional Gaussian mixture times the transform's one-dimensional Jacobian; it integrates
 * to 1. n == 0 does nothing (values and pdf may then be NULL). Errors: VBMC_E_ARG (NULL or dead
 * post, coord not in [0, dim), NULL array, NaN in values). */
VBMC_API vbmc_status vbmc_post_marginal_pdf(const vbmc_post *post, int coord, size_t n,
                                            const double *values, double *pdf);

/* Kullback-Leibler divergences between two snapshots of the same dimension in the original space,
 * by Monte Carlo (PyVBMC VariationalPosterior.kl_div, MATLAB VBMC vbmc_kldiv): kl[0] = KL(p||q),
 * the mean of log p(x) - log q(x) over the n draws x of vbmc_post_sample(p, n, seed), and
 * kl[1] = KL(q||p) over the n draws of vbmc_post_sample(q, n, seed + 1); kl_sd[2] (may be NULL)
 * receives their Monte Carlo standard errors (the SD of the differences over sqrt(n)). As PyVBMC, a
 * density that is 0 at a draw (outside the other's bounds) counts as DBL_MIN, and an estimate below
 * 0 (Monte Carlo error) is returned as 0. KL(p||p) is 0 exactly. Same seed, same result; the
 * snapshots may come from runs with different bounds. Cost: 2n density evaluations of each.
 * Errors: VBMC_E_ARG (NULL or dead p or q, NULL kl, different dimensions, n < 2, n too large),
 * VBMC_E_NUMERIC (a density is infinite at a draw), VBMC_E_NOMEM. */
VBMC_API vbmc_status vbmc_post_kl(const vbmc_post *p, const vbmc_post *q, size_t n, uint64_t seed,
                                  double kl[2], double *kl_sd);

/* Marginal total variation distance of each coordinate d, mtv[dim], TV_d = 0.5 * integral
 * |p_d(x) - q_d(x)| dx in [0, 1], and their mean *mean_mtv (either pointer may be NULL), between
 * two snapshots of the same dimension (PyVBMC VariationalPosterior.mtv, MATLAB VBMC vbmc_mtv).
 * Estimated without bias from the same draws as vbmc_post_kl (n of p with seed, n of q with
 * seed + 1) and the exact marginals (vbmc_post_marginal_pdf): TV_d is the mean of
 * E_p[max(0, 1 - q_d/p_d)] and E_q[max(0, 1 - p_d/q_d)], each term in [0, 1]; PyVBMC integrates
 * kernel density estimates of the draws instead, which adds a smoothing bias. The standard error
 * is at most 0.5 / sqrt(n). Identical snapshots give 0 exactly. Same seed, same result.
 * Errors: VBMC_E_ARG (NULL or dead p or q, different dimensions, n == 0, n too large),
 * VBMC_E_NOMEM. */
VBMC_API vbmc_status vbmc_post_mtv(const vbmc_post *p, const vbmc_post *q, size_t n, uint64_t seed,
                                   double *mtv, double *mean_mtv);

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

/* ---------------------------------------------------------------------------------------------
 * Diagnostics of several runs of one problem (MATLAB VBMC's vbmc_diagnostics)
 *
 * Run the same problem several times (different seeds and starting points, e.g. in parallel),
 * then ask whether the runs agree, which is best, and what is wrong when they do not. Messages of
 * failed vbmc_diag* calls are read with vbmc_last_error(NULL) on the same thread.
 * ------------------------------------------------------------------------------------------- */

/* Diagnose n >= 2 finished (or running) runs runs[n] of one problem from their returned posteriors
 * (vbmc_posterior) and their "converged" stat. The best run has the highest ELCBO = ELBO - 3 SD
 * among the converged runs (among all when none converged). A run agrees with the best on the
 * ELBO when they differ by less than 1, on the posterior when their symmetrised KL divergence
 * 0.5 (KL(p||q) + KL(q||p)) is below 1, and on the marginals when the largest marginal total
 * variation distance over the coordinates is below 0.2 (vbmc_post_kl and vbmc_post_mtv with 10000
 * draws of each posterior; pair i < j draws with seed + 2 (i n + j), so the same seed gives the
 * same result). Each criterion passes when at least max(2, ceil(n / 3)) runs (the best included)
 * agree; the runs agree when at least two converged and every criterion passes. Cost: n (n - 1) / 2
 * comparisons of 10000 draws each way. *out is owned by the caller (vbmc_diag_destroy) and does not
 * depend on the runs. Errors: VBMC_E_ARG (NULL out or runs, n < 2, runs[i] NULL or not a live run,
 * runs of different dimensions; the message names the index), VBMC_E_STATE (runs[i] has no
 * posterior yet, or finished without one), VBMC_E_NUMERIC, VBMC_E_NOMEM. */
VBMC_API vbmc_status vbmc_diagnose(const vbmc *const *runs, int n, uint64_t seed, vbmc_diag **out);

/* Release diagnostics. NULL is a no-op. */
VBMC_API void vbmc_diag_destroy(vbmc_diag *diag);

/* A scalar result by name: "agree" (0/1), "best" (index of the best run in runs), "runs" (n),
 * "converged_count", "exit_flag" (MATLAB's: 1 passed, 0 only one run converged, -1 too few runs
 * agree with the best on the posterior or the marginals, -2 too few on the ELBO, -3 no run
 * converged; the lowest that applies), "elbo_spread" (largest minus smallest ELBO over the
 * converged runs, over all when none converged), "max_skl" and "max_mtv" (the largest symmetrised
 * KL divergence and largest marginal total variation between the best run and another),
 * "elbo_agree_count", "skl_agree_count", "mtv_agree_count" (runs agreeing with the best on each
 * criterion, the best included), and the thresholds "beta_lcb" (3), "elbo_threshold" (1),
 * "skl_threshold" (1), "mtv_threshold" (0.2). Errors: VBMC_E_ARG (NULL or dead diag, NULL name or
 * value, unknown name). */
VBMC_API vbmc_status vbmc_diag_stat(const vbmc_diag *diag, const char *name, double *value);

/* A pairwise matrix by name into values[n*n] (row-major, n the number of runs): "skl" (symmetrised
 * KL divergences), "kl" (entry (i, j) is KL(run i || run j)) or "mtv" (the largest marginal total
 * variation distance over the coordinates); the diagonal is 0. Errors: VBMC_E_ARG (NULL or dead
 * diag, NULL name or values, unknown name, n not the number of runs). */
VBMC_API vbmc_status vbmc_diag_pairwise(const vbmc_diag *diag, const char *name, size_t n, double *values);

/* The diagnosis in sentences: the verdict ("The runs agree.", "The runs do not agree." when too few
 * converged, or "The runs do not agree: too few agree with the best run on the posterior
 * (symmetrised KL divergence)."), which runs converged,
 * which run is best and why, and for each criterion some run fails, which runs and by how much
 * ("Posterior: 1 of 2 runs agree with the best run (symmetrised KL divergence below 1; at least 2
 * needed): run 1 is at 4.2."). Runs are named by their index in runs. Owned by diag, valid until
 * vbmc_diag_destroy; "" for NULL or a dead diag. */
VBMC_API const char *vbmc_diag_message(const vbmc_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* VBMC_VBMC_H */
