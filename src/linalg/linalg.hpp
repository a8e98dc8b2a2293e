// Thin wrappers over LAPACKE / CBLAS: the only place the engine calls them.
// All matrices are row-major libvbmc::Matrix. Cholesky factors are lower triangular (A = L L^T)
// with the strict upper triangle zeroed.
#pragma once
#include <vector>

#include "linalg/matrix.hpp"

namespace libvbmc {

// In-place Cholesky of a symmetric positive-definite matrix, of which only the lower triangle is
// read; on success A holds the lower factor L (A = L L^T) with zeros above the diagonal. Returns
// false (A undefined) when A is not numerically positive definite; throws Error(numeric) when it
// has a non-finite entry.
bool cholesky_in_place(Matrix& a);

// Cholesky with jitter fallback: factorises A + jitter*I, starting at jitter = 0 and, on
// failure, from 1e-10 * mean(diag A) growing tenfold up to 1e-2 * mean(diag A). Returns the
// jitter used. Throws Error(numeric) if no jitter makes A positive definite or A has NaN.
double cholesky_jitter(const Matrix& a, Matrix& l);

// A factor F with F F^T = A for a symmetric positive semi-definite A (to draw from N(0, A)):
// cholesky_jitter's lower factor, or where rounding leaves A too indefinite for it, the
// eigenvectors scaled by the square roots of the eigenvalues clipped at zero. Throws
// Error(numeric) when A has a non-finite entry.
Matrix covariance_square_root(const Matrix& a);

// Solve L L^T X = B in place; B is n x nrhs (row-major, n = L.rows).
void cholesky_solve(const Matrix& l, Matrix& b);
// Same for a single right-hand side b[n].
void cholesky_solve(const Matrix& l, double* b);

// Triangular solve with lower L in place: L x = b (transpose = false) or L^T x = b.
void triangular_solve(const Matrix& l, bool transpose, Matrix& b);
void triangular_solve(const Matrix& l, bool transpose, double* b);

// log det(A) from its Cholesky factor: 2 * sum(log diag L).
double cholesky_log_det(const Matrix& l);

// A^{-1} from the Cholesky factor of A.
Matrix cholesky_inverse(const Matrix& l);

// C = alpha * op(A) op(B) + beta * C, op = transpose or not. C is resized when beta == 0.
void gemm(bool transpose_a, bool transpose_b, double alpha, const Matrix& a, const Matrix& b,
          double beta, Matrix& c);

// y = alpha * op(A) x + beta * y.
void gemv(bool transpose_a, double alpha, const Matrix& a, const double* x, double beta,
          double* y);

// The x[n] minimising ||A x - b|| for A (m x n, m >= n, full column rank) and b[m], by QR
// (LAPACKE_dgels), which keeps the accuracy the normal equations would square away. Throws
// Error(numeric) when A is rank deficient or holds a non-finite entry.
std::vector<double> least_squares(Matrix a, std::vector<double> b);

// Symmetric eigen-decomposition A = V diag(values) V^T (values ascending, columns of V are
// eigenvectors). Throws Error(numeric) on failure.
void symmetric_eigen(const Matrix& a, std::vector<double>& values, Matrix& vectors);

}  // namespace libvbmc
