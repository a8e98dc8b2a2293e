// Bayesian-quadrature expected log joint (paper eq. 8-10, PyVBMC _gp_log_joint).
//
// For component k, with tau_kd^2 = sigma_k^2 lambda_kd^2 + ell_d^2 (lambda_kd = lambda_d when shared) and delta_knd = (mu_kd - x_nd) / tau_kd,
//   z_kn = sf^2 prod_d (ell_d / tau_kd) exp(-1/2 sum_d delta_knd^2)   (= E_{q_k}[k(x, x_n)])
//   I_k  = z_k . alpha + m0 - 1/2 sum_d ((mu_kd - xm_d)^2 + sigma_k^2 lambda_kd^2) / omega_d^2
//          (the last term, E_{q_k}[m] - m0, by quadrature for the heavy-tailed mean: gp/mean_function.hpp)
//   E_q[f] = sum_k w_k I_k,
// and its posterior variance sum_jk w_j w_k J_jk with
//   J_jk = sf^2 prod_d (ell_d / tau_jkd) exp(-1/2 sum_d (mu_jd - mu_kd)^2 / tau_jkd^2) - z_j^T (K+N)^{-1} z_k,
//   tau_jkd^2 = sigma_j^2 lambda_jd^2 + sigma_k^2 lambda_kd^2 + ell_d^2.
// z_kn and the first term of J_jk are the kernel-mean and kernel-pair integrals of bq/kernel_integrals.
#include "elbo/expected_log_joint.hpp"

#include <cfloat>
#include <cmath>

#include "bq/kernel_integrals.hpp"
#include "linalg/linalg.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

// Per-sample quantities of one hyperparameter vector.
struct SampleHyp {
    SeKernel kernel;
    std::vector<double> xm, inv_omega2;
    double m0 = 0.0;
};

SampleHyp unpack_hyp(const std::vector<double>& theta, int dim) {
    SampleHyp h;
    h.kernel = se_kernel(theta.data() + hyp::log_ell(0), theta[hyp::log_sf(dim)], dim);
    h.xm.resize(dim);
    h.inv_omega2.resize(dim);
    for (int d = 0; d < dim; ++d) {
        h.xm[d] = theta[hyp::xm(dim, d)];
        h.inv_omega2[d] = std::exp(-2.0 * theta[hyp::log_omega(dim, d)]);
    }
    h.m0 = theta[hyp::m0(dim)];
    return h;
}


}  // namespace

void expected_log_joint(const VariationalPosterior& vp, const Gp& gp, bool want_grad,
                        bool want_variance, LogJointEstimate& out) {
    const int dim = vp.dim;
    const int k_count = vp.k;
    const int n = gp.data.size();
    const int n_samples = static_cast<int>(gp.samples.size());
    if (n_samples == 0 || gp.dim != dim)
        throw_error(Code::internal, "expected_log_joint needs a GP with samples in the vp's dimension.");
    const int theta_size = vp.theta_size();
    const int sigma_off = vp.sigma_offset();
    const int lambda_off = vp.lambda_offset();
    const int eta_off = vp.eta_offset();

    std::vector<double> value_s(n_samples, 0.0), variance_s(n_samples, 0.0);
    std::vector<double> grad_sum;
    if (want_grad) grad_sum.assign(theta_size, 0.0);
    std::vector<double> tau2(dim), inv_tau(dim), inv_tau2(dim), a1(dim), a2(dim), i_k(k_count);
    std::vector<GaussianMeanTerm> mean_term(static_cast<size_t>(dim));
    const Matrix s2 = vp_component_variances(vp);
    Matrix z;  // n x k: z(n, k) = E_{q_k}[k(x, x_n)]
    if (want_variance) z = Matrix(n, k_count);
    std::vector<double> x_by_dim(static_cast<size_t>(dim) * n), scaled, scaled_mu, z_k(n);
    for (int i = 0; i < n; ++i)
        for (int d = 0; d < dim; ++d) x_by_dim[static_cast<size_t>(d) * n + i] = gp.data.x(i, d);

    for (int s = 0; s < n_samples; ++s) {
        const GpSample& sample = gp.samples[s];
        const SampleHyp h = unpack_hyp(sample.theta, dim);
        const double* alpha = sample.alpha.data();
        double g = 0.0;
        for (int k = 0; k < k_count; ++k) {
            const double sigma = vp.sigma[k];
            const double* mu = vp.mu.row(k);
            const double ln_norm = kernel_mean_log_norm(h.kernel, s2.row(k), dim, tau2.data());
            for (int d = 0; d < dim; ++d) {
                inv_tau[d] = 1.0 / std::sqrt(tau2[d]);
                inv_tau2[d] = 1.0 / tau2[d];
                a1[d] = 0.0;
                a2[d] = 0.0;
            }
            // a0 = sum_n alpha_n z_kn, a1_d = sum_n alpha_n z_kn delta_knd, a2_d = ... delta_knd^2
            kernel_mean_row(ln_norm, inv_tau.data(), mu, x_by_dim.data(), n, dim, scaled_mu, scaled, z_k.data());
            double a0 = 0.0;
            for (int i = 0; i < n; ++i) {
                const double* x = gp.data.x.row(i);
                const double zi = z_k[i];
                if (want_variance) z(i, k) = zi;
                const double az = alpha[i] * zi;
                a0 += az;
                if (want_grad) {
                    for (int d = 0; d < dim; ++d) {
                        const double delta = (mu[d] - x[d]) * inv_tau[d];
                        a1[d] += az * delta;
                        a2[d] += az * delta * delta;
                    }
                }
            }
            double mean_part = 0.0;
            for (int d = 0; d < dim; ++d) {
                mean_term[d] = expected_mean_term(mu[d], sigma * vp.lambda_of(k, d), h.xm[d], h.inv_omega2[d], gp.data.mean_dof);
                mean_part += mean_term[d].value;
            }
            i_k[k] = a0 + h.m0 + mean_part;
            g += vp.w[k] * i_k[k];
            if (want_grad) {
                const double wk = vp.w[k];
                double dlog_sigma = 0.0;
                for (int d = 0; d < dim; ++d) {
                    const double l2 = vp.lambda_of(k, d) * vp.lambda_of(k, d);
                    grad_sum[k * dim + d] += wk * (-a1[d] * inv_tau[d] + mean_term[d].d_mu);
                    // d/d log sigma_k and d/d log lambda_kd share the factor sigma^2 lambda^2, the
                    // component's variance s^2 (d/d log s = 2 s^2 d/d s^2).
                    const double shared = sigma * sigma * l2 * (inv_tau2[d] * (a2[d] - a0) + 2.0 * mean_term[d].d_s2);
                    dlog_sigma += shared;
                    grad_sum[lambda_off + vp.lambda_index(k, d)] += wk * shared;
                }
                grad_sum[sigma_off + k] += wk * dlog_sigma;
            }
        }
        value_s[s] = g;
        if (want_grad && vp.optimize_weights) {
            // Softmax: d g / d eta_k = w_k (I_k - g).
            for (int k = 0; k < k_count; ++k) grad_sum[eta_off + k] += vp.w[k] * (i_k[k] - g);
        }
        if (want_variance) {
            // Prior part minus the data-explained part, v_k = L^{-1} z_k.
            triangular_solve(sample.chol, false, z);
            Matrix vtv;
            gemm(true, false, 1.0, z, z, 0.0, vtv);
            double var = 0.0;
            for (int k = 0; k < k_count; ++k) {
                for (int j = 0; j <= k; ++j) {
                    const double j_jk =
                        kernel_pair_mean(h.kernel, vp.mu.row(j), s2.row(j), vp.mu.row(k), s2.row(k), dim) - vtv(j, k);
                    if (j == k)
                        var += vp.w[k] * vp.w[k] * std::max(DBL_EPSILON, j_jk);
                    else
                        var += 2.0 * vp.w[j] * vp.w[k] * j_jk;
                }
            }
            variance_s[s] = std::max(var, DBL_EPSILON);
        }
    }

    double mean = 0.0;
    for (double v : value_s) mean += v;
    mean /= n_samples;
    out.value = mean;
    out.variance = 0.0;
    out.var_ss = 0.0;
    if (want_variance) {
        double mean_var = 0.0;
        for (double v : variance_s) mean_var += v;
        mean_var /= n_samples;
        out.variance = mean_var;
        if (n_samples > 1) {
            // eq. 10: total variance = mean of variances + sample variance of the means.
            double spread = 0.0, var_spread = 0.0;
            for (int s = 0; s < n_samples; ++s) {
                spread += (value_s[s] - mean) * (value_s[s] - mean);
                var_spread += (variance_s[s] - mean_var) * (variance_s[s] - mean_var);
            }
            spread /= n_samples - 1;
            out.variance += spread;
            out.var_ss = spread + std::sqrt(var_spread / (n_samples - 1));
        }
    }
    if (!std::isfinite(out.value) || !std::isfinite(out.variance))
        throw_error(Code::numeric, "The expected log joint is not finite.");
    if (want_grad) {
        out.grad.resize(theta_size);
        for (int i = 0; i < theta_size; ++i) out.grad[i] = grad_sum[i] / n_samples;
    } else {
        out.grad.clear();
    }
}

}  // namespace libvbmc
