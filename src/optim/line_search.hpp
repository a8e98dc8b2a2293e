// Ask-tell line maximisation of phi(t) = f(c + t d) for t > 0, from phi(0) = f0 and the slope
// phi'(0) > 0, with function values only (Nocedal & Wright 2006, Numerical Optimization,
// section 3.5: safeguarded quadratic interpolation for the step; here also used to extrapolate
// and to refine, since each gradient of the caller costs D evaluations and a longer, better
// step saves whole iterations).
//
// A step rises when it gains at least 1e-4 of the gain the slope predicts for it (Armijo's
// condition, algorithm 3.1). Backtracking: while no step has risen, the next step is the maximiser of the quadratic
// through phi(0), phi'(0) and the last value, kept within [0.1, 0.5] of the last step (a tenth
// of it after a failed value), until the step would fall below min_step or kMaxBacktracks were tried. Refinement: once a step has risen, up to kMaxRefinements more
// steps go to the maximiser of the quadratic through the best step and its neighbours (past the
// largest step when the best is the largest: at most 4 times it and max_step), and the search
// ends when a step no longer rises or rises by less than a tenth of the gain so far.
#pragma once
#include <vector>

#include "io/serial.hpp"

namespace libvbmc {

class LineSearch {
public:
    static constexpr int kMaxBacktracks = 15;
    static constexpr int kMaxRefinements = 3;

    LineSearch() = default;
    // first_step > 0 is the first step tried, max_step >= first_step the longest step allowed,
    // min_step the shortest worth trying (backtracking ends below it: the caller's precision).
    LineSearch(double f0, double slope, double first_step, double min_step, double max_step);

    // The step to evaluate next (valid while !done()).
    double next_step() const { return next_; }
    // The value at next_step(); a non-finite value is a failure (treated as far below f0).
    void tell(double value);
    bool done() const { return done_; }
    // Whether some step rose above f0; then the best step and its value.
    bool rose() const { return best_ >= 0; }
    double best_step() const { return steps_[static_cast<size_t>(best_)]; }
    double best_value() const { return values_[static_cast<size_t>(best_)]; }

    void write(Writer& out) const;
    static LineSearch read(Reader& in);

private:
    double backtrack() const;
    double refine() const;

    double f0_ = 0.0, slope_ = 0.0, min_step_ = 0.0, max_step_ = 0.0;
    std::vector<double> steps_, values_;  // tried, in order; failures as -infinity
    int best_ = -1;                       // index of the highest step above f0
    int refinements_ = 0;
    double next_ = 0.0;
    bool done_ = true;
};

}  // namespace libvbmc
