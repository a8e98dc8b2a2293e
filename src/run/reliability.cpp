#include "run/reliability.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "gp/loo.hpp"
#include "util/math.hpp"
#include "util/rng.hpp"

namespace libvbmc {

namespace {

constexpr int kDraws = 2000;                  // draws from q for the mass fractions
constexpr uint64_t kDrawSeed = 0x52454C49;    // a fixed stream: the run's own generator is untouched
constexpr int kLooSamples = 4;                // hyperparameter samples used for leave-one-out
// Thresholds (log-joint units, widened by three noise SDs for a noisy target): the surrogate must
// predict left-out high-density points to within kLooTolerance; q may put at most kMaxMassAbove
// of its mass where the surrogate exceeds its best training mean by kAboveMargin and at most
// kMaxMassUnexplored where the surrogate is about as uncertain as its prior (variance above
// kUnexploredVariance of it) and uncertain in absolute terms (SD above kUnexploredSd; a surrogate
// whose mean function explains the data has a tiny prior variance); the best training mean may
// exceed the best surrogate value under q by at most max(kBestGap, D/2); the ELBO's SD may be at
// most kMaxReliableElboSd.
constexpr double kLooTolerance = 1.0;
constexpr double kAboveMargin = 1.0;
constexpr double kMaxMassAbove = 0.05;
constexpr double kUnexploredVariance = 0.5;
constexpr double kUnexploredSd = 1.0;
constexpr double kMaxMassUnexplored = 0.1;
constexpr double kBestGap = 3.0;

std::string text(const char* format, double a, double b) {
    char line[256];
    std::snprintf(line, sizeof line, format, a, b);
    return line;
}

// The high-density training points: within D/2 + 3 sqrt(D/2) of the best training mean (where a
// Gaussian posterior keeps 99% of its mass), at least the D + 1 best.
std::vector<int> high_density_points(const std::vector<double>& mean, int dim) {
    std::vector<int> order(mean.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return mean[static_cast<size_t>(a)] > mean[static_cast<size_t>(b)]; });
    const double drop = 0.5 * dim + 3.0 * std::sqrt(0.5 * dim);
    std::vector<int> chosen;
    for (int i : order)
        if (static_cast<int>(chosen.size()) <= dim || mean[static_cast<size_t>(i)] >= mean[static_cast<size_t>(order[0])] - drop)
            chosen.push_back(i);
    return chosen;
}

// Median over the high-density points of |LOO error|, averaged over up to kLooSamples samples.
double loo_error(const Gp& gp, const std::vector<int>& points) {
    const size_t ns = gp.samples.size();
    const size_t used = std::min<size_t>(ns, kLooSamples);
    std::vector<double> error(points.size(), 0.0), residual, variance;
    for (size_t k = 0; k < used; ++k) {
        gp_leave_one_out(gp.samples[k * ns / used], residual, variance);
        for (size_t j = 0; j < points.size(); ++j)
            error[j] += std::fabs(residual[static_cast<size_t>(points[j])]) / static_cast<double>(used);
    }
    return median(error);
}

}  // namespace

std::string ReliabilityCheck::summary() const {
    std::string out;
    for (const std::string& p : problems) out += (out.empty() ? "" : "; ") + p;
    return out;
}

void ReliabilityCheck::write(Writer& out) const {
    out.f64(loo_error);
    out.f64(mass_above_data);
    out.f64(mass_unexplored);
    out.f64(best_value_gap);
    out.f64(elbo_sd);
    out.f64(box_excess);
    out.u64(problems.size());
    for (const std::string& p : problems) out.text(p);
}

ReliabilityCheck ReliabilityCheck::read(Reader& in) {
    ReliabilityCheck c;
    c.loo_error = in.f64();
    c.mass_above_data = in.f64();
    c.mass_unexplored = in.f64();
    c.best_value_gap = in.f64();
    c.elbo_sd = in.f64();
    c.box_excess = in.f64();
    const int64_t n = in.bounded(0, 16, "reliability problem count");
    for (int64_t i = 0; i < n; ++i) c.problems.push_back(in.text());
    return c;
}

bool prefer_unboosted(const ReliabilityCheck& boosted, const std::function<ReliabilityCheck()>& check_unboosted,
                      ReliabilityCheck& verdict) {
    verdict = boosted;
    if (boosted.reliable()) return false;
    ReliabilityCheck unboosted = check_unboosted();
    if (!unboosted.reliable()) return false;
    verdict = std::move(unboosted);
    return true;
}

double best_value_rise(const std::vector<double>& told_values, int window) {
    const size_t n = told_values.size();
    if (window < 0 || n <= static_cast<size_t>(window)) return 0.0;
    const size_t split = n - static_cast<size_t>(window);
    double before = -INFINITY, all = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
        if (std::isnan(told_values[i])) continue;
        all = std::max(all, told_values[i]);
        if (i < split) before = std::max(before, told_values[i]);
    }
    return std::isfinite(before) ? all - before : 0.0;
}

ReliabilityCheck check_reliability(const Gp& gp, const VariationalPosterior& vp, double elbo_sd, double noise_sd) {
    ReliabilityCheck c;
    const int dim = gp.dim;
    const double widen = 3.0 * noise_sd;
    std::vector<double> train_mean, train_var;
    gp_predict(gp, gp.data.x, train_mean, train_var);
    const double best = *std::max_element(train_mean.begin(), train_mean.end());
    c.loo_error = loo_error(gp, high_density_points(train_mean, dim));

    Rng rng(kDrawSeed);
    Matrix draws;
    vp_sample(vp, kDraws, rng, draws);
    std::vector<double> mean, var;
    gp_predict(gp, draws, mean, var);
    double prior_var = 0.0;
    for (const GpSample& s : gp.samples) prior_var += std::exp(2.0 * s.theta[static_cast<size_t>(hyp::log_sf(dim))]);
    prior_var /= static_cast<double>(gp.samples.size());
    const double unexplored_var = std::max(kUnexploredVariance * prior_var, kUnexploredSd * kUnexploredSd);
    double top_under_q = -INFINITY;
    for (int s = 0; s < kDraws; ++s) {
        c.mass_above_data += mean[static_cast<size_t>(s)] > best + kAboveMargin + widen ? 1.0 / kDraws : 0.0;
        c.mass_unexplored += var[static_cast<size_t>(s)] > unexplored_var ? 1.0 / kDraws : 0.0;
        top_under_q = std::max(top_under_q, mean[static_cast<size_t>(s)]);
    }
    c.best_value_gap = best - top_under_q;
    c.elbo_sd = elbo_sd;

    if (c.loo_error > kLooTolerance + widen)
        c.problems.push_back(text("the surrogate misses left-out high-density evaluations by %.3g (median) where "
                                  "%.3g is tolerated", c.loo_error, kLooTolerance + widen));
    if (c.mass_above_data > kMaxMassAbove)
        c.problems.push_back(text("%.0f%% of the posterior lies where the surrogate predicts log joints more than "
                                  "%.3g above every evaluation", 100.0 * c.mass_above_data, kAboveMargin + widen));
    if (c.mass_unexplored > kMaxMassUnexplored)
        c.problems.push_back(text("%.0f%% of the posterior lies where the surrogate has seen no evaluation (its SD "
                                  "there above %.3g)", 100.0 * c.mass_unexplored, std::sqrt(unexplored_var)));
    const double gap_tolerance = std::max(kBestGap, 0.5 * dim) + widen;
    if (c.best_value_gap > gap_tolerance)
        c.problems.push_back(text("evaluations reach log joints %.3g above anything the posterior covers (more than "
                                  "%.3g): it may miss a mode", c.best_value_gap, gap_tolerance));
    if (!(elbo_sd <= kMaxReliableElboSd))
        c.problems.push_back(text("the ELBO is uncertain by +-%.3g (more than %.3g)", elbo_sd, kMaxReliableElboSd));
    return c;
}

}  // namespace libvbmc
