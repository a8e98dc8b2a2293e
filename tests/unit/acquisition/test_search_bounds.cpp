// Expanding search box of active sampling.
#include "acquisition/search_bounds.hpp"

#include <cmath>

#include "test_util.h"

using namespace libvbmc;

static void test_initial_box(void**) {
    std::vector<double> lb_search, ub_search;
    initial_search_bounds({-1.0, 0.0}, {1.0, 1.0}, {-INFINITY, -0.5}, {INFINITY, 1.5}, 2.0, lb_search, ub_search);
    assert_close(lb_search[0], -5.0, 0.0);
    assert_close(ub_search[0], 5.0, 0.0);
    assert_close(lb_search[1], -0.5, 0.0);  // cut to the hard bound
    assert_close(ub_search[1], 1.5, 0.0);
}

static void test_expansion_near_edges_only(void**) {
    std::vector<double> lb_search{-5.0, -5.0, -5.0}, ub_search{5.0, 5.0, 5.0};
    const std::vector<double> lb{-INFINITY, -5.2, -INFINITY}, ub{INFINITY, INFINITY, INFINITY};
    const double x[3] = {4.8, -4.9, 0.0};
    expand_search_bounds(x, 3.0, 20.0, lb, ub, lb_search, ub_search);
    assert_close(ub_search[0], 5.5, 1e-15);   // within 0.5 of the upper side: widened by 0.5
    assert_close(lb_search[0], -5.0, 0.0);
    assert_close(lb_search[1], -5.2, 0.0);    // widened, but not past the hard bound
    assert_close(ub_search[1], 5.0, 0.0);
    assert_close(lb_search[2], -5.0, 0.0);    // interior point: unchanged
    assert_close(ub_search[2], 5.0, 0.0);
}

// A point far below the best value (or a failed one) leaves the box as it is.
static void test_no_expansion_toward_implausible_points(void**) {
    std::vector<double> lb_search{-5.0}, ub_search{5.0};
    const std::vector<double> lb{-INFINITY}, ub{INFINITY};
    const double x[1] = {5.0};
    expand_search_bounds(x, 25.0, 20.0, lb, ub, lb_search, ub_search);
    expand_search_bounds(x, NAN, 20.0, lb, ub, lb_search, ub_search);
    assert_close(ub_search[0], 5.0, 0.0);
    expand_search_bounds(x, 20.0, 20.0, lb, ub, lb_search, ub_search);
    assert_close(ub_search[0], 5.5, 1e-15);
    expand_search_bounds(x, -INFINITY, 20.0, lb, ub, lb_search, ub_search);  // a new best
    assert_close(ub_search[0], 6.025, 1e-14);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_initial_box),
        cmocka_unit_test(test_expansion_near_edges_only),
        cmocka_unit_test(test_no_expansion_toward_implausible_points),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
