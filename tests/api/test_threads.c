/* Independent handles used from 8 threads at once give bitwise the same results as the same
 * runs done one after the other. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_match_sequential_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
