// Adaptive number of components (PyVBMC variational_optimization.update_K).
#include "elbo/update_k.hpp"

#include <algorithm>
#include <cmath>

namespace libvbmc {

int update_k(int current_k, double n_eff, bool warmup, int iteration, bool recompute_var_post,
             const std::vector<IterationSummary>& history, const VpOptimSettings& s) {
    if (warmup || iteration <= 0 || history.empty()) return current_k;
    const int k_max = static_cast<int>(std::ceil(std::pow(n_eff, s.k_fun_max_exponent)));
    const int recent = static_cast<int>(std::ceil(0.5 * s.tol_stable_count / s.fun_evals_per_iter));
    const int n_hist = static_cast<int>(history.size());
    const int lower = std::max(0, std::min(iteration, n_hist) - recent);

    // ELCBOs of the recent post-warm-up iterations; the first two after warm-up do not count.
    std::vector<double> elcbo;
    for (int i = lower; i < n_hist; ++i)
        if (!history[i].warmup) elcbo.push_back(history[i].elbo - s.elcbo_impro_weight * history[i].elbo_sd);
    const int ignored = std::min<int>(std::min(2, iteration + 1), static_cast<int>(elcbo.size()));
    for (int i = 0; i < ignored; ++i) elcbo[i] = -INFINITY;
    bool improving = false;
    if (!elcbo.empty()) {
        const double best = *std::max_element(elcbo.begin(), elcbo.end());
        improving = std::isfinite(elcbo.back()) && elcbo.back() >= best;
    }
    int k_new = current_k;
    if (history.back().pruned == 0 && improving) ++k_new;
    if (history.back().r_index < 1.0 && !recompute_var_post && improving) {
        const int very_recent = std::max(0, iteration - static_cast<int>(std::ceil(0.5 * recent)));
        bool any_pruned = false;
        for (int i = very_recent; i < n_hist; ++i) any_pruned = any_pruned || history[i].pruned != 0;
        if (!any_pruned) k_new += s.adaptive_k;
    }
    return std::max(current_k, std::min(k_new, k_max));
}

}  // namespace libvbmc
