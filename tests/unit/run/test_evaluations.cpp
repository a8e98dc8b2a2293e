// The evaluation log's training data: failed, trimmed and penalty evaluations left out, the
// transformed log joint as the target, and values far below the best floored at
// best - kSurrogateFloorGap; the penalty rule itself, and the value each tell brings.
#include "run/evaluations.hpp"

#include <cfloat>
#include <cmath>

#include "test_util.h"

using namespace libvbmc;

static Evaluation evaluation(double z0, double log_joint) {
    Evaluation e;
    e.x = {z0};
    e.z = {z0};
    e.log_joint = log_joint;
    e.log_jacobian = 0.5;
    e.failed = !std::isfinite(log_joint);
    return e;
}

static void test_training_data_floors_far_values(void**) {
    EvaluationLog log;
    log.add(evaluation(0.0, -2.0));
    log.add(evaluation(1.0, -1e300));   // a penalty: far below, 1e3 times further than the rest
    log.add(evaluation(2.0, NAN));      // failed: never in the training set
    log.add(evaluation(3.0, -3e5));     // far below, but within the gap: as told
    log.add(evaluation(4.0, -2.0 - kSurrogateFloorGap - 1.0));  // beyond the gap: floored
    Evaluation trimmed = evaluation(5.0, 10.0);
    trimmed.in_training = false;
    log.add(trimmed);
    const std::vector<int> index = log.training_index();
    assert_int_equal(index.size(), 3);
    assert_int_equal(index[1], 3);
    assert_int_equal(index[2], 4);
    assert_int_equal(log.penalty_count(), 1);
    const GpData data = log.training_data(index, 1);
    const double best = -2.0 + 0.5;
    assert_close(log.max_training_value(), best, 0.0);
    assert_close(data.y[0], best, 0.0);
    assert_close(data.y[1], -3e5 + 0.5, 0.0);
    assert_close(data.y[2], best - kSurrogateFloorGap, 0.0);
    assert_close(data.x(1, 0), 3.0, 0.0);
    // The same through the transform of another iteration (an affine map: constant Jacobian).
    const double lb = -INFINITY, ub = INFINITY, plb = -3.0, pub = 5.0;
    const ParameterTransform affine(1, &lb, &ub, &plb, &pub, ParameterTransform::Bounded::logit);
    const GpData again = log.training_data(index, affine);
    assert_close(again.y[2], again.y[0] - kSurrogateFloorGap, 0.0);
    assert_close(again.y[1] - again.y[0], -3e5 + 2.0, 1e-9);
    assert_close(surrogate_value(-5.0, 0.0), -5.0, 0.0);
    assert_close(surrogate_value(-1e300, 0.0), -kSurrogateFloorGap, 0.0);
}

// Penalties: below the top three, more than 1e5 below the best and 1e3 times further than the value
// above; genuine values spread evenly over orders of magnitude never are.
static void test_penalty_cut(void**) {
    auto none = [](double cut) { return std::isinf(cut) && cut < 0; };
    assert_true(none(penalty_cut({0, -1, -10, -1e2, -1e3, -1e4, -1e5, -1e6, -1e7, -1e8, -1e9})));
    assert_close(penalty_cut({-1e300, 0, -DBL_MAX, -2, -1}), -2.0, 0.0);
    assert_close(penalty_cut({0, -1, -2, -3, -2e5, -1e300}), -3.0, 0.0);
    assert_true(none(penalty_cut({0, -1, -2, -3, -5e4})));     // within 1e5 of the best
    assert_true(none(penalty_cut({0, -1, -200, -1.5e5})));     // less than 1e3 times 200 further
    assert_close(penalty_cut({0, -1, -200, -3e5}), -200.0, 0.0);
    assert_true(none(penalty_cut({0, -1, -1e300})));           // fewer than three above
    assert_true(none(penalty_cut({})));
}

// A tell is judged among the evaluations told up to it, as the checkpoint replay judges it.
static void test_told_surrogate_value(void**) {
    EvaluationLog log;
    log.add(evaluation(0.0, -1.0));
    log.add(evaluation(1.0, -1e300));  // fewer than three values above it when told: floored data
    log.add(evaluation(2.0, -2.0));
    log.add(evaluation(3.0, -3.0));
    log.add(evaluation(4.0, -1e300));  // a penalty when told
    log.add(evaluation(5.0, NAN));
    assert_true(log.is_data_when_told(1));
    assert_close(log.told_surrogate_point(1, {}).y, -0.5 - kSurrogateFloorGap, 0.0);
    assert_close(log.told_surrogate_point(3, {}).y, -2.5, 0.0);
    assert_false(log.is_data_when_told(4));
    assert_true(std::isnan(log.told_surrogate_point(4, {}).y));
    assert_true(std::isnan(log.told_surrogate_point(5, {}).y));
    // Judged among all six, both -1e300 are penalties and leave the training set.
    assert_int_equal(log.training_index().size(), 3);
    assert_int_equal(log.penalty_count(), 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_training_data_floors_far_values),
        cmocka_unit_test(test_penalty_cut),
        cmocka_unit_test(test_told_surrogate_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
