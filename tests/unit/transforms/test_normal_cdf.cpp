// Normal CDF and quantile against high-precision reference values (mpmath, 30 digits).
#include "transforms/normal_cdf.hpp"

#include <cfloat>
#include <cmath>

#include "test_util.h"
#include "util/error.hpp"

using namespace libvbmc;

static void test_quantile_reference_values(void**) {
    assert_close(normal_quantile(0.5), 0.0, 0.0);
    assert_close(normal_quantile(0.975), 1.9599639845400542355, 4e-16 * 2.0);
    assert_close(normal_quantile(0.3), -0.52440051270804078404, 4e-16);
    assert_close(normal_quantile(1e-10), -6.3613409024040562047, 4e-16 * 7.0);
    assert_close(normal_quantile(1e-300), -37.047096299361199237, 4e-16 * 40.0);
    // Smallest subnormal: finite. Phi is only resolved to one subnormal step here, so every y within
    // ~1/38 of the root gives Phi(y) == p; ask for that accuracy only.
    assert_close(normal_quantile(4.9406564584124654e-324), -38.467405617144346251, 1e-2);
    assert_true(normal_quantile(0.0) == -INFINITY);
    assert_true(normal_quantile(1.0) == INFINITY);
}

static void test_quantile_inverts_cdf_across_tail(void**) {
    // Phi(Phi^{-1}(p)) = p to a few ulp for p from 1e-300 to 0.5, and symmetry Phi^{-1}(1-p) = -Phi^{-1}(p).
    for (double log10_p = -300.0; log10_p <= std::log10(0.5); log10_p += 0.37) {
        const double p = std::pow(10.0, log10_p);
        const double y = normal_quantile(p);
        assert_close(normal_cdf(y) / p, 1.0, 1e-14 * (1.0 + std::fabs(y)));
        if (p > 1e-3) assert_close(normal_quantile(1.0 - p), -y, 1e-15 * (1.0 + std::fabs(y)) + 1e-16 / p);
    }
}

static void test_cdf_tail_and_centre(void**) {
    assert_close(normal_cdf(0.0), 0.5, 0.0);
    // Phi(-10) = 7.6198530241604...e-24 (relative accuracy in the tail).
    assert_close(normal_cdf(-10.0) / 7.6198530241605260659e-24, 1.0, 1e-14);
    assert_close(normal_cdf(1.0) + normal_cdf(-1.0), 1.0, 1e-16);
}

static void test_quantile_rejects_invalid_probability(void**) {
    for (double p : {-1e-300, 1.5, std::nan("")}) {
        bool threw = false;
        try {
            normal_quantile(p);
        } catch (const Error& e) {
            threw = e.code() == Code::numeric;
        }
        assert_true(threw);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantile_reference_values),
        cmocka_unit_test(test_quantile_inverts_cdf_across_tail),
        cmocka_unit_test(test_cdf_tail_and_centre),
        cmocka_unit_test(test_quantile_rejects_invalid_probability),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
