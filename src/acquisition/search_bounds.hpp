// The expanding search box of active sampling (PyVBMC optim_state lb_search / ub_search), in
// the transformed space. The run owns the two vectors and checkpoints them.
#pragma once
#include <vector>

namespace libvbmc {

// PyVBMC's active_search_bound: the initial box reaches this many plausible-box widths beyond it.
constexpr double kActiveSearchBound = 2.0;

// Initial box (PyVBMC VBMC._init_optim_state): the plausible box widened by
// active_search_bound (default 2) times its width on each side, cut to the hard bounds
// lb / ub (which may be infinite).
void initial_search_bounds(const std::vector<double>& plb, const std::vector<double>& pub,
                           const std::vector<double>& lb, const std::vector<double>& ub,
                           double active_search_bound, std::vector<double>& lb_search,
                           std::vector<double>& ub_search);

// After a new point x (PyVBMC active_sample): every side of the box that x lies within 5% of
// the box width of moves outwards by that 5%, without crossing lb / ub. Ours: only when x's
// log joint lies at most max_below_best below the best so far (below_best <= max_below_best;
// NaN for a failed evaluation: no change). Beyond a point that far down the posterior has no
// mass, and an acquisition drawn to the box's corners would otherwise widen it without end.
void expand_search_bounds(const double* x, double below_best, double max_below_best,
                          const std::vector<double>& lb, const std::vector<double>& ub,
                          std::vector<double>& lb_search, std::vector<double>& ub_search);

}  // namespace libvbmc
