// The gradient climb: its finite-difference gradient points along the slope, it climbs a narrow
// ill-conditioned bowl from far away and stops near the top, it climbs a regression's curved
// ridge with a scale parameter to its top, it stops on a failed gradient value,
// an abandoned proposal or its budget, and a climb written and read back mid-way continues bitwise;
// near a top it stops as flat once a small step leaves its model promising next to nothing;
// with workers to spare, speculative gradients take rising first trials at once, in fewer rounds.
#include "optim/gradient_climb.hpp"

#include <cmath>
#include <functional>

#include "optim_test_helpers.hpp"
#include "test_util.h"
#include "util/error.hpp"

using namespace libvbmc;
using namespace optim_test;

// Propose / evaluate / tell until the climb stops; returns the best value told.
static double run_climb(GradientClimb& climb, const Target& f, double start_value) {
    double best = start_value;
    for (std::vector<double> p = climb.propose(); !p.empty(); p = climb.propose()) {
        const double value = f(p.data());
        if (std::isfinite(value)) best = std::max(best, value);
        climb.tell(p.data(), value);
    }
    return best;
}

// On a linear target the first step is the gradient's direction: the D difference points give it
// up to rounding.
static void test_first_step_follows_the_gradient(void**) {
    const std::vector<double> slope = {3.0, -1.0, 0.5, 2.0};
    const Target linear = [&](const double* z) {
        double total = 0.0;
        for (size_t i = 0; i < slope.size(); ++i) total += slope[i] * z[i];
        return total;
    };
    const std::vector<double> start = {0.1, -0.2, 0.3, 0.05};
    GradientClimb climb(4, GradientClimbSettings{}, start.data(), linear(start.data()));
    std::vector<double> p;
    for (int d = 0; d < 4; ++d) {
        p = climb.propose();
        assert_int_equal(static_cast<int>(climb.tell(p.data(), linear(p.data()))), static_cast<int>(ClimbPoint::difference));
    }
    p = climb.propose();
    std::vector<double> step(4);
    for (int i = 0; i < 4; ++i) step[static_cast<size_t>(i)] = p[static_cast<size_t>(i)] - start[static_cast<size_t>(i)];
    const double scale = norm(step) / norm(slope);
    for (size_t i = 0; i < 4; ++i) assert_close(step[i], scale * slope[i], 1e-6 * norm(step));
    assert_int_equal(static_cast<int>(climb.tell(p.data(), linear(p.data()))), static_cast<int>(ClimbPoint::step));
}

// A climb on the narrow bowl of dimension n (drawn with `seed`) from the origin, run to its stop;
// returns the best value told, and the start's value in start_value.
static double climb_bowl(GradientClimb& climb, int n, uint64_t seed, double crawl_gain, double& start_value) {
    Rng rng(seed);
    std::vector<double> top;
    const Target bowl = narrow_bowl(n, rng, top);
    const std::vector<double> start(static_cast<size_t>(n), 0.0);
    start_value = bowl(start.data());
    climb = GradientClimb(n, GradientClimbSettings{crawl_gain, 2000}, start.data(), start_value);
    return run_climb(climb, bowl, start_value);
}

// From a start 10^3-10^4 SDs away (log density below -10^6) the climb reaches the top of a bowl
// whose SDs span a factor 100, ending when no step gains (its gradients' precision), with its
// curvature estimate positive definite.
static void test_climbs_a_narrow_bowl(void**) {
    for (int n : {2, 6}) {
        GradientClimb climb;
        double start_value = 0.0;
        const double best = climb_bowl(climb, n, static_cast<uint64_t>(20 + n), 0.0, start_value);
        assert_true(start_value < -1e6);
        assert_int_equal(static_cast<int>(climb.stop()), static_cast<int>(ClimbStop::no_ascent));
        assert_true(best > -0.1);
        Matrix l = climb.covariance();
        assert_true(cholesky_in_place(l));
    }
}

// With a crawl threshold, a climb near the top stops as flat: after a step that gained less than
// the threshold, its model promised less than a hundredth of it. Its best value is within the
// threshold of the top, and it stops sooner than a climb without a threshold (which goes on
// until no step gains). Written and read back, it is still flat.
static void test_flat_model_stops_after_one_small_step(void**) {
    for (int n : {2, 6}) {
        GradientClimb climb, exact;
        double start_value = 0.0;
        const double best = climb_bowl(climb, n, static_cast<uint64_t>(30 + n), 1.0, start_value);
        assert_true(start_value < -1e3);
        assert_int_equal(static_cast<int>(climb.stop()), static_cast<int>(ClimbStop::flat));
        assert_true(climb.at_top());
        assert_true(best > -1.0);
        climb_bowl(exact, n, static_cast<uint64_t>(30 + n), 0.0, start_value);
        assert_true(climb.evaluations() < exact.evaluations());
        Writer out;  // the new stop state survives a checkpoint
        climb.write(out);
        Reader in(out.bytes().data(), out.bytes().size());
        assert_int_equal(static_cast<int>(GradientClimb::read(in).stop()), static_cast<int>(ClimbStop::flat));
    }
}

// From coefficients about a hundred SDs off and a residual SD e times too large, the climb
// reaches the regression's top.
static void test_climbs_a_regression_ridge(void**) {
    for (int n : {3, 6}) {
        Rng rng(static_cast<uint64_t>(40 + n));
        std::vector<double> top;
        const Target target = regression(n, rng, top);
        std::vector<double> start(static_cast<size_t>(n), 0.0);
        start.back() = 1.0;
        GradientClimb climb(n, GradientClimbSettings{0.0, 3000}, start.data(), target(start.data()));
        const double best = run_climb(climb, target, target(start.data()));
        assert_true(target(start.data()) < -1e3);
        assert_true(best > -25.0 - 0.1);
    }
}

// A failed value among the difference points: no gradient, the climb stops.
static void test_failed_value_stops_the_climb(void**) {
    const Target flat_then_nan = [](const double* z) { return z[1] != 0.0 ? NAN : -z[0] * z[0]; };
    const std::vector<double> start = {0.5, 0.0};
    GradientClimb climb(2, GradientClimbSettings{}, start.data(), flat_then_nan(start.data()));
    run_climb(climb, flat_then_nan, 0.0);
    assert_int_equal(static_cast<int>(climb.stop()), static_cast<int>(ClimbStop::no_gradient));
    assert_int_equal(climb.evaluations(), 2);
}

// An abandoned proposal stops the climb; a point it never proposed is ignored.
static void test_forgotten_proposal_stops_the_climb(void**) {
    const std::vector<double> start = {0.5, 0.5};
    GradientClimb climb(2, GradientClimbSettings{}, start.data(), -0.5);
    const std::vector<double> stranger = {9.0, 9.0};
    assert_int_equal(static_cast<int>(climb.tell(stranger.data(), 1.0)), static_cast<int>(ClimbPoint::none));
    climb.forget(stranger.data());
    assert_true(climb.running());
    climb.forget(climb.propose().data());
    assert_int_equal(static_cast<int>(climb.stop()), static_cast<int>(ClimbStop::abandoned));
    assert_true(climb.propose().empty());
}

static void test_budget_stops_the_climb(void**) {
    Rng rng(3);
    std::vector<double> top;
    const Target bowl = narrow_bowl(3, rng, top);
    const std::vector<double> start(3, 0.0);
    GradientClimb climb(3, GradientClimbSettings{1.0, 10}, start.data(), bowl(start.data()));
    run_climb(climb, bowl, bowl(start.data()));
    assert_int_equal(static_cast<int>(climb.stop()), static_cast<int>(ClimbStop::max_evaluations));
    assert_int_equal(climb.evaluations(), 10);
}

// The climb written and read back proposes bitwise what the original does, one point at a time
// to the end, and stops alike.
static void continues_bitwise_after_round_trip(GradientClimb& original, const Target& f) {
    Writer out;
    original.write(out);
    Reader in(out.bytes().data(), out.bytes().size());
    GradientClimb copy = GradientClimb::read(in);
    for (;;) {
        const std::vector<double> p = original.propose(), q = copy.propose();
        assert_int_equal(static_cast<int>(p.size()), static_cast<int>(q.size()));
        if (p.empty()) break;
        assert_memory_equal(p.data(), q.data(), sizeof(double) * p.size());
        original.tell(p.data(), f(p.data()));
        copy.tell(q.data(), f(q.data()));
    }
    assert_int_equal(static_cast<int>(original.stop()), static_cast<int>(copy.stop()));
    assert_int_equal(original.evaluations(), copy.evaluations());
}

// Written after 25 values (mid-way through a gradient or a line search) and read back, the climb
// proposes bitwise what the original does, to the end.
static void test_round_trip_continues_bitwise(void**) {
    Rng rng(4);
    std::vector<double> top;
    const Target bowl = narrow_bowl(4, rng, top);
    const std::vector<double> start(4, 0.0);
    GradientClimb original(4, GradientClimbSettings{1.0, 500}, start.data(), bowl(start.data()));
    for (int i = 0; i < 25; ++i) {
        const std::vector<double> p = original.propose();
        original.tell(p.data(), bowl(p.data()));
    }
    continues_bitwise_after_round_trip(original, bowl);
}

// The best of the start value and the values told as steps.
static double best_step_value(const Target& f, const Points& steps, double start_value) {
    double best = start_value;
    for (const std::vector<double>& p : steps) best = std::max(best, f(p.data()));
    return best;
}

// With D + 1 workers the climb asks the gradient of a line search's first trial with the trial
// when the previous line search rose at its first trial, and takes such a trial at once when it
// rises: no lone refinement trial follows a batch of a trial that rose and its gradient. It
// reaches the top it reaches one point at a time, in fewer batches than waiting for each
// gradient would take.
static void test_speculative_gradients_take_rising_trials_at_once(void**) {
    for (int n : {2, 6}) {
        for (int target_kind = 0; target_kind < 2; ++target_kind) {
            Rng rng(static_cast<uint64_t>(60 + n + 10 * target_kind));
            std::vector<double> top;
            const Target f = target_kind == 0 ? narrow_bowl(n, rng, top) : regression(n, rng, top);
            std::vector<double> start(static_cast<size_t>(n), 0.0);
            start.back() = target_kind == 0 ? 0.0 : 1.0;
            const double start_value = f(start.data());
            const GradientClimbSettings settings{1.0, 100000};
            GradientClimb one(n, settings, start.data(), start_value), wide(one);
            Points steps_one, steps_wide;
            run_in_batches(one, f, 1, steps_one);
            int batches = 0, taken_at_once = 0;
            double best_wide = start_value;  // of the start and the steps told so far
            bool previous_rose_with_gradient = false;
            for (Points batch = ask_batch(wide, static_cast<size_t>(n + 1)); !batch.empty();
                 batch = ask_batch(wide, static_cast<size_t>(n + 1)), ++batches) {
                if (previous_rose_with_gradient) {
                    assert_int_not_equal(static_cast<int>(batch.size()), 1);
                    ++taken_at_once;
                }
                const size_t told_before = steps_wide.size();
                tell_batch(wide, f, batch, steps_wide);
                previous_rose_with_gradient =
                    batch.size() == static_cast<size_t>(n + 1) && f(batch.front().data()) > best_wide && wide.running();
                for (size_t i = told_before; i < steps_wide.size(); ++i) best_wide = std::max(best_wide, f(steps_wide[i].data()));
            }
            assert_true(taken_at_once > 0);
            const double best_one = best_step_value(f, steps_one, start_value);
            assert_true(best_wide > best_one - settings.crawl_gain);
            const int gradients = (one.evaluations() - static_cast<int>(steps_one.size())) / n;
            assert_true(batches < gradients + static_cast<int>(steps_one.size()));
        }
    }
}

// Batches of `width` until one of `size` points (a trial and its speculative gradient when size
// is D + 1), returned untold; empty if the climb stops first.
static Points batch_of_size(GradientClimb& climb, const Target& f, size_t width, size_t size) {
    Points steps;
    for (Points batch = ask_batch(climb, width); !batch.empty(); batch = ask_batch(climb, width)) {
        if (batch.size() == size) return batch;
        tell_batch(climb, f, batch, steps);
    }
    return {};
}

// The first line search has no speculation (no previous one rose); a speculative point
// abandoned costs only its own gradient, the climb goes on; one told after the climb has stopped
// is still known as a difference point.
static void test_speculative_points_after_a_forget_or_a_stop(void**) {
    const std::vector<double> start = {0.5, 0.5};
    const Target bowl = [](const double* z) { return -z[0] * z[0] - 4.0 * z[1] * z[1]; };
    GradientClimb climb(2, GradientClimbSettings{0.0, 1000}, start.data(), bowl(start.data()));
    Points steps;
    tell_batch(climb, bowl, ask_batch(climb, 2), steps);  // the first gradient
    assert_int_equal(static_cast<int>(ask_batch(climb, 3).size()), 1);
    climb = GradientClimb(2, GradientClimbSettings{0.0, 1000}, start.data(), bowl(start.data()));
    const Points out = batch_of_size(climb, bowl, 3, 3);
    assert_int_equal(static_cast<int>(out.size()), 3);
    const std::vector<double>& trial = out[0];
    const std::vector<double>& first = out[1];
    const std::vector<double>& second = out[2];
    assert_false(climb.has_proposal());
    climb.forget(first.data());
    assert_true(climb.running());
    climb.forget(trial.data());
    assert_int_equal(static_cast<int>(climb.stop()), static_cast<int>(ClimbStop::abandoned));
    assert_int_equal(static_cast<int>(climb.tell(second.data(), bowl(second.data()))), static_cast<int>(ClimbPoint::difference));
    assert_int_equal(static_cast<int>(climb.tell(second.data(), bowl(second.data()))), static_cast<int>(ClimbPoint::none));
}

// Written with a trial and its speculative gradient out and read back, the climb continues
// bitwise as the original.
static void test_round_trip_with_speculation_out_continues_bitwise(void**) {
    Rng rng(5);
    std::vector<double> top;
    const Target bowl = narrow_bowl(3, rng, top);
    const std::vector<double> start(3, 0.0);
    GradientClimb original(3, GradientClimbSettings{1.0, 5000}, start.data(), bowl(start.data()));
    Points steps;
    const Points out = batch_of_size(original, bowl, 4, 4);
    assert_int_equal(static_cast<int>(out.size()), 4);
    Writer w;
    original.write(w);
    Reader in(w.bytes().data(), w.bytes().size());
    GradientClimb copy = GradientClimb::read(in);
    Points steps_copy;
    tell_batch(original, bowl, out, steps);
    tell_batch(copy, bowl, out, steps_copy);
    for (;;) {
        const Points a = ask_batch(original, 4), b = ask_batch(copy, 4);
        assert_int_equal(static_cast<int>(a.size()), static_cast<int>(b.size()));
        if (a.empty()) break;
        for (size_t i = 0; i < a.size(); ++i) assert_memory_equal(a[i].data(), b[i].data(), sizeof(double) * 3);
        tell_batch(original, bowl, a, steps);
        tell_batch(copy, bowl, b, steps_copy);
    }
    assert_int_equal(original.evaluations(), copy.evaluations());
}

// A climb that never ran reads back as never run; a truncated one is refused.
static void test_read_refuses_truncation(void**) {
    Writer idle;
    GradientClimb().write(idle);
    Reader idle_in(idle.bytes().data(), idle.bytes().size());
    assert_int_equal(static_cast<int>(GradientClimb::read(idle_in).stop()), static_cast<int>(ClimbStop::not_run));
    const std::vector<double> start = {0.1, 0.2};
    GradientClimb climb(2, GradientClimbSettings{}, start.data(), 0.0);
    Writer out;
    climb.write(out);
    for (size_t cut = 0; cut < out.bytes().size(); cut += 7) {
        Reader in(out.bytes().data(), cut);
        bool refused = false;
        try {
            GradientClimb::read(in);
        } catch (const Error&) {
            refused = true;
        }
        assert_true(refused);
    }
}

// A bowl -1/2 (z - top)^T P (z - top), SDs 1e-3 to 1e-1, top within 0.2 of the origin in each
// coordinate (the first step's cap of 1 does not bind).
static Target bowl_with_precision(int n, Rng& rng, Matrix& p) {
    p = rotated_precision(n, 1e-3, 100.0, rng);
    std::vector<double> top;
    for (int i = 0; i < n; ++i) top.push_back(0.4 * rng.uniform() - 0.2);
    return [p, top](const double* z) {
        std::vector<double> d(top.size());
        for (size_t i = 0; i < d.size(); ++i) d[i] = z[i] - top[i];
        return -model_gain(std::vector<double>(d.size(), 0.0), p, d);
    };
}

// P times the climb's covariance is the identity within tol.
static void assert_inverts(const Matrix& p, const GradientClimb& climb, double tol) {
    const int n = p.rows;
    Matrix identity(n, n);
    gemm(false, false, 1.0, p, climb.covariance(), 0.0, identity);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) assert_close(identity(i, j), i == j ? 1.0 : 0.0, tol);
}

// Newton mode on a quadratic: the first batch is the whole design (D + D (D + 1) / 2 points, one
// round of workers), the next is one trial, the Newton step, at the top (its second differences
// are exact up to rounding, so the covariance it gives inverts P); the climb stops at a top in
// fewer batches than the L-BFGS climb with D + 1 workers, its covariance still the inverse of P
// after the BFGS pairs of the gradient-only steps (which pair a design's gradient with forward
// differences: with their bias left in, P times it was 5% off here, and on bench cigar_D6 the
// long axis of the inverse shrank a hundredfold).
static void test_newton_mode_steps_to_a_bowls_top(void**) {
    for (int n : {2, 6}) {
        Rng rng(static_cast<uint64_t>(90 + n));
        Matrix p;
        const Target bowl = bowl_with_precision(n, rng, p);
        const std::vector<double> start(static_cast<size_t>(n), 0.0);
        const double start_value = bowl(start.data());
        GradientClimb newton(n, GradientClimbSettings{1.0, 2000, true}, start.data(), start_value);
        GradientClimb lbfgs(n, GradientClimbSettings{1.0, 2000}, start.data(), start_value);
        const size_t design = static_cast<size_t>(n + n * (n + 1) / 2);
        Points steps;
        const Points first = ask_batch(newton, 1000);
        assert_int_equal(first.size(), design);
        tell_batch(newton, bowl, first, steps);
        // Second differences of values up to 2e4 over h^2 = 1e-8 round to about 1e-6 of the
        // smallest curvature.
        assert_true(newton.hessian_measured());
        assert_inverts(p, newton, 1e-4);
        const Points trial = ask_batch(newton, 1000);
        assert_int_equal(trial.size(), 1);
        print_message("D = %d: start %.3g, first Newton step %.3g\n", n, start_value, bowl(trial.front().data()));
        assert_true(bowl(trial.front().data()) > -1e-3);
        tell_batch(newton, bowl, trial, steps);
        const int newton_batches = 2 + run_in_batches(newton, bowl, design, steps);
        const int lbfgs_batches = run_in_batches(lbfgs, bowl, static_cast<size_t>(n + 1), steps);
        print_message("batches: Newton %d, L-BFGS %d\n", newton_batches, lbfgs_batches);
        assert_true(newton.at_top());
        assert_true(newton_batches < lbfgs_batches);
        assert_inverts(p, newton, 1e-2);
        assert_false(lbfgs.hessian_measured());
    }
}

// Newton mode written mid-way through its first design and again mid-way through the BFGS
// steps after its Newton designs, read back: the copy proposes bitwise what the original does.
static void test_newton_round_trip_continues_bitwise(void**) {
    for (int told : {5, 60}) {
        Rng rng(4);
        std::vector<double> top;
        const Target bowl = narrow_bowl(4, rng, top);
        const std::vector<double> start(4, 0.0);
        GradientClimb original(4, GradientClimbSettings{1.0, 500, true}, start.data(), bowl(start.data()));
        for (int i = 0; i < told && original.running(); ++i) {
            const std::vector<double> q = original.propose();
            original.tell(q.data(), bowl(q.data()));
        }
        continues_bitwise_after_round_trip(original, bowl);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_step_follows_the_gradient),
        cmocka_unit_test(test_climbs_a_narrow_bowl),
        cmocka_unit_test(test_climbs_a_regression_ridge),
        cmocka_unit_test(test_failed_value_stops_the_climb),
        cmocka_unit_test(test_forgotten_proposal_stops_the_climb),
        cmocka_unit_test(test_budget_stops_the_climb),
        cmocka_unit_test(test_round_trip_continues_bitwise),
        cmocka_unit_test(test_read_refuses_truncation),
        cmocka_unit_test(test_speculative_gradients_take_rising_trials_at_once),
        cmocka_unit_test(test_flat_model_stops_after_one_small_step),
        cmocka_unit_test(test_speculative_points_after_a_forget_or_a_stop),
        cmocka_unit_test(test_round_trip_with_speculation_out_continues_bitwise),
        cmocka_unit_test(test_newton_mode_steps_to_a_bowls_top),
        cmocka_unit_test(test_newton_round_trip_continues_bitwise),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
