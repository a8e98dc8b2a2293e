/*
 * The reference every binding's test compares against: the 2-D banana of examples/quickstart.c
 * run through the C API by an ask-tell loop, seed 1, display off, everything else default.
 * Prints "ELBO = <value>" with 17 significant digits. Each binding's example runs the same loop
 * with the same log joint written with the same floating-point operations as quickstart.c, so its
 * ELBO must agree to 1e-12 (tools/compare_elbo.py; the test quickstart_elbo checks this program
 * against quickstart.c itself).
 */
#include <math.h>
#include <stdio.h>

#include <vbmc/vbmc.h>

/* Log joint of the banana, -[(x1^2 - x2)^2 + (x1 - 1)^2 / 100] + log N(x; 0, 3^2 I), with the
 * operations of examples/quickstart.c in the same order. */
static double banana_log_joint(const double *x)
{
    const double pi = 3.14159265358979323846;
    const double banana =
        -((x[0] * x[0] - x[1]) * (x[0] * x[0] - x[1]) + (x[0] - 1) * (x[0] - 1) / 100.0);
    const double log_prior = -0.5 * (x[0] * x[0] + x[1] * x[1]) / 9.0 - log(2.0 * pi * 9.0);
    return banana + log_prior;
}

static int fail(const char *what, vbmc_status status, const char *message)
{
    fprintf(stderr, "reference_elbo: %s failed with %s: %s\n", what, vbmc_status_name(status),
            message);
    return 1;
}

int main(void)
{
    const double plb[2] = {-3.0, -3.0};
    const double pub[2] = {3.0, 3.0};
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    vbmc_post *post = NULL;
    double x[2];
    double elbo = 0.0;
    double elbo_sd = 0.0;
    vbmc_status status;

    if ((status = vbmc_opts_create(&opts)) != VBMC_OK)
        return fail("vbmc_opts_create", status, "");
    if ((status = vbmc_opts_set_int(opts, "seed", 1)) != VBMC_OK ||
        (status = vbmc_opts_set(opts, "display", "off")) != VBMC_OK) {
        fail("vbmc_opts_set", status, vbmc_opts_error(opts));
        vbmc_opts_destroy(opts);
        return 1;
    }
    status = vbmc_create(&run, 2, NULL, NULL, NULL, plb, pub, opts);
    vbmc_opts_destroy(opts);
    if (status != VBMC_OK)
        return fail("vbmc_create", status, vbmc_last_error(NULL));

    while ((status = vbmc_ask(run, x)) == VBMC_OK) {
        if ((status = vbmc_tell(run, x, banana_log_joint(x), 0.0)) != VBMC_OK)
            break;
    }
    if (status != VBMC_DONE) {
        fail("the ask-tell loop", status, vbmc_last_error(run));
        vbmc_destroy(run);
        return 1;
    }
    status = vbmc_posterior(run, &post);
    if (status == VBMC_OK)
        status = vbmc_post_elbo(post, &elbo, &elbo_sd);
    if (status != VBMC_OK) {
        fail("vbmc_posterior", status, vbmc_last_error(run));
        vbmc_post_destroy(post);
        vbmc_destroy(run);
        return 1;
    }
    printf("ELBO = %.17g\n", elbo);
    printf("ELBO SD = %.17g\n", elbo_sd);
    vbmc_post_destroy(post);
    vbmc_destroy(run);
    return 0;
}
