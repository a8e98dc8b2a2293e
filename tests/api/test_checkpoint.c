/* Checkpoints: a run saved and loaded between any two calls continues bitwise as if it had
 * never been interrupted, and a host killed at a random moment (SIGKILL) resumes from the file
 * written by option checkpoint_file, losing at most the evaluation in flight. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

#define DIM 2
#define BUDGET 40
#define MAX_ASKS 256

static const double plb[DIM] = {-2.0, -2.5}, pub[DIM] = {2.5, 2.0};

/* A correlated Gaussian log joint (known to the test only through its evaluations). */
static double log_joint(const double *x) {
    const double a = x[0] - 0.3, b = x[1] + 0.2;
    return -0.5 * (a * a - 1.2 * a * b + b * b) / (1 - 0.36) - 1.0;
}

/* component_scales: NULL for the default. */
static vbmc *make_run(unsigned seed, int max_pending, const char *checkpoint_file, const char *component_scales) {
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", seed), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_fun_evals", BUDGET), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_pending", max_pending), VBMC_OK);
    if (checkpoint_file) assert_int_equal(vbmc_opts_set(opts, "checkpoint_file", checkpoint_file), VBMC_OK);
    if (component_scales) assert_int_equal(vbmc_opts_set(opts, "component_scales", component_scales), VBMC_OK);
    assert_int_equal(vbmc_create(&run, DIM, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    return run;
}

static double stat_of(const vbmc *run, const char *name) {
    double v = NAN;
    assert_int_equal(vbmc_stat(run, name, &v), VBMC_OK);
    return v;
}

/* What a run produced: every asked point in order, and the final posterior. */
typedef struct {
    int n_asks;
    double asks[MAX_ASKS][DIM];
    double elbo, elbo_sd, mean[DIM], cov[DIM * DIM];
    int components;
} trace;

static void finish_trace(vbmc *run, trace *t) {
    vbmc_post *post = NULL;
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(post, &t->elbo, &t->elbo_sd), VBMC_OK);
    assert_int_equal(vbmc_post_moments(post, t->mean, t->cov), VBMC_OK);
    t->components = vbmc_post_components(post);
    vbmc_post_destroy(post);
}

static void assert_same_trace(const trace *a, const trace *b) {
    assert_int_equal(a->n_asks, b->n_asks);
    for (int i = 0; i < a->n_asks; ++i) {
        if (memcmp(a->asks[i], b->asks[i], sizeof a->asks[i]) != 0) {
            print_error("ask %d differs: (%.17g, %.17g) vs (%.17g, %.17g)\n", i, a->asks[i][0], a->asks[i][1],
                        b->asks[i][0], b->asks[i][1]);
            fail();
        }
    }
    assert_int_equal(a->components, b->components);
    assert_memory_equal(&a->elbo, &b->elbo, sizeof a->elbo);
    assert_memory_equal(&a->elbo_sd, &b->elbo_sd, sizeof a->elbo_sd);
    assert_memory_equal(a->mean, b->mean, sizeof a->mean);
    assert_memory_equal(a->cov, b->cov, sizeof a->cov);
}

/* Save, destroy and load: the run continues from the file alone. */
static vbmc *reload(vbmc *run, const char *path) {
    vbmc *loaded = NULL;
    assert_int_equal(vbmc_save(run, path), VBMC_OK);
    vbmc_destroy(run);
    if (vbmc_load(&loaded, path) != VBMC_OK) {
        print_error("vbmc_load: %s\n", vbmc_last_error(NULL));
        fail();
    }
    return loaded;
}

enum reload_when { NEVER, EVERY_ITERATION, EVERY_CALL };

/* Drive a run with up to max_pending points outstanding (told oldest first). With
 * EVERY_ITERATION the run is reloaded after each tell that completes an iteration; with
 * EVERY_CALL after every ask and every tell, so also mid-batch with points pending. The local
 * list of pending points is rebuilt from vbmc_pending_point after each reload. */
/* File names unique to this process: several builds may run the suite in one directory. */
static const char *unique(const char *stem) {
    static char names[4][128];
    static int next = 0;
    char *name = names[next++ % 4];
    snprintf(name, 128, "%s.%ld", stem, (long)getpid());
    return name;
}

/* With penalty_period > 0, every penalty_period-th value told is the penalty -1e300. */
static int penalty_period = 0;
static double told_value(const double *x, int tell_index) {
    return penalty_period > 0 && tell_index % penalty_period == penalty_period - 1 ? -1e300 : log_joint(x);
}

static void drive(unsigned seed, int max_pending, enum reload_when when, const char *component_scales, trace *t) {
    const char *path = unique("test_checkpoint_drive.ckpt");
    vbmc *run = make_run(seed, max_pending, NULL, component_scales);
    double pending[16][DIM];
    int n_pending = 0, done = 0, n_told = 0;
    memset(t, 0, sizeof *t);
    while (!done || n_pending > 0) {
        while (!done && n_pending < max_pending) {
            const vbmc_status status = vbmc_ask(run, pending[n_pending]);
            if (status == VBMC_DONE) {
                done = 1;
                break;
            }
            if (status == VBMC_WAIT) break; /* the initial design is all pending */
            assert_int_equal(status, VBMC_OK);
            assert_true(t->n_asks < MAX_ASKS);
            memcpy(t->asks[t->n_asks++], pending[n_pending], sizeof pending[0]);
            ++n_pending;
            if (when == EVERY_CALL) {
                run = reload(run, path);
                assert_int_equal((int)stat_of(run, "pending"), n_pending);
                for (int i = 0; i < n_pending; ++i) assert_int_equal(vbmc_pending_point(run, i, pending[i]), VBMC_OK);
            }
        }
        if (n_pending == 0) break;
        const double iteration = stat_of(run, "iteration");
        const vbmc_status told = vbmc_tell(run, pending[0], told_value(pending[0], n_told++), 0.0);
        if (told != VBMC_OK) print_error("tell %d (when = %d): %s\n", t->n_asks, (int)when, vbmc_last_error(run));
        assert_int_equal(told, VBMC_OK);
        memmove(pending[0], pending[1], sizeof pending[0] * (size_t)(n_pending - 1));
        --n_pending;
        const int iteration_done = stat_of(run, "iteration") != iteration;
        if (when == EVERY_CALL || (when == EVERY_ITERATION && iteration_done)) {
            run = reload(run, path);
            assert_int_equal((int)stat_of(run, "pending"), n_pending);
            for (int i = 0; i < n_pending; ++i) {
                double x[DIM];
                assert_int_equal(vbmc_pending_point(run, i, x), VBMC_OK);
                assert_memory_equal(x, pending[i], sizeof x);
            }
        }
    }
    assert_true(stat_of(run, "finished") == 1.0);
    finish_trace(run, t);
    /* The finished run survives a reload too, and still answers VBMC_DONE. */
    run = reload(run, path);
    double x[DIM];
    assert_int_equal(vbmc_ask(run, x), VBMC_DONE);
    trace again = *t;
    finish_trace(run, &again);
    assert_same_trace(t, &again);
    vbmc_destroy(run);
    remove(path);
}

static trace trace_a, trace_b;

static void test_reload_at_every_iteration(void **state) {
    (void)state;
    drive(5, 1, NEVER, NULL, &trace_a);
    drive(5, 1, EVERY_ITERATION, NULL, &trace_b);
    assert_true(trace_a.n_asks >= BUDGET);
    assert_true(isfinite(trace_a.elbo));
    assert_same_trace(&trace_a, &trace_b);
}

static void test_reload_at_every_call_with_pending_points(void **state) {
    (void)state;
    drive(9, 3, NEVER, NULL, &trace_a);
    drive(9, 3, EVERY_CALL, NULL, &trace_b);
    assert_same_trace(&trace_a, &trace_b);
}

/* The same with a diagonal scale per mixture component throughout the run (its own record layout
 * in the checkpoint). */
static void test_reload_with_component_scales_throughout(void **state) {
    (void)state;
    drive(7, 1, NEVER, "all", &trace_a);
    drive(7, 1, EVERY_ITERATION, "all", &trace_b);
    assert_true(isfinite(trace_a.elbo));
    assert_same_trace(&trace_a, &trace_b);
}

/* Penalties (-1e300) told between iterations: the checkpoint's replay of the search surrogate
 * treats them as the tell did (before, the tell floored them and the replay did not). */
static void test_reload_with_penalties(void **state) {
    (void)state;
    penalty_period = 4;
    drive(3, 1, NEVER, NULL, &trace_a);
    drive(3, 1, EVERY_CALL, NULL, &trace_b);
    penalty_period = 0;
    assert_true(isfinite(trace_a.elbo));
    assert_same_trace(&trace_a, &trace_b);
}

/* Points still pending when the run stops as stable: their values are accepted after the stop,
 * kept in the history and in checkpoints, and the final posterior does not change. */
static void test_values_told_after_the_stop_are_kept(void **state) {
    (void)state;
    const char *path = unique("test_checkpoint_late.ckpt");
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "max_pending", 3), VBMC_OK);
    assert_int_equal(vbmc_create(&run, DIM, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    double pending[3][DIM];
    int n_pending = 0;
    for (;;) { /* three points always out, the oldest told first */
        vbmc_status status = VBMC_OK;
        while (n_pending < 3 && (status = vbmc_ask(run, pending[n_pending])) == VBMC_OK) ++n_pending;
        if (status == VBMC_DONE) break;
        assert_true(n_pending > 0);
        assert_int_equal(vbmc_tell(run, pending[0], log_joint(pending[0]), 0.0), VBMC_OK);
        memmove(pending[0], pending[1], sizeof pending[0] * (size_t)(n_pending - 1));
        --n_pending;
    }
    assert_true(stat_of(run, "converged") == 1.0);
    assert_int_equal(n_pending, 2);
    assert_true(stat_of(run, "pending") == 2.0);
    trace before, after;
    memset(&before, 0, sizeof before);
    memset(&after, 0, sizeof after);
    finish_trace(run, &before);
    const double told = stat_of(run, "func_count");
    assert_int_equal(vbmc_tell(run, pending[0], log_joint(pending[0]), 0.0), VBMC_OK);
    assert_true(stat_of(run, "func_count") == told + 1);
    assert_true(stat_of(run, "pending") == 1.0);
    run = reload(run, path);
    assert_true(stat_of(run, "func_count") == told + 1);
    assert_int_equal(vbmc_tell(run, pending[0], log_joint(pending[0]), 0.0), VBMC_E_STATE);
    assert_int_equal(vbmc_abandon(run, pending[1]), VBMC_OK);
    assert_true(stat_of(run, "pending") == 0.0);
    double x[DIM];
    assert_int_equal(vbmc_ask(run, x), VBMC_DONE);
    finish_trace(run, &after);
    assert_same_trace(&before, &after);
    vbmc_destroy(run);
    remove(path);
}

/* ---- Kill and resume ------------------------------------------------------------------------ */

static const char *kill_ckpt;
static int in_child = 0;

/* In the forked child a failed check must not return into cmocka's runner: exit instead. */
#define CHILD_CHECK(cond) \
    do {                  \
        if (!(cond)) {    \
            if (in_child) _exit(3); \
            fail();       \
        }                 \
    } while (0)
static const char *kill_log;

/* Tell every pending point of a loaded run (their jobs died with the host), then go on until
 * the run finishes. In the child, each completed tell is logged after vbmc_tell returned, that
 * is after the automatic checkpoint that follows it was written. */
static void resume_and_run(vbmc *run, int log_fd) {
    double x[DIM];
    const int n_pending = (int)stat_of(run, "pending");
    for (int i = n_pending - 1; i >= 0; --i) {
        CHILD_CHECK(vbmc_pending_point(run, i, x) == VBMC_OK);
        CHILD_CHECK(vbmc_tell(run, x, log_joint(x), 0.0) == VBMC_OK);
        if (log_fd >= 0 && write(log_fd, "t", 1) != 1) abort();
    }
    vbmc_status status;
    while ((status = vbmc_ask(run, x)) == VBMC_OK) {
        CHILD_CHECK(vbmc_tell(run, x, log_joint(x), 0.0) == VBMC_OK);
        if (log_fd >= 0 && write(log_fd, "t", 1) != 1) abort();
    }
    CHILD_CHECK(status == VBMC_DONE);
}

static vbmc *open_or_create(void) {
    vbmc *run = NULL;
    if (access(kill_ckpt, F_OK) == 0) {
        if (vbmc_load(&run, kill_ckpt) != VBMC_OK) {
            print_error("vbmc_load after SIGKILL: %s\n", vbmc_last_error(NULL));
            CHILD_CHECK(0);
        }
        return run;
    }
    return make_run(13, 1, kill_ckpt, NULL);
}

static long file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fclose(f);
    return size;
}

static void append_log_entry(const char *path) {
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    assert_int_equal(fputc('t', f), 't');
    assert_int_equal(fclose(f), 0);
}

static void test_kill_and_resume(void **state) {
    (void)state;
    kill_ckpt = unique("test_checkpoint_kill.ckpt");
    kill_log = unique("test_checkpoint_kill.log");
    remove(kill_ckpt);
    remove(kill_log);
    /* The uninterrupted reference. */
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    vbmc *reference = make_run(13, 1, NULL, NULL);
    resume_and_run(reference, -1);
    clock_gettime(CLOCK_MONOTONIC, &end);
    const double run_seconds = (double)(end.tv_sec - start.tv_sec) + 1e-9 * (double)(end.tv_nsec - start.tv_nsec);
    trace ref, resumed;
    memset(&ref, 0, sizeof ref);
    memset(&resumed, 0, sizeof resumed);
    finish_trace(reference, &ref);
    const double ref_count = stat_of(reference, "func_count");
    vbmc_destroy(reference);

    /* Kill a child that runs from the checkpoint at seeded random moments (fractions of the
     * reference run's duration), several times. */
    unsigned rng = 12345u;
    for (int round = 0; round < 6; ++round) {
        const int log_fd = open(kill_log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        assert_true(log_fd >= 0);
        const pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
            in_child = 1;
            vbmc *run = open_or_create();
            resume_and_run(run, log_fd);
            _exit(0);
        }
        close(log_fd);
        rng = rng * 1103515245u + 12345u;
        const double fraction = 0.05 + 0.3 * (double)((rng >> 8) % 1000u) / 1000.0;
        const long delay_us = (long)(1e6 * fraction * run_seconds);
        struct timespec pause = {delay_us / 1000000, (delay_us % 1000000) * 1000};
        nanosleep(&pause, NULL);
        kill(child, SIGKILL);
        int status = 0;
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0));
        char temp[256];
        snprintf(temp, sizeof temp, "%s.tmp.%ld", kill_ckpt, (long)child);
        remove(temp); /* a write cut short by the kill; the checkpoint itself is intact */
        /* Every evaluation the child logged was checkpointed before it died. */
        vbmc *run = NULL;
        if (access(kill_ckpt, F_OK) == 0) {
            assert_int_equal(vbmc_load(&run, kill_ckpt), VBMC_OK);
            const long logged = file_size(kill_log);
            const double count = stat_of(run, "func_count");
            assert_true(count >= (double)logged);
            assert_true(count <= (double)logged + 1.0);
            /* A kill after the tell's checkpoint and before the child's log write leaves one
             * evaluation saved but unlogged; the next round resumes from it, so it is logged
             * here, and each round is held to its own one evaluation in flight. */
            if (count > (double)logged) append_log_entry(kill_log);
            vbmc_destroy(run);
        }
    }
    /* The parent finishes the run from the last file. */
    vbmc *run = open_or_create();
    resume_and_run(run, -1);
    finish_trace(run, &resumed);
    assert_true(stat_of(run, "func_count") == ref_count);
    assert_true(isfinite(resumed.elbo));
    /* Deterministic target and asks regenerated from the saved state: the same posterior. */
    assert_memory_equal(&resumed.elbo, &ref.elbo, sizeof ref.elbo);
    assert_memory_equal(resumed.mean, ref.mean, sizeof ref.mean);
    vbmc_destroy(run);
    remove(kill_ckpt);
    remove(kill_log);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reload_at_every_iteration),
        cmocka_unit_test(test_reload_at_every_call_with_pending_points),
        cmocka_unit_test(test_reload_with_component_scales_throughout),
        cmocka_unit_test(test_reload_with_penalties),
        cmocka_unit_test(test_values_told_after_the_stop_are_kept),
        cmocka_unit_test(test_kill_and_resume),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
