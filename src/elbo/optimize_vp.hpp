// Variational optimisation of the mixture posterior against the GP surrogate (paper section 3.1,
// 3.6; PyVBMC variational_optimization.optimize_vp and VBMC.final_boost).
#pragma once
#include "elbo/vp_optim_settings.hpp"
#include "gp/gp.hpp"
#include "util/rng.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

// Precise ELBO of vp (no soft bounds): quadrature expected log joint with its variance, Monte
// Carlo entropy with n_ent_per_component draws per component of the kind `draws` and the control
// variate of entropy_mc (exact entropy when K = 1).
ElboEstimate vp_elbo(const VariationalPosterior& vp, const Gp& gp, int n_ent_per_component, EntropyDraws draws,
                     Rng& rng);

// Number of sieve candidates and of full optimisations for an iteration (PyVBMC VBMC.optimize):
// full_refit (first iteration after a change, "recompute_var_post") uses ns_elbo(K) candidates
// and elbo_starts starts, otherwise ceil(ns_elbo(K) * ns_elbo_incr) candidates and one start.
void vp_optim_counts(const VpOptimSettings& s, int k, bool full_refit, int& n_fast_opts, int& n_slow_opts);

// Optimise vp with k_new components: rank n_fast_opts candidates by a cheap ELBO (the sieve),
// optimise the best n_slow_opts (Adam with Monte Carlo entropy, or BFGS with the entropy bound when
// s.entropy_switch or k_new == 1), keep the best by ELCBO (beta = s.elcbo_beta), then prune
// components with weight < s.tol_weight whose removal leaves the ELCBO (weight s.elcbo_impro_weight)
// within tol_improvement / sqrt(k_new). vp is replaced by the result (scales normalised);
// *pruned (if not null) receives the number of removed components. During warm-up
// (s.warmup) the weights are fixed and equal.
ElboEstimate optimize_vp(VariationalPosterior& vp, const Gp& gp, const VpOptimSettings& s, int k_new,
                         int n_fast_opts, int n_slow_opts, Rng& rng, int* pruned = nullptr);

// PyVBMC VBMC.final_boost: one more optimisation with max(K, min_final_components) components,
// ns_ent_boost entropy samples, no pruning, weights free, no warm-up, up to 10000 Adam iterations.
// Unlike PyVBMC, the boost starts from vp with its components split (vp_split_components), each
// component with its own diagonal scale when s.boost_component_scales, without a sieve of jittered
// starts, and vp is left as it was (rescored precisely) when the boosted fit scores lower.
ElboEstimate vp_final_boost(VariationalPosterior& vp, const Gp& gp, const VpOptimSettings& s, Rng& rng);

}  // namespace libvbmc
