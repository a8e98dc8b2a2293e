// Entropy estimators of the mixture variational posterior (paper section 3.1; PyVBMC
// entmc_vbmc and entlb_vbmc).
#include "elbo/entropy.hpp"

#include <algorithm>
#include <cmath>

#include "util/error.hpp"
#include "util/math.hpp"

namespace libvbmc {

void softmax_chain(const std::vector<double>& w, double* grad_w, int k) {
    double weighted = 0.0;
    for (int j = 0; j < k; ++j) weighted += w[j] * grad_w[j];
    for (int j = 0; j < k; ++j) grad_w[j] = w[j] * (grad_w[j] - weighted);
}

// Monte Carlo entropy (entmc_vbmc). For a draw x from component j, with responsibilities
// r_k = w_k N_k(x) / q(x), u_kd = (x_d - mu_kd) / (sigma_k lambda_d)^2, c_kd = u_kd (x_d - mu_kd):
//   d log q / d x_d      = -sum_k r_k u_kd
//   d log q / d mu_kd    =  r_k u_kd                       (direct)
//   d log q / d log s_k  =  r_k (sum_d c_kd - D)            (direct)
//   d log q / d log l_d  =  sum_k r_k c_kd - 1               (direct)
// plus the reparameterisation paths dx/dmu_j = 1, dx/dlog s_j = s_j l eps, dx/dlog l_d = s_j l_d eps_d.
double entropy_mc(const VariationalPosterior& vp, int n_per_component, Rng& rng,
                  std::vector<double>* grad) {
    const int dim = vp.dim;
    const int k_count = vp.k;
    const int half = (std::max(n_per_component, 1) + 1) / 2;
    const int n_draws = 2 * half;
    const int sigma_off = k_count * dim, lambda_off = sigma_off + k_count, eta_off = lambda_off + dim;
    if (grad) grad->assign(vp.theta_size(), 0.0);

    double sum_log_lambda = 0.0;
    for (int d = 0; d < dim; ++d) sum_log_lambda += std::log(vp.lambda[d]);
    // log(w_k) + log normaliser of component k
    std::vector<double> log_coef(k_count);
    for (int k = 0; k < k_count; ++k)
        log_coef[k] = std::log(vp.w[k]) - 0.5 * dim * kLog2Pi - dim * std::log(vp.sigma[k]) - sum_log_lambda;

    std::vector<double> eps(static_cast<size_t>(half) * dim), x(dim), log_terms(k_count), resp(k_count);
    std::vector<double> dlogq_dx(dim), u(static_cast<size_t>(k_count) * dim), c_sum(k_count), rc(dim);
    // Diagonal precision of component k: 1 / (sigma_k lambda_d)^2.
    std::vector<double> precision(static_cast<size_t>(k_count) * dim);
    for (int k = 0; k < k_count; ++k)
        for (int d = 0; d < dim; ++d) {
            const double scale = vp.sigma[k] * vp.lambda[d];
            precision[static_cast<size_t>(k) * dim + d] = 1.0 / (scale * scale);
        }
    std::vector<double> w_direct(k_count, 0.0);  // sum_j w_j mean_s r_k / w_k (direct weight term)
    double entropy = 0.0;
    for (int j = 0; j < k_count; ++j) {
        for (double& e : eps) e = rng.normal();
        const double wj = vp.w[j];
        double sum_log_q = 0.0;
        for (int s = 0; s < n_draws; ++s) {
            const double sign = s < half ? 1.0 : -1.0;  // antithetic pairs
            const double* e = eps.data() + static_cast<size_t>(s % half) * dim;
            for (int d = 0; d < dim; ++d) x[d] = vp.mu(j, d) + sign * vp.sigma[j] * vp.lambda[d] * e[d];
            for (int k = 0; k < k_count; ++k) {
                double maha = 0.0;
                const double* precision_k = precision.data() + static_cast<size_t>(k) * dim;
                for (int d = 0; d < dim; ++d) {
                    const double diff = x[d] - vp.mu(k, d);
                    const double uk = diff * precision_k[d];
                    u[static_cast<size_t>(k) * dim + d] = uk;
                    maha += uk * diff;
                }
                c_sum[k] = maha;
                log_terms[k] = log_coef[k] - 0.5 * maha;
            }
            // log q by log-sum-exp; the scaled exponentials become the responsibilities.
            double log_max = -INFINITY;
            for (int k = 0; k < k_count; ++k) log_max = std::max(log_max, log_terms[k]);
            double total = 0.0;
            for (int k = 0; k < k_count; ++k) total += (resp[k] = std::exp(log_terms[k] - log_max));
            const double log_q = log_max + std::log(total);
            sum_log_q += log_q;
            if (!grad) continue;
            std::vector<double>& g = *grad;
            const double scale = wj / n_draws;  // d H = -scale * d log q
            for (int d = 0; d < dim; ++d) {
                dlogq_dx[d] = 0.0;
                rc[d] = 0.0;
            }
            for (int k = 0; k < k_count; ++k) {
                resp[k] /= total;
                const double* uk = u.data() + static_cast<size_t>(k) * dim;
                for (int d = 0; d < dim; ++d) {
                    dlogq_dx[d] -= resp[k] * uk[d];
                    rc[d] += resp[k] * uk[d] * (x[d] - vp.mu(k, d));
                    g[k * dim + d] -= scale * resp[k] * uk[d];
                }
                g[sigma_off + k] -= scale * resp[k] * (c_sum[k] - dim);
                w_direct[k] += scale * resp[k];
            }
            double path_sigma = 0.0;
            for (int d = 0; d < dim; ++d) {
                const double dx_dscale = sign * vp.sigma[j] * vp.lambda[d] * e[d];
                g[j * dim + d] -= scale * dlogq_dx[d];
                path_sigma += dlogq_dx[d] * dx_dscale;
                g[lambda_off + d] -= scale * (rc[d] - 1.0 + dlogq_dx[d] * dx_dscale);
            }
            g[sigma_off + j] -= scale * path_sigma;
        }
        const double mean_log_q = sum_log_q / n_draws;
        entropy -= wj * mean_log_q;
        if (grad && vp.optimize_weights) (*grad)[eta_off + j] -= mean_log_q;
    }
    if (!std::isfinite(entropy)) throw_error(Code::numeric, "The Monte Carlo entropy is not finite.");
    if (grad && vp.optimize_weights) {
        double* gw = grad->data() + eta_off;
        // w_direct[k] holds sum_j w_j mean_s r_k; the derivative of q in w_k is N_k / q = r_k / w_k.
        for (int k = 0; k < k_count; ++k) gw[k] -= w_direct[k] / vp.w[k];
        softmax_chain(vp.w, gw, k_count);
    }
    return entropy;
}

// Deterministic entropy lower bound (entlb_vbmc). With s_ij^2 = sigma_i^2 + sigma_j^2,
// Delta_ij = mu_i - mu_j, Q_ij = sum_d Delta_ijd^2 / lambda_d^2:
//   log gamma_ij = -D/2 log(2 pi s_ij^2) - sum_d log lambda_d - Q_ij / (2 s_ij^2)
//   H = -sum_i w_i log Gamma_i,  Gamma_i = sum_j w_j gamma_ij.
// With a_ij = w_i w_j gamma_ij / Gamma_i the parameter gradient is -sum_ij a_ij d log gamma_ij.
double entropy_lb(const VariationalPosterior& vp, std::vector<double>* grad) {
    const int dim = vp.dim;
    const int k_count = vp.k;
    const int sigma_off = k_count * dim, lambda_off = sigma_off + k_count, eta_off = lambda_off + dim;
    if (grad) grad->assign(vp.theta_size(), 0.0);
    double sum_log_lambda = 0.0;
    for (int d = 0; d < dim; ++d) sum_log_lambda += std::log(vp.lambda[d]);

    if (k_count == 1) {
        // Exact entropy of a single Gaussian.
        if (grad) {
            (*grad)[sigma_off] = dim;
            for (int d = 0; d < dim; ++d) (*grad)[lambda_off + d] = 1.0;
        }
        return 0.5 * dim * (1.0 + kLog2Pi) + dim * std::log(vp.sigma[0]) + sum_log_lambda;
    }

    const size_t kk = static_cast<size_t>(k_count) * k_count;
    std::vector<double> log_gamma(kk), s2(kk), quad(kk), log_big_gamma(k_count), row(k_count);
    for (int i = 0; i < k_count; ++i) {
        for (int j = 0; j < k_count; ++j) {
            const double sij2 = vp.sigma[i] * vp.sigma[i] + vp.sigma[j] * vp.sigma[j];
            double q = 0.0;
            for (int d = 0; d < dim; ++d) {
                const double delta = (vp.mu(i, d) - vp.mu(j, d)) / vp.lambda[d];
                q += delta * delta;
            }
            const size_t ij = static_cast<size_t>(i) * k_count + j;
            s2[ij] = sij2;
            quad[ij] = q;
            log_gamma[ij] = -0.5 * dim * (kLog2Pi + std::log(sij2)) - sum_log_lambda - 0.5 * q / sij2;
            row[j] = std::log(vp.w[j]) + log_gamma[ij];
        }
        log_big_gamma[i] = log_sum_exp(row.data(), k_count);
    }
    double entropy = 0.0;
    for (int i = 0; i < k_count; ++i) entropy -= vp.w[i] * log_big_gamma[i];
    if (!std::isfinite(entropy)) throw_error(Code::numeric, "The entropy lower bound is not finite.");
    if (!grad) return entropy;

    std::vector<double>& g = *grad;
    for (int i = 0; i < k_count; ++i) {
        for (int j = 0; j < k_count; ++j) {
            const size_t ij = static_cast<size_t>(i) * k_count + j;
            const double a = vp.w[i] * std::exp(std::log(vp.w[j]) + log_gamma[ij] - log_big_gamma[i]);
            const double inv_s2 = 1.0 / s2[ij];
            // d log gamma / d mu_i = -Delta / (s^2 lambda^2), d / d mu_j = +Delta / (s^2 lambda^2)
            for (int d = 0; d < dim; ++d) {
                const double delta = vp.mu(i, d) - vp.mu(j, d);
                const double l2 = vp.lambda[d] * vp.lambda[d];
                const double dmu = delta * inv_s2 / l2;
                g[i * dim + d] += a * dmu;
                g[j * dim + d] -= a * dmu;
                // d log gamma / d log lambda_d = -1 + Delta_d^2 / (s^2 lambda_d^2)
                g[lambda_off + d] -= a * (-1.0 + delta * delta * inv_s2 / l2);
            }
            // d log gamma / d s^2 = -D / (2 s^2) + Q / (2 s^4); d s^2 / d log sigma_m = 2 sigma_m^2
            const double dls2 = -0.5 * dim * inv_s2 + 0.5 * quad[ij] * inv_s2 * inv_s2;
            g[sigma_off + i] -= a * dls2 * 2.0 * vp.sigma[i] * vp.sigma[i];
            g[sigma_off + j] -= a * dls2 * 2.0 * vp.sigma[j] * vp.sigma[j];
        }
    }
    if (vp.optimize_weights) {
        double* gw = g.data() + eta_off;
        // dH/dw_m = -log Gamma_m - sum_i w_i gamma_im / Gamma_i
        for (int m = 0; m < k_count; ++m) {
            double cross = 0.0;
            for (int i = 0; i < k_count; ++i)
                cross += vp.w[i] * std::exp(log_gamma[static_cast<size_t>(i) * k_count + m] - log_big_gamma[i]);
            gw[m] = -log_big_gamma[m] - cross;
        }
        softmax_chain(vp.w, gw, k_count);
    }
    return entropy;
}

}  // namespace libvbmc
