// Shared fixtures of the warping tests: a transform with every coordinate type, a correlated
// covariance, and small dense-matrix helpers.
#pragma once
#include <cmath>
#include <vector>

#include "linalg/matrix.hpp"
#include "transforms/parameter_transform.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"

namespace warp_test {

using libvbmc::Matrix;
using libvbmc::ParameterTransform;

// Four coordinates: unbounded, lower bound only, upper bound only, both bounds.
constexpr int kDim = 4;
const double kLb[kDim] = {-INFINITY, 0.5, -INFINITY, -3.0};
const double kUb[kDim] = {INFINITY, INFINITY, 2.0, 7.0};
const double kPlb[kDim] = {-10.0, 1.0, -4.0, -2.0};
const double kPub[kDim] = {20.0, 30.0, 1.5, 4.0};

inline ParameterTransform mixed(ParameterTransform::Bounded kind = ParameterTransform::Bounded::probit) {
    return ParameterTransform(kDim, kLb, kUb, kPlb, kPub, kind);
}

// Every coordinate unbounded, with plausible boxes of very different widths.
inline ParameterTransform unbounded() {
    const double lb[kDim] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    const double ub[kDim] = {INFINITY, INFINITY, INFINITY, INFINITY};
    const double plb[kDim] = {-10.0, 1.0, -0.2, 3.0};
    const double pub[kDim] = {20.0, 3.0, 0.1, 300.0};
    return ParameterTransform(kDim, lb, ub, plb, pub, ParameterTransform::Bounded::probit);
}

// Random symmetric positive-definite matrix with strong correlations: B B^T + 0.05 I, B random.
inline Matrix correlated_covariance(int dim, libvbmc::Rng& rng) {
    Matrix b(dim, dim), cov(dim, dim);
    for (double& v : b.data) v = 0.4 * rng.normal();
    for (int i = 0; i < dim; ++i)
        for (int j = 0; j < dim; ++j) {
            double sum = i == j ? 0.05 : 0.0;
            for (int k = 0; k < dim; ++k) sum += b(i, k) * b(j, k);
            cov(i, j) = sum;
        }
    return cov;
}

// a * b for small dense matrices (reference arithmetic, independent of the BLAS wrappers).
inline Matrix multiply(const Matrix& a, const Matrix& b) {
    Matrix c(a.rows, b.cols);
    for (int i = 0; i < a.rows; ++i)
        for (int j = 0; j < b.cols; ++j) {
            double sum = 0.0;
            for (int k = 0; k < a.cols; ++k) sum += a(i, k) * b(k, j);
            c(i, j) = sum;
        }
    return c;
}

inline Matrix transpose(const Matrix& a) {
    Matrix t(a.cols, a.rows);
    for (int i = 0; i < a.rows; ++i)
        for (int j = 0; j < a.cols; ++j) t(j, i) = a(i, j);
    return t;
}

// log |det a| by Gaussian elimination with partial pivoting.
inline double log_abs_det(Matrix a) {
    const int n = a.rows;
    double total = 0.0;
    for (int c = 0; c < n; ++c) {
        int pivot = c;
        for (int r = c + 1; r < n; ++r)
            if (std::fabs(a(r, c)) > std::fabs(a(pivot, c))) pivot = r;
        for (int j = 0; j < n; ++j) std::swap(a(c, j), a(pivot, j));
        total += std::log(std::fabs(a(c, c)));
        for (int r = c + 1; r < n; ++r) {
            const double factor = a(r, c) / a(c, c);
            for (int j = c; j < n; ++j) a(r, j) -= factor * a(c, j);
        }
    }
    return total;
}

template <class F>
void expect_error(libvbmc::Code code, F&& f) {
    bool threw = false;
    try {
        f();
    } catch (const libvbmc::Error& e) {
        threw = e.code() == code;
    }
    assert_true(threw);
}

}  // namespace warp_test
