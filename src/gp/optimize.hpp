// Bound-constrained quasi-Newton minimiser: projected L-BFGS (limited-memory BFGS two-loop
// recursion, Nocedal & Wright algorithm 7.4, restricted to the variables not held at a bound,
// with an Armijo backtracking search along the projected path). Used for the MAP of the GP
// hyperparameters, as gpyreg GP.fit uses scipy's L-BFGS-B.
#pragma once
#include <functional>
#include <vector>

namespace libvbmc {

// f(x) returning the value and writing the gradient into grad (resized by the callee or
// pre-sized to x.size()). May return +inf or NaN where undefined; the search backs off.
using ObjectiveWithGradient = std::function<double(const std::vector<double>& x, std::vector<double>& grad)>;

struct MinimizeOptions {
    double tol = 1e-5;          // scipy `tol`: stop when the relative decrease of f or the
                                // largest projected-gradient component falls below it
    int max_iterations = 15000; // scipy L-BFGS-B default maxiter
    int max_evaluations = 15000;
    int memory = 10;            // stored correction pairs (scipy maxcor)
};

struct MinimizeResult {
    std::vector<double> x;
    double f = 0.0;
    int iterations = 0;
    int evaluations = 0;
    bool converged = false;
};

// Minimise f over the box [lower, upper] (entries may be infinite) from x0 (projected inside
// first). The objective must be finite at the projected x0; otherwise x0 is returned as is.
MinimizeResult minimize_bounded(const ObjectiveWithGradient& f, std::vector<double> x0,
                                const std::vector<double>& lower, const std::vector<double>& upper,
                                const MinimizeOptions& options);

}  // namespace libvbmc
