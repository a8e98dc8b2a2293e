/* An explicit adaptive Runge-Kutta solver for the ODE models of the real-posterior benchmark:
 * Dormand-Prince 5(4) with local extrapolation (Hairer, Norsett and Wanner, Solving Ordinary
 * Differential Equations I, 2nd ed., section II.5, table 5.2) and the standard step-size
 * control of section II.4. Output times are reached exactly by shortening the step, so no
 * interpolation error is added. */
#ifndef VBMC_BENCH_REAL_ODE_H
#define VBMC_BENCH_REAL_ODE_H

#define REAL_ODE_MAX_SIZE 8

/* dy/dt = f(t, y): writes dydt[n] from y[n]. */
typedef void (*real_ode_rhs)(double t, const double *y, double *dydt, const void *params);

typedef struct real_ode_settings {
    double rtol, atol; /* the local error of a step is kept below atol + rtol |y| (RMS norm) */
    long max_steps;    /* accepted and rejected steps together */
} real_ode_settings;

/* Integrates the system of size n (<= REAL_ODE_MAX_SIZE) from y0[n] at t0 to each of the
 * count increasing times[i] > t0, writing y(times[i]) into out[i*n + j]. *steps (may be NULL)
 * receives the number of steps attempted. Returns 0, or -1 if the solver failed: more than
 * max_steps steps, a step size below 1e-14 of the time span, or a non-finite state. */
int real_ode_solve(real_ode_rhs f, const void *params, int n, double t0, const double *y0,
                   int count, const double *times, const real_ode_settings *settings,
                   double *out, long *steps);

#endif
