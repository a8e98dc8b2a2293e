/* The convenience driver: when the log joint is a plain C function, vbmc_run loops
 * ask -> f -> tell until the run finishes. Here a correlated 3-D Gaussian with known evidence. */
#include <math.h>
#include <stdio.h>

#include <vbmc/vbmc.h>

#define PI 3.14159265358979323846

/* Unnormalised Gaussian with unit variances and correlation 0.5 between x0 and x1; its log
 * normaliser is known, so the ELBO can be compared with log Z. */
static double log_joint(const double *x, double *log_joint_sd, void *userdata) {
    (void)log_joint_sd;
    (void)userdata;
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
    double elbo, elbo_sd;

    vbmc_opts_create(&opts);
    vbmc_opts_set(opts, "display", "notify");
    const vbmc_status status = vbmc_create(&run, 3, NULL, NULL, NULL, plb, pub, opts);
    vbmc_opts_destroy(opts); /* the run keeps its own copy of the options */
    if (status != VBMC_OK) {
        fprintf(stderr, "vbmc_create: %s\n", vbmc_last_error(NULL));
        return 1;
    }
    if (vbmc_run(run, log_joint, NULL) != VBMC_DONE || vbmc_posterior(run, &post) != VBMC_OK) {
        fprintf(stderr, "vbmc_run: %s\n", vbmc_last_error(run));
        vbmc_destroy(run);
        return 1;
    }
    vbmc_post_elbo(post, &elbo, &elbo_sd);
    printf("ELBO = %.4f +/- %.4f (log Z = %.4f)\n", elbo, elbo_sd, log_z);
    vbmc_post_destroy(post);
    vbmc_destroy(run);
    return 0;
}
