// Candidate variational posteriors (PyVBMC _vb_init) and the initial posterior of a run.
#include "elbo/vp_candidates.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "util/error.hpp"

namespace libvbmc {

VariationalPosterior vp_initial(int dim, int k, const double* x0, Rng& rng) {
    VariationalPosterior vp;
    vp.dim = dim;
    vp.k = k;
    vp.w.assign(k, 1.0 / k);
    vp.mu = Matrix(k, dim);
    for (int j = 0; j < k; ++j)
        for (int d = 0; d < dim; ++d) vp.mu(j, d) = x0[d] + 1e-6 * rng.normal();
    vp.sigma.assign(k, 1e-3);
    vp.lambda.assign(dim, 1.0);
    vp.optimize_weights = false;
    return vp;
}

void hpd_points(const Matrix& x, const std::vector<double>& y, double frac, Matrix& x_hpd,
                std::vector<double>& y_hpd) {
    const int n = x.rows;
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return y[a] > y[b]; });
    const int n_hpd = static_cast<int>(std::lround(frac * n));
    x_hpd = Matrix(n_hpd, x.cols);
    y_hpd.resize(n_hpd);
    for (int i = 0; i < n_hpd; ++i) {
        std::copy(x.row(order[i]), x.row(order[i]) + x.cols, x_hpd.row(i));
        y_hpd[i] = y[order[i]];
    }
}

void vp_normalize_scales(VariationalPosterior& vp) {
    // Each lambda row to root mean square 1, its size moved into sigma of the components it scales.
    for (int row = 0; row < vp.lambda_rows(); ++row) {
        double* lambda = vp.lambda.data() + static_cast<size_t>(row) * vp.dim;
        double mean_sq = 0.0;
        for (int d = 0; d < vp.dim; ++d) mean_sq += lambda[d] * lambda[d];
        const double rms = std::sqrt(mean_sq / vp.dim);
        for (int d = 0; d < vp.dim; ++d) lambda[d] /= rms;
        if (vp.component_scales)
            vp.sigma[static_cast<size_t>(row)] *= rms;
        else
            for (double& s : vp.sigma) s *= rms;
    }
}

namespace {

// Unbiased per-coordinate variance of the rows of m (0 with fewer than two rows).
std::vector<double> column_variance(const Matrix& m) {
    std::vector<double> var(m.cols, 0.0);
    if (m.rows < 2) return var;
    for (int d = 0; d < m.cols; ++d) {
        double mean = 0.0;
        for (int i = 0; i < m.rows; ++i) mean += m(i, d);
        mean /= m.rows;
        for (int i = 0; i < m.rows; ++i) var[d] += (m(i, d) - mean) * (m(i, d) - mean);
        var[d] /= m.rows - 1;
    }
    return var;
}

double mean_of(const std::vector<double>& v) {
    double s = 0.0;
    for (double x : v) s += x;
    return v.empty() ? 0.0 : s / v.size();
}

// lambda from the spread of the HPD points, scaled so that sum lambda^2 = D.
std::vector<double> hpd_lambda(const Matrix& x_hpd, const std::vector<double>& fallback) {
    std::vector<double> var = column_variance(x_hpd);
    std::vector<double> lambda(var.size());
    double sum_sq = 0.0;
    for (size_t d = 0; d < var.size(); ++d) {
        lambda[d] = std::sqrt(var[d]);
        sum_sq += var[d];
    }
    if (!(sum_sq > 0.0)) return fallback;
    const double scale = std::sqrt(var.size() / sum_sq);
    for (double& l : lambda) l *= scale;
    return lambda;
}

// Root mean square of vp's lambda rows (the shared lambda itself when there is one row).
std::vector<double> rms_lambda_row(const VariationalPosterior& vp) {
    std::vector<double> row(static_cast<size_t>(vp.dim), 0.0);
    for (int j = 0; j < vp.lambda_rows(); ++j)
        for (int d = 0; d < vp.dim; ++d) row[static_cast<size_t>(d)] += vp.lambda_of(j, d) * vp.lambda_of(j, d);
    for (double& v : row) v = std::sqrt(v / vp.lambda_rows());
    return row;
}

// lambda for vp's layout with every row equal to row.
std::vector<double> shared_rows(const VariationalPosterior& vp, const std::vector<double>& row) {
    std::vector<double> lambda;
    for (int j = 0; j < vp.lambda_rows(); ++j) lambda.insert(lambda.end(), row.begin(), row.end());
    return lambda;
}

// Component scale sqrt(mean(var) / k_new), with a fallback when the spread is degenerate.
double spread_sigma(const std::vector<double>& var_over_lambda2, int k_new, double fallback) {
    const double s = std::sqrt(mean_of(var_over_lambda2) / k_new);
    return s > 0.0 && std::isfinite(s) ? s : fallback;
}

}  // namespace

std::vector<VariationalPosterior> vp_candidates(const VariationalPosterior& vp, CandidateType type,
                                                int count, int k_new, const Matrix& x_hpd, Rng& rng) {
    const int dim = vp.dim;
    const int k_old = vp.k;
    const int n_hpd = x_hpd.rows;
    if (type != CandidateType::previous && n_hpd == 0)
        throw_error(Code::internal, "vp_candidates needs high-density points for this candidate type.");
    if (type == CandidateType::previous && k_new < k_old)
        throw_error(Code::internal, "vp_candidates cannot remove components from the previous posterior.");
    const double old_sigma_mean = mean_of(vp.sigma);
    const std::vector<double> lambda_rms = rms_lambda_row(vp);

    // Shared starting values of this candidate type.
    Matrix mu0 = vp.mu;
    std::vector<double> sigma0 = vp.sigma;
    if (type == CandidateType::hpd) {
        mu0 = Matrix(k_new, dim);
        for (int j = 0; j < k_new; ++j) {
            const int idx = j % std::min(k_new, n_hpd);  // x_hpd is sorted, best first
            std::copy(x_hpd.row(idx), x_hpd.row(idx) + dim, mu0.row(j));
        }
        std::vector<double> var = column_variance(k_old > 1 ? mu0 : x_hpd);
        for (int d = 0; d < dim; ++d) var[d] /= lambda_rms[static_cast<size_t>(d)] * lambda_rms[static_cast<size_t>(d)];
        const double base = spread_sigma(var, k_new, old_sigma_mean);
        sigma0.resize(k_new);
        for (double& s : sigma0) s = base * std::exp(0.2 * rng.normal());
    }

    std::vector<VariationalPosterior> out;
    out.reserve(count);
    for (int i = 0; i < count; ++i) {
        VariationalPosterior c = vp;
        c.k = k_new;
        std::vector<double> lambda = vp.lambda;
        std::vector<double> w = vp.w;
        Matrix mu = mu0;
        std::vector<double> sigma = sigma0;
        bool jitter = true;
        if (type == CandidateType::previous) {
            jitter = i > 0;
            // Spawn new components near random existing ones, splitting their weight.
            for (int j_new = k_old; j_new < k_new; ++j_new) {
                const int src = static_cast<int>(rng.below(k_old));
                std::vector<double> row(mu.row(src), mu.row(src) + dim);
                sigma.push_back(sigma[src]);
                if (vp.component_scales)
                    for (int d = 0; d < dim; ++d) lambda.push_back(vp.lambda_of(src, d));
                for (int d = 0; d < dim; ++d)
                    row[d] += 0.5 * sigma[j_new] * lambda[static_cast<size_t>(c.lambda_index(j_new, d))] * rng.normal();
                mu.append_row(row.data(), dim);
                sigma[j_new] *= std::exp(0.2 * rng.normal());
                if (vp.optimize_weights) {
                    const double xi = 0.25 + 0.25 * rng.uniform();
                    w.push_back(xi * w[src]);
                    w[src] *= 1.0 - xi;
                }
            }
        } else if (type == CandidateType::hpd) {
            jitter = i > 0;
            lambda = shared_rows(c, hpd_lambda(x_hpd, lambda_rms));
            w.assign(k_new, 1.0 / k_new);
        } else {
            // Means at a random selection of HPD points (cycled when k_new > n_hpd).
            std::vector<int> perm(n_hpd);
            std::iota(perm.begin(), perm.end(), 0);
            for (int a = n_hpd - 1; a > 0; --a) std::swap(perm[a], perm[rng.below(a + 1)]);
            mu = Matrix(k_new, dim);
            for (int j = 0; j < k_new; ++j) {
                const int idx = perm[j % std::min(k_new, n_hpd)];
                std::copy(x_hpd.row(idx), x_hpd.row(idx) + dim, mu.row(j));
            }
            const std::vector<double> var = column_variance(k_old > 1 ? mu : x_hpd);
            const double base = spread_sigma(var, k_new, old_sigma_mean);
            sigma.assign(k_new, 0.0);
            for (double& s : sigma) s = base * std::exp(0.2 * rng.normal());
            lambda = shared_rows(c, hpd_lambda(x_hpd, lambda_rms));
            w.assign(k_new, 1.0 / k_new);
        }
        if (jitter) {
            for (int j = 0; j < k_new; ++j)
                for (int d = 0; d < dim; ++d)
                    mu(j, d) += sigma[j] * lambda[static_cast<size_t>(c.lambda_index(j, d))] * rng.normal();
            for (double& s : sigma) s *= std::exp(0.2 * rng.normal());
            for (double& l : lambda) l *= std::exp(0.2 * rng.normal());
            if (vp.optimize_weights) {
                double total = 0.0;
                for (double& v : w) total += (v *= std::exp(0.2 * rng.normal()));
                for (double& v : w) v /= total;
            }
        }
        c.mu = mu;
        c.sigma = sigma;
        c.lambda = lambda;
        c.w = vp.optimize_weights ? w : std::vector<double>(k_new, 1.0 / k_new);
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace libvbmc
