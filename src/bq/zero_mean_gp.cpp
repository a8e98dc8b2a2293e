#include "bq/zero_mean_gp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gp/optimize.hpp"
#include "linalg/linalg.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

constexpr double kFlatMeanLogOmega = 400.0;  // exp(-400)^2 underflows: the mean is exactly 0
constexpr double kMinLogSn = -13.8;          // sn >= 1e-6 (values are scaled to at most 1)
constexpr double kLaplaceStep = 1e-4;        // central difference of the gradient in log ell

// The fitted coordinates (log ell_d, log sf, log sn) to the full layout and back.
int free_index(int dim, int i) { return i < dim ? hyp::log_ell(i) : i == dim ? hyp::log_sf(dim) : hyp::log_sn(dim); }

std::vector<double> full_theta(const std::vector<double>& free, int dim) {
    std::vector<double> log_ell(free.begin(), free.begin() + dim);
    return zero_mean_theta(log_ell, free[static_cast<size_t>(dim)], free[static_cast<size_t>(dim) + 1]);
}

// Minus the log marginal likelihood and its gradient in the fitted coordinates.
double neg_lml(const GpData& data, const std::vector<double>& free, std::vector<double>& grad) {
    const int dim = data.x.cols;
    std::vector<double> full_grad;
    const double lml = gp_log_marginal_likelihood(data, full_theta(free, dim), &full_grad);
    grad.assign(free.size(), 0.0);
    if (!std::isfinite(lml)) return std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < free.size(); ++i) grad[i] = -full_grad[static_cast<size_t>(free_index(dim, static_cast<int>(i)))];
    return -lml;
}

// Laplace (section 4): Var[log ell_d] = -1 / (d^2 lml / d log ell_d^2), by central differences
// of the analytic gradient; 0 where the curvature is not negative (no Gaussian to integrate).
std::vector<double> laplace_log_ell_var(const GpData& data, const std::vector<double>& free) {
    const int dim = data.x.cols;
    std::vector<double> var(static_cast<size_t>(dim), 0.0), grad;
    for (int d = 0; d < dim; ++d) {
        std::vector<double> step = free;
        step[static_cast<size_t>(d)] += kLaplaceStep;
        neg_lml(data, step, grad);
        const double up = grad[static_cast<size_t>(d)];
        step[static_cast<size_t>(d)] -= 2.0 * kLaplaceStep;
        neg_lml(data, step, grad);
        const double curvature = (up - grad[static_cast<size_t>(d)]) / (2.0 * kLaplaceStep);  // of -lml
        var[static_cast<size_t>(d)] = curvature > 0.0 && std::isfinite(curvature) ? 1.0 / curvature : 0.0;
    }
    return var;
}

}  // namespace

std::vector<double> zero_mean_theta(const std::vector<double>& log_ell, double log_sf, double log_sn) {
    const int dim = static_cast<int>(log_ell.size());
    std::vector<double> theta(static_cast<size_t>(hyp::count(dim)), 0.0);
    for (int d = 0; d < dim; ++d) {
        theta[static_cast<size_t>(hyp::log_ell(d))] = log_ell[static_cast<size_t>(d)];
        theta[static_cast<size_t>(hyp::log_omega(dim, d))] = kFlatMeanLogOmega;
    }
    theta[static_cast<size_t>(hyp::log_sf(dim))] = log_sf;
    theta[static_cast<size_t>(hyp::log_sn(dim))] = log_sn;
    return theta;
}

ZeroMeanGp zero_mean_gp(GpData data, const std::vector<double>& theta) {
    const int dim = data.x.cols;
    ZeroMeanGp gp;
    gp.sample = gp_posterior(data, theta);
    gp.data = std::move(data);
    gp.kernel = se_kernel(theta.data(), theta[static_cast<size_t>(hyp::log_sf(dim))], dim);
    gp.log_ell_var.assign(static_cast<size_t>(dim), 0.0);
    return gp;
}

ZeroMeanGp fit_zero_mean_gp(GpData data, bool laplace) {
    const int dim = data.x.cols;
    const int n = data.size();
    if (n < 2) throw_error(Code::arg, "BBQ needs at least two training points, got " + std::to_string(n) + ".");
    double y_abs = 0.0;
    for (double y : data.y) y_abs = std::max(y_abs, std::fabs(y));
    if (!(y_abs > 0.0)) y_abs = 1.0;
    const size_t m = static_cast<size_t>(dim) + 2;
    std::vector<double> lower(m), upper(m), width(static_cast<size_t>(dim));
    for (int d = 0; d < dim; ++d) {
        double lo = data.x(0, d), hi = lo;
        for (int i = 1; i < n; ++i) lo = std::min(lo, data.x(i, d)), hi = std::max(hi, data.x(i, d));
        width[static_cast<size_t>(d)] = hi > lo ? hi - lo : 1.0;
        lower[static_cast<size_t>(d)] = std::log(1e-3 * width[static_cast<size_t>(d)]);
        upper[static_cast<size_t>(d)] = std::log(10.0 * width[static_cast<size_t>(d)]);
    }
    lower[static_cast<size_t>(dim)] = std::log(1e-3 * y_abs);
    upper[static_cast<size_t>(dim)] = std::log(1e2 * y_abs);
    lower[m - 1] = kMinLogSn + std::log(y_abs);
    upper[m - 1] = std::log(0.1 * y_abs);
    const ObjectiveWithGradient objective = [&data](const std::vector<double>& free, std::vector<double>& grad) {
        return neg_lml(data, free, grad);
    };
    MinimizeResult best;
    best.f = std::numeric_limits<double>::infinity();
    for (double fraction : {0.05, 0.2, 0.5}) {
        std::vector<double> x0(m);
        for (int d = 0; d < dim; ++d) x0[static_cast<size_t>(d)] = std::log(fraction * width[static_cast<size_t>(d)]);
        x0[static_cast<size_t>(dim)] = std::log(y_abs);
        x0[m - 1] = lower[m - 1] + 1.0;
        MinimizeResult r = minimize_bounded(objective, x0, lower, upper, MinimizeOptions{});
        if (r.f < best.f) best = std::move(r);
    }
    if (!std::isfinite(best.f))
        throw_error(Code::numeric, "BBQ: no length scales give the training set a finite marginal likelihood.");
    std::vector<double> log_ell_var;
    if (laplace) log_ell_var = laplace_log_ell_var(data, best.x);
    ZeroMeanGp gp = zero_mean_gp(std::move(data), full_theta(best.x, dim));
    if (laplace) gp.log_ell_var = std::move(log_ell_var);
    return gp;
}

void zero_mean_gp_predict(const ZeroMeanGp& gp, const Matrix& xs, double* out) {
    const Matrix kstar = gp_cross_kernel(gp.data.x, xs, gp.sample.theta.data(), gp.data.x.cols);
    gemv(true, 1.0, kstar, gp.sample.alpha.data(), 0.0, out);
}

}  // namespace libvbmc
