#include "acquisition/variance_reduction.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "acquisition/acq_fcn.hpp"
#include "acquisition/expected_noise.hpp"
#include "bq/kernel_integrals.hpp"
#include "linalg/linalg.hpp"

namespace libvbmc {

VarianceReduction::VarianceReduction(const Gp& gp, const VariationalPosterior& vp) : vp_(vp) {
    const int dim = gp.dim;
    const int n = gp.data.size();
    const Matrix s2 = vp_component_variances(vp);
    samples_.resize(gp.samples.size());
    for (size_t si = 0; si < gp.samples.size(); ++si) {
        const double* theta = gp.samples[si].theta.data();
        const SeKernel kernel = se_kernel(theta + hyp::log_ell(0), theta[hyp::log_sf(dim)], dim);
        Sample& s = samples_[si];
        s.sn2 = std::exp(2.0 * theta[hyp::log_sn(dim)]);
        s.log_norm.assign(static_cast<size_t>(vp.k), 0.0);
        s.inv_tau = Matrix(vp.k, dim);
        for (int k = 0; k < vp.k; ++k) {
            s.log_norm[k] = kernel_mean_log_norm_ratio(kernel, std::log(vp.w[k]), s2.row(k), dim, s.inv_tau.row(k));
            for (int d = 0; d < dim; ++d) s.inv_tau(k, d) = 1.0 / std::sqrt(s.inv_tau(k, d));
        }
        std::vector<double> zq_train(static_cast<size_t>(n));
        prior_covariance(si, gp.data.x, zq_train.data());
        s.beta = zq_train;
        cholesky_solve(gp.samples[si].chol, s.beta.data());
        double prior_part = 0.0;
        for (int j = 0; j < vp.k; ++j)
            for (int k = 0; k < vp.k; ++k)
                prior_part += kernel_pair_mean_ratio(kernel, std::log(vp.w[j] * vp.w[k]), vp.mu.row(j), s2.row(j),
                                                     vp.mu.row(k), s2.row(k), dim);
        double explained = 0.0;
        for (int i = 0; i < n; ++i) explained += s.beta[i] * zq_train[i];
        s.integral_var = prior_part - explained;
        s.integral_var_slack = 1e-9 * prior_part;
    }
}

double VarianceReduction::integral_variance_upper(size_t si) const {
    const Sample& s = samples_[si];
    return std::max(s.integral_var, 0.0) + s.integral_var_slack;
}

// The bound and the reduction share the floor cov2 / integral_variance_upper, so a reduction is
// never above its bound in floating point either: the denominators add the same floor (or more)
// to a noise of at least sn^2.
double VarianceReduction::reduction(size_t si, double cov, double latent_var, double noise_var) const {
    const double cov2 = cov * cov;
    if (cov2 == 0.0) return 0.0;
    return cov2 / (std::max(latent_var, cov2 / integral_variance_upper(si)) + noise_var);
}

double VarianceReduction::reduction_bound(size_t si, double cov) const {
    const double cov2 = cov * cov;
    if (cov2 == 0.0) return 0.0;
    return cov2 / (cov2 / integral_variance_upper(si) + samples_[si].sn2);
}

void VarianceReduction::prior_covariance(size_t si, const Matrix& xs, double* out) const {
    const Sample& s = samples_[si];
    const int dim = xs.cols;
    const int m = xs.rows;
    std::vector<double> xs_by_dim(static_cast<size_t>(dim) * m), scaled_mu, scaled, term(m);
    for (int j = 0; j < m; ++j)
        for (int d = 0; d < dim; ++d) xs_by_dim[static_cast<size_t>(d) * m + j] = xs(j, d);
    std::fill(out, out + m, 0.0);
    for (int k = 0; k < vp_.k; ++k) {
        kernel_mean_row(s.log_norm[k], s.inv_tau.row(k), vp_.mu.row(k), xs_by_dim.data(), m, dim, scaled_mu, scaled,
                        term.data());
        for (int j = 0; j < m; ++j) out[j] += term[j];
    }
}

void VarianceReduction::covariance(size_t si, const Matrix& xs, const Matrix& kstar, double* out) const {
    prior_covariance(si, xs, out);
    gemv(true, -1.0, kstar, samples_[si].beta.data(), 1.0, out);
}

double ivr_from_terms(const AcqSettings& s, double mean_reduction, double mean_latent_var) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (!(mean_reduction > 0.0) || std::isnan(mean_latent_var)) return inf;
    double acq = -std::log(mean_reduction);
    if (s.variance_regularized && mean_latent_var < s.tol_gp_var)
        acq += mean_latent_var > 0.0 ? s.tol_gp_var / mean_latent_var - 1.0 : inf;
    return acq;
}

void ivr_evaluate(const Gp& gp, const VarianceReduction& terms, const Matrix& xs, double y_max,
                  const AcqSettings& s, double* acq) {
    const int m = xs.rows;
    const int dim = xs.cols;
    if (m == 0) return;
    const size_t ns = gp.samples.size();
    std::vector<double> reduction(m, 0.0), latent_var(m, 0.0), cov(m);
    std::vector<double> means(ns * m), vars(ns * m), f_mean(m), f_var(m);
    Matrix kstar;
    const ExpectedNoise noise = expected_noise(gp, xs);
    for (size_t si = 0; si < ns; ++si) {
        const GpSample& sample = gp.samples[si];
        gp_cross_kernel(gp.data.x, xs, sample.theta.data(), dim, kstar);
        terms.covariance(si, xs, kstar, cov.data());
        double* mean = means.data() + si * m;
        gp_mean_rows(xs.row(0), m, sample.theta.data(), dim, gp.data.mean_dof, mean);
        gemv(true, 1.0, kstar, sample.alpha.data(), 1.0, mean);
        double* var = vars.data() + si * m;
        gp_latent_variance(sample, std::exp(2.0 * sample.theta[hyp::log_sf(dim)]), kstar, var);  // solves kstar in place
        for (int j = 0; j < m; ++j) {
            reduction[j] += terms.reduction(si, cov[j], var[j], noise.at(si, j));
            latent_var[j] += var[j];
        }
    }
    gp_average_samples(ns, m, means.data(), vars.data(), f_mean.data(), f_var.data());
    const double inv = 1.0 / static_cast<double>(ns);
    for (int j = 0; j < m; ++j)
        acq[j] = outside_limits(s, xs.row(j), dim) || implausible(s, f_mean[j], f_var[j], y_max)
                     ? std::numeric_limits<double>::infinity()
                     : ivr_from_terms(s, reduction[j] * inv, latent_var[j] * inv);
}

}  // namespace libvbmc
