// Several observations added to a surrogate at once, hyperparameters unchanged: every sample's
// factor grows by a block (Golub & Van Loan 2013, Matrix Computations, section 4.2.9),
//   K + N = [L 0; W^T R] [L 0; W^T R]^T,  W = L^{-1} K(X, P),  R R^T = K(P, P) + N_P - W^T W,
// with R formed row by row, so that the value told at the j-th new point may depend on each
// sample's posterior mean there given the data and the new points before it,
//   m_s(p_j) = m(p_j) + W_j . u + sum_{k<j} R_jk u_{n+k},  u = [L 0; W^T R]^{-1} (y - m(X)).
// One triangular solve with m right-hand sides replaces m rank-1 extensions (each a copy of the
// factor and two solves for alpha): the fantasised pending points of an ask with many workers out.
#pragma once
#include <functional>
#include <vector>

#include "gp/gp.hpp"
#include "linalg/matrix.hpp"

namespace libvbmc {

// The value y and told noise variance s2 of new point j (row j of the points), from each
// sample's posterior mean there (sample_means, one per sample); gp holds the data told so far
// (the new points before j included) and the samples' hyperparameters, without their factors.
using NewPointValue = std::function<void(const Gp& gp, int j, const std::vector<double>& sample_means, double& y, double& s2)>;

// gp with the rows of points added (none a training point), each with the value chosen by
// value_at, into grown; gp itself is only read, so no copy of its factors is made. Returns false,
// grown untouched, when a new point's conditional variance vanishes (a point too close to the
// data for the block factor; gp_add_point refactorises with jitter there).
bool gp_add_points(const Gp& gp, const Matrix& points, const NewPointValue& value_at, Gp& grown);

}  // namespace libvbmc
