#include "bq/kernel_integrals.hpp"

#include <cmath>

#include "gp/gp.hpp"

namespace libvbmc {

SeKernel se_kernel(const double* log_ell, double log_sf, int dim) {
    SeKernel kernel;
    kernel.ell.resize(static_cast<size_t>(dim));
    kernel.log_ell.assign(log_ell, log_ell + dim);
    for (int d = 0; d < dim; ++d) {
        kernel.ell[static_cast<size_t>(d)] = std::exp(log_ell[d]);
        kernel.sum_log_ell += log_ell[d];
    }
    kernel.log_sf2 = 2.0 * log_sf;
    return kernel;
}

double kernel_mean_log_norm(const SeKernel& kernel, const double* s2, int dim, double* tau2) {
    double log_norm = kernel.log_sf2 + kernel.sum_log_ell;
    for (int d = 0; d < dim; ++d) {
        const double ell = kernel.ell[static_cast<size_t>(d)];
        tau2[d] = s2[d] + ell * ell;
        log_norm -= std::log(std::sqrt(tau2[d]));
    }
    return log_norm;
}

double kernel_mean_at(double log_norm, const double* inv_tau2, const double* mu, const double* x, int dim) {
    double r2 = 0.0;
    for (int d = 0; d < dim; ++d) {
        const double diff = mu[d] - x[d];
        r2 += diff * diff * inv_tau2[d];
    }
    return std::exp(log_norm - 0.5 * r2);
}

void kernel_mean_row(double log_norm, const double* inv_tau, const double* mu, const double* points_by_dim, int m,
                     int dim, std::vector<double>& scaled_mu, std::vector<double>& scaled, double* out) {
    scaled_mu.resize(static_cast<size_t>(dim));
    scaled.resize(static_cast<size_t>(dim) * m);
    for (int d = 0; d < dim; ++d) {
        scaled_mu[d] = mu[d] * inv_tau[d];
        const double* from = points_by_dim + static_cast<size_t>(d) * m;
        double* to = scaled.data() + static_cast<size_t>(d) * m;
        for (int j = 0; j < m; ++j) to[j] = from[j] * inv_tau[d];
    }
    gp_kernel_row(scaled_mu.data(), scaled.data(), m, dim, m, log_norm, out);
}

double kernel_pair_mean(const SeKernel& kernel, const double* mu_a, const double* s2_a, const double* mu_b,
                        const double* s2_b, int dim) {
    double log_norm = kernel.log_sf2 + kernel.sum_log_ell, r2 = 0.0;
    for (int d = 0; d < dim; ++d) {
        const double ell = kernel.ell[static_cast<size_t>(d)];
        const double t2 = s2_a[d] + s2_b[d] + ell * ell;
        const double dm = mu_a[d] - mu_b[d];
        log_norm -= 0.5 * std::log(t2);
        r2 += dm * dm / t2;
    }
    return std::exp(log_norm - 0.5 * r2);
}

double kernel_mean_log_norm_ratio(const SeKernel& kernel, double log_weight, const double* s2, int dim, double* tau2) {
    double log_norm = log_weight + kernel.log_sf2;
    for (int d = 0; d < dim; ++d) {
        const double ell2 = std::exp(2.0 * kernel.log_ell[static_cast<size_t>(d)]);
        tau2[d] = s2[d] + ell2;
        log_norm += 0.5 * std::log(ell2 / tau2[d]);
    }
    return log_norm;
}

double kernel_pair_mean_ratio(const SeKernel& kernel, double log_weight, const double* mu_a, const double* s2_a,
                              const double* mu_b, const double* s2_b, int dim) {
    double log_term = log_weight + kernel.log_sf2, r2 = 0.0;
    for (int d = 0; d < dim; ++d) {
        const double ell2 = std::exp(2.0 * kernel.log_ell[static_cast<size_t>(d)]);
        const double t2 = s2_a[d] + s2_b[d] + ell2;
        const double dm = mu_a[d] - mu_b[d];
        log_term += 0.5 * std::log(ell2 / t2);
        r2 += dm * dm / t2;
    }
    return std::exp(log_term - 0.5 * r2);
}

}  // namespace libvbmc
