// Vectorised kernel building blocks: exp_fast against std::exp (range, clamps, NaN),
// gp_kernel_row / gp_kernel_lower / gp_cross_kernel against the scalar gp_kernel, and the
// per-CPU copies and evaluation orders of the kernel against each other (bitwise).
#include <cmath>

#include "gp/gp.hpp"
#include "gp_test_data.hpp"
#include "test_util.h"
#include "util/fast_exp.hpp"

using namespace libvbmc;
using namespace libvbmc_test;

static void test_exp_fast_matches_std_exp(void**) {
    for (double x = -707.5; x <= 708.5; x += 0.37) {
        const double ref = std::exp(x);
        assert_close(exp_fast(x) / ref, 1.0, 5e-16);  // within 2 ulp
    }
    assert_true(exp_fast(-708.5) == 0.0 && !std::signbit(exp_fast(-708.5)));
    assert_true(exp_fast(-1e300) == 0.0);
    assert_true(exp_fast(-INFINITY) == 0.0);
    assert_close(exp_fast(-708.0) / std::exp(-708.0), 1.0, 1e-15);
    assert_true(exp_fast(710.0) == exp_fast(709.0));
    assert_true(exp_fast(INFINITY) == exp_fast(709.0));
    assert_true(std::isfinite(exp_fast(709.0)));
    assert_true(exp_fast(0.0) == 1.0 && exp_fast(-0.0) == 1.0);
    assert_true(std::isnan(exp_fast(NAN)));
    assert_true(std::isnan(exp_fast(-NAN)));
}

// m test points uniform in [-2, 2]^dim.
static Matrix test_points(int m, int dim, Rng& rng) {
    Matrix xs(m, dim);
    for (double& v : xs.data) v = 4.0 * rng.uniform() - 2.0;
    return xs;
}

static void test_kernel_matrices_match_scalar_kernel(void**) {
    Rng rng(5);
    const int dim = 3, n = 23, m = 17;
    const GpData data = make_data(n, dim, rng, false);
    const std::vector<double> theta = make_theta(dim, rng);
    const Matrix xs = test_points(m, dim, rng);

    const Matrix cross = gp_cross_kernel(data.x, xs, theta.data(), dim);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j) {
            const double ref = gp_kernel(data.x.row(i), xs.row(j), theta.data(), dim);
            assert_close(cross(i, j), ref, 1e-14 * ref + 1e-300);
        }

    Matrix z(n, dim);
    for (int i = 0; i < n; ++i)
        for (int d = 0; d < dim; ++d) z(i, d) = data.x(i, d) * std::exp(-theta[hyp::log_ell(d)]);
    Matrix lower(n, n, -1.0);
    gp_kernel_lower(z, 2.0 * theta[hyp::log_sf(dim)], lower);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            if (j < i) {
                const double ref = gp_kernel(data.x.row(i), data.x.row(j), theta.data(), dim);
                assert_close(lower(i, j), ref, 1e-14 * ref + 1e-300);
            } else {
                assert_true(lower(i, j) == -1.0);  // diagonal and upper triangle untouched
            }
        }
}

// Every copy of the kernel row this CPU runs gives bitwise the baseline's values, over a row
// of two register blocks and a tail, and any prefix of the row equals the full row's start.
static void test_kernel_row_copies_agree(void**) {
    Rng rng(17);
    const int dim = 7, m = 75;
    std::vector<double> a(dim), b(static_cast<size_t>(dim) * m);
    for (double& v : a) v = 3.0 * rng.uniform() - 1.5;
    for (double& v : b) v = 3.0 * rng.uniform() - 1.5;
    std::vector<double> baseline(m), row(m), prefix(m);
    gp_kernel_row_on(VectorIsa::baseline, a.data(), b.data(), m, dim, m, 0.3, baseline.data());
    for (int j = 0; j < m; ++j) {
        double r2 = 0.0;
        for (int d = 0; d < dim; ++d) {
            const double diff = a[d] - b[static_cast<size_t>(d) * m + j];
            r2 += diff * diff;
        }
        assert_close(baseline[j], std::exp(0.3 - 0.5 * r2), 1e-14 * baseline[j]);
    }
    for (VectorIsa isa : {VectorIsa::avx512, VectorIsa::avx2_fma}) {
        if (!cpu_supports(isa)) continue;
        gp_kernel_row_on(isa, a.data(), b.data(), m, dim, m, 0.3, row.data());
        for (int j = 0; j < m; ++j) assert_true(row[j] == baseline[j]);
    }
    for (int count : {1, 9, 32, 33, 64}) {
        gp_kernel_row(a.data(), b.data(), m, dim, count, 0.3, prefix.data());
        for (int j = 0; j < count; ++j) assert_true(prefix[j] == baseline[j]);
    }
}

// The cross kernel is formed by rows for many test points and by columns for a few; a column is
// bitwise the same whichever way it was formed.
static void test_cross_kernel_orders_agree(void**) {
    Rng rng(23);
    const int dim = 5, n = 40, m = 36;
    const GpData data = make_data(n, dim, rng, false);
    const std::vector<double> theta = make_theta(dim, rng);
    const Matrix xs = test_points(m, dim, rng);
    const Matrix by_rows = gp_cross_kernel(data.x, xs, theta.data(), dim);
    for (int count : {1, 10, 31}) {
        Matrix few(count, dim);
        for (int j = 0; j < count; ++j)
            for (int d = 0; d < dim; ++d) few(j, d) = xs(j, d);
        const Matrix by_columns = gp_cross_kernel(data.x, few, theta.data(), dim);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < count; ++j) assert_true(by_columns(i, j) == by_rows(i, j));
    }
}

static void test_mean_rows_equal_scalar_mean(void**) {
    Rng rng(9);
    const int dim = 4, m = 11;
    const std::vector<double> theta = make_theta(dim, rng);
    Matrix xs(m, dim);
    for (double& v : xs.data) v = 6.0 * rng.uniform() - 3.0;
    std::vector<double> rows(m);
    gp_mean_rows(xs.data.data(), m, theta.data(), dim, 0.0, rows.data());
    for (int j = 0; j < m; ++j) assert_true(rows[j] == gp_mean(xs.row(j), theta.data(), dim, 0.0));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exp_fast_matches_std_exp),
        cmocka_unit_test(test_kernel_matrices_match_scalar_kernel),
        cmocka_unit_test(test_kernel_row_copies_agree),
        cmocka_unit_test(test_cross_kernel_orders_agree),
        cmocka_unit_test(test_mean_rows_equal_scalar_mean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
