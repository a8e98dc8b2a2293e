/* Bounded parameters: a rate lambda > 0 and a probability p in (0, 1), inferred from counts.
 * VBMC maps the bounded coordinates to the real line internally; asked points, samples and
 * densities are always in the original space. */
#include <math.h>
#include <stdio.h>

#include <vbmc/vbmc.h>

/* Data: k successes out of n_trials, and Poisson counts with total `count_sum` over `n_counts`. */
static const double k = 7, n_trials = 20, count_sum = 31, n_counts = 10;

static double log_joint(const double *x) {
    const double lambda = x[0], p = x[1];
    const double log_lik = count_sum * log(lambda) - n_counts * lambda + k * log(p) + (n_trials - k) * log1p(-p);
    const double log_prior = log(0.5) - 0.5 * lambda; /* Exponential(0.5) prior on lambda, uniform on p */
    return log_lik + log_prior;
}

int main(void) {
    const double lb[2] = {0, 0}, ub[2] = {INFINITY, 1};
    const double plb[2] = {1, 0.1}, pub[2] = {6, 0.7};
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    vbmc_post *post = NULL;
    double x[2], elbo, elbo_sd, mean[2], draws[10];

    vbmc_opts_create(&opts);
    vbmc_opts_set(opts, "display", "final");
    vbmc_opts_set_int(opts, "seed", 3);
    vbmc_status status = vbmc_create(&run, 2, NULL, lb, ub, plb, pub, opts);
    vbmc_opts_destroy(opts); /* the run keeps its own copy of the options */
    if (status != VBMC_OK) {
        fprintf(stderr, "vbmc_create: %s\n", vbmc_last_error(NULL));
        return 1;
    }
    while ((status = vbmc_ask(run, x)) == VBMC_OK)
        if ((status = vbmc_tell(run, x, log_joint(x), 0.0)) != VBMC_OK) break;
    if (status != VBMC_DONE || vbmc_posterior(run, &post) != VBMC_OK) {
        fprintf(stderr, "vbmc: %s\n", vbmc_last_error(run));
        vbmc_destroy(run);
        return 1;
    }
    vbmc_post_elbo(post, &elbo, &elbo_sd);
    vbmc_post_moments(post, mean, NULL);
    vbmc_post_sample(post, 5, 42, draws);
    printf("ELBO = %.4f +/- %.4f\n", elbo, elbo_sd);
    printf("posterior mean: lambda = %.4f, p = %.4f\n", mean[0], mean[1]);
    for (int i = 0; i < 5; ++i) printf("draw %d: lambda = %.4f, p = %.4f\n", i, draws[2 * i], draws[2 * i + 1]);
    vbmc_post_destroy(post);
    vbmc_destroy(run);
    return 0;
}
