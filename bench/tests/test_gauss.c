/* Checks the benchmark's gsKL against closed forms: the 1-D KL formula, a 2-D case with the
 * 2x2 inverse written out, symmetry, zero for identical Gaussians, and +inf for a covariance that
 * is not positive definite. Exit code 0 iff all pass. */
#include <math.h>
#include <stdio.h>

#include "gauss.h"

static int failures = 0;

static void expect(int ok, const char *what, double actual, double expected) {
    if (ok) return;
    ++failures;
    printf("FAIL %s: %.17g, expected %.17g\n", what, actual, expected);
}

static void expect_close(const char *what, double actual, double expected) {
    expect(fabs(actual - expected) <= 1e-12 * (1.0 + fabs(expected)), what, actual, expected);
}

/* KL(N(mq, vq) || N(mp, vp)) in one dimension. */
static double kl_1d(double mq, double vq, double mp, double vp) {
    return 0.5 * (vq / vp + (mp - mq) * (mp - mq) / vp - 1.0 + log(vp / vq));
}

int main(void) {
    const double mq = 0.3, vq = 2.0, mp = -1.1, vp = 0.7;
    expect_close("KL 1-D", bench_gauss_kl(1, &mq, &vq, &mp, &vp), kl_1d(mq, vq, mp, vp));
    expect_close("gsKL 1-D", bench_gskl(1, &mq, &vq, &mp, &vp),
                 0.5 * (kl_1d(mq, vq, mp, vp) + kl_1d(mp, vp, mq, vq)));

    /* 2-D: tr(P^-1 Q) + d^T P^-1 d - 2 + log|P|/|Q|, with P^-1 from the adjugate. */
    const double mean_q[2] = {0.5, -0.2}, cov_q[4] = {1.5, 0.4, 0.4, 0.8};
    const double mean_p[2] = {-0.3, 0.6}, cov_p[4] = {2.0, -0.7, -0.7, 1.1};
    const double det_p = cov_p[0] * cov_p[3] - cov_p[1] * cov_p[2];
    const double det_q = cov_q[0] * cov_q[3] - cov_q[1] * cov_q[2];
    const double inv_p[4] = {cov_p[3] / det_p, -cov_p[1] / det_p, -cov_p[2] / det_p,
                             cov_p[0] / det_p};
    const double trace = inv_p[0] * cov_q[0] + inv_p[1] * cov_q[2] + inv_p[2] * cov_q[1] +
                         inv_p[3] * cov_q[3];
    const double d0 = mean_p[0] - mean_q[0], d1 = mean_p[1] - mean_q[1];
    const double quad = d0 * (inv_p[0] * d0 + inv_p[1] * d1) + d1 * (inv_p[2] * d0 + inv_p[3] * d1);
    const double kl_2d = 0.5 * (trace + quad - 2.0 + log(det_p / det_q));
    expect_close("KL 2-D", bench_gauss_kl(2, mean_q, cov_q, mean_p, cov_p), kl_2d);
    expect_close("gsKL symmetric", bench_gskl(2, mean_q, cov_q, mean_p, cov_p),
                 bench_gskl(2, mean_p, cov_p, mean_q, cov_q));
    expect_close("gsKL identical", bench_gskl(2, mean_q, cov_q, mean_q, cov_q), 0.0);

    const double singular[4] = {1.0, 1.0, 1.0, 1.0};
    const double gskl_singular = bench_gskl(2, mean_q, singular, mean_p, cov_p);
    expect(isinf(gskl_singular) && gskl_singular > 0, "gsKL singular", gskl_singular, INFINITY);

    printf("%d passed, %d failed\n", failures ? 0 : 1, failures ? 1 : 0);
    return failures ? 1 : 0;
}
