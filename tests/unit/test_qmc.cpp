// Randomised quasi-Monte Carlo normals: the recurrence's constants, exact N(0, I) marginals
// (unbiased averages), and a smaller spread between calls than independent draws.
#include "util/qmc.hpp"

#include <cmath>
#include <vector>

#include "test_util.h"

using namespace libvbmc;

// phi_1 is the golden ratio and phi_2 the plastic number (root of x^3 = x + 1).
static void test_alpha_constants(void**) {
    const std::vector<double> a1 = kronecker_alpha(1);
    assert_int_equal(a1.size(), 1);
    assert_close(a1[0], (std::sqrt(5.0) - 1.0) / 2.0, 1e-15);
    const double plastic = 1.324717957244746;
    const std::vector<double> a2 = kronecker_alpha(2);
    assert_close(a2[0], 1.0 / plastic, 1e-14);
    assert_close(a2[1], 1.0 / (plastic * plastic), 1e-14);
    for (int s : {3, 6, 12, 40}) {
        const std::vector<double> a = kronecker_alpha(s);
        double phi = 1.0 / a[0];
        assert_close(std::pow(phi, s + 1), phi + 1.0, 1e-12);
        for (int k = 1; k < s; ++k) assert_true(a[k] > 0.0 && a[k] < a[k - 1]);
    }
}

// Mean over one call's n points of f(x) = sum_d x_d^2 + x_0 (expectation dim): across calls with
// independent shifts the average is unbiased, and its spread is well below sqrt(2 dim / n), the
// spread of n independent draws. An odd dimension fills its last coordinate too.
static void check_moments(int dim, int n) {
    const int calls = 200;
    std::vector<double> pts(static_cast<size_t>(n) * dim);
    double sum = 0.0, sum_sq = 0.0;
    for (int c = 0; c < calls; ++c) {
        Rng rng(500 + c);
        KroneckerNormals(dim).draw(rng, n, pts.data());
        double f = 0.0;
        for (int i = 0; i < n; ++i) {
            const double* x = pts.data() + static_cast<size_t>(i) * dim;
            assert_true(std::isfinite(x[dim - 1]) && x[dim - 1] != 0.0);
            f += x[0];
            for (int d = 0; d < dim; ++d) f += x[d] * x[d];
        }
        f /= n;
        sum += f;
        sum_sq += f * f;
    }
    const double mean = sum / calls, sd = std::sqrt(sum_sq / calls - mean * mean);
    const double iid_sd = std::sqrt((2.0 * dim + 1.0) / n);
    print_message("dim %d, n %d: mean %.5f (expect %d), SD %.5f, iid SD %.5f\n", dim, n, mean, dim, sd, iid_sd);
    assert_close(mean, dim, 4.0 * sd / std::sqrt(calls));
    assert_true(sd < 0.6 * iid_sd);
}

static void test_unbiased_and_less_spread(void**) {
    check_moments(1, 256);
    check_moments(3, 512);
    check_moments(6, 543);
}

// The same generator state gives the same points; the generator advances by one uniform per
// coordinate of the shift.
static void test_reproducible(void**) {
    Rng a(9), b(9);
    std::vector<double> pa(5 * 40), pb(5 * 40);
    const KroneckerNormals lattice(5);
    lattice.draw(a, 40, pa.data());
    lattice.draw(b, 40, pb.data());
    for (size_t i = 0; i < pa.size(); ++i) assert_true(pa[i] == pb[i]);
    Rng c(9);
    for (int k = 0; k < 6; ++k) c.uniform();
    assert_true(a.next_u64() == c.next_u64());
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alpha_constants),
        cmocka_unit_test(test_unbiased_and_less_spread),
        cmocka_unit_test(test_reproducible),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
