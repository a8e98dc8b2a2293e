/* The thread-pool driver: when the log joint is a thread-safe C function that takes a while,
 * vbmc_run_threads keeps several evaluations running at once on one machine. Here the correlated
 * 3-D Gaussian of run_driver.c, each evaluation made to last 20 ms, on 4 threads. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <time.h>

#include <vbmc/vbmc.h>

#define PI 3.14159265358979323846
#define THREADS 4

static double slow_log_joint(const double *x, double *log_joint_sd, void *userdata) {
    (void)log_joint_sd;
    (void)userdata;
    const struct timespec pause = {0, 20 * 1000 * 1000}; /* stands for an expensive model */
    nanosleep(&pause, NULL);
    const double rho = 0.5;
    const double q = (x[0] * x[0] - 2 * rho * x[0] * x[1] + x[1] * x[1]) / (1 - rho * rho) + x[2] * x[2];
    return -0.5 * q;
}

int main(void) {
    const double plb[3] = {-2, -2, -2}, pub[3] = {2, 2, 2};
    const double log_z = 1.5 * log(2 * PI) + 0.5 * log(1 - 0.25);
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    vbmc_post *post = NULL;
    double elbo, elbo_sd, evaluations;

    vbmc_opts_create(&opts);
    vbmc_opts_set(opts, "display", "notify");
    vbmc_opts_set_int(opts, "max_pending", THREADS); /* up to THREADS evaluations out at once */
    const vbmc_status status = vbmc_create(&run, 3, NULL, NULL, NULL, plb, pub, opts);
    vbmc_opts_destroy(opts);
    if (status != VBMC_OK) {
        fprintf(stderr, "vbmc_create: %s\n", vbmc_last_error(NULL));
        return 1;
    }
    /* No timeout (0): an evaluation is never given up. */
    if (vbmc_run_threads(run, slow_log_joint, NULL, THREADS, 0.0) != VBMC_DONE ||
        vbmc_posterior(run, &post) != VBMC_OK) {
        fprintf(stderr, "vbmc_run_threads: %s\n", vbmc_last_error(run));
        vbmc_destroy(run);
        return 1;
    }
    vbmc_post_elbo(post, &elbo, &elbo_sd);
    vbmc_stat(run, "func_count", &evaluations);
    printf("%.0f evaluations on %d threads: ELBO = %.4f +/- %.4f (log Z = %.4f)\n", evaluations, THREADS, elbo,
           elbo_sd, log_z);
    vbmc_post_destroy(post);
    vbmc_destroy(run);
    return fabs(elbo - log_z) < 0.5 ? 0 : 1;
}
