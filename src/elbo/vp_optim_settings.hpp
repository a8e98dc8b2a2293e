// Tunables of the variational optimisation, with PyVBMC's option names and defaults
// (pyvbmc/vbmc/option_configs/advanced_vbmc_options.ini, basic_vbmc_options.ini), and the
// summary of an ELBO evaluation.
#pragma once
#include <cmath>
#include <vector>

#include "elbo/entropy.hpp"

namespace libvbmc {

struct ElboEstimate {
    double elbo = 0.0;
    double elbo_sd = 0.0;
    double e_log_joint = 0.0;     // expected log joint (quadrature, eq. 8-10)
    double e_log_joint_sd = 0.0;
    double entropy = 0.0;
    double var_ss = 0.0;          // spread of the expected log joint across GP hyperparameter samples
};

struct VpOptimSettings {
    // Entropy samples (totals over components; per component = ceil(total / K)):
    double ns_ent_scale = 100.0;         // ns_ent = 100 K^(2/3)
    double ns_ent_fast = 0.0;            // ns_ent_fast = 0 (sieve uses the deterministic bound)
    double ns_ent_fine_scale = 4096.0;   // ns_ent_fine = 2^12 K (precise ELBO)
    // Final boost: ns_ent_boost = 1000 K^(2/3), five times PyVBMC's 200 K^(2/3), drawn as shifted
    // Kronecker lattices (vp_final_boost sets entropy_draws). The boost's Adam run is limited by the
    // noise of its entropy gradient: with independent draws, 10x PyVBMC's count lowered the median
    // LML error and gsKL of 9 reference problems x 10 seeds. The lattice at 5x has less gradient
    // variance than independent draws at 10x (D = 6, K = 50: 4.1e-4 against 5.7e-4); against them,
    // 16 problems x 10 seeds had lower LML error in 98 runs (higher in 62) and lower gsKL in 112
    // (higher in 48), and the boost took about 0.65 times the CPU (bench/RESULTS.md, "Final boost
    // on a lattice").
    double ns_ent_boost_scale = 1000.0;
    // The boost's precise ELBO (its choice between boosted and unboosted, and the ELBO returned):
    // 2^11 K lattice draws, whose spread at D = 6, K = 50 is below that of 2^12 K independent
    // draws (0.00097 against 0.0012).
    double ns_ent_fine_boost_scale = 2048.0;
    // The iterations draw entropy samples independently (the lattice there too changed when runs
    // stopped: lumpy_D6 took 120 evaluations instead of 135 and its median gsKL rose 0.036 -> 0.049).
    EntropyDraws entropy_draws = EntropyDraws::independent;
    double ns_elbo_scale = 50.0;         // ns_elbo = 50 K candidate starts in the sieve
    double ns_elbo_incr = 0.1;           // fraction of ns_elbo when only refining
    int elbo_starts = 2;                 // full (Adam) optimisations from the best candidates
    double elcbo_beta = 0.0;             // confidence weight when ranking optima (PyVBMC fixes 0)
    bool elcbo_midpoint = true;          // also score the best Adam iterate
    // Adam (minimize_adam) schedule:
    double sgd_step_size = 0.005;
    double tol_fun_stochastic = 1e-3;
    int max_iter_stochastic = 0;         // 100 (2 + D); set by vp_optim_defaults
    // Deterministic-entropy path (entropy_switch or K = 1):
    double det_entropy_tol_opt = 1e-3;
    // Soft bounds of the variational parameters (vp.get_bounds):
    double tol_con_loss = 0.01;
    double tol_length = 1e-6;
    double tol_weight = 1e-2;            // pruning threshold on weights
    double weight_penalty = 0.1;
    double hpd_frac = 0.8;
    // Pruning and number of components:
    double tol_improvement = 0.01;       // times pruning_threshold_multiplier = 1/sqrt(K)
    double elcbo_impro_weight = 3.0;
    double k_fun_max_exponent = 2.0 / 3.0;  // k_fun_max = N^(2/3)
    int adaptive_k = 2;                  // bonus components when stable
    int tol_stable_count = 60;
    int fun_evals_per_iter = 5;
    int min_final_components = 50;
    // The final boost gives each component its own diagonal scale (option component_scales), each
    // no wider in any coordinate than boost_max_widening times the widest component before it; a
    // fit whose ELBO SD exceeds boost_max_sd_growth times the unboosted one is not used.
    bool boost_component_scales = true;
    double boost_max_widening = 2.0;
    double boost_max_sd_growth = 2.0;
    // Per coordinate, an upper limit on the soft upper bound of log(sigma_k lambda_kd) (empty: none).
    std::vector<double> ln_scale_cap;
    // Run state, set by the caller each iteration:
    bool warmup = true;                  // weights fixed and equal during warm-up
    bool entropy_switch = false;         // true: deterministic entropy during optimisation
    // For the run's handling of entropy_switch (PyVBMC): it starts as the option entropy_switch
    // (default false), is forced false when D < det_entropy_min_d, and is turned off once
    // func_count >= entropy_force_switch * max_fun_evals or when the run first looks stable.
    int det_entropy_min_d = 5;
    double entropy_force_switch = 0.8;
};

inline VpOptimSettings vp_optim_defaults(int dim) {
    VpOptimSettings s;
    s.max_iter_stochastic = 100 * (2 + dim);
    return s;
}

// Sample counts as PyVBMC evaluates its option lambdas for K components.
inline int ns_ent_per_component(double total, int k) {
    return static_cast<int>(std::ceil(total / k));
}
inline double ns_ent_total(const VpOptimSettings& s, int k) { return s.ns_ent_scale * std::pow(k, 2.0 / 3.0); }
inline double ns_ent_fine_total(const VpOptimSettings& s, int k) { return s.ns_ent_fine_scale * k; }
inline int ns_elbo(const VpOptimSettings& s, int k) { return static_cast<int>(std::ceil(s.ns_elbo_scale * k)); }

}  // namespace libvbmc
