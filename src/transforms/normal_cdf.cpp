#include "transforms/normal_cdf.hpp"

#include <cmath>

#include "util/error.hpp"
#include "util/math.hpp"

namespace libvbmc {

double normal_cdf(double y) {
    constexpr double kSqrtHalf = 0.70710678118654752440084436210485;
    return 0.5 * std::erfc(-y * kSqrtHalf);
}

namespace {

// Acklam's rational approximation to Phi^{-1}(p) for p in (0, 0.5] (relative error ~1e-9),
// used only as the starting point of the Halley refinement below.
double quantile_initial_guess(double p) {
    constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                            1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
    constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                            6.680131188771972e+01,  -1.328068155288572e+01};
    constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                            -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
    constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                            3.754408661907416e+00};
    if (p < 0.02425) {
        const double q = std::sqrt(-2.0 * std::log(p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    }
    const double q = p - 0.5;
    const double r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

// Lower-tail quantile, p in (0, 0.5]: Halley's method on Phi(y) = p. The step
// u = (Phi(y) - p) / phi(y) is formed as (Phi(y)/p - 1) * exp(log p + y^2/2 + log(2 pi)/2) so that
// neither phi(y) underflows nor its reciprocal overflows for p near the smallest subnormal.
double lower_tail_quantile(double p) {
    double y = quantile_initial_guess(p);
    const double log_p = std::log(p);
    for (int step = 0; step < 3; ++step) {
        const double relative_residual = normal_cdf(y) / p - 1.0;
        const double u = relative_residual * std::exp(log_p + 0.5 * y * y + 0.5 * kLog2Pi);
        const double y_next = y - u / (1.0 + 0.5 * y * u);
        if (!std::isfinite(y_next)) break;
        const bool converged = std::fabs(y_next - y) <= 1e-16 * std::fabs(y);
        y = y_next;
        if (converged) break;
    }
    return y;
}

}  // namespace

double normal_quantile(double p) {
    if (!(p >= 0.0 && p <= 1.0)) throw_error(Code::numeric, "the normal quantile needs a probability in [0, 1]");
    if (p == 0.0) return -INFINITY;
    if (p == 1.0) return INFINITY;
    if (p <= 0.5) return lower_tail_quantile(p);
    return -lower_tail_quantile(1.0 - p);
}

}  // namespace libvbmc
