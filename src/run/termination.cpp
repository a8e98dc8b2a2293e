#include "run/termination.hpp"

#include "run/reliability.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace libvbmc {

int stable_window(const Settings& s) {
    return static_cast<int>(std::ceil(static_cast<double>(s.tol_stable_count) / s.fun_evals_per_iter));
}

std::pair<double, double> reliability_index(const std::vector<IterationRecord>& history,
                                            const Settings& s) {
    const int t = static_cast<int>(history.size()) - 1;
    if (t < 2) return {INFINITY, NAN};
    const IterationRecord& now = history[static_cast<size_t>(t)];
    const IterationRecord& before = history[static_cast<size_t>(t - 1)];
    // A noisy surrogate cannot resolve the ELBO better than its noise: raise tol_sd accordingly.
    const double sn = std::sqrt(std::max(now.sn2_hpd, 0.0));
    const double tol_sn = std::sqrt(sn / s.tol_sd) * s.tol_sd;
    const double tol_sd = std::min(std::max(s.tol_sd, tol_sn), 10.0 * s.tol_sd);
    const double rho = (std::fabs(now.elbo - before.elbo) / tol_sd + now.elbo_sd / tol_sd + now.skl / s.tol_skl) / 3.0;
    // ELCBO improvement: least-squares slope of ELCBO against evaluations over the last half window.
    const int first = std::max(0, t - static_cast<int>(std::ceil(0.5 * stable_window(s))) + 1);
    double mean_x = 0.0, mean_y = 0.0;
    const int n = t - first + 1;
    for (int i = first; i <= t; ++i) {
        mean_x += history[static_cast<size_t>(i)].func_count;
        mean_y += history[static_cast<size_t>(i)].elcbo(s.elcbo_impro_weight);
    }
    mean_x /= n;
    mean_y /= n;
    double sxy = 0.0, sxx = 0.0;
    for (int i = first; i <= t; ++i) {
        const double dx = history[static_cast<size_t>(i)].func_count - mean_x;
        sxy += dx * (history[static_cast<size_t>(i)].elcbo(s.elcbo_impro_weight) - mean_y);
        sxx += dx * dx;
    }
    const double slope = sxx > 0.0 ? sxy / sxx : 0.0;
    return {rho, slope};
}

bool is_stable(const std::vector<IterationRecord>& history, const Settings& s) {
    const int t = static_cast<int>(history.size()) - 1;
    const int window = stable_window(s);
    const IterationRecord& now = history.back();
    if (t + 1 < window || !(now.r_index < 1.0) || !(now.elcbo_impro < s.tol_improvement)) return false;
    int stable_count = 0;
    for (int i = t - window + 1; i < t; ++i)
        if (history[static_cast<size_t>(i)].r_index < 1.0) ++stable_count;
    const int required = window - static_cast<int>(std::floor(window * s.tol_stable_excpt_frac)) - 1;
    return stable_count >= required;
}

bool settled_after_warping(int iteration, int warped_at, const Settings& s) {
    return iteration - warped_at >= stable_window(s);
}

bool gp_sampling_settled(const std::vector<IterationRecord>& history, const Settings& s) {
    if (history.size() < 3) return false;
    const IterationRecord& now = history.back();
    double weight_total = 0.0, weighted_var = 0.0;
    for (const IterationRecord& r : history) {
        const double weight = std::exp(-(now.func_count - r.func_count) / 10.0);
        weight_total += weight;
        weighted_var += weight * r.gp_sample_var;
    }
    return 0.5 * now.gp_sample_var + 0.5 * weighted_var / weight_total < s.tol_gp_var_mcmc;
}

bool warmup_should_end(const std::vector<IterationRecord>& history, const Settings& s,
                       const std::vector<int>& data_trim_list, int n_train, int func_count) {
    const int t = static_cast<int>(history.size()) - 1;
    const double stop_thresh = s.stop_warmup_thresh * s.fun_evals_per_iter;
    const int window = static_cast<int>(std::ceil(static_cast<double>(s.tol_stable_warmup) / s.fun_evals_per_iter));
    // ELCBO no longer improving: best recent ELCBO vs best before (first two iterations ignored).
    bool stable_elcbo = false;
    if (t > window) {
        const int split = std::max(3, t + 1 - window);
        double max_now = -INFINITY, max_before = -INFINITY;
        for (int i = 0; i <= t; ++i) {
            const double v = history[static_cast<size_t>(i)].elcbo(s.elcbo_impro_weight);
            if (i >= split) max_now = std::max(max_now, v);
            else if (i >= 2) max_before = std::max(max_before, v);
        }
        stable_elcbo = (max_now - max_before) < stop_thresh;
    }
    // Best LCB of the surrogate not improving in the recent past.
    const int recent = std::max(1, t - (window + 1));
    double max_recent = -INFINITY, max_old = -INFINITY, max_all = -INFINITY;
    for (int i = 0; i <= t; ++i) {
        const double v = history[static_cast<size_t>(i)].lcb_max;
        if (i >= recent)
            max_recent = std::max(max_recent, v);
        else
            max_old = std::max(max_old, v);
        max_all = std::max(max_all, v);
    }
    const double improvement = std::isfinite(max_old) ? std::max(0.0, max_recent - max_old) : 0.0;
    const bool no_recent_improvement = improvement < stop_thresh;
    // No long-term improvement: evaluations since the best LCB was first reached.
    int first_best = 0;
    for (int i = 0; i <= t; ++i)
        if (history[static_cast<size_t>(i)].lcb_max > max_all - s.tol_improvement) {
            first_best = i;
            break;
        }
    const bool no_longterm = (func_count - history[static_cast<size_t>(first_best)].func_count) > s.warmup_no_impro_threshold;
    const bool no_recent_trim = data_trim_list.empty() || (n_train - data_trim_list.back()) >= 10;
    return ((stable_elcbo && no_recent_improvement) || no_longterm) && no_recent_trim;
}

// Whether iteration i's ELBO is too uncertain to be returned while another's is not (the
// reliability checks' bound, kMaxReliableElboSd).
static std::vector<bool> uncertain_iterations(const std::vector<IterationRecord>& history) {
    std::vector<bool> uncertain(history.size(), false);
    const bool any_certain = std::any_of(history.begin(), history.end(),
                                         [](const IterationRecord& r) { return r.elbo_sd <= kMaxReliableElboSd; });
    for (size_t i = 0; i < history.size(); ++i) uncertain[i] = any_certain && !(history[i].elbo_sd <= kMaxReliableElboSd);
    return uncertain;
}

int best_iteration(const std::vector<IterationRecord>& history, const Settings& s) {
    const int last = static_cast<int>(history.size()) - 1;
    if (history.back().stable) return last;
    const double beta = s.best_safe_sd;
    const std::vector<bool> uncertain = uncertain_iterations(history);
    if (s.rank_criterion) {
        // Rank by recency, ELCBO and reliability, plus a penalty for never-stable iterations.
        const int n = last + 1;
        std::vector<double> score(static_cast<size_t>(n), 0.0);
        std::vector<int> order(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) score[static_cast<size_t>(i)] += n - i;
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return history[static_cast<size_t>(a)].elcbo(beta) > history[static_cast<size_t>(b)].elcbo(beta);
        });
        for (int r = 0; r < n; ++r) score[static_cast<size_t>(order[static_cast<size_t>(r)])] += r + 1;
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return history[static_cast<size_t>(a)].r_index < history[static_cast<size_t>(b)].r_index;
        });
        for (int r = 0; r < n; ++r) score[static_cast<size_t>(order[static_cast<size_t>(r)])] += r + 1;
        for (int i = 0; i < n; ++i) score[static_cast<size_t>(i)] += history[static_cast<size_t>(i)].stable ? 1 : last;
        for (int i = 0; i < n; ++i) score[static_cast<size_t>(i)] += uncertain[static_cast<size_t>(i)] ? 4 * n : 0;
        return static_cast<int>(std::min_element(score.begin(), score.end()) - score.begin());
    }
    int start = -1;
    for (int i = last; i >= 0; --i)
        if (history[static_cast<size_t>(i)].stable) {
            start = i;
            break;
        }
    if (start < 0) start = std::max(0, static_cast<int>(std::ceil(last - last * s.best_frac_back)));
    // The best ELCBO from start on, among the certain iterations (from the first if none is).
    const auto first_certain = std::find(uncertain.begin() + start, uncertain.end(), false);
    if (first_certain == uncertain.end()) start = 0;
    int best = -1;
    for (int i = start; i <= last; ++i) {
        const size_t u = static_cast<size_t>(i);
        if (uncertain[u]) continue;
        if (best < 0 || history[u].elcbo(beta) > history[static_cast<size_t>(best)].elcbo(beta)) best = i;
    }
    return best;
}

}  // namespace libvbmc
