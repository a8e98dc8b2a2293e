// Quasi-Newton minimiser for the deterministic-entropy objective (PyVBMC calls
// scipy.optimize.minimize, i.e. BFGS, with tol = det_entropy_tol_opt).
#pragma once
#include <functional>
#include <vector>

namespace libvbmc {

struct BfgsResult {
    std::vector<double> x;
    double f = 0.0;
    int iterations = 0;
    bool converged = false;  // gradient max-norm fell below grad_tol
};

// objective(x, grad) returns f(x) and writes the gradient. Stops when max|grad| < grad_tol or
// after max_iter iterations (scipy's default: 200 per variable) or when no descent is possible.
BfgsResult minimize_bfgs(const std::function<double(const std::vector<double>&, std::vector<double>&)>& objective,
                         std::vector<double> x0, double grad_tol, int max_iter);

}  // namespace libvbmc
