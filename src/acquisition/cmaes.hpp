// CMA-ES minimiser (Hansen's (mu/mu_w, lambda)-CMA-ES with rank-one and rank-mu covariance
// updates and cumulative step-size adaptation; Hansen, "The CMA Evolution Strategy: A
// Tutorial", 2016). Used by the active search (PyVBMC active_sample, search_optimizer =
// "cmaes"). Each generation is evaluated as one batch so the objective can vectorise.
#pragma once
#include <functional>
#include <vector>

#include "linalg/matrix.hpp"
#include "util/rng.hpp"

namespace libvbmc {

// Objective over a batch: values[i] = f(row i of xs). Non-finite values rank last.
using BatchObjective = std::function<void(const Matrix& xs, double* values)>;

struct CmaesSettings {
    int population = 0;          // lambda; 0 = 4 + floor(3 ln D)
    int max_fun_evals = 0;       // evaluation budget; 0 = 1000 (D + 5)^2
    double tol_fun = 1e-11;      // stop when the best values of recent generations and all values
                                 // of the current one span less than tol_fun
    double tol_x = 1e-11;        // stop when every coordinate's search step is below tol_x
    double max_condition = 1e14; // stop when cond(C) exceeds this
    // Optional box (both empty or both of length D, entries may be infinite). Candidates are
    // mirrored into the box before evaluation; the reported points are the mirrored ones.
    std::vector<double> lower;
    std::vector<double> upper;
};

enum class CmaesStop { max_fun_evals, tol_fun, tol_x, condition };

struct CmaesResult {
    std::vector<double> x_best;  // best evaluated point (inside the box)
    double f_best = 0.0;
    std::vector<double> mean;    // final distribution mean (mirrored into the box)
    int evaluations = 0;
    int generations = 0;
    CmaesStop stop = CmaesStop::max_fun_evals;
};

// Minimise f from mean x0 with step size sigma0 and initial covariance c0 (D x D, symmetric
// positive definite; empty means identity): samples are x0 + sigma0 * N(0, c0). All
// randomness comes from rng, so the result is deterministic given its state.
CmaesResult cmaes_minimize(const BatchObjective& f, const std::vector<double>& x0, double sigma0,
                           const Matrix& c0, const CmaesSettings& settings, Rng& rng);

}  // namespace libvbmc
