/* Independent handles used from 8 threads at once give bitwise the same results as the same
 * runs done one after the other, and handles saving to one path at once never spoil the file. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

#define N_THREADS 8
#define DIM 2

typedef struct {
    unsigned seed;
    int status;
    int n_asks;
    double last_ask[DIM];
    double elbo, elbo_sd, mean[DIM], cov[DIM * DIM], draws[10 * DIM];
    char error[256];
} job;

static double log_joint(const double *x, double *sd, void *userdata) {
    (void)sd;
    const double shift = *(const double *)userdata;
    const double a = x[0] - shift, b = x[1] + 0.5 * shift;
    return -0.5 * (a * a + 0.8 * a * b + b * b) / 0.84;
}

/* One complete run: create, ask/tell to the end (vbmc_run), snapshot, sample; also the
 * thread's handle-less error slot is exercised by a failing vbmc_create. */
static void *run_job(void *arg) {
    job *j = arg;
    const double plb[DIM] = {-2, -2}, pub[DIM] = {2, 2};
    const double shift = 0.1 * j->seed;
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    vbmc_post *post = NULL;
    j->status = -100;
    if (vbmc_opts_create(&opts) != VBMC_OK) return NULL;
    vbmc_opts_set(opts, "display", "off");
    vbmc_opts_set_int(opts, "seed", j->seed);
    vbmc_opts_set_int(opts, "max_fun_evals", 40);
    if (vbmc_create(&run, 0, NULL, NULL, NULL, plb, pub, opts) != VBMC_E_ARG || strstr(vbmc_last_error(NULL), "dim = 0") == NULL)
        return NULL;
    j->status = vbmc_create(&run, DIM, NULL, NULL, NULL, plb, pub, opts);
    vbmc_opts_destroy(opts);
    if (j->status != VBMC_OK) return NULL;
    double x[DIM];
    while ((j->status = vbmc_ask(run, x)) == VBMC_OK) {
        ++j->n_asks;
        memcpy(j->last_ask, x, sizeof x);
        double sd = 0.0;
        if ((j->status = vbmc_tell(run, x, log_joint(x, &sd, (void *)&shift), 0.0)) != VBMC_OK) break;
    }
    snprintf(j->error, sizeof j->error, "%s", vbmc_last_error(run));
    if (j->status == VBMC_DONE && vbmc_posterior(run, &post) == VBMC_OK) {
        vbmc_post_elbo(post, &j->elbo, &j->elbo_sd);
        vbmc_post_moments(post, j->mean, j->cov);
        vbmc_post_sample(post, 10, 99, j->draws);
        vbmc_post_destroy(post);
    }
    vbmc_destroy(run);
    return NULL;
}

static void test_threads_match_sequential_runs(void **state) {
    (void)state;
    static job sequential[N_THREADS], parallel[N_THREADS];
    memset(sequential, 0, sizeof sequential);
    memset(parallel, 0, sizeof parallel);
    for (int i = 0; i < N_THREADS; ++i) {
        sequential[i].seed = parallel[i].seed = (unsigned)(i + 1);
        run_job(&sequential[i]);
    }
    pthread_t threads[N_THREADS];
    for (int i = 0; i < N_THREADS; ++i) assert_int_equal(pthread_create(&threads[i], NULL, run_job, &parallel[i]), 0);
    for (int i = 0; i < N_THREADS; ++i) assert_int_equal(pthread_join(threads[i], NULL), 0);
    for (int i = 0; i < N_THREADS; ++i) {
        if (sequential[i].status != VBMC_DONE || parallel[i].status != VBMC_DONE) {
            print_error("job %d: %d / %d (%s / %s)\n", i, sequential[i].status, parallel[i].status, sequential[i].error,
                        parallel[i].error);
            fail();
        }
        assert_true(isfinite(sequential[i].elbo));
        /* Bitwise the same, everything after the seed included. */
        assert_memory_equal(&sequential[i], &parallel[i], sizeof(job));
    }
    /* Different seeds and targets gave different runs. */
    assert_true(memcmp(&sequential[0].elbo, &sequential[1].elbo, sizeof(double)) != 0);
}

/* ---- Concurrent saves of one path ---------------------------------------------------------- */

#define SAVES_EACH 50

typedef struct {
    vbmc *run;
    const char *path;
    int failures;
    char error[512];
} saver;

static pthread_mutex_t savers_lock = PTHREAD_MUTEX_INITIALIZER;
static int savers_running;

static void *save_loop(void *arg) {
    saver *s = arg;
    for (int i = 0; i < SAVES_EACH; ++i) {
        if (vbmc_save(s->run, s->path) != VBMC_OK && s->failures++ == 0)
            snprintf(s->error, sizeof s->error, "%s", vbmc_last_error(s->run));
    }
    pthread_mutex_lock(&savers_lock);
    --savers_running;
    pthread_mutex_unlock(&savers_lock);
    return NULL;
}

static int still_saving(void) {
    pthread_mutex_lock(&savers_lock);
    const int running = savers_running;
    pthread_mutex_unlock(&savers_lock);
    return running > 0;
}

/* A run told `tells` values of the initial design, so that each saver's file is recognisable. */
static vbmc *told_run(int tells) {
    const double plb[DIM] = {-2, -2}, pub[DIM] = {2, 2}, shift = 0.0;
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_create(&run, DIM, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    for (int i = 0; i < tells; ++i) {
        double x[DIM], sd = 0.0;
        assert_int_equal(vbmc_ask(run, x), VBMC_OK);
        assert_int_equal(vbmc_tell(run, x, log_joint(x, &sd, (void *)&shift), 0.0), VBMC_OK);
    }
    return run;
}

/* The file at path loads, and is the complete checkpoint of one of the savers (1 to N_THREADS tells). */
static void assert_loads_whole(const char *path) {
    vbmc *run = NULL;
    double evaluations = 0;
    if (vbmc_load(&run, path) != VBMC_OK) {
        print_error("vbmc_load: %s\n", vbmc_last_error(NULL));
        fail();
    }
    assert_int_equal(vbmc_stat(run, "func_count", &evaluations), VBMC_OK);
    assert_true(evaluations >= 1 && evaluations <= N_THREADS);
    vbmc_destroy(run);
}

static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) ++n;
    closedir(d);
    return n;
}

/* 8 handles save to one path 50 times each while the main thread loads it: every save succeeds,
 * every load finds a complete checkpoint (the last rename wins), and no temporary file remains. */
static void test_concurrent_saves_of_one_path(void **state) {
    (void)state;
    char dir[] = "test_threads_saves.XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/run.ckpt", dir);
    static saver savers[N_THREADS];
    pthread_t threads[N_THREADS];
    for (int i = 0; i < N_THREADS; ++i) savers[i] = (saver){told_run(i + 1), path, 0, ""};
    assert_int_equal(vbmc_save(savers[0].run, path), VBMC_OK);
    savers_running = N_THREADS;
    for (int i = 0; i < N_THREADS; ++i) assert_int_equal(pthread_create(&threads[i], NULL, save_loop, &savers[i]), 0);
    int loads = 0;
    for (; still_saving(); ++loads) assert_loads_whole(path);
    for (int i = 0; i < N_THREADS; ++i) assert_int_equal(pthread_join(threads[i], NULL), 0);
    for (int i = 0; i < N_THREADS; ++i) {
        if (savers[i].failures > 0) print_error("saver %d: %d failed saves, first: %s\n", i, savers[i].failures, savers[i].error);
        assert_int_equal(savers[i].failures, 0);
        vbmc_destroy(savers[i].run);
    }
    assert_true(loads > 0);
    assert_loads_whole(path);
    assert_int_equal(count_entries(dir), 1);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_match_sequential_runs),
        cmocka_unit_test(test_concurrent_saves_of_one_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
