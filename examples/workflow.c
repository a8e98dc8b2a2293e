/* A VBMC user's workflow after a first fit: the model's log likelihood is told and the library
 * adds the priors; two short runs from different starts are diagnosed together; the better one is
 * warm-started with a larger budget, re-using its evaluations, and allowed one retry; its history
 * says what each iteration did; the KL divergence between the first and the last posteriors says
 * how much the refit changed. The model: 20 observations from a
 * normal distribution with unknown mean mu and SD sigma (sigma > 0). */
#include <math.h>
#include <stdio.h>

#include <vbmc/vbmc.h>

#define N_DATA 20

static const double data[N_DATA] = {1.92, 0.43, 1.37, 2.51, 0.88, 1.64, 2.12, 0.15, 1.21, 1.78,
                                    0.97, 2.33, 1.45, 0.71, 1.59, 2.05, 1.12, 0.64, 1.86, 1.30};

/* The log likelihood of (mu, sigma): the run adds the log prior. */
static double log_likelihood(const double *x, double *log_joint_sd, void *userdata) {
    (void)log_joint_sd;
    (void)userdata;
    const double mu = x[0], sigma = x[1];
    double sum = 0.0;
    for (int i = 0; i < N_DATA; ++i) {
        const double z = (data[i] - mu) / sigma;
        sum += -0.5 * z * z - log(sigma) - 0.5 * log(2 * 3.14159265358979323846);
    }
    return sum;
}

static int fail(const char *call, const char *message) {
    fprintf(stderr, "%s: %s\n", call, message);
    return 1;
}

static vbmc_opts *options(long long seed, long long budget) {
    vbmc_opts *opts = NULL;
    vbmc_opts_create(&opts);
    vbmc_opts_set(opts, "display", "off");
    vbmc_opts_set_int(opts, "seed", seed);
    vbmc_opts_set_int(opts, "max_fun_evals", budget);
    return opts;
}

/* A run from x0 with the priors mu ~ N(0, 5^2), sigma ~ log-normal(0, 1), driven to the end. */
static int first_run(const double *x0, long long seed, vbmc **out) {
    const double lb[2] = {-INFINITY, 0.0}, ub[2] = {INFINITY, INFINITY};
    const double plb[2] = {-3.0, 0.2}, pub[2] = {3.0, 3.0};
    const double mu_prior[2] = {0.0, 5.0}, sigma_prior[2] = {0.0, 1.0};
    vbmc_opts *opts = options(seed, 100);
    const vbmc_status status = vbmc_create(out, 2, x0, lb, ub, plb, pub, opts);
    vbmc_opts_destroy(opts);
    if (status != VBMC_OK) return fail("vbmc_create", vbmc_last_error(NULL));
    if (vbmc_set_prior(*out, 0, "gaussian", mu_prior, 2) != VBMC_OK ||
        vbmc_set_prior(*out, 1, "lognormal", sigma_prior, 2) != VBMC_OK)
        return fail("vbmc_set_prior", vbmc_last_error(*out));
    if (vbmc_run(*out, log_likelihood, NULL) != VBMC_DONE) return fail("vbmc_run", vbmc_last_error(*out));
    printf("run from (%.1f, %.1f): %s\n", x0[0], x0[1], vbmc_result_message(*out));
    return 0;
}

/* Diagnose the two runs; the index of the better one in *best. */
static int diagnose(const vbmc *const *runs, int *best) {
    vbmc_diag *diag = NULL;
    double value = 0.0;
    if (vbmc_diagnose(runs, 2, 7, &diag) != VBMC_OK) return fail("vbmc_diagnose", vbmc_last_error(NULL));
    vbmc_diag_stat(diag, "best", &value);
    *best = (int)value;
    printf("diagnosis: %s\n", vbmc_diag_message(diag));
    vbmc_diag_destroy(diag);
    return 0;
}

/* The iterations of a run that did something besides fitting (the iteration table's action). */
static void print_history(const vbmc *run) {
    double iterations = 0.0, reused = 0.0;
    char action[256];
    vbmc_stat(run, "iteration", &iterations);
    vbmc_stat(run, "reused_count", &reused);
    printf("refit history: %d iterations, %d evaluations re-used;", (int)iterations, (int)reused);
    for (int i = 0; i < (int)iterations; ++i)
        if (vbmc_history_action(run, i, action, sizeof action) == VBMC_OK && action[0] != '\0')
            printf(" %d: %s;", i, action);
    printf("\n");
}

int main(void) {
    const double start_a[2] = {-2.0, 2.5}, start_b[2] = {2.5, 0.3};
    vbmc *runs[3] = {NULL, NULL, NULL};
    vbmc_post *first = NULL, *last = NULL;
    int best = 0, code = 1;
    double kl[2], kl_sd[2], mode[2], elbo, elbo_sd;
    vbmc_opts *opts = NULL;
    vbmc_status status;

    if (first_run(start_a, 1, &runs[0]) || first_run(start_b, 2, &runs[1])) goto done;
    if (diagnose((const vbmc *const *)runs, &best)) goto done;

    opts = options(3, 200); /* the refit's budget: 200 new evaluations, and 100 more if it has not converged */
    vbmc_opts_set_int(opts, "retry_max_fun_evals", 100);
    status = vbmc_create_warm(&runs[2], runs[best], opts, 1);
    vbmc_opts_destroy(opts);
    if (status != VBMC_OK) {
        fail("vbmc_create_warm", vbmc_last_error(NULL));
        goto done;
    }
    if (vbmc_run(runs[2], log_likelihood, NULL) != VBMC_DONE) {
        fail("vbmc_run", vbmc_last_error(runs[2]));
        goto done;
    }
    printf("warm start from runs[%d]: %s\n", best, vbmc_result_message(runs[2]));
    print_history(runs[2]);

    if (vbmc_posterior(runs[0], &first) != VBMC_OK || vbmc_posterior(runs[2], &last) != VBMC_OK ||
        vbmc_post_kl(first, last, 20000, 11, kl, kl_sd) != VBMC_OK ||
        vbmc_post_mode(last, mode) != VBMC_OK || vbmc_post_elbo(last, &elbo, &elbo_sd) != VBMC_OK) {
        fail("posterior", vbmc_last_error(NULL));
        goto done;
    }
    printf("refit: ELBO %.3f +/- %.3f, mode mu = %.3f, sigma = %.3f\n", elbo, elbo_sd, mode[0], mode[1]);
    printf("KL(first || last) = %.4f +/- %.4f, KL(last || first) = %.4f +/- %.4f\n", kl[0], kl_sd[0],
           kl[1], kl_sd[1]);
    code = 0;
done:
    vbmc_post_destroy(first);
    vbmc_post_destroy(last);
    for (int i = 0; i < 3; ++i) vbmc_destroy(runs[i]);
    return code;
}
