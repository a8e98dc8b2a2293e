// Mixture-of-Gaussians variational posterior (paper section 3.1, eq. 6).
#include "vp/vp.hpp"

#include <cmath>

#include "linalg/linalg.hpp"
#include "util/error.hpp"
#include "util/math.hpp"

namespace libvbmc {

int VariationalPosterior::theta_size() const {
    return eta_offset() + (optimize_weights ? k : 0);
}

std::vector<double> VariationalPosterior::get_theta() const {
    std::vector<double> theta;
    theta.reserve(theta_size());
    theta.insert(theta.end(), mu.data.begin(), mu.data.end());
    for (int j = 0; j < k; ++j) theta.push_back(std::log(sigma[j]));
    for (double l : lambda) theta.push_back(std::log(l));
    if (optimize_weights)
        for (int j = 0; j < k; ++j) theta.push_back(std::log(w[j]));
    return theta;
}

void VariationalPosterior::set_theta(const std::vector<double>& theta) {
    if (static_cast<int>(theta.size()) != theta_size())
        throw_error(Code::internal, "Variational parameter vector has the wrong length.");
    for (double v : theta)
        if (!std::isfinite(v)) throw_error(Code::numeric, "Variational parameters are not finite.");
    mu = Matrix(k, dim);
    std::copy(theta.begin(), theta.begin() + k * dim, mu.data.begin());
    size_t pos = static_cast<size_t>(k) * dim;
    sigma.resize(k);
    for (int j = 0; j < k; ++j) sigma[j] = std::exp(theta[pos++]);
    lambda.resize(static_cast<size_t>(lambda_rows()) * dim);
    for (double& l : lambda) l = std::exp(theta[pos++]);
    if (optimize_weights) {
        // w = softmax(eta)
        const double eta_log_norm = log_sum_exp(theta.data() + pos, k);
        w.resize(k);
        for (int j = 0; j < k; ++j) w[j] = std::exp(theta[pos + j] - eta_log_norm);
    }
}

namespace {
// log w_j + log N(x; mu_j, sigma_j^2 diag(lambda_j^2)) for each component j, into log_terms[k].
void component_log_terms(const VariationalPosterior& vp, const double* x, std::vector<double>& log_terms) {
    log_terms.resize(static_cast<size_t>(vp.k));
    for (int j = 0; j < vp.k; ++j) {
        const double* mu = vp.mu.row(j);
        double maha = 0.0, log_lambda_sum = 0.0;
        for (int d = 0; d < vp.dim; ++d) {
            const double z = (x[d] - mu[d]) / (vp.sigma[j] * vp.lambda_of(j, d));
            maha += z * z;
            log_lambda_sum += std::log(vp.lambda_of(j, d));
        }
        log_terms[j] = std::log(vp.w[j]) - 0.5 * maha - 0.5 * vp.dim * kLog2Pi -
                       vp.dim * std::log(vp.sigma[j]) - log_lambda_sum;
    }
}
}  // namespace

double vp_log_pdf(const VariationalPosterior& vp, const double* x) {
    std::vector<double> log_terms;
    component_log_terms(vp, x, log_terms);
    return log_sum_exp(log_terms.data(), log_terms.size());
}

// d log q / dx = sum_j r_j(x) (mu_j - x) / (sigma_j lambda_j)^2, r_j the responsibilities.
double vp_log_pdf_gradient(const VariationalPosterior& vp, const double* x, double* grad) {
    std::vector<double> log_terms;
    component_log_terms(vp, x, log_terms);
    const double log_q = log_sum_exp(log_terms.data(), log_terms.size());
    for (int d = 0; d < vp.dim; ++d) grad[d] = 0.0;
    for (int j = 0; j < vp.k; ++j) {
        const double responsibility = std::exp(log_terms[j] - log_q);
        const double* mu = vp.mu.row(j);
        for (int d = 0; d < vp.dim; ++d) {
            const double scale = vp.sigma[j] * vp.lambda_of(j, d);
            grad[d] += responsibility * (mu[d] - x[d]) / (scale * scale);
        }
    }
    return log_q;
}

void vp_sample(const VariationalPosterior& vp, int n, Rng& rng, Matrix& out,
               std::vector<int>* component) {
    out = Matrix(n, vp.dim);
    if (component) component->assign(n, 0);
    for (int i = 0; i < n; ++i) {
        // Component by inversion of the cumulative weights.
        int j = 0;
        if (vp.k > 1) {
            const double u = rng.uniform();
            double cumulative = 0.0;
            j = vp.k - 1;
            for (int c = 0; c < vp.k; ++c) {
                cumulative += vp.w[c];
                if (u < cumulative) {
                    j = c;
                    break;
                }
            }
        }
        double* x = out.row(i);
        const double* mu = vp.mu.row(j);
        for (int d = 0; d < vp.dim; ++d) x[d] = mu[d] + vp.sigma[j] * vp.lambda_of(j, d) * rng.normal();
        if (component) (*component)[i] = j;
    }
}

Matrix vp_component_variances(const VariationalPosterior& vp) {
    Matrix s2(vp.k, vp.dim);
    for (int k = 0; k < vp.k; ++k)
        for (int d = 0; d < vp.dim; ++d) {
            const double scale = vp.sigma[k] * vp.lambda_of(k, d);
            s2(k, d) = scale * scale;
        }
    return s2;
}

void vp_moments(const VariationalPosterior& vp, std::vector<double>& mean, Matrix& cov) {
    const int dim = vp.dim;
    mean.assign(dim, 0.0);
    for (int j = 0; j < vp.k; ++j)
        for (int d = 0; d < dim; ++d) mean[d] += vp.w[j] * vp.mu(j, d);
    // Law of total covariance: within-component diagonal plus spread of the means.
    cov = Matrix(dim, dim);
    for (int j = 0; j < vp.k; ++j) {
        const double* mu = vp.mu.row(j);
        for (int a = 0; a < dim; ++a) {
            const double da = mu[a] - mean[a];
            for (int b = 0; b < dim; ++b) cov(a, b) += vp.w[j] * da * (mu[b] - mean[b]);
            const double scale = vp.sigma[j] * vp.lambda_of(j, a);
            cov(a, a) += vp.w[j] * scale * scale;
        }
    }
}

// KL(N(m0, S0) || N(m1, S1)) with L1 the Cholesky factor of S1.
static double kl_normal(const std::vector<double>& m0, const Matrix& s0, double log_det_s0,
                        const std::vector<double>& m1, const Matrix& l1) {
    const int dim = static_cast<int>(m0.size());
    Matrix s1_inv_s0 = s0;
    cholesky_solve(l1, s1_inv_s0);
    double trace = 0.0;
    for (int d = 0; d < dim; ++d) trace += s1_inv_s0(d, d);
    std::vector<double> diff(dim);
    for (int d = 0; d < dim; ++d) diff[d] = m1[d] - m0[d];
    triangular_solve(l1, false, diff.data());
    double maha = 0.0;
    for (double v : diff) maha += v * v;
    return 0.5 * (trace + maha - dim + cholesky_log_det(l1) - log_det_s0);
}

std::pair<double, double> vp_kl_gauss(const VariationalPosterior& a, const VariationalPosterior& b) {
    std::vector<double> mean_a, mean_b;
    Matrix cov_a, cov_b, chol_a, chol_b;
    vp_moments(a, mean_a, cov_a);
    vp_moments(b, mean_b, cov_b);
    cholesky_jitter(cov_a, chol_a);
    cholesky_jitter(cov_b, chol_b);
    const double log_det_a = cholesky_log_det(chol_a);
    const double log_det_b = cholesky_log_det(chol_b);
    return {kl_normal(mean_a, cov_a, log_det_a, mean_b, chol_b),
            kl_normal(mean_b, cov_b, log_det_b, mean_a, chol_a)};
}

VariationalPosterior vp_with_component_scales(const VariationalPosterior& vp) {
    VariationalPosterior out = vp;
    if (vp.component_scales) return out;
    out.component_scales = true;
    out.lambda.clear();
    for (int j = 0; j < vp.k; ++j) out.lambda.insert(out.lambda.end(), vp.lambda.begin(), vp.lambda.end());
    return out;
}

VariationalPosterior vp_without_component(const VariationalPosterior& vp, int j) {
    if (vp.k < 2 || j < 0 || j >= vp.k) throw_error(Code::internal, "vp_without_component: no such component to remove.");
    VariationalPosterior out = vp;
    out.k = vp.k - 1;
    out.mu.remove_row(j);
    out.sigma.erase(out.sigma.begin() + j);
    if (vp.component_scales) {
        const auto row = out.lambda.begin() + static_cast<std::ptrdiff_t>(j) * vp.dim;
        out.lambda.erase(row, row + vp.dim);
    }
    out.w.erase(out.w.begin() + j);
    double total = 0.0;
    for (double v : out.w) total += v;
    for (double& v : out.w) v /= total;
    return out;
}

VariationalPosterior vp_split_components(const VariationalPosterior& vp, int k_new) {
    if (vp.k < 1 || k_new < vp.k)
        throw_error(Code::internal, "vp_split_components needs a component and cannot remove any.");
    VariationalPosterior out = vp;
    std::vector<int> copies(static_cast<size_t>(vp.k), 0);
    for (int j = 0; j < k_new; ++j) ++copies[static_cast<size_t>(j % vp.k)];
    for (int j = vp.k; j < k_new; ++j) {
        out.mu.append_row(vp.mu.row(j % vp.k), vp.dim);
        out.sigma.push_back(vp.sigma[static_cast<size_t>(j % vp.k)]);
        if (vp.component_scales)
            for (int d = 0; d < vp.dim; ++d) out.lambda.push_back(vp.lambda_of(j % vp.k, d));
    }
    out.w.resize(static_cast<size_t>(k_new));
    for (int j = 0; j < k_new; ++j)
        out.w[static_cast<size_t>(j)] = vp.w[static_cast<size_t>(j % vp.k)] / copies[static_cast<size_t>(j % vp.k)];
    out.k = k_new;
    return out;
}

}  // namespace libvbmc
