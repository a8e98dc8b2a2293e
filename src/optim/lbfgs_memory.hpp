// Limited-memory BFGS estimate of an inverse Hessian, for ascent (Nocedal & Wright 2006,
// Numerical Optimization: the two-loop recursion, algorithm 7.4, with the initial scaling
// s.y / y.y of the newest pair, eq. 7.20). It keeps the newest `capacity` pairs s = x_new - x_old,
// y = g_old - g_new (the gradient's fall, so that s.y > 0 where f curves down), and so adapts to a
// curvature that changes along the path (the scale parameters of a regression, whose curvature
// grows by orders of magnitude on the way to the top), where full BFGS remembers stale curvature.
#pragma once
#include <vector>

#include "io/serial.hpp"
#include "linalg/matrix.hpp"

namespace libvbmc {

class LbfgsMemory {
public:
    LbfgsMemory() = default;
    // initial_scale: the inverse curvature used while no pair is kept.
    LbfgsMemory(int dim, int capacity, double initial_scale);

    // Keeps the pair unless s.y <= 1e-12 |s| |y| (the update would not stay positive definite).
    void add(const std::vector<double>& s, const std::vector<double>& y);
    void clear();
    bool empty() const { return s_.empty(); }
    // H v for the current estimate H of (-Hessian)^-1.
    std::vector<double> apply(const std::vector<double>& v) const;
    // H as a dense D x D matrix.
    Matrix matrix() const;

    void write(Writer& out) const;
    // Throws Error(format) on pairs of the wrong dimension or more pairs than the capacity.
    static LbfgsMemory read(Reader& in);

private:
    int dim_ = 0, capacity_ = 0;
    double initial_scale_ = 1.0;
    std::vector<std::vector<double>> s_, y_;  // oldest first
};

}  // namespace libvbmc
