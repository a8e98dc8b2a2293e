// The trust-region subproblem of a quadratic model: maximise g^T s + 1/2 s^T H s subject to
// ||s|| <= radius, solved exactly (Moré & Sorensen 1983; Nocedal & Wright 2006, section 4.3,
// including the hard case) from an eigendecomposition of H and bisection on the multiplier.
#pragma once
#include <vector>

#include "linalg/matrix.hpp"

namespace libvbmc {

struct TrustRegionStep {
    std::vector<double> s;        // the step, ||s|| <= radius
    double predicted_gain = 0.0;  // g^T s + 1/2 s^T H s >= 0
    bool interior = false;        // the unconstrained maximiser (H negative definite) lies inside
};

// g[D], H (D x D, symmetric), radius > 0. Throws Error(numeric) for non-finite input.
TrustRegionStep trust_region_step(const std::vector<double>& g, const Matrix& h, double radius);

}  // namespace libvbmc
