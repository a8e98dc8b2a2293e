#include "acquisition/bbq_variance.hpp"

#include <cfloat>
#include <cmath>
#include <limits>
#include <string>

#include "acquisition/acq_fcn.hpp"
#include "acquisition/expected_noise.hpp"
#include "linalg/linalg.hpp"
#include "util/error.hpp"

namespace libvbmc {

double BbqVariance::log_gain(const BbqGainTerms& t) const {
    const double beta = t.beta, mu = t.mu;
    const double mean_l = std::exp(t.log_l + 0.5 * t.var), second_l = std::exp(2.0 * t.log_l + 2.0 * t.var);
    if (!std::isfinite(second_l)) return beta != 0.0 ? 2.0 * (std::log(std::fabs(beta)) + t.log_l + t.var) : std::log(DBL_MIN);
    const double gain = 2.0 * mean_z_ * beta * (mean_l - mu) + beta * beta * (second_l - 2.0 * mu * mean_l + mu * mu);
    return std::log(std::max(std::isnan(gain) ? 0.0 : gain, DBL_MIN));
}

BbqVariance::BbqVariance(const Gp& gp, const VariationalPosterior& vp, double y_max, const AcqSettings& s,
                         uint64_t seed)
    : gp_(gp), s_(s), y_max_(y_max), model_(bbq_model(gp.data, bbq_measure(vp), seed)) {
    const BbqMoments moments = bbq_moments(model_);
    mean_z_ = moments.mean_l + moments.correction;
    if (!(mean_z_ > 0.0))
        throw_error(Code::numeric, "the bbq acquisition: BBQ's mean of the evidence is " + std::to_string(mean_z_) +
                                       ", not positive.");
    const int dim = gp.dim;
    std::vector<double> tau2(static_cast<size_t>(dim));
    kernel_mean_log_norm_ = kernel_mean_log_norm(model_.l.kernel, model_.p.var.data(), dim, tau2.data());
    for (double t : tau2) tau2_inv_.push_back(1.0 / t);
    const Matrix& x = model_.l.data.x;
    kernel_mean_w_.resize(static_cast<size_t>(x.rows));
    for (int i = 0; i < x.rows; ++i)
        kernel_mean_w_[static_cast<size_t>(i)] =
            kernel_mean_at(kernel_mean_log_norm_, tau2_inv_.data(), model_.p.mean.data(), x.row(i), dim);
    cholesky_solve(model_.l.sample.chol, kernel_mean_w_.data());
}

std::vector<BbqGainTerms> BbqVariance::terms(const Matrix& xs) const {
    const int dim = xs.cols, m = xs.rows;
    const ZeroMeanGp& l = model_.l;
    std::vector<double> f_bar, var;
    gp_predict(gp_, xs, f_bar, var);
    const ExpectedNoise noise = expected_noise(gp_, xs);
    Matrix k = gp_cross_kernel(l.data.x, xs, l.sample.theta.data(), dim);  // n x m
    std::vector<double> mu(static_cast<size_t>(m)), cov_int(static_cast<size_t>(m));
    gemv(true, 1.0, k, l.sample.alpha.data(), 0.0, mu.data());
    gemv(true, 1.0, k, kernel_mean_w_.data(), 0.0, cov_int.data());
    std::vector<double> latent(static_cast<size_t>(m));
    gp_latent_variance(l.sample, std::exp(l.kernel.log_sf2), k, latent.data());
    const double sn2_l = gp_sn2(l.sample.theta.data(), dim);
    std::vector<BbqGainTerms> out(static_cast<size_t>(m));
    for (int j = 0; j < m; ++j) {
        const size_t u = static_cast<size_t>(j);
        const double* x = xs.row(j);
        BbqGainTerms& t = out[u];
        t.f_bar = f_bar[u];
        t.var = var[u];
        t.mu = mu[u];
        t.log_l = f_bar[u] - bbq_log_measure(model_.p, x) - model_.log_scale;
        // The covariance of l at x_a with the integral, and the variance an observation there has
        // (the evaluation's expected noise on l by the delta method, as bbq_model does for told noise).
        const double mean_l = std::exp(t.log_l + 0.5 * var[u]);
        const double covariance =
            kernel_mean_at(kernel_mean_log_norm_, tau2_inv_.data(), model_.p.mean.data(), x, dim) - cov_int[u];
        t.beta = covariance / (latent[u] + sn2_l + mean_l * mean_l * noise.mean(u));
    }
    return out;
}

void BbqVariance::evaluate(const Matrix& xs, double* acq) const {
    constexpr double inf = std::numeric_limits<double>::infinity();
    const std::vector<BbqGainTerms> all = terms(xs);
    for (int j = 0; j < xs.rows; ++j) {
        const BbqGainTerms& t = all[static_cast<size_t>(j)];
        if (outside_limits(s_, xs.row(j), xs.cols) || !std::isfinite(t.f_bar) || std::isnan(t.var) ||
            implausible(s_, t.f_bar, t.var, y_max_)) {
            acq[j] = inf;
            continue;
        }
        double value = -log_gain(t);
        if (s_.variance_regularized && t.var < s_.tol_gp_var) value += t.var > 0.0 ? s_.tol_gp_var / t.var - 1.0 : inf;
        acq[j] = std::max(value, -DBL_MAX);
    }
}

}  // namespace libvbmc
