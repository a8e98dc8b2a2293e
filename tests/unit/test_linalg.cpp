// Linear-algebra wrappers against direct dense formulas.
#include "linalg/forward_substitution.hpp"
#include "linalg/linalg.hpp"

#include <cmath>
#include <vector>

#include "test_util.h"
#include "util/error.hpp"
#include "util/rng.hpp"

using namespace libvbmc;

static Matrix random_spd(int n, Rng& rng) {
    Matrix a(n, n);
    for (double& v : a.data) v = rng.normal();
    Matrix spd;
    gemm(false, true, 1.0, a, a, 0.0, spd);
    for (int i = 0; i < n; ++i) spd(i, i) += n;
    return spd;
}

static void test_cholesky_reconstructs(void**) {
    Rng rng(1);
    Matrix a = random_spd(6, rng);
    Matrix l;
    assert_close(cholesky_jitter(a, l), 0.0, 0.0);
    Matrix llt;
    gemm(false, true, 1.0, l, l, 0.0, llt);
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) assert_close(llt(i, j), a(i, j), 1e-12 * 6 * a(i, i));
    for (int i = 0; i < 6; ++i)
        for (int j = i + 1; j < 6; ++j) assert_close(l(i, j), 0.0, 0.0);
    // Only the lower triangle is read.
    Matrix lower_only = a;
    for (int i = 0; i < 6; ++i)
        for (int j = i + 1; j < 6; ++j) lower_only(i, j) = NAN;
    assert_true(cholesky_in_place(lower_only));
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) assert_true(lower_only(i, j) == l(i, j));
}

static void test_cholesky_solve_and_logdet(void**) {
    Rng rng(2);
    Matrix a = random_spd(5, rng);
    Matrix l;
    cholesky_jitter(a, l);
    std::vector<double> x_true{1, -2, 3, 0.5, -1};
    std::vector<double> b(5, 0.0);
    gemv(false, 1.0, a, x_true.data(), 0.0, b.data());
    cholesky_solve(l, b.data());
    for (int i = 0; i < 5; ++i) assert_close(b[i], x_true[i], 1e-10);
    // log det against the product of eigenvalues.
    std::vector<double> ev;
    Matrix vecs;
    symmetric_eigen(a, ev, vecs);
    double logdet = 0.0;
    for (double e : ev) logdet += std::log(e);
    assert_close(cholesky_log_det(l), logdet, 1e-10);
    Matrix inv = cholesky_inverse(l);
    Matrix prod;
    gemm(false, false, 1.0, a, inv, 0.0, prod);
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) assert_close(prod(i, j), i == j ? 1.0 : 0.0, 1e-10);
}

// A Cholesky factor L (n x n) of a random SPD matrix and standard normal right-hand sides B
// (n x m).
static void random_lower_system(int n, int m, Rng& rng, Matrix& l, Matrix& b) {
    cholesky_jitter(random_spd(n, rng), l);
    b = Matrix(n, m);
    for (double& x : b.data) x = rng.normal();
}

// forward_substitution: L V = B holds; it agrees with the BLAS solve; a column solved alone,
// or among fewer columns, is bitwise the same (45 columns: a block of 32, a padded tail of 13);
// the first rows depend only on the first rows of L and B.
static void test_forward_substitution(void**) {
    Rng rng(5);
    const int n = 23, m = 45;
    Matrix l, b;
    random_lower_system(n, m, rng, l, b);
    Matrix v = b;
    forward_substitution(l, v);
    Matrix reference = b;
    triangular_solve(l, false, reference);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j) {
            double lv = 0.0;
            for (int c = 0; c <= i; ++c) lv += l(i, c) * v(c, j);
            assert_close(lv, b(i, j), 1e-12 * n);
            assert_close(v(i, j), reference(i, j), 1e-12 * (1.0 + std::abs(reference(i, j))));
        }
    for (int j : {0, 31, 32, 40, 44}) {
        Matrix column(n, 1);
        for (int i = 0; i < n; ++i) column(i, 0) = b(i, j);
        forward_substitution(l, column);
        for (int i = 0; i < n; ++i) assert_true(column(i, 0) == v(i, j));
    }
    const int r = 9;
    Matrix l_top(r, r), b_top(r, m);
    for (int i = 0; i < r; ++i) {
        for (int c = 0; c < r; ++c) l_top(i, c) = l(i, c);
        for (int j = 0; j < m; ++j) b_top(i, j) = b(i, j);
    }
    forward_substitution(l_top, b_top);
    for (int i = 0; i < r; ++i)
        for (int j = 0; j < m; ++j) assert_true(b_top(i, j) == v(i, j));
}

// forward_substitution sums each row's terms in a fixed order, v_i = ((b_i - sum over even c of
// L_ic v_c) + (-sum over odd c of L_ic v_c)) / L_ii, whichever rows or columns it solves
// together: bitwise the same as that order written out one element at a time, for even and odd
// numbers of rows and for whole and padded column blocks.
static void test_forward_substitution_summation_order(void**) {
    Rng rng(8);
    for (int n : {1, 2, 7, 24}) {
        const int m = 37;
        Matrix l, b;
        random_lower_system(n, m, rng, l, b);
        Matrix v = b;
        forward_substitution(l, v);
        Matrix expected = b;
        for (int j = 0; j < m; ++j)
            for (int i = 0; i < n; ++i) {
                double even = b(i, j), odd = 0.0;
                for (int c = 0; c < i; ++c) (c % 2 == 0 ? even : odd) -= l(i, c) * expected(c, j);
                expected(i, j) = (even + odd) / l(i, i);
            }
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < m; ++j) assert_true(v(i, j) == expected(i, j));
    }
}

static void test_jitter_rescues_singular(void**) {
    // Rank-one matrix: singular, needs jitter.
    Matrix a(3, 3);
    const double v[3] = {1.0, 2.0, 3.0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a(i, j) = v[i] * v[j];
    Matrix l;
    const double jitter = cholesky_jitter(a, l);
    assert_true(jitter > 0.0);
    assert_true(jitter <= 1e-2 * 14.0 / 3.0);
}

static bool cholesky_fails_numerically(const Matrix& a) {
    Matrix l;
    try {
        cholesky_jitter(a, l);
    } catch (const Error& e) {
        return e.code() == Code::numeric;
    }
    return false;
}

// An indefinite matrix with a subnormal diagonal: no jitter can rescue it, and the search for
// one ends with an error (its first step, 1e-10 * mean diag, used to round to 0 and loop forever).
static void test_subnormal_indefinite_is_an_error(void**) {
    Matrix a(2, 2);
    a(0, 0) = a(1, 1) = 1e-315;
    a(0, 1) = a(1, 0) = 2e-315;
    assert_true(cholesky_fails_numerically(a));
}

// A NaN on the diagonal is caught before the factorisation; one below it (which LAPACKE's scan
// would have caught and the _work call does not) shows in the factor's diagonal.
static void test_nan_is_an_error(void**) {
    Matrix a = Matrix::identity(2);
    a(1, 1) = NAN;
    assert_true(cholesky_fails_numerically(a));
    Matrix b = Matrix::identity(3);
    b(2, 0) = NAN;
    b(0, 2) = NAN;
    assert_true(cholesky_fails_numerically(b));
    Matrix c = Matrix::identity(3);
    c(2, 1) = INFINITY;
    c(1, 2) = INFINITY;
    assert_true(cholesky_fails_numerically(c));
}

static void test_rng_is_reproducible(void**) {
    Rng a(42), b(42), c(43);
    for (int i = 0; i < 100; ++i) {
        const uint64_t va = a.next_u64();
        assert_true(va == b.next_u64());
        (void)c;
    }
    Rng d(7);
    auto state = d.state();
    const double first = d.normal();
    d.set_state(state);
    assert_true(d.normal() == first);
    // Normal draws: mean ~ 0 and variance ~ 1 within 5 standard errors.
    Rng e(3);
    const int n = 100000;
    double sum = 0.0, sum2 = 0.0;
    for (int i = 0; i < n; ++i) {
        const double z = e.normal();
        sum += z;
        sum2 += z * z;
    }
    assert_close(sum / n, 0.0, 5.0 / std::sqrt(n));
    assert_close(sum2 / n, 1.0, 5.0 * std::sqrt(2.0 / n));
}

// Paired normals: the first of a pair is normal()'s value from the same state; moments of both
// halves of the pairs and their correlation; an odd count fills every entry.
static void test_rng_paired_normals(void**) {
    Rng a(11), b(11);
    double one[1];
    a.normals(one, 1);
    assert_true(one[0] == b.normal());
    assert_true(a.state() == b.state());
    Rng e(5);
    const int n = 100001;
    std::vector<double> z(n, NAN);
    e.normals(z.data(), z.size());
    double sum = 0.0, sum2 = 0.0, cross = 0.0;
    for (int i = 0; i < n; ++i) {
        assert_true(std::isfinite(z[i]));
        sum += z[i];
        sum2 += z[i] * z[i];
    }
    for (int i = 0; i + 1 < n; i += 2) cross += z[i] * z[i + 1];
    assert_close(sum / n, 0.0, 5.0 / std::sqrt(n));
    assert_close(sum2 / n, 1.0, 5.0 * std::sqrt(2.0 / n));
    assert_close(cross / (n / 2), 0.0, 5.0 / std::sqrt(n / 2));
}

static void assert_throws_numeric_cholesky(const Matrix& a) {
    Matrix l;
    try {
        cholesky_jitter(a, l);
        fail_msg("the matrix should be beyond the jitter");
    } catch (const libvbmc::Error& e) {
        assert_true(e.code() == libvbmc::Code::numeric);
    }
}

// F F^T = A: the Cholesky factor for a positive definite A; for a matrix with an eigenvalue -0.05
// (beyond any jitter: at most 1e-2 of the mean diagonal), the part with the positive eigenvalues;
// a NaN entry is an error.
static void test_covariance_square_root(void**) {
    const double x[3] = {1.0, 0.5, -0.3}, y[3] = {0.2, -0.4, 0.9};
    const double cross[3] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]};
    const double norm = std::sqrt(cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]);
    Matrix psd(3, 3), a(3, 3);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            psd(i, j) = x[i] * x[j] + y[i] * y[j];
            a(i, j) = psd(i, j) - 0.05 * cross[i] * cross[j] / (norm * norm);
        }
    Matrix too_far;
    assert_true(cholesky_jitter(psd, too_far) >= 0.0);  // psd itself factorises (with jitter)
    assert_throws_numeric_cholesky(a);
    const Matrix f = covariance_square_root(a);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double ff = 0.0;
            for (int k = 0; k < 3; ++k) ff += f(i, k) * f(j, k);
            assert_close(ff, psd(i, j), 1e-10);
        }
    Matrix pd = psd;
    for (int i = 0; i < 3; ++i) pd(i, i) += 1.0;
    Matrix chol;
    cholesky_jitter(pd, chol);
    const Matrix g = covariance_square_root(pd);
    for (size_t k = 0; k < g.data.size(); ++k) assert_close(g.data[k], chol.data[k], 1e-15);
    a(1, 2) = a(2, 1) = NAN;
    try {
        covariance_square_root(a);
        fail_msg("a NaN entry must be an error");
    } catch (const libvbmc::Error& e) {
        assert_true(e.code() == libvbmc::Code::numeric);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cholesky_reconstructs),
        cmocka_unit_test(test_cholesky_solve_and_logdet),
        cmocka_unit_test(test_covariance_square_root),
        cmocka_unit_test(test_forward_substitution),
        cmocka_unit_test(test_forward_substitution_summation_order),
        cmocka_unit_test(test_jitter_rescues_singular),
        cmocka_unit_test(test_subnormal_indefinite_is_an_error),
        cmocka_unit_test(test_nan_is_an_error),
        cmocka_unit_test(test_rng_is_reproducible),
        cmocka_unit_test(test_rng_paired_normals),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
