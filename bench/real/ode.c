/* Dormand-Prince 5(4) (see ode.h). */
#include "ode.h"

#include <math.h>
#include <string.h>

#define STAGES 7

/* Butcher tableau of DOPRI5 (Hairer, Norsett and Wanner I, table 5.2): nodes C, matrix A, the
 * fifth-order weights B (= the last row of A: first same as last) and E = B - B*, the
 * difference to the embedded fourth-order weights, which estimates the local error. */
static const double C[STAGES] = {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0};
static const double A[STAGES][STAGES] = {
    {0},
    {1.0 / 5.0},
    {3.0 / 40.0, 9.0 / 40.0},
    {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0},
    {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0},
    {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0},
    {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0}};
static const double E[STAGES] = {71.0 / 57600.0,      0.0,           -71.0 / 16695.0,
                                 71.0 / 1920.0,       -17253.0 / 339200.0, 22.0 / 525.0,
                                 -1.0 / 40.0};

typedef struct solver {
    real_ode_rhs f;
    const void *params;
    int n;
    double rtol, atol;
    double k[STAGES][REAL_ODE_MAX_SIZE]; /* stage derivatives; k[0] = f(t, y) */
} solver;

/* One step of size h from (t, y) with k[0] = f(t, y) already set: the fifth-order solution
 * into y_new, k[6] = f(t + h, y_new), and the RMS norm of the error estimate scaled by
 * atol + rtol max(|y|, |y_new|) (section II.4, eq. 4.11) as the return value. */
static double try_step(solver *s, double t, const double *y, double h, double *y_new) {
    double stage_y[REAL_ODE_MAX_SIZE];
    for (int i = 1; i < STAGES; ++i) {
        for (int j = 0; j < s->n; ++j) {
            double sum = 0.0;
            for (int m = 0; m < i; ++m) sum += A[i][m] * s->k[m][j];
            stage_y[j] = y[j] + h * sum;
        }
        s->f(t + C[i] * h, stage_y, s->k[i], s->params);
    }
    memcpy(y_new, stage_y, sizeof(double) * (size_t)s->n); /* stage 7 evaluates at y_new */
    double sum_sq = 0.0;
    for (int j = 0; j < s->n; ++j) {
        double error = 0.0;
        for (int m = 0; m < STAGES; ++m) error += E[m] * s->k[m][j];
        const double scale = s->atol + s->rtol * fmax(fabs(y[j]), fabs(y_new[j]));
        const double ratio = h * error / scale;
        sum_sq += ratio * ratio;
    }
    return sqrt(sum_sq / s->n);
}

/* The starting step size of section II.4 ("Automatic step size control", starting step size):
 * h0 from the sizes of y and f, h1 from a second-derivative estimate, h = min(100 h0, h1). */
static double initial_step(solver *s, double t, const double *y, double span) {
    double d0 = 0.0, d1 = 0.0, y1[REAL_ODE_MAX_SIZE], f1[REAL_ODE_MAX_SIZE];
    for (int j = 0; j < s->n; ++j) {
        const double scale = s->atol + s->rtol * fabs(y[j]);
        d0 += (y[j] / scale) * (y[j] / scale);
        d1 += (s->k[0][j] / scale) * (s->k[0][j] / scale);
    }
    d0 = sqrt(d0 / s->n);
    d1 = sqrt(d1 / s->n);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    h0 = fmin(h0, span);
    for (int j = 0; j < s->n; ++j) y1[j] = y[j] + h0 * s->k[0][j];
    s->f(t + h0, y1, f1, s->params);
    double d2 = 0.0;
    for (int j = 0; j < s->n; ++j) {
        const double scale = s->atol + s->rtol * fabs(y[j]);
        const double diff = (f1[j] - s->k[0][j]) / scale;
        d2 += diff * diff;
    }
    d2 = sqrt(d2 / s->n) / h0;
    const double largest = fmax(d1, d2);
    const double h1 = largest <= 1e-15 ? fmax(1e-6, 1e-3 * h0) : pow(0.01 / largest, 0.2);
    return fmin(fmin(100.0 * h0, h1), span);
}

static int all_finite(const double *y, int n) {
    for (int j = 0; j < n; ++j)
        if (!isfinite(y[j])) return 0;
    return 1;
}

int real_ode_solve(real_ode_rhs f, const void *params, int n, double t0, const double *y0,
                   int count, const double *times, const real_ode_settings *settings,
                   double *out, long *steps) {
    solver s = {f, params, n, settings->rtol, settings->atol, {{0}}};
    double t = t0, y[REAL_ODE_MAX_SIZE], y_new[REAL_ODE_MAX_SIZE];
    long attempted = 0;
    if (steps) *steps = 0;
    if (n < 1 || n > REAL_ODE_MAX_SIZE || count < 1 || !(times[count - 1] > t0)) return -1;
    const double span = times[count - 1] - t0;
    memcpy(y, y0, sizeof(double) * (size_t)n);
    f(t, y, s.k[0], params);
    double h = initial_step(&s, t, y, span);
    int rejected_last = 0;
    int next = 0;
    while (next < count) {
        if (++attempted > settings->max_steps || !(h > 1e-14 * span)) break;
        const int lands = t + h >= times[next];
        const double step = lands ? times[next] - t : h;
        const double error = try_step(&s, t, y, step, y_new);
        /* Step-size factor 0.9 error^(-1/5) within [0.2, 5], no growth right after a
         * rejection (section II.4, eq. 4.13); a non-finite error shrinks the step fivefold. */
        const double proposed = isfinite(error) ? 0.9 * pow(fmax(error, 1e-10), -0.2) : 0.2;
        const double factor = fmin(rejected_last ? 1.0 : 5.0, fmax(0.2, proposed));
        if (!(error <= 1.0) || !all_finite(y_new, n)) {
            h = step * factor; /* below 0.9 when error > 1 */
            rejected_last = 1;
            continue;
        }
        t = lands ? times[next] : t + step;
        memcpy(y, y_new, sizeof(double) * (size_t)n);
        memcpy(s.k[0], s.k[STAGES - 1], sizeof(double) * (size_t)n); /* first same as last */
        if (lands) memcpy(out + (size_t)next++ * (size_t)n, y, sizeof(double) * (size_t)n);
        /* A step shortened to land on an output time keeps the longer step it replaced. */
        h = lands ? fmax(h, step * factor) : step * factor;
        rejected_last = 0;
    }
    if (steps) *steps = attempted;
    return next == count ? 0 : -1;
}
