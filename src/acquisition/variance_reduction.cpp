#include "acquisition/variance_reduction.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "acquisition/acq_fcn.hpp"
#include "linalg/linalg.hpp"

namespace libvbmc {

VarianceReduction::VarianceReduction(const Gp& gp, const VariationalPosterior& vp) : vp_(vp) {
    const int dim = gp.dim;
    const int n = gp.data.size();
    samples_.resize(gp.samples.size());
    for (size_t si = 0; si < gp.samples.size(); ++si) {
        const double* theta = gp.samples[si].theta.data();
        Sample& s = samples_[si];
        s.sn2 = std::exp(2.0 * theta[hyp::log_sn(dim)]);
        s.log_norm.assign(static_cast<size_t>(vp.k), 0.0);
        s.inv_tau2 = Matrix(vp.k, dim);
        for (int k = 0; k < vp.k; ++k) {
            double log_norm = std::log(vp.w[k]) + 2.0 * theta[hyp::log_sf(dim)];
            for (int d = 0; d < dim; ++d) {
                const double ell2 = std::exp(2.0 * theta[hyp::log_ell(d)]);
                const double scale = vp.sigma[k] * vp.lambda_of(k, d);
                const double tau2 = scale * scale + ell2;
                log_norm += 0.5 * std::log(ell2 / tau2);
                s.inv_tau2(k, d) = 1.0 / tau2;
            }
            s.log_norm[k] = log_norm;
        }
        std::vector<double> zq_train(static_cast<size_t>(n));
        prior_covariance(si, gp.data.x, zq_train.data());
        s.beta = zq_train;
        cholesky_solve(gp.samples[si].chol, s.beta.data());
        const double prior_part = prior_integral_variance(vp, theta, dim);
        double explained = 0.0;
        for (int i = 0; i < n; ++i) explained += s.beta[i] * zq_train[i];
        s.integral_var = prior_part - explained;
        s.integral_var_slack = 1e-9 * prior_part;
    }
}

// sum_jk w_j w_k E_{x~q_j, x'~q_k}[k(x, x')]: the prior variance of E_q f (header).
double VarianceReduction::prior_integral_variance(const VariationalPosterior& vp, const double* theta, int dim) {
    double total = 0.0;
    for (int j = 0; j < vp.k; ++j) {
        for (int k = 0; k < vp.k; ++k) {
            double log_term = std::log(vp.w[j] * vp.w[k]) + 2.0 * theta[hyp::log_sf(dim)], r2 = 0.0;
            for (int d = 0; d < dim; ++d) {
                const double ell2 = std::exp(2.0 * theta[hyp::log_ell(d)]);
                const double scale_j = vp.sigma[j] * vp.lambda_of(j, d);
                const double scale_k = vp.sigma[k] * vp.lambda_of(k, d);
                const double t2 = scale_j * scale_j + scale_k * scale_k + ell2;
                const double dm = vp.mu(j, d) - vp.mu(k, d);
                log_term += 0.5 * std::log(ell2 / t2);
                r2 += dm * dm / t2;
            }
            total += std::exp(log_term - 0.5 * r2);
        }
    }
    return total;
}

double VarianceReduction::reduction_bound(size_t si, double cov) const {
    const Sample& s = samples_[si];
    const double cov2 = cov * cov;
    if (cov2 == 0.0) return 0.0;
    const double var_upper = std::max(s.integral_var, 0.0) + s.integral_var_slack;
    return cov2 / (cov2 / var_upper + s.sn2);
}

void VarianceReduction::prior_covariance(size_t si, const Matrix& xs, double* out) const {
    const Sample& s = samples_[si];
    const int dim = xs.cols;
    for (int j = 0; j < xs.rows; ++j) {
        const double* x = xs.row(j);
        double sum = 0.0;
        for (int k = 0; k < vp_.k; ++k) {
            const double* mu = vp_.mu.row(k);
            const double* inv_tau2 = s.inv_tau2.row(k);
            double r2 = 0.0;
            for (int d = 0; d < dim; ++d) r2 += (mu[d] - x[d]) * (mu[d] - x[d]) * inv_tau2[d];
            sum += std::exp(s.log_norm[k] - 0.5 * r2);
        }
        out[j] = sum;
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
    for (size_t si = 0; si < ns; ++si) {
        const GpSample& sample = gp.samples[si];
        gp_cross_kernel(gp.data.x, xs, sample.theta.data(), dim, kstar);
        terms.covariance(si, xs, kstar, cov.data());
        double* mean = means.data() + si * m;
        gp_mean_rows(xs.row(0), m, sample.theta.data(), dim, mean);
        gemv(true, 1.0, kstar, sample.alpha.data(), 1.0, mean);
        double* var = vars.data() + si * m;
        gp_latent_variance(sample, std::exp(2.0 * sample.theta[hyp::log_sf(dim)]), kstar, var);  // solves kstar in place
        for (int j = 0; j < m; ++j) {
            reduction[j] += terms.reduction(si, cov[j], var[j]);
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
