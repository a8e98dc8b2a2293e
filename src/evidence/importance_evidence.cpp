#include "evidence/importance_evidence.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "linalg/forward_substitution.hpp"
#include "linalg/linalg.hpp"
#include "util/error.hpp"
#include "util/math.hpp"
#include "util/rng.hpp"

namespace libvbmc {
namespace {

constexpr int kEvidenceDraws = 2000;
constexpr int kJackknifeGroups = 10;
constexpr uint64_t kEvidenceSeed = 0x5eed0e7de1ceULL;  // fixed: the estimate is a function of the snapshot

// The draws of q and log q at each.
struct Draws {
    Matrix z;
    std::vector<double> log_q;
};

// log w_i = f(z_i) - log q(z_i) for one sample's mean f.
std::vector<double> log_weights(const GpData& data, const GpSample& sample, const Draws& draws) {
    std::vector<double> log_w(draws.log_q.size());
    gp_predict_sample(data, sample, draws.z, log_w.data(), nullptr);
    for (size_t i = 0; i < log_w.size(); ++i) log_w[i] -= draws.log_q[i];
    return log_w;
}

double log_mean_exp(const std::vector<double>& v) {
    return log_sum_exp(v.data(), v.size()) - std::log(static_cast<double>(v.size()));
}

// u^T C u for the latent posterior covariance C = K** - K*X (K + N)^{-1} KX* of one sample at the
// draws: u^T K** u - |L^{-1} (KX* u)|^2.
double latent_quadratic_form(const GpData& data, const GpSample& sample, const Matrix& z,
                             const std::vector<double>& u) {
    const int dim = z.cols;
    const Matrix prior = gp_cross_kernel(z, z, sample.theta.data(), dim);
    std::vector<double> prior_u(u.size());
    gemv(false, 1.0, prior, u.data(), 0.0, prior_u.data());
    double prior_form = 0.0;
    for (size_t i = 0; i < u.size(); ++i) prior_form += u[i] * prior_u[i];
    const Matrix kstar = gp_cross_kernel(data.x, z, sample.theta.data(), dim);
    Matrix projected(kstar.rows, 1);
    gemv(false, 1.0, kstar, u.data(), 0.0, projected.data.data());
    forward_substitution(sample.chol, projected);
    double data_form = 0.0;
    for (double v : projected.data) data_form += v * v;
    return std::max(prior_form - data_form, 0.0);
}

// One sample's log Z_s, latent and Monte Carlo variances (added to parts, each divided by ns).
double add_sample_terms(const GpData& data, const GpSample& sample, const Draws& draws, double ns,
                        EvidenceParts& parts) {
    const std::vector<double> log_w = log_weights(data, sample, draws);
    const double log_sum = log_sum_exp(log_w.data(), log_w.size());
    std::vector<double> u(log_w.size());
    double sum_u2 = 0.0;
    for (size_t i = 0; i < u.size(); ++i) {
        u[i] = std::exp(log_w[i] - log_sum);
        sum_u2 += u[i] * u[i];
    }
    parts.var_mc += std::max(sum_u2 - 1.0 / static_cast<double>(u.size()), 0.0) / ns;
    parts.var_latent += latent_quadratic_form(data, sample, draws.z, u) / ns;
    return log_sum - std::log(static_cast<double>(u.size()));
}

// The training set without the points of group g.
GpData without_group(const GpData& data, const std::vector<int>& group, int g) {
    GpData kept;
    kept.x.cols = data.x.cols;
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

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t k = v.size();
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

}  // namespace

EvidenceParts importance_evidence(const VariationalPosterior& vp, const Gp& gp, int n_draws,
                                  uint64_t seed, int jackknife_groups) {
    Rng rng(seed);
    Draws draws;
    vp_sample(vp, n_draws, rng, draws.z);
    for (int i = 0; i < n_draws; ++i) draws.log_q.push_back(vp_log_pdf(vp, draws.z.row(i)));
    const double ns = static_cast<double>(gp.samples.size());
    EvidenceParts parts;
    std::vector<double> log_zs;
    for (const GpSample& sample : gp.samples) log_zs.push_back(add_sample_terms(gp.data, sample, draws, ns, parts));
    double mean = 0.0;
    for (double v : log_zs) mean += v / ns;
    for (double v : log_zs) parts.var_hyper += (v - mean) * (v - mean) / ns;
    parts.log_z = median_of(log_zs);
    parts.var_jackknife = jackknife_variance(gp.data, gp.samples.front().theta, draws, jackknife_groups, rng);
    return parts;
}

LogEvidence log_evidence(const VariationalPosterior& vp, const Gp& gp) {
    const EvidenceParts parts = importance_evidence(vp, gp, kEvidenceDraws, kEvidenceSeed, kJackknifeGroups);
    LogEvidence out;
    out.log_z = parts.log_z;
    out.log_z_sd = std::sqrt(parts.var_hyper + parts.var_latent + parts.var_mc + parts.var_jackknife);
    if (!std::isfinite(out.log_z) || !std::isfinite(out.log_z_sd))
        throw_error(Code::numeric, "the log evidence estimate is not finite (log Z " + std::to_string(out.log_z) +
                                       ", SD " + std::to_string(out.log_z_sd) + ")");
    return out;
}

}  // namespace libvbmc
