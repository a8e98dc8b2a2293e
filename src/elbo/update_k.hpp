// Adaptive number of mixture components (paper section 3.6; PyVBMC update_K).
#pragma once
#include <vector>

#include "elbo/vp_optim_settings.hpp"

namespace libvbmc {

// What update_k needs from each finished iteration of the run.
struct IterationSummary {
    double elbo = 0.0;
    double elbo_sd = 0.0;
    double r_index = 0.0;  // reliability index of the iteration
    bool warmup = false;
    int pruned = 0;        // components pruned in that iteration
};

// New K for iteration `iteration` (0-based; history holds iterations 0 .. iteration-1): +1 when the
// ELCBO (weight elcbo_impro_weight) of the last iteration is the best of the recent ones and
// nothing was pruned, + adaptive_k more when also stable (r_index < 1, no recent pruning, no full
// refit pending); capped at ceil(n_eff^(2/3)) and never below current_k. Unchanged in warm-up.
int update_k(int current_k, double n_eff, bool warmup, int iteration, bool recompute_var_post,
             const std::vector<IterationSummary>& history, const VpOptimSettings& s);

}  // namespace libvbmc
