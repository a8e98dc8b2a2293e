// The phase timers (util/phase_timer.hpp, run/phase_times.hpp): a scope adds its time, also when
// left by an exception; timed() returns what its function returns; every statistic name maps to
// its phase and clock, and other names are refused. No timed thresholds: only signs and orderings.
#include "run/phase_times.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "test_util.h"

using namespace libvbmc;

// Work the optimiser cannot remove, so the clocks move.
static double busy() {
    volatile double sum = 0.0;
    for (int i = 1; i <= 200000; ++i) sum = sum + std::sqrt(static_cast<double>(i));
    return sum;
}

static void test_scope_adds_its_time(void**) {
    Elapsed e;
    { const PhaseTimer timer(e); busy(); }
    assert_true(e.wall > 0.0 && e.cpu > 0.0);
    const Elapsed first = e;
    const double value = timed(e, [] { return busy(); });
    assert_true(value > 0.0);
    assert_true(e.wall > first.wall && e.cpu > first.cpu);
}

static void test_scope_left_by_exception_adds_its_time(void**) {
    Elapsed e;
    try {
        timed(e, [] {
            busy();
            throw std::runtime_error("failed");
        });
    } catch (const std::runtime_error&) {
    }
    assert_true(e.wall > 0.0 && e.cpu > 0.0);
}

static void test_statistic_names(void**) {
    PhaseTimes t;
    Elapsed* phases[] = {&t.gp_train, &t.vp_optim, &t.acquisition, &t.final_boost, &t.locate, &t.total};
    const char* names[] = {"gp_train", "vp_optim", "acquisition", "final_boost", "locate", "total"};
    for (int p = 0; p < 6; ++p) *phases[p] = Elapsed{1.0 + p, 10.0 + p};
    for (int p = 0; p < 6; ++p) {
        double value = -1.0;
        assert_true(phase_time_stat(t, std::string("time_") + names[p], value));
        assert_true(value == 1.0 + p);
        assert_true(phase_time_stat(t, std::string("cpu_") + names[p], value));
        assert_true(value == 10.0 + p);
    }
    double value = -1.0;
    for (const char* other : {"time_", "cpu_", "time", "total", "time_boost", "wall_total", "cpu_total_"})
        assert_false(phase_time_stat(t, other, value));
    assert_true(value == -1.0);
}

int main() {
    const CMUnitTest tests[] = {cmocka_unit_test(test_scope_adds_its_time),
                                cmocka_unit_test(test_scope_left_by_exception_adds_its_time),
                                cmocka_unit_test(test_statistic_names)};
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
