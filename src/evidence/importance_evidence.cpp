#include "evidence/importance_evidence.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "linalg/forward_substitution.hpp"
#include "linalg/linalg.hpp"
#include "util/error.hpp"
#include "util/math.hpp"
#include "util/rng.hpp"

namespace libvbmc {
namespace {

constexpr uint64_t kEvidenceSeed = 0x5eed0e7de1ceULL;  // fixed: the estimate is a function of the snapshot

// The draws of q and log q at each.
struct Draws {
    Matrix z;
    std::vector<double> log_q;
};

double log_mean_exp(const double* v, size_t n) { return log_sum_exp(v, n) - std::log(static_cast<double>(n)); }

double log_mean_exp(const std::vector<double>& v) { return log_mean_exp(v.data(), v.size()); }

// log w_i = f(z_i) - log q(z_i) for one sample's mean f.
std::vector<double> log_weights(const GpData& data, const GpSample& sample, const Draws& draws) {
    std::vector<double> log_w(draws.log_q.size());
    gp_predict_sample(data, sample, draws.z, log_w.data(), nullptr);
    for (size_t i = 0; i < log_w.size(); ++i) log_w[i] -= draws.log_q[i];
    return log_w;
}

// The importance-sampling variance of log mean exp(log_w): sum_i u_i^2 - 1/n.
double monte_carlo_variance(const std::vector<double>& log_w) {
    const double log_sum = log_sum_exp(log_w.data(), log_w.size());
    double sum_u2 = 0.0;
    for (double v : log_w) sum_u2 += std::exp(2.0 * (v - log_sum));
    return std::max(sum_u2 - 1.0 / static_cast<double>(log_w.size()), 0.0);
}

// The latent posterior covariance of one sample at the rows of z: K(z, z) - V^T V, V = L^{-1} K(X, z),
// plus kLatentFloor times the prior variance on the diagonal: where the data pin f down, the
// difference is zero up to rounding of the prior variance's size, which a factorisation can't take.
constexpr double kLatentFloor = 1e-9;
Matrix latent_covariance(const GpData& data, const GpSample& sample, const Matrix& z) {
    Matrix cov = gp_cross_kernel(z, z, sample.theta.data(), z.cols);
    const double floor = kLatentFloor * cov(0, 0);
    Matrix v = gp_cross_kernel(data.x, z, sample.theta.data(), z.cols);
    forward_substitution(sample.chol, v);
    gemm(true, false, -1.0, v, v, 1.0, cov);
    for (int i = 0; i < cov.rows; ++i) cov(i, i) += floor;
    return cov;
}

// For n_functions posterior functions f_k drawn jointly at the first m draws: the shifts
// log mean_i exp(f_k(z_i) - log q_i) - log mean_i exp(m(z_i) - log q_i), appended to shifts.
void append_function_shifts(const GpData& data, const GpSample& sample, const Draws& draws,
                            const std::vector<double>& log_w, int m, int n_functions, Rng& rng,
                            std::vector<double>& shifts) {
    Matrix sub(m, draws.z.cols);
    std::copy(draws.z.data.begin(), draws.z.data.begin() + static_cast<long>(m) * draws.z.cols, sub.data.begin());
    const Matrix factor = covariance_square_root(latent_covariance(data, sample, sub));
    Matrix normals(m, n_functions);
    rng.normals(normals.data.data(), normals.data.size());
    Matrix deviation;
    gemm(false, false, 1.0, factor, normals, 0.0, deviation);
    const double base = log_mean_exp(log_w.data(), static_cast<size_t>(m));
    std::vector<double> shifted(static_cast<size_t>(m));
    for (int k = 0; k < n_functions; ++k) {
        for (int i = 0; i < m; ++i) shifted[static_cast<size_t>(i)] = log_w[static_cast<size_t>(i)] + deviation(i, k);
        shifts.push_back(log_mean_exp(shifted) - base);
    }
}

// The training set without the points of group g.
GpData without_group(const GpData& data, const std::vector<int>& group, int g) {
    GpData kept;
    kept.x.cols = data.x.cols;
    kept.mean_dof = data.mean_dof;
    for (int i = 0; i < data.size(); ++i) {
        if (group[static_cast<size_t>(i)] == g) continue;
        kept.x.append_row(data.x.row(i), data.x.cols);
        kept.y.push_back(data.y[static_cast<size_t>(i)]);
        kept.s2.push_back(data.s2[static_cast<size_t>(i)]);
    }
    return kept;
}

// Delete-a-group jackknife variance of log Z over the training points, groups drawn with rng.
double jackknife_variance(const GpData& data, const std::vector<double>& theta, const Draws& draws,
                          int groups, Rng& rng) {
    std::vector<int> group(static_cast<size_t>(data.size()));
    for (int& g : group) g = static_cast<int>(rng.below(static_cast<uint64_t>(groups)));
    std::vector<double> values;
    for (int g = 0; g < groups; ++g) {
        const GpData kept = without_group(data, group, g);
        if (kept.size() == data.size() || kept.size() == 0) continue;
        values.push_back(log_mean_exp(log_weights(kept, gp_posterior(kept, theta), draws)));
    }
    if (values.size() < 2) return 0.0;
    const double n = static_cast<double>(values.size());
    double mean = 0.0, sum = 0.0;
    for (double v : values) mean += v / n;
    for (double v : values) sum += (v - mean) * (v - mean);
    return (n - 1.0) / n * sum;
}

// The p-quantile of sorted values, linear between order statistics.
double quantile_of_sorted(const std::vector<double>& sorted, double p) {
    const double pos = p * static_cast<double>(sorted.size() - 1);
    const size_t lo = static_cast<size_t>(pos);
    const size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

EvidenceParts importance_evidence(const VariationalPosterior& vp, const Gp& gp, const EvidenceSettings& settings,
                                  uint64_t seed) {
    if (settings.draws < 1 || settings.function_draws < 1 || settings.functions < 1 || settings.jackknife_groups < 2 ||
        gp.samples.empty())
        throw_error(Code::arg, "importance_evidence: draws, function_draws and functions must be at least 1 (got " +
                                   std::to_string(settings.draws) + ", " + std::to_string(settings.function_draws) + ", " +
                                   std::to_string(settings.functions) + "), jackknife_groups at least 2 (got " +
                                   std::to_string(settings.jackknife_groups) + ") and the surrogate must have a sample.");
    Rng rng(seed);
    Draws draws;
    vp_sample(vp, settings.draws, rng, draws.z);
    for (int i = 0; i < settings.draws; ++i) draws.log_q.push_back(vp_log_pdf(vp, draws.z.row(i)));
    const int n_samples = static_cast<int>(gp.samples.size());
    const int per_sample = (settings.functions + n_samples - 1) / n_samples;
    const int m = std::min(settings.function_draws, settings.draws);
    EvidenceParts parts;
    std::vector<double> log_zs, pooled;
    for (const GpSample& sample : gp.samples) {
        const std::vector<double> log_w = log_weights(gp.data, sample, draws);
        parts.var_mc += monte_carlo_variance(log_w) / n_samples;
        std::vector<double> shifts;
        append_function_shifts(gp.data, sample, draws, log_w, m, per_sample, rng, shifts);
        log_zs.push_back(log_mean_exp(log_w));
        for (double shift : shifts) pooled.push_back(log_zs.back() + shift);
    }
    std::sort(log_zs.begin(), log_zs.end());
    parts.log_z = quantile_of_sorted(log_zs, 0.5);
    std::sort(pooled.begin(), pooled.end());
    const double half_range = 0.5 * (quantile_of_sorted(pooled, 0.84) - quantile_of_sorted(pooled, 0.16));
    parts.var_surrogate = half_range * half_range;
    const double shift = quantile_of_sorted(pooled, 0.5) - parts.log_z;
    parts.var_shift = shift * shift;
    parts.var_jackknife = jackknife_variance(gp.data, gp.samples.front().theta, draws, settings.jackknife_groups, rng);
    return parts;
}

LogEvidence log_evidence(const VariationalPosterior& vp, const Gp& gp) {
    const EvidenceParts parts = importance_evidence(vp, gp, EvidenceSettings{}, kEvidenceSeed);
    LogEvidence out;
    out.log_z = parts.log_z;
    out.log_z_sd = std::sqrt(parts.var_surrogate + parts.var_shift + parts.var_mc + parts.var_jackknife);
    if (!std::isfinite(out.log_z) || !std::isfinite(out.log_z_sd))
        throw_error(Code::numeric, "the log evidence estimate is not finite (log Z " + std::to_string(out.log_z) +
                                       ", SD " + std::to_string(out.log_z_sd) + ")");
    return out;
}

}  // namespace libvbmc
