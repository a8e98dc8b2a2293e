#include "acquisition/candidate_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "acquisition/acq_fcn.hpp"
#include "linalg/linalg.hpp"

namespace libvbmc {

namespace {

constexpr int kBoundBlock = 1024;  // candidates per cross-covariance block
constexpr int kExactBlock = 64;    // candidates scored exactly per batch
// Relative slack that keeps the bounds below the exact values despite rounding.
constexpr double kVarianceSlack = 1e-10;
constexpr double kBoundSlack = 1e-9;

// Adds one training point's terms for a block of candidates with kernel values k[j]:
// mean[j] += alpha_i k_j and best_ratio[j] = max(best_ratio[j], k_j^2 / A_ii).
__attribute__((target_clones("avx2", "default"))) void accumulate_point(const double* k, int count, double alpha_i,
                                                                        double inv_diag, double* mean,
                                                                        double* best_ratio) {
    for (int j = 0; j < count; ++j) {
        mean[j] += alpha_i * k[j];
        best_ratio[j] = std::max(best_ratio[j], k[j] * k[j] * inv_diag);
    }
}

// Lower bounds of the acquisition at rows [start, start + count) of the candidates. The latent
// variance is bounded above by sf^2 - max_i k_i^2 / A_ii (k^T A^{-1} k >= (k^T e_i)^2 / A_ii by
// Cauchy-Schwarz); the kernel values are formed one training point at a time, so no n x count
// matrix is stored.
void lower_bounds(const Gp& gp, const VariationalPosterior& vp, const Matrix& candidates, int start, int count,
                  double y_max, const AcqSettings& s, const std::vector<std::vector<double>>& factor_diag,
                  double* bound) {
    const int dim = gp.dim;
    const int n = gp.data.size();
    const size_t ns = gp.samples.size();
    const double* block = candidates.row(start);
    std::vector<double> means(ns * count), var_sum(count, 0.0);
    std::vector<double> best_ratio(count), k_row(count), inv_ell(dim), x_scaled(dim);
    std::vector<double> block_by_dim(static_cast<size_t>(dim) * count);
    for (size_t si = 0; si < ns; ++si) {
        const GpSample& sample = gp.samples[si];
        const double* theta = sample.theta.data();
        const double log_sf2 = 2.0 * theta[hyp::log_sf(dim)];
        const double sf2 = std::exp(log_sf2);
        for (int d = 0; d < dim; ++d) inv_ell[d] = std::exp(-theta[hyp::log_ell(d)]);
        for (int j = 0; j < count; ++j)
            for (int d = 0; d < dim; ++d)
                block_by_dim[static_cast<size_t>(d) * count + j] = block[static_cast<size_t>(j) * dim + d] * inv_ell[d];
        double* mean_s = means.data() + si * count;
        gp_mean_rows(block, count, theta, dim, mean_s);
        std::fill(best_ratio.begin(), best_ratio.end(), 0.0);
        for (int i = 0; i < n; ++i) {
            const double* xi = gp.data.x.row(i);
            for (int d = 0; d < dim; ++d) x_scaled[d] = xi[d] * inv_ell[d];
            gp_kernel_row(x_scaled.data(), block_by_dim.data(), count, dim, count, log_sf2, k_row.data());
            accumulate_point(k_row.data(), count, sample.alpha[i], 1.0 / factor_diag[si][i], mean_s,
                             best_ratio.data());
        }
        for (int j = 0; j < count; ++j) var_sum[j] += std::max(sf2 - best_ratio[j], 0.0) + kVarianceSlack * sf2;
    }
    const double inv = 1.0 / static_cast<double>(ns);
    const bool limited = !s.lb_eps.empty();
    for (int j = 0; j < count; ++j) {
        const double* x = block + static_cast<size_t>(j) * dim;
        bool outside = false;
        if (limited)
            for (int d = 0; d < dim; ++d) outside = outside || x[d] < s.lb_eps[d] || x[d] > s.ub_eps[d];
        if (outside) {
            bound[j] = std::numeric_limits<double>::infinity();
            continue;
        }
        // Mean and spread of the sample means about their mean, as gp_predict forms them.
        double f_bar = 0.0;
        for (size_t si = 0; si < ns; ++si) f_bar += means[si * count + j];
        f_bar *= inv;
        double spread = 0.0;
        if (ns > 1) {
            for (size_t si = 0; si < ns; ++si) {
                const double deviation = means[si * count + j] - f_bar;
                spread += deviation * deviation;
            }
            spread *= 1.0 / (ns - 1.0);
        }
        const double var_upper = (var_sum[j] * inv + spread) * (1.0 + kVarianceSlack);
        const double value = acq_from_moments(s, f_bar, var_upper, vp_log_pdf(vp, x), y_max);
        bound[j] = value - kBoundSlack * (1.0 + std::abs(value));
    }
}

}  // namespace

BestCandidate best_candidate(const Gp& gp, const VariationalPosterior& vp, const Matrix& candidates,
                             double y_max, const AcqSettings& s) {
    const int m = candidates.rows;
    const int n = gp.data.size();
    // Diagonal of each factorised matrix: A_ii = |row i of L|^2 (jitter included).
    std::vector<std::vector<double>> factor_diag(gp.samples.size(), std::vector<double>(n, 0.0));
    for (size_t si = 0; si < gp.samples.size(); ++si)
        for (int i = 0; i < n; ++i) {
            const double* row = gp.samples[si].chol.row(i);
            for (int c = 0; c <= i; ++c) factor_diag[si][i] += row[c] * row[c];
        }
    std::vector<double> bound(m);
    for (int start = 0; start < m; start += kBoundBlock)
        lower_bounds(gp, vp, candidates, start, std::min(kBoundBlock, m - start), y_max, s, factor_diag,
                     bound.data() + start);
    std::vector<int> order(m);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return bound[a] < bound[b]; });

    BestCandidate best;
    best.value = std::numeric_limits<double>::infinity();
    Matrix batch;
    std::vector<double> values(kExactBlock);
    for (int pos = 0; pos < m;) {
        if (best.index >= 0 && bound[order[pos]] > best.value) break;
        const int count = std::min(kExactBlock, m - pos);
        batch = Matrix(count, candidates.cols);
        for (int j = 0; j < count; ++j)
            std::copy(candidates.row(order[pos + j]), candidates.row(order[pos + j]) + candidates.cols, batch.row(j));
        acq_evaluate(gp, vp, batch, y_max, s, values.data());
        for (int j = 0; j < count; ++j) {
            const int index = order[pos + j];
            if (values[j] < best.value || (values[j] == best.value && (best.index < 0 || index < best.index))) {
                best.value = values[j];
                best.index = index;
            }
        }
        pos += count;
    }
    if (best.index < 0) best.index = 0;  // every candidate scored +inf
    return best;
}

}  // namespace libvbmc
