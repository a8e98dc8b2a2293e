/* End-to-end runs through the public API on targets with known answers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vbmc/vbmc.h>

#include "test_util.h"

#define LOG_2PI 1.8378770664093454836

/* A correlated Gaussian target N(mean, cov) scaled by exp(log_z): log Z is known. */
typedef struct {
    int dim;
    double mean[6];
    double prec[36]; /* inverse covariance */
    double cov[36];
    double log_z;
    double log_det_cov;
} gaussian_target;

static double gaussian_log_joint(const gaussian_target *g, const double *x) {
    double q = 0.0;
    for (int i = 0; i < g->dim; ++i)
        for (int j = 0; j < g->dim; ++j) q += (x[i] - g->mean[i]) * g->prec[i * g->dim + j] * (x[j] - g->mean[j]);
    return g->log_z - 0.5 * q - 0.5 * g->dim * LOG_2PI - 0.5 * g->log_det_cov;
}

/* Covariance with unit-ish variances and correlation rho between consecutive coordinates in
 * pairs (block-diagonal 2x2 blocks), so the inverse is in closed form. */
static void make_target(gaussian_target *g, int dim, double rho) {
    memset(g, 0, sizeof *g);
    g->dim = dim;
    g->log_z = -1.234;
    for (int i = 0; i < dim; ++i) g->mean[i] = 0.3 * i - 0.5;
    g->log_det_cov = 0.0;
    for (int b = 0; b < dim; b += 2) {
        const double s0 = 0.8 + 0.1 * b, s1 = 1.2;
        g->cov[b * dim + b] = s0 * s0;
        g->cov[(b + 1) * dim + b + 1] = s1 * s1;
        g->cov[b * dim + b + 1] = g->cov[(b + 1) * dim + b] = rho * s0 * s1;
        const double det = s0 * s0 * s1 * s1 * (1 - rho * rho);
        g->prec[b * dim + b] = s1 * s1 / det;
        g->prec[(b + 1) * dim + b + 1] = s0 * s0 / det;
        g->prec[b * dim + b + 1] = g->prec[(b + 1) * dim + b] = -rho * s0 * s1 / det;
        g->log_det_cov += log(det);
    }
}

/* threads: option num_threads, which must not change the run. */
static vbmc *run_gaussian(const gaussian_target *g, unsigned seed, int threads) {
    double plb[6], pub[6], x[6];
    for (int i = 0; i < g->dim; ++i) {
        const double sd = sqrt(g->cov[i * g->dim + i]);
        plb[i] = g->mean[i] - 2 * sd;
        pub[i] = g->mean[i] + 2 * sd;
    }
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "seed", seed), VBMC_OK);
    assert_int_equal(vbmc_opts_set_int(opts, "num_threads", threads), VBMC_OK);
    assert_int_equal(vbmc_create(&run, g->dim, NULL, NULL, NULL, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    vbmc_status status;
    while ((status = vbmc_ask(run, x)) == VBMC_OK) assert_int_equal(vbmc_tell(run, x, gaussian_log_joint(g, x), 0.0), VBMC_OK);
    assert_int_equal(status, VBMC_DONE);
    return run;
}

static void check_gaussian(int dim, double rho) {
    gaussian_target g;
    make_target(&g, dim, rho);
    vbmc *run = run_gaussian(&g, 7, 1);
    vbmc_post *post = NULL;
    double elbo, elbo_sd, mean[6], cov[36];
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_dim(post), dim);
    assert_int_equal(vbmc_post_elbo(post, &elbo, &elbo_sd), VBMC_OK);
    assert_close(elbo, g.log_z, 0.1);
    assert_true(elbo_sd >= 0.0 && elbo_sd < 0.1);
    assert_int_equal(vbmc_post_moments(post, mean, cov), VBMC_OK);
    for (int i = 0; i < dim; ++i) {
        const double sd = sqrt(g.cov[i * dim + i]);
        assert_close(mean[i], g.mean[i], 0.1 * sd);
        for (int j = 0; j < dim; ++j) assert_close(cov[i * dim + j], g.cov[i * dim + j], 0.15 * sd * sqrt(g.cov[j * dim + j]));
    }
    /* Draws agree with the moments within Monte Carlo error, and log_pdf integrates the density. */
    const size_t n = 20000;
    double *draws = malloc(n * dim * sizeof *draws);
    assert_int_equal(vbmc_post_sample(post, n, 11, draws), VBMC_OK);
    for (int i = 0; i < dim; ++i) {
        double m = 0.0;
        for (size_t s = 0; s < n; ++s) m += draws[s * dim + i];
        m /= n;
        assert_close(m, mean[i], 5.0 * sqrt(cov[i * dim + i] / n));
    }
    double lp[1];
    assert_int_equal(vbmc_post_log_pdf(post, 1, mean, lp), VBMC_OK);
    assert_true(isfinite(lp[0]));
    free(draws);
    vbmc_post_destroy(post);
    vbmc_destroy(run);
}

static void test_gaussian_2d(void **state) {
    (void)state;
    check_gaussian(2, 0.6);
}

static void test_gaussian_6d(void **state) {
    (void)state;
    check_gaussian(6, 0.5);
}

/* A target on the positive orthant and the unit interval: a Gamma(3, 1) in x0 and a Beta(2, 5)
 * in x1, whose normaliser is known: log Z = log Gamma(3) + log B(2, 5). */
static double bounded_log_joint(const double *x) {
    return 2.0 * log(x[0]) - x[0] + log(x[1]) + 4.0 * log1p(-x[1]);
}

static void test_bounded_target(void **state) {
    (void)state;
    const double lb[2] = {0, 0}, ub[2] = {INFINITY, 1}, plb[2] = {0.5, 0.05}, pub[2] = {6, 0.6};
    const double log_z = lgamma(3.0) + lgamma(2.0) + lgamma(5.0) - lgamma(7.0);
    vbmc_opts *opts = NULL;
    vbmc *run = NULL;
    vbmc_post *post = NULL;
    double x[2], elbo, elbo_sd, mean[2], draws[2000];
    assert_int_equal(vbmc_opts_create(&opts), VBMC_OK);
    assert_int_equal(vbmc_opts_set(opts, "display", "off"), VBMC_OK);
    assert_int_equal(vbmc_create(&run, 2, NULL, lb, ub, plb, pub, opts), VBMC_OK);
    vbmc_opts_destroy(opts);
    while (vbmc_ask(run, x) == VBMC_OK) {
        assert_true(x[0] > 0 && x[1] > 0 && x[1] < 1);
        assert_int_equal(vbmc_tell(run, x, bounded_log_joint(x), 0.0), VBMC_OK);
    }
    assert_int_equal(vbmc_posterior(run, &post), VBMC_OK);
    assert_int_equal(vbmc_post_elbo(post, &elbo, &elbo_sd), VBMC_OK);
    assert_close(elbo, log_z, 0.1);
    assert_int_equal(vbmc_post_moments(post, mean, NULL), VBMC_OK);
    assert_close(mean[0], 3.0, 0.15);
    assert_close(mean[1], 2.0 / 7.0, 0.02);
    assert_int_equal(vbmc_post_sample(post, 1000, 5, draws), VBMC_OK);
    for (int i = 0; i < 1000; ++i) assert_true(draws[2 * i] > 0 && draws[2 * i + 1] > 0 && draws[2 * i + 1] < 1);
    const double outside[2] = {-1.0, 0.5};
    double lp;
    assert_int_equal(vbmc_post_log_pdf(post, 1, outside, &lp), VBMC_OK);
    assert_true(isinf(lp) && lp < 0);
    vbmc_post_destroy(post);
    vbmc_destroy(run);
}

/* The same seed and told values give bitwise the same asks and posterior. */
static void test_determinism(void **state) {
    (void)state;
    gaussian_target g;
    make_target(&g, 2, 0.3);
    /* The same seed gives the same run, on one thread or several. */
    vbmc *a = run_gaussian(&g, 3, 1), *b = run_gaussian(&g, 3, 2);
    double ea, eb, sa, sb;
    vbmc_post *pa = NULL, *pb = NULL;
    assert_int_equal(vbmc_posterior(a, &pa), VBMC_OK);
    assert_int_equal(vbmc_posterior(b, &pb), VBMC_OK);
    vbmc_post_elbo(pa, &ea, &sa);
    vbmc_post_elbo(pb, &eb, &sb);
    assert_memory_equal(&ea, &eb, sizeof ea);
    assert_memory_equal(&sa, &sb, sizeof sa);
    vbmc_post_destroy(pa);
    vbmc_post_destroy(pb);
    vbmc_destroy(a);
    vbmc_destroy(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gaussian_2d),
        cmocka_unit_test(test_gaussian_6d),
        cmocka_unit_test(test_bounded_target),
        cmocka_unit_test(test_determinism),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
