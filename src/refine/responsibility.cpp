// log r(j | w) = t_j(w) - log sum_i exp t_i(w), t_i = log w_i + log N(w; mu_i, diag(v_i)), and
// d log r / dw = grad t_j - sum_i r(i | w) grad t_i with grad t_i = -(w - mu_i) / v_i.
#include "refine/responsibility.hpp"

#include <cmath>

#include "util/math.hpp"

namespace libvbmc {

Responsibility::Responsibility(const VariationalPosterior& vp)
    : dim_(vp.dim), k_(vp.k), mu_(vp.mu), inv_var_(vp.k, vp.dim), log_norm_(static_cast<size_t>(vp.k)),
      log_terms_(static_cast<size_t>(vp.k)) {
    for (int j = 0; j < k_; ++j) {
        double log_norm = std::log(vp.w[static_cast<size_t>(j)]);
        for (int d = 0; d < dim_; ++d) {
            const double scale = vp.sigma[static_cast<size_t>(j)] * vp.lambda_of(j, d);
            inv_var_(j, d) = 1.0 / (scale * scale);
            log_norm -= 0.5 * kLog2Pi + std::log(scale);
        }
        log_norm_[static_cast<size_t>(j)] = log_norm;
    }
}

double Responsibility::log_value(int j, const double* w, double* grad) const {
    for (int i = 0; i < k_; ++i) {
        const double* mu = mu_.row(i);
        const double* inv_var = inv_var_.row(i);
        double quad = 0.0;
        for (int d = 0; d < dim_; ++d) quad += (w[d] - mu[d]) * (w[d] - mu[d]) * inv_var[d];
        log_terms_[static_cast<size_t>(i)] = log_norm_[static_cast<size_t>(i)] - 0.5 * quad;
    }
    const double log_total = log_sum_exp(log_terms_.data(), log_terms_.size());
    if (grad != nullptr) {
        // sum_i r_i (w - mu_i) / v_i - (w - mu_j) / v_j
        for (int d = 0; d < dim_; ++d) grad[d] = -(w[d] - mu_(j, d)) * inv_var_(j, d);
        for (int i = 0; i < k_; ++i) {
            const double resp = std::exp(log_terms_[static_cast<size_t>(i)] - log_total);
            if (resp == 0.0) continue;
            for (int d = 0; d < dim_; ++d) grad[d] += resp * (w[d] - mu_(i, d)) * inv_var_(i, d);
        }
    }
    return log_terms_[static_cast<size_t>(j)] - log_total;
}

}  // namespace libvbmc
