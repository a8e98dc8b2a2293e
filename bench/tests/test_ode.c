/* Checks the Dormand-Prince solver of bench/real/ode.c against closed-form solutions:
 * exponential decay, the harmonic oscillator, and the conserved quantity of the Lotka-Volterra
 * system. Each step keeps its local error below atol + rtol |y|, so the global error of these
 * non-expanding problems is at most (steps taken) x (atol + rtol max |y|); the test asserts that
 * bound, and that the error shrinks with the tolerance (tolerance proportionality). It also
 * checks that a solution blowing up in finite time, or a step limit, is reported as a failure.
 * Exit code 0 iff all pass. */
#include <math.h>
#include <stdio.h>

#include "ode.h"

#define TIMES 20

static int failures = 0;

static void expect(int ok, const char *what, double value, double bound) {
    printf("  %-52s %.3g (bound %.3g)  %s\n", what, value, bound, ok ? "ok" : "FAIL");
    failures += !ok;
}

static void decay(double t, const double *y, double *dydt, const void *params) {
    (void)t;
    dydt[0] = -*(const double *)params * y[0];
}

static void oscillator(double t, const double *y, double *dydt, const void *params) {
    const double omega = *(const double *)params;
    (void)t;
    dydt[0] = y[1];
    dydt[1] = -omega * omega * y[0];
}

/* theta = (alpha, beta, gamma, delta): the model of bench/real/lotka_volterra.c. */
static void lotka_volterra(double t, const double *z, double *dzdt, const void *params) {
    const double *theta = params;
    (void)t;
    dzdt[0] = (theta[0] - theta[1] * z[1]) * z[0];
    dzdt[1] = (-theta[2] + theta[3] * z[0]) * z[1];
}

/* V = delta u - gamma log u + beta v - alpha log v is constant along Lotka-Volterra orbits. */
static double lotka_volterra_invariant(const double *theta, const double *z) {
    return theta[3] * z[0] - theta[2] * log(z[0]) + theta[1] * z[1] - theta[0] * log(z[1]);
}

static void blow_up(double t, const double *y, double *dydt, const void *params) {
    (void)t, (void)params;
    dydt[0] = y[0] * y[0];
}

/* Largest error of the decay y' = -k y, y(0) = 2 at t = 1..20 against 2 exp(-k t). */
static double decay_error(double tol, long *steps) {
    const double k = 0.7, y0 = 2.0;
    const real_ode_settings settings = {tol, tol, 100000};
    double times[TIMES], y[TIMES], worst = 0.0;
    for (int i = 0; i < TIMES; ++i) times[i] = i + 1.0;
    if (real_ode_solve(decay, &k, 1, 0.0, &y0, TIMES, times, &settings, y, steps) != 0)
        return INFINITY;
    for (int i = 0; i < TIMES; ++i) worst = fmax(worst, fabs(y[i] - y0 * exp(-k * times[i])));
    return worst;
}

/* Largest error of the oscillator y'' = -omega^2 y, y(0) = 1, y'(0) = 0 at t = 1..20
 * (about six periods) against (cos omega t, -omega sin omega t). */
static double oscillator_error(double tol, long *steps) {
    const double omega = 2.0, y0[2] = {1.0, 0.0};
    const real_ode_settings settings = {tol, tol, 100000};
    double times[TIMES], y[2 * TIMES], worst = 0.0;
    for (int i = 0; i < TIMES; ++i) times[i] = i + 1.0;
    if (real_ode_solve(oscillator, &omega, 2, 0.0, y0, TIMES, times, &settings, y, steps) != 0)
        return INFINITY;
    for (int i = 0; i < TIMES; ++i) {
        worst = fmax(worst, fabs(y[2 * i] - cos(omega * times[i])));
        worst = fmax(worst, fabs(y[2 * i + 1] + omega * sin(omega * times[i])));
    }
    return worst;
}

int main(void) {
    const double tol = 1e-8;
    long steps;
    printf("exponential decay\n");
    double error = decay_error(tol, &steps);
    expect(error <= steps * (tol + tol * 2.0), "max error at rtol = atol = 1e-8", error,
           steps * 3.0 * tol);
    const double coarse = decay_error(1e-6, &steps), fine = decay_error(1e-10, &steps);
    expect(fine < coarse / 100.0, "error at 1e-10 below 1/100 of the error at 1e-6", fine,
           coarse / 100.0);

    printf("harmonic oscillator\n");
    error = oscillator_error(tol, &steps);
    expect(error <= steps * (tol + tol * 2.0), "max error at rtol = atol = 1e-8", error,
           steps * 3.0 * tol);
    const double coarse_osc = oscillator_error(1e-6, &steps), fine_osc = oscillator_error(1e-10, &steps);
    expect(fine_osc < coarse_osc / 100.0, "error at 1e-10 below 1/100 of the error at 1e-6",
           fine_osc, coarse_osc / 100.0);

    printf("Lotka-Volterra invariant\n");
    const double theta[4] = {0.55, 0.028, 0.8, 0.024}, z0[2] = {34.0, 6.0};
    const real_ode_settings settings = {tol, tol, 100000};
    double times[TIMES], z[2 * TIMES], drift = 0.0, low_u = z0[0], low_v = z0[1], high = 0.0;
    for (int i = 0; i < TIMES; ++i) times[i] = i + 1.0;
    const int status = real_ode_solve(lotka_volterra, theta, 2, 0.0, z0, TIMES, times, &settings,
                                      z, &steps);
    const double v0 = lotka_volterra_invariant(theta, z0);
    for (int i = 0; i < TIMES; ++i) {
        drift = fmax(drift, fabs(lotka_volterra_invariant(theta, z + 2 * i) - v0));
        low_u = fmin(low_u, z[2 * i]);
        low_v = fmin(low_v, z[2 * i + 1]);
        high = fmax(high, fmax(z[2 * i], z[2 * i + 1]));
    }
    /* |dV| <= |dV/du| |du| + |dV/dv| |dv|, |dV/du| <= delta + gamma / min u,
     * |dV/dv| <= beta + alpha / min v, |du|, |dv| <= steps (atol + rtol max z). */
    const double state_error = steps * (tol + tol * high);
    const double bound = state_error * (theta[3] + theta[2] / low_u + theta[1] + theta[0] / low_v);
    expect(status == 0 && drift <= bound, "max drift of the invariant", drift, bound);

    printf("failures\n");
    const double one = 1.0, until_two = 2.0;
    double y;
    int failed = real_ode_solve(blow_up, NULL, 1, 0.0, &one, 1, &until_two, &settings, &y, &steps);
    expect(failed != 0, "y' = y^2 from y(0) = 1 to t = 2 (blows up at t = 1) fails: steps",
           (double)steps, 100000.0);
    const real_ode_settings few_steps = {tol, tol, 10};
    failed = real_ode_solve(oscillator, &one, 2, 0.0, z0, TIMES, times, &few_steps, z, &steps);
    expect(failed != 0, "oscillator with a limit of 10 steps fails: steps", (double)steps, 11.0);
    printf("%d failed\n", failures);
    return failures == 0 ? 0 : 1;
}
