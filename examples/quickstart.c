/* Quick start: VBMC on a 2-D banana (Rosenbrock) target through the ask-tell interface.
 * The host asks for a point, evaluates its log joint however it likes, and tells it back. */
#include <math.h>
#include <stdio.h>

#include <vbmc/vbmc.h>

#define PI 3.14159265358979323846

/* log likelihood of the banana plus a Gaussian prior N(0, 3^2 I). */
static double log_joint(const double *x) {
    const double banana = -((x[0] * x[0] - x[1]) * (x[0] * x[0] - x[1]) + (x[0] - 1) * (x[0] - 1) / 100.0);
    const double log_prior = -0.5 * (x[0] * x[0] + x[1] * x[1]) / 9.0 - log(2.0 * PI * 9.0);
    return banana + log_prior;
}

int main(void) {
    const double plb[2] = {-3, -3}, pub[2] = {3, 3};
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    vbmc_post *post = NULL;
    double x[2], elbo, elbo_sd, mean[2], cov[4];

    vbmc_opts_create(&opts);
    vbmc_opts_set_int(opts, "seed", 1);
    vbmc_status status = vbmc_create(&run, 2, NULL, NULL, NULL, plb, pub, opts);
    vbmc_opts_destroy(opts); /* the run keeps its own copy of the options */
    if (status != VBMC_OK) {
        fprintf(stderr, "vbmc_create: %s\n", vbmc_last_error(NULL));
        return 1;
    }

    while ((status = vbmc_ask(run, x)) == VBMC_OK) /* ask -> evaluate -> tell */
        if ((status = vbmc_tell(run, x, log_joint(x), 0.0)) != VBMC_OK) break;
    if (status != VBMC_DONE || vbmc_posterior(run, &post) != VBMC_OK) {
        fprintf(stderr, "vbmc: %s\n", vbmc_last_error(run));
        vbmc_destroy(run);
        return 1;
    }
    vbmc_post_elbo(post, &elbo, &elbo_sd);
    vbmc_post_moments(post, mean, cov);
    printf("ELBO = %.17g +/- %.17g\n", elbo, elbo_sd);
    printf("posterior mean = [%.4f, %.4f]\n", mean[0], mean[1]);
    printf("posterior cov  = [[%.4f, %.4f], [%.4f, %.4f]]\n", cov[0], cov[1], cov[2], cov[3]);
    vbmc_post_destroy(post);
    vbmc_destroy(run);
    return 0;
}
