// Tunables of active sampling (paper section 3.3), named and defaulted as PyVBMC's options
// (advanced_vbmc_options.ini) unless stated otherwise.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace libvbmc {

// Which acquisition function to minimise (PyVBMC search_acq_fcn; default AcqFcnLog).
enum class AcqKind {
    pro,  // AcqFcn: prospective uncertainty sampling, -V(x) exp(f(x) - y_max) q(x) (paper eq. 9)
    us,   // AcqFcnVanilla: vanilla uncertainty sampling, -V(x) q(x)^2
    log,  // AcqFcnLog: -log of a_pro, -(log V(x) + f(x) - y_max + log q(x))
    ivr,  // integrated variance reduction: -log of the expected reduction of Var[E_q f]
          // by an evaluation at x (variance_reduction.hpp; ours, not in PyVBMC)
    npro, // AcqFcnNoisy: a_pro damped by the share of the variance an evaluation can remove,
          // -V(x)^2 / (V(x) + sn2(x)) exp(f(x) - y_max) q(x) (acq_registry.cpp)
    viqr, // AcqFcnVIQR: log of the variational interquantile range left after an evaluation
          // at x (interquantile.hpp)
    imiqr,// AcqFcnIMIQR: the same integral weighted by exp(f) instead of q (interquantile.hpp)
    bbq,  // BBQ's active sampling: -log of the expected reduction of the evidence's variance
          // (Osborne et al. 2012, eq. 13; bbq_variance.hpp)
};
// The kinds' names, descriptions and scorers are in the registry (acq_registry.hpp); the
// enumerators' values seed the shortlist streams (run/iteration.cpp), so new kinds go last.

struct AcqSettings {
    AcqKind kind = AcqKind::log;            // PyVBMC search_acq_fcn = [AcqFcnLog()]; the run sets
                                             // its own default, ivr (option search_acq_fcn)
    int ns_search = 1 << 13;                 // ns_search: candidates per new point
    double cache_frac = 0.5;                 // cache_frac: share of candidates from the start cache
    double heavy_tail_search_frac = 0.25;    // heavy_tail_search_frac: vp with Student-t(3) scales
    double heavy_tail_df = 3.0;              // degrees of freedom of those draws
    double mvn_search_frac = 0.25;           // mvn_search_frac: Gaussian with the vp moments
    double box_search_frac = 0.25;           // box_search_frac: uniform box around the training set
    // The rest of the candidates are plain vp draws.
    bool variance_regularized = true;        // variance_regularized_acq_fcn (on in MATLAB VBMC;
                                             // a key typo leaves it off in PyVBMC)
    double tol_gp_var = 1e-4;                // tol_gp_var: penalise V(x) below this
    bool search_cmaes = true;                // search_optimizer = "cmaes" (false: "none")
    bool search_cmaes_vp_init = true;        // search_cmaes_vp_init: CMA-ES scales from the vp
    double hpd_frac = 0.8;                   // hpd_frac: else from this top fraction of points
    int search_max_fun_evals = 0;            // search_max_fun_evals; 0 = 500 (D + 2)
    // Search box in the transformed space (PyVBMC optim_state lb_search / ub_search; the run
    // owns it and maintains it with search_bounds.hpp). Empty = unbounded: CMA-ES then uses
    // the training range +- 10%.
    std::vector<double> lb_search;
    std::vector<double> ub_search;
    // Hard limits in the transformed space: points outside get acquisition +inf (PyVBMC
    // lb_eps_orig / ub_eps_orig, mapped by the run). Empty = none.
    std::vector<double> lb_eps;
    std::vector<double> ub_eps;
    // ivr only (ours): a point gets +inf where the posterior can have no mass, i.e. where its
    // optimistic surrogate value, mean + 3 SD, lies more than this below the best observed log
    // joint (acq_fcn.hpp, implausible). ivr values a point by what it teaches about the
    // integral, not by the density there, and on smooth targets (long length scales) that
    // favours the corners of the search box, each of which used to widen the box
    // (expand_search_bounds): cigar_D2 spent 126 of 200 evaluations more than 500 units outside
    // its plausible box (half-widths 181 and 89), with log joints down to -3e8. The run sets it
    // to warmup_keep_threshold (10 D), the drop beyond which PyVBMC drops points as irrelevant.
    double plausible_drop = std::numeric_limits<double>::infinity();
    // The best value y_max the acquisitions measure against (the run's reference value: in noisy
    // mode the largest posterior mean at the training points). NaN: the largest training value.
    double y_max = std::numeric_limits<double>::quiet_NaN();
    double best_value(const std::vector<double>& training_values) const {
        return std::isnan(y_max) ? *std::max_element(training_values.begin(), training_values.end()) : y_max;
    }
    // viqr / imiqr only: integration points drawn from the vp per acquire call (PyVBMC
    // active_importance_sampling_mcmc_samples) and the quantile of the interquantile range.
    int iqr_points = 100;
    double iqr_quantile = 0.75;
};

}  // namespace libvbmc
