// Log marginal likelihood of the GP surrogate with a reusable workspace, so the hyperparameter
// optimiser and sampler (train.cpp) evaluate it many times without reallocating n x n buffers.
#pragma once
#include <vector>

#include "gp/gp.hpp"
#include "linalg/matrix.hpp"

namespace libvbmc {

// Buffers reused across calls. The Cholesky factor is also a cache: a call whose kernel and
// noise hyperparameters (theta[0 .. D+2)) equal those of the previous call on the same data
// object reuses it, so moves of the mean hyperparameters alone (most coordinates of a slice-
// sampling sweep) cost O(n^2). The data must not be modified between calls sharing a
// workspace unless `invalidate()` is called.
struct GpLmlWorkspace {
    const GpData* factor_data = nullptr;  // data and covariance hyperparameters of `chol`
    int factor_rows = -1;
    std::vector<double> factor_theta;
    void invalidate() { factor_data = nullptr; }

    Matrix cov;                   // K + N, then (after factorisation) W o K
    Matrix chol;                  // Cholesky factor of K + N
    Matrix w;                     // W = (K + N)^{-1} - alpha alpha^T
    Matrix z;                     // inputs scaled by 1/ell and centred, n x D
    Matrix pz;                    // (W o K) z, n x D
    std::vector<double> alpha;    // (K + N)^{-1} (y - m(X)) after a gradient call, L^{-1} (y - m(X)) otherwise
    std::vector<double> row_sum;  // (W o K) 1
};

// Same contract as gp_log_marginal_likelihood in gp.hpp, using `work` for scratch space.
double gp_log_marginal_likelihood(const GpData& data, const std::vector<double>& theta,
                                  std::vector<double>* grad, GpLmlWorkspace& work);

}  // namespace libvbmc
