// Comparing two posterior snapshots of the same dimension in the original space (PyVBMC
// VariationalPosterior.kl_div and .mtv; MATLAB VBMC vbmc_kldiv, vbmc_mtv), by Monte Carlo from
// draws of each: the draws of p are p.sample(n, seed), those of q are q.sample(n, seed + 1).
#pragma once
#include <cstdint>
#include <vector>

#include "run/posterior.hpp"

namespace libvbmc {

struct KlEstimate {
    double forward = 0.0, reverse = 0.0;        // KL(p || q), KL(q || p)
    double forward_sd = 0.0, reverse_sd = 0.0;  // their Monte Carlo standard errors
};

// KL(p || q) = E_p[log p(x) - log q(x)] as the mean over the draws of p (and KL(q || p) over those
// of q); log densities where the other has none are floored at log(DBL_MIN), and the estimates at 0
// (PyVBMC). The SD is the sample SD of the differences over sqrt(n). Throws Error(arg) for
// different dimensions or n < 2, Error(numeric) for a non-finite estimate.
KlEstimate kl_divergence(const PosteriorSnapshot& p, const PosteriorSnapshot& q, size_t n, uint64_t seed);

// Marginal total variation of each coordinate d, TV_d = 0.5 int |p_d - q_d| = int (p_d - q_d)_+,
// estimated without bias as the mean of E_p[(1 - q_d / p_d)_+] and E_q[(1 - p_d / q_d)_+] over the
// draws of each, with the exact marginals (post/marginal.hpp) where PyVBMC uses kernel density
// estimates. Each term lies in [0, 1], so each estimate does; identical snapshots give 0. Throws
// Error(arg) for different dimensions or n == 0.
std::vector<double> marginal_total_variation(const PosteriorSnapshot& p, const PosteriorSnapshot& q, size_t n,
                                             uint64_t seed);

}  // namespace libvbmc
