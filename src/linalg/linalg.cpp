#include "linalg/linalg.hpp"

#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "util/error.hpp"

namespace libvbmc {

namespace {

constexpr int kTile = 32;  // square tiles of the triangle transposes, so both sides stay in cache

// body(i, j) for every j < i (and j == i with the diagonal), tile by tile.
template <typename Body>
void for_each_lower_tiled(int n, bool diagonal, Body body) {
    for (int ib = 0; ib < n; ib += kTile)
        for (int jb = 0; jb <= ib; jb += kTile)
            for (int i = ib; i < std::min(ib + kTile, n); ++i)
                for (int j = jb; j < std::min(jb + kTile, diagonal ? i + 1 : i); ++j) body(i, j);
}

// to(j, i) = from(i, j) for j <= i: the row-major lower triangle of `from` onto the upper one
// of `to` (the same matrix or another of the same size).
void lower_onto_upper(const Matrix& from, Matrix& to) {
    for_each_lower_tiled(from.rows, true, [&](int i, int j) { to(j, i) = from(i, j); });
}

// Cholesky of the symmetric matrix whose row-major upper triangle `a` holds, which is LAPACK's
// column-major lower one: OpenBLAS factorises the lower form 1.3-1.6x faster than the upper at
// n = 100-400 (measured here), more than the transposes cost. On success the factor is moved to
// the row-major lower triangle and the upper one zeroed. The _work call skips LAPACKE's O(n^2)
// scan for NaN; a non-finite entry shows instead in the factor's diagonal, checked in O(n).
bool factor_upper_stored(Matrix& a) {
    const int n = a.rows;
    if (n == 0) return true;
    const lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, a.data.data(), n);
    if (info < 0) throw_error(Code::internal, "LAPACKE_dpotrf: argument " + std::to_string(-info) + " invalid");
    if (info > 0) return false;
    for (int i = 0; i < n; ++i)
        if (!std::isfinite(a(i, i)))
            throw_error(Code::numeric, "Cholesky: the matrix has a non-finite entry");
    for_each_lower_tiled(n, false, [&](int i, int j) { a(i, j) = a(j, i); });
    for (int i = 0; i < n; ++i) std::fill(a.row(i) + i + 1, a.row(i) + n, 0.0);
    return true;
}

}  // namespace

bool cholesky_in_place(Matrix& a) {
    lower_onto_upper(a, a);
    return factor_upper_stored(a);
}

double cholesky_jitter(const Matrix& a, Matrix& l) {
    const int n = a.rows;
    double mean_diag = 0.0;
    for (int i = 0; i < n; ++i) mean_diag += a(i, i);
    mean_diag = n > 0 ? mean_diag / n : 1.0;
    if (!std::isfinite(mean_diag))
        throw_error(Code::numeric, "Cholesky: the matrix has a non-finite diagonal");
    if (mean_diag <= 0.0) mean_diag = 1.0;
    double jitter = 0.0;
    for (;;) {
        l.reshape(n, n);
        lower_onto_upper(a, l);
        for (int i = 0; i < n; ++i) l(i, i) += jitter;
        if (factor_upper_stored(l)) return jitter;
        // The first jitter is at least the smallest normal double: on a subnormal diagonal,
        // 1e-10 * mean_diag rounds to 0 and the loop would never end.
        jitter = jitter == 0.0 ? std::max(1e-10 * mean_diag, std::numeric_limits<double>::min()) : jitter * 10.0;
        if (jitter > 1e-2 * mean_diag)
            throw_error(Code::numeric, "Cholesky: the matrix is not positive definite even with jitter");
    }
}

Matrix covariance_square_root(const Matrix& a) {
    Matrix factor;
    try {
        cholesky_jitter(a, factor);
        return factor;
    } catch (const Error& e) {
        if (e.code() != Code::numeric) throw;
    }
    for (double v : a.data)
        if (!std::isfinite(v)) throw_error(Code::numeric, "covariance square root: the matrix has a non-finite entry");
    std::vector<double> values;
    symmetric_eigen(a, values, factor);
    for (int j = 0; j < factor.cols; ++j) {
        const double scale = std::sqrt(std::max(values[static_cast<size_t>(j)], 0.0));
        for (int i = 0; i < factor.rows; ++i) factor(i, j) *= scale;
    }
    return factor;
}

void triangular_solve(const Matrix& l, bool transpose, Matrix& b) {
    if (l.rows == 0 || b.cols == 0) return;
    cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, transpose ? CblasTrans : CblasNoTrans,
                CblasNonUnit, l.rows, b.cols, 1.0, l.data.data(), l.cols, b.data.data(), b.cols);
}

void triangular_solve(const Matrix& l, bool transpose, double* b) {
    if (l.rows == 0) return;
    cblas_dtrsv(CblasRowMajor, CblasLower, transpose ? CblasTrans : CblasNoTrans, CblasNonUnit,
                l.rows, l.data.data(), l.cols, b, 1);
}

void cholesky_solve(const Matrix& l, Matrix& b) {
    triangular_solve(l, false, b);
    triangular_solve(l, true, b);
}

void cholesky_solve(const Matrix& l, double* b) {
    triangular_solve(l, false, b);
    triangular_solve(l, true, b);
}

double cholesky_log_det(const Matrix& l) {
    double sum = 0.0;
    for (int i = 0; i < l.rows; ++i) sum += std::log(l(i, i));
    return 2.0 * sum;
}

// LAPACK dpotri (L^{-T} L^{-1} from the factor, 2n^3/3 flops; column-major upper view of the
// row-major lower factor, as in cholesky_in_place), then mirrored to full storage.
Matrix cholesky_inverse(const Matrix& l) {
    const int n = l.rows;
    Matrix inv = l;
    if (n == 0) return inv;
    const lapack_int info = LAPACKE_dpotri(LAPACK_COL_MAJOR, 'U', n, inv.data.data(), n);
    if (info < 0) throw_error(Code::internal, "LAPACKE_dpotri: argument " + std::to_string(-info) + " invalid");
    if (info > 0) throw_error(Code::numeric, "Cholesky inverse: the factor is singular");
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) inv(i, j) = inv(j, i);
    return inv;
}

void gemm(bool transpose_a, bool transpose_b, double alpha, const Matrix& a, const Matrix& b,
          double beta, Matrix& c) {
    const int m = transpose_a ? a.cols : a.rows;
    const int k = transpose_a ? a.rows : a.cols;
    const int kb = transpose_b ? b.cols : b.rows;
    const int n = transpose_b ? b.rows : b.cols;
    if (k != kb) throw_error(Code::internal, "gemm: inner dimensions differ");
    if (beta == 0.0) c = Matrix(m, n);
    if (c.rows != m || c.cols != n) throw_error(Code::internal, "gemm: output has the wrong shape");
    if (m == 0 || n == 0) return;
    if (k == 0) {
        for (double& v : c.data) v *= beta;
        return;
    }
    cblas_dgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans,
                transpose_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, a.data.data(), a.cols,
                b.data.data(), b.cols, beta, c.data.data(), c.cols);
}

void gemv(bool transpose_a, double alpha, const Matrix& a, const double* x, double beta,
          double* y) {
    if (a.rows == 0 || a.cols == 0) {
        const int m = transpose_a ? a.cols : a.rows;
        for (int i = 0; i < m; ++i) y[i] *= beta;
        return;
    }
    cblas_dgemv(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, a.rows, a.cols, alpha,
                a.data.data(), a.cols, x, 1, beta, y, 1);
}

void symmetric_eigen(const Matrix& a, std::vector<double>& values, Matrix& vectors) {
    const int n = a.rows;
    vectors = a;
    values.assign(static_cast<size_t>(n), 0.0);
    if (n == 0) return;
    const lapack_int info =
        LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'L', n, vectors.data.data(), n, values.data());
    if (info < 0) throw_error(Code::internal, "LAPACKE_dsyevd: argument " + std::to_string(-info) + " invalid");
    if (info > 0) throw_error(Code::numeric, "symmetric eigen-decomposition did not converge");
}

std::vector<double> least_squares(Matrix a, std::vector<double> b) {
    const int m = a.rows, n = a.cols;
    if (m < n || static_cast<int>(b.size()) != m)
        throw_error(Code::internal, "least_squares: A is " + std::to_string(m) + " x " + std::to_string(n) +
                                        " and b has " + std::to_string(b.size()) + " entries");
    for (double v : a.data)
        if (!std::isfinite(v)) throw_error(Code::numeric, "least squares: the matrix has a non-finite entry");
    const lapack_int info = LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', m, n, 1, a.data.data(), n, b.data(), 1);
    if (info < 0) throw_error(Code::internal, "LAPACKE_dgels: argument " + std::to_string(-info) + " invalid");
    if (info > 0) throw_error(Code::numeric, "least squares: the matrix is rank deficient");
    b.resize(static_cast<size_t>(n));
    return b;
}

}  // namespace libvbmc
