// Gauss-Hermite rules for the standard normal: the weights sum to one, the nodes are symmetric,
// and the rule is exact for the moments E[t^k] = (k - 1)!! (k even), 0 (k odd), up to degree 2n - 1.
#include "util/gauss_hermite.hpp"

#include <cmath>
#include <initializer_list>

#include "test_util.h"

using namespace libvbmc;

static double normal_moment(int k) {
    if (k % 2 == 1) return 0.0;
    double m = 1.0;
    for (int j = k - 1; j > 1; j -= 2) m *= j;
    return m;
}

static void test_rule_integrates_moments(void**) {
    for (int n : {1, 2, 5, 10, 20, 32}) {
        const GaussHermiteRule rule = gauss_hermite_rule(n);
        assert_int_equal(rule.node.size(), n);
        for (int j = 0; j < n; ++j) {
            assert_true(rule.weight[j] > 0.0);
            assert_close(rule.node[j], -rule.node[n - 1 - j], 1e-13);
            if (j > 0) assert_true(rule.node[j] < rule.node[j - 1]);
        }
        for (int k = 0; k < 2 * n && k <= 24; ++k) {
            double sum = 0.0, size = 0.0;  // size: the scale of the rounding in the sum
            for (int j = 0; j < n; ++j) {
                sum += rule.weight[j] * std::pow(rule.node[j], k);
                size += rule.weight[j] * std::pow(std::fabs(rule.node[j]), k);
            }
            assert_close(sum, normal_moment(k), 1e-13 * size);
        }
    }
}

// Degree 2n is the first the rule misses (E[t^2] is 1, the one-node rule says 0).
static void test_rule_misses_degree_2n(void**) {
    const GaussHermiteRule one = gauss_hermite_rule(1);
    assert_close(one.node[0], 0.0, 0.0);
    assert_close(one.weight[0], 1.0, 1e-15);
    const GaussHermiteRule three = gauss_hermite_rule(3);
    double sum = 0.0;
    for (int j = 0; j < 3; ++j) sum += three.weight[j] * std::pow(three.node[j], 6);
    assert_true(std::fabs(sum - normal_moment(6)) > 1.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_integrates_moments),
        cmocka_unit_test(test_rule_misses_degree_2n),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
