// The rules that look back on the iteration history (paper sections 3.5-3.7, as PyVBMC's
// _compute_reliability_index, _check_termination_conditions, _check_warmup_end_conditions,
// update_K and determine_best_vp).
#pragma once
#include <vector>

#include "options/options.hpp"
#include "run/history.hpp"

namespace libvbmc {

// Number of iterations the solution must stay stable: ceil(tol_stable_count / fun_evals_per_iter).
int stable_window(const Settings& s);

// Reliability index rho (paper 3.7): mean of |ELBO change| / tol_sd, ELBO SD / tol_sd and
// sKL / tol_skl, with tol_sd raised for noisy surrogates; also the ELCBO improvement per
// evaluation (slope of a linear fit over the last half window). history.back() is the current
// iteration; returns {inf, NaN} before the third iteration.
std::pair<double, double> reliability_index(const std::vector<IterationRecord>& history,
                                            const Settings& s);

// Whether the current iteration is stable: rho < 1, ELCBO improvement below tol_improvement, and
// at most a fraction tol_stable_excpt_frac of unstable iterations in the stable window.
bool is_stable(const std::vector<IterationRecord>& history, const Settings& s);

// Whether a stop as stable may follow the last rotoscaling kept (at iteration warped_at): only
// once the whole stable window lies after it, so that stability is judged in one space. PyVBMC
// waits a third of the window; runs with 16 workers then stopped 6-7 iterations after a late
// rotoscaling, their ELBO still rising (cigar_D6, bench/RESULTS.md "Stable in one space").
bool settled_after_warping(int iteration, int warped_at, const Settings& s);

// Warm-up ends when the ELCBO stops improving (or the best LCB has not improved for long) and
// no trim happened in the last 10 points. n_train = current training-set size.
bool warmup_should_end(const std::vector<IterationRecord>& history, const Settings& s,
                       const std::vector<int>& data_trim_list, int n_train, int func_count);

// Whether hyperparameter samples no longer change the expected log joint (MATLAB VBMC's
// TolGPVarMCMC rule, from the third iteration on): the weighted mean of gp_sample_var, with
// weight 1/2 on the current iteration plus 1/2 spread over all iterations in proportion to
// exp(-(evaluations now - evaluations then) / 10), is below tol_gp_var_mcmc. (MATLAB weighs by the
// training-set size, which the end of warm-up can shrink; the evaluation count only grows.)
bool gp_sampling_settled(const std::vector<IterationRecord>& history, const Settings& s);

// The iteration whose posterior is returned when the last one is not stable (PyVBMC
// determine_best_vp, with or without its rank criterion). Iterations whose ELBO SD exceeds the
// reliability bound kMaxReliableElboSd are passed over while any other is within it (a run whose
// surrogate blew up late returns what it had before).
int best_iteration(const std::vector<IterationRecord>& history, const Settings& s);

}  // namespace libvbmc
