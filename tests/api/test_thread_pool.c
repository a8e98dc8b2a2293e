/* vbmc_run_threads, the thread-pool driver: the same run as vbmc_run with one thread; results
 * told in the order evaluations finish (an evaluation that returns only after later ones have
 * returned); failed evaluations; an evaluation that never returns in time (abandoned, its slot
 * refilled); a host killed mid-run and resumed from its automatic checkpoint, its pending points
 * evaluated first; and argument errors. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

#define DIM 2
#define MAX_CALLS 400

static const double plb[DIM] = {-3, -3}, pub[DIM] = {3, 3};

static vbmc *make_run(int max_pending, int budget, const char *checkpoint) {
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", 5), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_pending", max_pending), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", budget), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "fun_eval_start", 6), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_gp_max", 4), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "ns_search", 256), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "min_final_components", 5), VBMC_OK);
    /* The locating stage hands out most of its points one at a time: a held point would stall it. */
    assert_int_equal(vbmc_opts_set(opts, "locate", "off"), VBMC_OK);
    if (checkpoint) assert_int_equal(vbmc_opts_set(opts, "checkpoint_file", checkpoint), VBMC_OK);
    assert_int_equal(vbmc_create(&run, DIM, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    return run;
}

static double stat_of(const vbmc *run, const char *name) {
    double v = NAN;
    assert_int_equal(vbmc_stat(run, name, &v), VBMC_OK);
    return v;
}

static double elbo_of(const vbmc *run) {
    vbmc_post *post = NULL;
    double elbo = NAN;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(post, &elbo, NULL), VBMC_OK);
    vbmc_post_destroy(post);
    return elbo;
}

static double gaussian(const double *x) { return -0.5 * (x[0] * x[0] + 2.0 * x[1] * x[1] - x[0] * x[1]); }

static void sleep_ms(int ms) {
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* What the test's log joints share across the pool's threads. */
typedef struct shared {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    int started, returned;        /* calls begun / returned */
    int hold_call;                /* this call (0-based) waits, see hold_until */
    int hold_until;               /* ... until this many calls have returned; -1: until released */
    int released, hold_exited;    /* the test released the held call / it has returned */
    int nan_every;                /* every nan_every-th call fails (0: none) */
    int kill_at;                  /* the process kills itself when a call from this one on begins */
    const char *checkpoint;       /* ... once this checkpoint holds a pending point (0: never) */
    double bad_sd_at;             /* call index whose SD is NaN (-1: none) */
    double points[MAX_CALLS][DIM];
} shared;

static void shared_init(shared *s) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mutex, NULL);
    pthread_cond_init(&s->changed, NULL);
    s->hold_call = -1;
    s->bad_sd_at = -1;
}

static void shared_destroy(shared *s) {
    pthread_mutex_destroy(&s->mutex);
    pthread_cond_destroy(&s->changed);
}

/* Waits on s->changed until pred holds or 30 s pass; returns whether it holds. */
static int wait_for(shared *s, int (*pred)(const shared *)) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    while (!pred(s))
        if (pthread_cond_timedwait(&s->changed, &s->mutex, &until) != 0) return pred(s);
    return 1;
}

static int hold_over(const shared *s) {
    return s->hold_until >= 0 ? s->returned >= s->hold_until : s->released;
}

/* Whether the run saved at path has a point out. */
static int saved_with_pending(const char *path) {
    vbmc *saved = NULL;
    double pending = 0.0;
    if (vbmc_load(&saved, path) == VBMC_OK) vbmc_stat(saved, "pending", &pending);
    vbmc_destroy(saved);
    return pending > 0;
}

static double pool_f(const double *x, double *sd, void *userdata) {
    shared *s = userdata;
    pthread_mutex_lock(&s->mutex);
    const int call = s->started++;
    if (call < MAX_CALLS) memcpy(s->points[call], x, sizeof s->points[0]);
    if (s->kill_at > 0 && call >= s->kill_at && saved_with_pending(s->checkpoint)) raise(SIGKILL);
    int held_ok = 1;
    if (call == s->hold_call) held_ok = wait_for(s, hold_over);
    const int fails = s->nan_every > 0 && call % s->nan_every == s->nan_every - 1;
    if (call == (int)s->bad_sd_at) *sd = NAN;
    pthread_mutex_unlock(&s->mutex);
    sleep_ms(1 + call % 3);
    pthread_mutex_lock(&s->mutex);
    ++s->returned;
    if (call == s->hold_call) s->hold_exited = 1;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->mutex);
    if (!held_ok) return INFINITY; /* told as a failure; the test then fails on its checks */
    return fails ? NAN : gaussian(x);
}

static double plain_f(const double *x, double *sd, void *userdata) {
    (void)sd;
    (void)userdata;
    return gaussian(x);
}

static void test_one_thread_is_vbmc_run(void **state) {
    (void)state;
    vbmc *a = make_run(1, 25, NULL), *b = make_run(1, 25, NULL);
    assert_int_equal(vbmc_run(a, plain_f, NULL), VBMC_DONE);
    assert_int_equal(vbmc_run_threads(b, plain_f, NULL, 1, 0.0), VBMC_DONE);
    const double ea = elbo_of(a), eb = elbo_of(b);
    assert_memory_equal(&ea, &eb, sizeof ea); /* bitwise */
    assert_close(stat_of(b, "func_count"), stat_of(a, "func_count"), 0.0);
    vbmc_destroy(a);
    vbmc_destroy(b);
}

/* Call 8 (an actively sampled point) returns only after 6 later calls have returned: the pool
 * must tell those and hand out new points meanwhile (a host that waited for results in the order
 * it dispatched them would never get there). */
static void test_results_in_any_order(void **state) {
    (void)state;
    shared s;
    shared_init(&s);
    s.hold_call = 8;
    s.hold_until = 8 + 6;
    vbmc *run = make_run(3, 40, NULL);
    assert_int_equal(vbmc_run_threads(run, pool_f, &s, 3, 0.0), VBMC_DONE);
    assert_true(s.hold_exited);
    assert_true(s.returned >= 14);
    assert_close(stat_of(run, "func_count"), s.returned, 0.0);
    assert_close(stat_of(run, "failed_count"), 0.0, 0.0);
    assert_close(stat_of(run, "pending"), 0.0, 0.0);
    assert_true(isfinite(elbo_of(run)));
    vbmc_destroy(run);
    shared_destroy(&s);
}

static void test_failed_evaluations(void **state) {
    (void)state;
    shared s;
    shared_init(&s);
    s.nan_every = 4;
    vbmc *run = make_run(4, 40, NULL);
    assert_int_equal(vbmc_run_threads(run, pool_f, &s, 4, 0.0), VBMC_DONE);
    const double told = stat_of(run, "func_count");
    assert_close(told, s.returned, 0.0);
    assert_close(stat_of(run, "failed_count"), floor(told / 4), 1.0); /* the order of tells varies */
    assert_true(stat_of(run, "failed_count") >= 1);
    assert_true(isfinite(elbo_of(run)));
    vbmc_destroy(run);
    shared_destroy(&s);
}

static int hold_has_exited(const shared *s) { return s->hold_exited; }

/* Call 9 never returns while the run goes on: after 0.3 s it is abandoned, its slot gets a new
 * thread, and the run finishes without it. Released afterwards, its value is ignored. */
static void test_evaluation_that_never_returns(void **state) {
    (void)state;
    shared s;
    shared_init(&s);
    s.hold_call = 9;
    s.hold_until = -1;
    vbmc *run = make_run(3, 30, NULL);
    assert_int_equal(vbmc_run_threads(run, pool_f, &s, 3, 0.3), VBMC_DONE);
    pthread_mutex_lock(&s.mutex);
    assert_false(s.hold_exited);
    const int started = s.started;
    s.released = 1;
    pthread_cond_broadcast(&s.changed);
    assert_true(wait_for(&s, hold_has_exited));
    pthread_mutex_unlock(&s.mutex);
    /* Every call but the abandoned one was told, and the abandoned point is no longer pending. */
    assert_close(stat_of(run, "func_count"), started - 1, 0.0);
    assert_close(stat_of(run, "pending"), 0.0, 0.0);
    assert_close(stat_of(run, "finished"), 1.0, 0.0);
    sleep_ms(20); /* the detached thread leaves f and exits */
    vbmc_destroy(run);
    shared_destroy(&s);
}

/* A child process runs the pool with automatic checkpoints and is killed (SIGKILL) when a call
 * from the 15th on begins once its checkpoint holds a point out (call 13 never returns, so one
 * will); the parent loads the checkpoint and finishes the run. The pending points are among the
 * first evaluated, and nothing the checkpoint holds is lost. */
static void test_killed_host_resumes(void **state) {
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_thread_pool.ckpt.%ld", (long)getpid());
    remove(path);
    const pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        static shared s; /* large: not on the stack */
        shared_init(&s);
        s.kill_at = 15;
        s.checkpoint = path;
        s.hold_call = 13;
        s.hold_until = -1;
        vbmc *run = make_run(3, 40, path);
        vbmc_run_threads(run, pool_f, &s, 3, 0.0);
        _exit(3); /* not reached: the kill comes first */
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    vbmc *run = NULL;
    assert_int_equal(vbmc_load(&run, path), VBMC_OK);
    const double saved = stat_of(run, "func_count"), pending = stat_of(run, "pending");
    assert_true(saved >= 10);
    assert_true(pending >= 1 && pending <= 3);
    double first_pending[DIM];
    assert_int_equal(vbmc_pending_point(run, 0, first_pending), VBMC_OK);
    static shared s;
    shared_init(&s);
    assert_int_equal(vbmc_run_threads(run, pool_f, &s, 3, 0.0), VBMC_DONE);
    int dispatched_first = 0;
    for (int i = 0; i < 3; ++i) /* the pool's 3 slots are first filled with the pending points */
        dispatched_first |= memcmp(s.points[i], first_pending, sizeof first_pending) == 0;
    assert_true(dispatched_first);
    assert_close(stat_of(run, "func_count"), saved + s.returned, 0.0);
    assert_close(stat_of(run, "finished"), 1.0, 0.0);
    assert_true(isfinite(elbo_of(run)));
    vbmc_destroy(run);
    shared_destroy(&s);
    remove(path);
}

static void test_arguments_and_errors(void **state) {
    (void)state;
    vbmc *run = make_run(2, 20, NULL);
    assert_int_equal(vbmc_run_threads(NULL, plain_f, NULL, 2, 0.0), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(NULL), "run is NULL");
    assert_int_equal(vbmc_run_threads(run, NULL, NULL, 2, 0.0), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "f is NULL");
    assert_int_equal(vbmc_run_threads(run, plain_f, NULL, 0, 0.0), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "threads = 0");
    assert_int_equal(vbmc_run_threads(run, plain_f, NULL, 1025, 0.0), VBMC_E_ARG);
    assert_int_equal(vbmc_run_threads(run, plain_f, NULL, 2, -1.0), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "timeout");
    assert_int_equal(vbmc_run_threads(run, plain_f, NULL, 2, NAN), VBMC_E_ARG);
    /* A NaN SD from call 7: the tell fails, the evaluations out are still told, the point stays
     * pending, and a new call resumes with it. */
    shared s;
    shared_init(&s);
    s.bad_sd_at = 7;
    assert_int_equal(vbmc_run_threads(run, pool_f, &s, 2, 0.0), VBMC_E_ARG);
    assert_message_mentions(vbmc_last_error(run), "log_joint_sd = nan");
    assert_close(stat_of(run, "pending"), 1.0, 0.0);
    assert_close(stat_of(run, "func_count"), s.returned - 1, 0.0);
    s.bad_sd_at = -1;
    assert_int_equal(vbmc_run_threads(run, pool_f, &s, 2, INFINITY), VBMC_DONE);
    assert_close(stat_of(run, "finished"), 1.0, 0.0);
    assert_close(stat_of(run, "pending"), 0.0, 0.0);
    assert_true(stat_of(run, "func_count") <= 20.0);
    vbmc_destroy(run);
    shared_destroy(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_thread_is_vbmc_run),
        cmocka_unit_test(test_results_in_any_order),
        cmocka_unit_test(test_failed_evaluations),
        cmocka_unit_test(test_evaluation_that_never_returns),
        cmocka_unit_test(test_killed_host_resumes),
        cmocka_unit_test(test_arguments_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
