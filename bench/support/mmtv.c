/* Smoothed marginal total variation (mmtv.h). */
#include "mmtv.h"

#include <math.h>
#include <stdlib.h>

#define KERNEL_SDS 5.0

/* out = in convolved with the discrete Gaussian of SD h_bins (weights normalised to 1). */
static void smooth(const double *in, int bins, const double *kernel, int half, double *out) {
    for (int g = 0; g < bins; ++g) {
        double sum = 0.0;
        for (int k = -half; k <= half; ++k) {
            const int source = g + k;
            if (source >= 0 && source < bins) sum += kernel[k + half] * in[source];
        }
        out[g] = sum;
    }
}

double bench_marginal_tv(bench_grid grid, const double *mass, const double *x, size_t n, int stride, double h) {
    const double h_bins = h / grid.width;
    const int half = (int)ceil(KERNEL_SDS * h_bins);
    double *kernel = malloc(sizeof(double) * (size_t)(2 * half + 1));
    double *hist = calloc((size_t)grid.bins, sizeof(double));
    double *a = malloc(sizeof(double) * (size_t)grid.bins);
    double *b = malloc(sizeof(double) * (size_t)grid.bins);
    double tv = NAN;
    if (kernel && hist && a && b) {
        double total = 0.0;
        for (int k = -half; k <= half; ++k) total += kernel[k + half] = exp(-0.5 * (k / h_bins) * (k / h_bins));
        for (int k = 0; k <= 2 * half; ++k) kernel[k] /= total;
        size_t outside = 0;
        for (size_t i = 0; i < n; ++i) {
            const double bin = floor((x[i * (size_t)stride] - grid.lo) / grid.width);
            if (bin >= 0 && bin < grid.bins) hist[(int)bin] += 1.0 / (double)n;
            else ++outside;
        }
        smooth(hist, grid.bins, kernel, half, a);
        smooth(mass, grid.bins, kernel, half, b);
        tv = 0.5 * (double)outside / (double)n;
        for (int g = 0; g < grid.bins; ++g) tv += 0.5 * fabs(a[g] - b[g]);
    }
    free(kernel);
    free(hist);
    free(a);
    free(b);
    return tv;
}
