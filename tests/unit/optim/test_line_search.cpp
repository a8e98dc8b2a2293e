// The line search: on a parabola its first refinement lands on the vertex; a step too long is
// shortened by interpolation and a failed value by a tenth; a short first step is extended
// towards the vertex; it gives up below its shortest step; a search written and read back
// mid-way continues bitwise.
#include "optim/line_search.hpp"

#include <cmath>
#include <functional>

#include "test_util.h"
#include "util/error.hpp"

using namespace libvbmc;

using Phi = std::function<double(double)>;

// phi(t) = f0 + slope t - curvature t^2 / 2, maximal at slope / curvature.
static Phi parabola(double f0, double slope, double curvature) {
    return [=](double t) { return f0 + slope * t - 0.5 * curvature * t * t; };
}

static int run_search(LineSearch& search, const Phi& phi) {
    int evaluations = 0;
    while (!search.done()) {
        search.tell(phi(search.next_step()));
        ++evaluations;
    }
    return evaluations;
}

// First step at the vertex's half: the rise is sufficient, the refinement extrapolates to the
// vertex exactly (the quadratic through phi(0), phi'(0) and phi(t) is phi itself), and the
// search ends when a further step does not rise by a tenth of the gain.
static void test_extends_a_short_step_to_the_vertex(void**) {
    const Phi phi = parabola(-3.0, 2.0, 0.5);  // vertex at t = 4
    LineSearch search(phi(0.0), 2.0, 2.0, 1e-12, 100.0);
    run_search(search, phi);
    assert_true(search.rose());
    assert_close(search.best_step(), 4.0, 1e-12);
    assert_close(search.best_value(), phi(4.0), 1e-12);
}

// First step at eight times the vertex: phi falls far below phi(0); the backtrack goes to the
// vertex of the interpolating quadratic, clamped to [0.1, 0.5] of the step.
static void test_backtracks_by_interpolation(void**) {
    const Phi phi = parabola(0.0, 1.0, 1.0);  // vertex at t = 1
    LineSearch search(0.0, 1.0, 8.0, 1e-12, 8.0);
    search.tell(phi(8.0));
    assert_false(search.done());
    assert_close(search.next_step(), 1.0, 1e-12);  // the vertex, inside [0.8, 4]
}

static void test_failed_value_shrinks_tenfold(void**) {
    LineSearch search(0.0, 1.0, 5.0, 1e-12, 5.0);
    search.tell(NAN);
    assert_false(search.done());
    assert_close(search.next_step(), 0.5, 1e-15);
    assert_false(search.rose());
}

// A function that only falls: the search ends without a rise once the step would fall below
// the shortest step.
static void test_gives_up_below_the_shortest_step(void**) {
    const Phi falling = [](double t) { return -t; };
    LineSearch search(0.0, 1.0, 1.0, 1e-3, 1.0);
    const int evaluations = run_search(search, falling);
    assert_false(search.rose());
    assert_true(evaluations <= LineSearch::kMaxBacktracks + 1);
    assert_true(search.next_step() < 1e-3);
}

// A rise below Armijo's fraction of the slope's prediction does not count.
static void test_insufficient_rise_is_no_rise(void**) {
    LineSearch search(0.0, 1.0, 1.0, 1e-12, 1.0);
    search.tell(1e-5);  // the slope predicts 1; Armijo asks for 1e-4
    assert_false(search.rose());
    assert_false(search.done());
}

static void test_round_trip_continues_bitwise(void**) {
    const Phi phi = [](double t) { return std::sin(t) - 0.1 * t * t; };
    LineSearch original(0.0, 1.0, 3.0, 1e-9, 12.0);
    original.tell(phi(original.next_step()));
    Writer out;
    original.write(out);
    Reader in(out.bytes().data(), out.bytes().size());
    LineSearch copy = LineSearch::read(in);
    while (!original.done()) {
        const double a = original.next_step(), b = copy.next_step();
        assert_memory_equal(&a, &b, sizeof(double));
        const double value = phi(original.next_step());
        original.tell(value);
        copy.tell(value);
    }
    assert_true(copy.done());
    const double a = original.best_step(), b = copy.best_step();
    assert_memory_equal(&a, &b, sizeof(double));
}

static void test_refuses_bad_arguments_and_state(void**) {
    bool refused = false;
    try {
        LineSearch(0.0, -1.0, 1.0, 0.0, 1.0);
    } catch (const Error&) {
        refused = true;
    }
    assert_true(refused);
    LineSearch search(0.0, 1.0, 1.0, 0.0, 1.0);
    Writer out;
    search.write(out);
    for (size_t cut = 0; cut < out.bytes().size(); cut += 5) {
        Reader in(out.bytes().data(), cut);
        refused = false;
        try {
            LineSearch::read(in);
        } catch (const Error&) {
            refused = true;
        }
        assert_true(refused);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extends_a_short_step_to_the_vertex),
        cmocka_unit_test(test_backtracks_by_interpolation),
        cmocka_unit_test(test_failed_value_shrinks_tenfold),
        cmocka_unit_test(test_gives_up_below_the_shortest_step),
        cmocka_unit_test(test_insufficient_rise_is_no_rise),
        cmocka_unit_test(test_round_trip_continues_bitwise),
        cmocka_unit_test(test_refuses_bad_arguments_and_state),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
