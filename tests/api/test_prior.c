/* Priors given to the library (vbmc_set_prior, vbmc_set_prior_fn): a run told log likelihoods
 * with the prior set asks the same points and ends with the same posterior, bitwise, as the same
 * run told the log joints log likelihood + vbmc_log_prior; the callback path through vbmc_run;
 * points outside the prior's support, a callback's NaN, the record of both parts, the display
 * line, every error path with its message (tell before prior, incomplete priors, mixing), and
 * checkpoints (per-coordinate priors kept, a callback set again after loading). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

enum { DIM = 2, BUDGET = 30 };

static const double PLB[DIM] = {-2, -2}, PUB[DIM] = {2, 2};

static double log_likelihood(const double *x) {
    const double r = x[0] - 0.5, s = x[1] + 0.25;
    return -0.5 * (r * r / 0.5 + s * s / 0.8 + 0.6 * r * s);
}

static double stat(const vbmc *run, const char *name) {
    double value = NAN;
    assert_int_equal(vbmc_stat(run, name, &value), VBMC_OK);
    return value;
}

/* A short run (seed 11), bounds lb/ub (NULL: unbounded; else those of BOUNDED_LB, BOUNDED_UB). */
static const double BOUNDED_LB[DIM] = {-3, 0}, BOUNDED_UB[DIM] = {3, INFINITY};
static const double BOUNDED_PLB[DIM] = {-2, 0.5}, BOUNDED_PUB[DIM] = {2, 3};

static vbmc *new_run(const double *lb, const double *ub, const char *display) {
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", display), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", BUDGET), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "fun_eval_start", 6), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_gp_max", 4), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", 11), VBMC_OK);
    assert_int_equal(vbmc_create(&run, DIM, NULL, lb, ub, lb ? BOUNDED_PLB : PLB, ub ? BOUNDED_PUB : PUB, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    return run;
}

static void set_gaussian_priors(vbmc *run) {
    const double p0[2] = {0.0, 1.5}, p1[2] = {0.3, 2.0};
    assert_int_equal(vbmc_set_prior(run, 0, "gaussian", p0, 2), VBMC_OK);
    assert_int_equal(vbmc_set_prior(run, 1, "gaussian", p1, 2), VBMC_OK);
}

static double closed_form_gaussian_priors(const double *x) {
    const double t0 = x[0] / 1.5, t1 = (x[1] - 0.3) / 2.0;
    return -0.5 * (t0 * t0 + t1 * t1) - log(1.5) - log(2.0) - log(2.0 * 3.14159265358979323846);
}

typedef struct {
    int lines;
    int prior_line;
} log_capture;

static void capture(void *userdata, int level, const char *line) {
    (void)level;
    log_capture *c = userdata;
    ++c->lines;
    if (strcmp(line, "The values told are log likelihoods; the run adds the log prior (gaussian on x[0], "
                     "gaussian on x[1]) to form the log joint.") == 0)
        ++c->prior_line;
}

/* Run `with` (prior set, told log likelihoods) and `joint` (no prior, told log likelihood +
 * vbmc_log_prior of `with`) side by side: every ask, the records and the posterior agree bitwise. */
static void test_prior_equals_told_log_joint(void **state) {
    (void)state;
    vbmc *with = new_run(NULL, NULL, "iter"), *joint = new_run(NULL, NULL, "off");
    log_capture log = {0, 0};
    assert_int_equal(vbmc_set_logger(with, capture, &log), VBMC_OK);
    assert_true(stat(with, "has_prior") == 0.0);
    set_gaussian_priors(with);
    assert_true(stat(with, "has_prior") == 1.0 && stat(joint, "has_prior") == 0.0);
    double x[DIM], y[DIM];
    int asks = 0;
    for (;;) {
        const vbmc_status a = vbmc_ask(with, x), b = vbmc_ask(joint, y);
        assert_int_equal(a, b);
        if (a == VBMC_DONE) break;
        assert_int_equal(a, VBMC_OK);
        assert_memory_equal(x, y, sizeof x);
        double log_prior = NAN;
        assert_int_equal(vbmc_log_prior(with, x, &log_prior), VBMC_OK);
        assert_close(log_prior, closed_form_gaussian_priors(x), 1e-13);
        const double ll = log_likelihood(x);
        assert_int_equal(vbmc_tell(with, x, ll, 0.0), VBMC_OK);
        assert_int_equal(vbmc_tell(joint, y, ll + log_prior, 0.0), VBMC_OK);
        ++asks;
    }
    assert_int_equal(asks, BUDGET);
    assert_int_equal(log.prior_line, 1);
    const size_t n = BUDGET;
    double ja[BUDGET], jb[BUDGET], ll[BUDGET], lp[BUDGET], xs[BUDGET * DIM];
    assert_int_equal(vbmc_evaluations(with, n, xs, ja, NULL, NULL), VBMC_OK);
    assert_int_equal(vbmc_evaluations(joint, n, NULL, jb, NULL, NULL), VBMC_OK);
    assert_memory_equal(ja, jb, sizeof ja);
    assert_int_equal(vbmc_evaluations_prior(with, n, ll, lp), VBMC_OK);
    for (size_t i = 0; i < n; ++i) {
        assert_true(ll[i] == log_likelihood(xs + i * DIM));  /* bitwise as told */
        assert_true(ja[i] == ll[i] + lp[i]);
    }
    assert_int_equal(vbmc_evaluations_prior(joint, n, ll, lp), VBMC_E_STATE);
    assert_message_mentions(vbmc_last_error(joint), "the run has no prior");
    vbmc_post *pa = NULL, *pb = NULL;
    assert_int_equal(vbmc_posterior(with, &pa), VBMC_OK);
    assert_int_equal(vbmc_posterior(joint, &pb), VBMC_OK);
    double ea, eb, ma[DIM], mb[DIM];
    assert_int_equal(vbmc_post_elbo(pa, &ea, NULL), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(pb, &eb, NULL), VBMC_OK);
    assert_true(ea == eb);
    assert_int_equal(vbmc_post_moments(pa, ma, NULL), VBMC_OK);
    assert_int_equal(vbmc_post_moments(pb, mb, NULL), VBMC_OK);
    assert_memory_equal(ma, mb, sizeof ma);
    vbmc_post_destroy(pa);
    vbmc_post_destroy(pb);
    vbmc_destroy(with);
    vbmc_destroy(joint);
}

/* The callback path: vbmc_run told log likelihoods gives what a loop told the joints gives. */
typedef struct {
    int calls;
    int gaussian; /* 1: a Gaussian prior; 0: the value `fixed` */
    double fixed;
} prior_state;

static double callback_prior(const double *x, void *userdata) {
    prior_state *s = userdata;
    ++s->calls;
    return s->gaussian ? -0.5 * (x[0] * x[0] + x[1] * x[1]) : s->fixed;
}

static double driver_log_likelihood(const double *x, double *sd, void *userdata) {
    (void)sd;
    (void)userdata;
    return log_likelihood(x);
}

static void test_callback_prior_through_the_driver(void **state) {
    (void)state;
    prior_state s = {0, 1, 0.0}, twin = {0, 1, 0.0};
    vbmc *with = new_run(NULL, NULL, "off"), *joint = new_run(NULL, NULL, "off");
    assert_int_equal(vbmc_set_prior_fn(with, callback_prior, &s), VBMC_OK);
    assert_int_equal(vbmc_run(with, driver_log_likelihood, NULL), VBMC_DONE);
    assert_int_equal(s.calls, BUDGET);
    double x[DIM];
    while (vbmc_ask(joint, x) == VBMC_OK)
        assert_int_equal(vbmc_tell(joint, x, log_likelihood(x) + callback_prior(x, &twin), 0.0), VBMC_OK);
    double ja[BUDGET], jb[BUDGET];
    assert_int_equal(vbmc_evaluations(with, BUDGET, NULL, ja, NULL, NULL), VBMC_OK);
    assert_int_equal(vbmc_evaluations(joint, BUDGET, NULL, jb, NULL, NULL), VBMC_OK);
    assert_memory_equal(ja, jb, sizeof ja);
    assert_true(stat(with, "elbo") == stat(joint, "elbo"));
    double lp = 0.0;
    const double at[DIM] = {1.0, -2.0};
    assert_int_equal(vbmc_log_prior(with, at, &lp), VBMC_OK);
    assert_true(lp == -2.5 && s.calls == BUDGET + 1);
    vbmc_destroy(with);
    vbmc_destroy(joint);
}

/* -INFINITY from the prior: a failed evaluation, recorded with both parts. NaN, +inf or a value
 * above 1e150: the tell fails, nothing is recorded and the point stays pending. */
static void test_outside_support_and_bad_callback_values(void **state) {
    (void)state;
    prior_state s = {0, 0, -INFINITY};
    vbmc *run = new_run(NULL, NULL, "off");
    assert_int_equal(vbmc_set_prior_fn(run, callback_prior, &s), VBMC_OK);
    double x[DIM];
    assert_int_equal(vbmc_ask(run, x), VBMC_OK);
    assert_int_equal(vbmc_tell(run, x, -1.0, 0.0), VBMC_OK);
    assert_true(stat(run, "failed_count") == 1.0);
    double ll, lp, lj;
    int in_training = 1;
    assert_int_equal(vbmc_evaluations_prior(run, 1, &ll, &lp), VBMC_OK);
    assert_int_equal(vbmc_evaluations(run, 1, NULL, &lj, NULL, &in_training), VBMC_OK);
    assert_true(ll == -1.0 && isinf(lp) && lp < 0 && isinf(lj) && in_training == 0);
    const double bad[3] = {NAN, INFINITY, 2e150};
    const char *said[3] = {"returned nan", "returned inf", "returned 2e+150"};
    assert_int_equal(vbmc_ask(run, x), VBMC_OK);
    for (int i = 0; i < 3; ++i) {
        s.fixed = bad[i];
        assert_int_equal(vbmc_tell(run, x, -1.0, 0.0), VBMC_E_ARG);
        assert_message_mentions(vbmc_last_error(run), said[i]);
        assert_message_mentions(vbmc_last_error(run), "a log prior density is finite (at most 1e150) or -INFINITY");
        assert_true(stat(run, "func_count") == 1.0 && stat(run, "pending") == 1.0);
        assert_int_equal(vbmc_log_prior(run, x, &lp), VBMC_E_ARG);
    }
    s.fixed = 1e150;
    assert_int_equal(vbmc_tell(run, x, 1e150, 0.0), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "log_likelihood + log_prior = ");
    assert_message_mentions(vbmc_last_error(run), " is above 1e150, more than the surrogate can represent");
    s.fixed = -3.0;
    assert_int_equal(vbmc_tell(run, x, -1.0, 0.0), VBMC_OK);
    const double inside[DIM] = {0.5, 0.5};
    assert_int_equal(vbmc_tell_extra(run, inside, -2.0, 0.0), VBMC_OK);
    double lls[3], lps[3], ljs[3];
    assert_int_equal(vbmc_evaluations_prior(run, 3, lls, lps), VBMC_OK);
    assert_int_equal(vbmc_evaluations(run, 3, NULL, ljs, NULL, NULL), VBMC_OK);
    assert_true(lls[2] == -2.0 && lps[2] == -3.0 && ljs[2] == -5.0);
    vbmc_destroy(run);
}

static void expect(vbmc_status status, vbmc_status expected, const vbmc *run, const char *needle) {
    if (status != expected) print_error("status %d, message \"%s\"\n", (int)status, vbmc_last_error(run));
    assert_int_equal(status, expected);
    assert_message_mentions(vbmc_last_error(run), needle);
}

/* Arguments and rules: each refusal names the argument or coordinate, the value and the rule, and
 * leaves the run's prior as it was. */
static void test_invalid_priors_are_refused(void **state) {
    (void)state;
    vbmc *run = new_run(BOUNDED_LB, BOUNDED_UB, "off");
    const double g[2] = {0, 1}, g3[3] = {0, 1, 2}, neg[2] = {0, -1}, narrow[2] = {-2, 3};
    expect(vbmc_set_prior(NULL, 0, "gaussian", g, 2), VBMC_E_ARG, NULL, "run is NULL");
    expect(vbmc_set_prior(run, 0, NULL, g, 2), VBMC_E_ARG, run, "kind is NULL");
    expect(vbmc_set_prior(run, 0, "gaussian", NULL, 2), VBMC_E_ARG, run, "params is NULL");
    expect(vbmc_set_prior(run, 2, "gaussian", g, 2), VBMC_E_ARG, run, "coord = 2 is outside [0, 2)");
    expect(vbmc_set_prior(run, -1, "gaussian", g, 2), VBMC_E_ARG, run, "coord = -1 is outside [0, 2)");
    expect(vbmc_set_prior(run, 0, "normal", g, 2), VBMC_E_ARG, run, "kind = \"normal\" is not a prior kind");
    expect(vbmc_set_prior(run, 0, "gaussian", g3, 3), VBMC_E_ARG, run,
           "coordinate 0: a gaussian prior takes 2 parameters (mu, sigma), not n_params = 3");
    expect(vbmc_set_prior(run, 1, "gaussian", neg, 2), VBMC_E_ARG, run, "coordinate 1: the gaussian prior's sigma = -1 is not above 0");
    expect(vbmc_set_prior(run, 0, "uniform", narrow, 2), VBMC_E_ARG, run,
           "coordinate 0: the uniform prior has the bounded support [a, b] = [-2, 3] but the hard bounds are lb[0] = -3, ub[0] = 3");
    expect(vbmc_set_prior(run, 0, "lognormal", g, 2), VBMC_E_ARG, run, "lb[0] = -3: it needs lb[0] >= 0");
    expect(vbmc_set_prior_fn(run, NULL, NULL), VBMC_E_ARG, run, "fn is NULL");
    assert_true(stat(run, "has_prior") == 0.0);
    double lp = 0.0;
    const double at[DIM] = {0.0, 1.0};
    expect(vbmc_log_prior(run, at, &lp), VBMC_E_STATE, run, "the run has no prior: the values told are log joints");
    vbmc_destroy(run);
}

static void test_when_a_prior_may_be_given(void **state) {
    (void)state;
    const double u[2] = {-3, 3}, logn[2] = {0, 1};
    prior_state s = {0, 1, 0.0};
    vbmc *run = new_run(BOUNDED_LB, BOUNDED_UB, "off");
    assert_int_equal(vbmc_set_prior(run, 0, "uniform", u, 2), VBMC_OK);
    assert_true(stat(run, "has_prior") == 1.0);
    expect(vbmc_set_prior_fn(run, callback_prior, &s), VBMC_E_STATE, run,
           "the run has per-coordinate priors: a prior is either per coordinate (vbmc_set_prior) or a callback");
    /* Coordinate 1 has none: tells, extra tells and vbmc_log_prior are refused, nothing recorded. */
    double x[DIM], lp = 0.0;
    const double inside[DIM] = {0.5, 1.0};
    assert_int_equal(vbmc_ask(run, x), VBMC_OK);
    expect(vbmc_tell(run, x, -1.0, 0.0), VBMC_E_STATE, run, "coordinate 1 has no prior: with per-coordinate priors every coordinate needs one");
    expect(vbmc_tell_extra(run, inside, -1.0, 0.0), VBMC_E_STATE, run, "coordinate 1 has no prior");
    expect(vbmc_log_prior(run, inside, &lp), VBMC_E_STATE, run, "coordinate 1 has no prior");
    assert_true(stat(run, "func_count") == 0.0 && stat(run, "pending") == 1.0);
    assert_int_equal(vbmc_set_prior(run, 1, "lognormal", logn, 2), VBMC_OK);
    assert_int_equal(vbmc_log_prior(run, inside, &lp), VBMC_OK);
    assert_close(lp, -log(6.0) - 0.5 * log(2.0 * 3.14159265358979323846), 1e-15);
    const double nan_x[DIM] = {NAN, 1.0};
    expect(vbmc_log_prior(run, nan_x, &lp), VBMC_E_ARG, run, "x[0] = nan is not finite");
    expect(vbmc_log_prior(run, inside, NULL), VBMC_E_ARG, run, "log_prior is NULL");
    assert_int_equal(vbmc_tell(run, x, -1.0, 0.0), VBMC_OK);
    /* After the first tell the prior is fixed. */
    expect(vbmc_set_prior(run, 1, "lognormal", logn, 2), VBMC_E_STATE, run,
           "vbmc_set_prior: a prior must be given before the first value is told, and this run has been told 1 value");
    expect(vbmc_set_prior_fn(run, callback_prior, &s), VBMC_E_STATE, run, "vbmc_set_prior_fn: a prior must be given before");
    double ll;
    expect(vbmc_evaluations_prior(run, 2, &ll, NULL), VBMC_E_ARG, run, "func_count");
    vbmc_destroy(run);
    /* A run told a log joint first cannot take a prior; a callback excludes per-coordinate priors. */
    run = new_run(NULL, NULL, "off");
    assert_int_equal(vbmc_tell_extra(run, inside, -1.0, 0.0), VBMC_OK);
    expect(vbmc_set_prior_fn(run, callback_prior, &s), VBMC_E_STATE, run, "this run has been told 1 value");
    vbmc_destroy(run);
    run = new_run(NULL, NULL, "off");
    assert_int_equal(vbmc_set_prior_fn(run, callback_prior, &s), VBMC_OK);
    expect(vbmc_set_prior(run, 0, "uniform", u, 2), VBMC_E_STATE, run, "the run has a prior callback");
    vbmc_destroy(run);
}

/* Checkpoints keep per-coordinate priors and both parts of every evaluation: the loaded run
 * continues bitwise as the original. A callback is not saved: the loaded run refuses tells until
 * vbmc_set_prior_fn sets it again, which it then allows despite the tells; a run saved without a
 * callback does not allow it. */
static vbmc *saved_and_loaded(const vbmc *run, const char *name) {
    char path[96];
    snprintf(path, sizeof path, "test_prior.%s.%ld", name, (long)getpid());
    assert_int_equal(vbmc_save(run, path), VBMC_OK);
    vbmc *loaded = NULL;
    assert_int_equal(vbmc_load(&loaded, path), VBMC_OK);
    remove(path);
    return loaded;
}

static void test_checkpoints_keep_the_prior(void **state) {
    (void)state;
    vbmc *run = new_run(BOUNDED_LB, BOUNDED_UB, "off");
    const double trap[4] = {-3, -1, 1.5, 3}, logn[2] = {0.2, 0.7};
    assert_int_equal(vbmc_set_prior(run, 0, "spline_trapezoidal", trap, 4), VBMC_OK);
    assert_int_equal(vbmc_set_prior(run, 1, "lognormal", logn, 2), VBMC_OK);
    double x[DIM], y[DIM];
    for (int i = 0; i < 12 && vbmc_ask(run, x) == VBMC_OK; ++i)
        assert_int_equal(vbmc_tell(run, x, log_likelihood(x), 0.0), VBMC_OK);
    vbmc *loaded = saved_and_loaded(run, "coordinates");
    assert_true(stat(loaded, "has_prior") == 1.0);
    double a = 0.0, b = 1.0;
    const double at[DIM] = {-2.0, 0.4};
    assert_int_equal(vbmc_log_prior(run, at, &a), VBMC_OK);
    assert_int_equal(vbmc_log_prior(loaded, at, &b), VBMC_OK);
    assert_true(a == b);
    expect(vbmc_set_prior(loaded, 0, "spline_trapezoidal", trap, 4), VBMC_E_STATE, loaded, "this run has been told 12 values");
    for (;;) {
        const vbmc_status sa = vbmc_ask(run, x), sb = vbmc_ask(loaded, y);
        assert_int_equal(sa, sb);
        if (sa == VBMC_DONE) break;
        assert_memory_equal(x, y, sizeof x);
        assert_int_equal(vbmc_tell(run, x, log_likelihood(x), 0.0), VBMC_OK);
        assert_int_equal(vbmc_tell(loaded, y, log_likelihood(y), 0.0), VBMC_OK);
    }
    double lla[BUDGET], llb[BUDGET], lpa[BUDGET], lpb[BUDGET];
    assert_int_equal(vbmc_evaluations_prior(run, BUDGET, lla, lpa), VBMC_OK);
    assert_int_equal(vbmc_evaluations_prior(loaded, BUDGET, llb, lpb), VBMC_OK);
    assert_memory_equal(lla, llb, sizeof lla);
    assert_memory_equal(lpa, lpb, sizeof lpa);
    assert_true(stat(run, "elbo") == stat(loaded, "elbo"));
    vbmc_destroy(run);
    vbmc_destroy(loaded);
}

static void test_a_callback_is_set_again_after_load(void **state) {
    (void)state;
    prior_state s = {0, 1, 0.0};
    vbmc *run = new_run(NULL, NULL, "off");
    assert_int_equal(vbmc_set_prior_fn(run, callback_prior, &s), VBMC_OK);
    double x[DIM];
    for (int i = 0; i < 3; ++i) {
        assert_int_equal(vbmc_ask(run, x), VBMC_OK);
        assert_int_equal(vbmc_tell(run, x, log_likelihood(x), 0.0), VBMC_OK);
    }
    assert_int_equal(vbmc_ask(run, x), VBMC_OK); /* saved pending */
    vbmc *loaded = saved_and_loaded(run, "callback");
    assert_true(stat(loaded, "has_prior") == 1.0);
    double lp = 0.0;
    expect(vbmc_tell(loaded, x, log_likelihood(x), 0.0), VBMC_E_STATE, loaded,
           "the run was saved with a prior callback, which a checkpoint cannot hold: call vbmc_set_prior_fn again after vbmc_load");
    expect(vbmc_log_prior(loaded, x, &lp), VBMC_E_STATE, loaded, "call vbmc_set_prior_fn again after vbmc_load");
    assert_true(stat(loaded, "func_count") == 3.0 && stat(loaded, "pending") == 1.0);
    const double g[2] = {0, 1};
    expect(vbmc_set_prior(loaded, 0, "gaussian", g, 2), VBMC_E_STATE, loaded, "vbmc_set_prior: a prior must be given before");
    assert_int_equal(vbmc_set_prior_fn(loaded, callback_prior, &s), VBMC_OK);
    assert_int_equal(vbmc_tell(loaded, x, log_likelihood(x), 0.0), VBMC_OK);
    assert_int_equal(vbmc_tell(run, x, log_likelihood(x), 0.0), VBMC_OK);
    /* Set, the callback is fixed again; the two runs go on alike. */
    expect(vbmc_set_prior_fn(loaded, callback_prior, &s), VBMC_E_STATE, loaded, "this run has been told 4 values");
    double a[4], b[4];
    assert_int_equal(vbmc_evaluations(run, 4, NULL, a, NULL, NULL), VBMC_OK);
    assert_int_equal(vbmc_evaluations(loaded, 4, NULL, b, NULL, NULL), VBMC_OK);
    assert_memory_equal(a, b, sizeof a);
    vbmc_destroy(loaded);
    vbmc_destroy(run);
    /* A run saved without a prior takes no callback after its tells. */
    run = new_run(NULL, NULL, "off");
    assert_int_equal(vbmc_ask(run, x), VBMC_OK);
    assert_int_equal(vbmc_tell(run, x, log_likelihood(x), 0.0), VBMC_OK);
    loaded = saved_and_loaded(run, "none");
    assert_true(stat(loaded, "has_prior") == 0.0);
    expect(vbmc_set_prior_fn(loaded, callback_prior, &s), VBMC_E_STATE, loaded, "this run has been told 1 value");
    vbmc_destroy(loaded);
    vbmc_destroy(run);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prior_equals_told_log_joint),
        cmocka_unit_test(test_callback_prior_through_the_driver),
        cmocka_unit_test(test_outside_support_and_bad_callback_values),
        cmocka_unit_test(test_invalid_priors_are_refused),
        cmocka_unit_test(test_when_a_prior_may_be_given),
        cmocka_unit_test(test_checkpoints_keep_the_prior),
        cmocka_unit_test(test_a_callback_is_set_again_after_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
