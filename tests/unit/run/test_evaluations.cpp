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

// MATLAB VBMC noiseshaping_vbmc: s2 + (factor * max(0, best - y - threshold))^2, the extra
// variance capped at 1e10 * TolGPNoise^2 = 1e5; nothing when off.
static void test_noise_shaping_formula(void**) {
    ValueShaping s;
    s.threshold = 20.0;
    s.factor = 0.05;
    assert_close(noise_shaping_variance(-100.0, 0.0, s), 0.0, 0.0);  // off
    s.noise_shaping = true;
    assert_close(noise_shaping_variance(-15.0, 0.0, s), 0.0, 0.0);   // within the threshold
    assert_close(noise_shaping_variance(-20.0, 0.0, s), 0.0, 0.0);
    assert_close(noise_shaping_variance(-100.0, 0.0, s), std::pow(0.05 * 80.0, 2), 1e-14);
    assert_close(noise_shaping_variance(-100.0, 10.0, s), std::pow(0.05 * 90.0, 2), 1e-13);
    assert_close(noise_shaping_variance(-1e9, 0.0, s), kMaxShapingVariance, 0.0);
    const SurrogatePoint p = surrogate_point(-100.0, 1.5, 0.0, s);
    assert_close(p.y, -100.0, 0.0);
    assert_close(p.s2, 1.5 * 1.5 + std::pow(0.05 * 80.0, 2), 1e-13);
    // A floored value is shaped at the floor.
    const SurrogatePoint far = surrogate_point(-1e7, 0.0, 0.0, s);
    assert_close(far.y, -kSurrogateFloorGap, 0.0);
    assert_close(far.s2, kMaxShapingVariance, 0.0);
}

// The builder's training data and the value each tell brings to the search surrogate agree (the
// same target and own variance for the last point told), with noise shaping and a reference value.
static void test_builder_and_tell_agree(void**) {
    EvaluationLog log;
    const double values[] = {-1.0, -3.0, -40.0, -0.5, -300.0};
    const double sds[] = {1.0, 0.0, 2.0, 0.5, 1.0};
    for (int i = 0; i < 5; ++i) {
        Evaluation e = evaluation(static_cast<double>(i), values[i]);
        e.log_joint_sd = sds[i];
        log.add(e);
    }
    ValueShaping s;
    s.noise_shaping = true;
    s.threshold = 10.0;
    s.factor = 0.05;
    s.reference = -1.5;  // a robust best value below the largest noisy one
    const GpData data = log.training_data(log.training_index(), 1, s);
    assert_int_equal(data.size(), 5);
    for (int i = 0; i < 5; ++i) {
        const double y = values[i] + 0.5;
        const double beyond = std::max(0.0, s.reference - y - s.threshold);
        assert_close(data.y[i], y, 0.0);
        assert_close(data.s2[i], sds[i] * sds[i] + std::pow(0.05 * beyond, 2), 1e-12);
        const SurrogatePoint told = log.told_surrogate_point(i, s);
        assert_close(told.y, data.y[i], 0.0);
        assert_close(told.s2, data.s2[i], 0.0);
    }
    // Without a reference, the largest value among the points is the best.
    s.reference = NAN;
    const GpData own = log.training_data(log.training_index(), 1, s);
    assert_close(own.s2[4], 1.0 + std::pow(0.05 * (300.0 - 0.5 - 10.0), 2), 1e-10);
    assert_close(own.mean_dof, 0.0, 0.0);
    // The mean shape travels with the recipe, and through a checkpoint.
    s.mean_dof = 4.0;
    assert_close(log.training_data(log.training_index(), 1, s).mean_dof, 4.0, 0.0);
    Writer out;
    s.write(out);
    Reader in(out.bytes().data(), out.bytes().size());
    assert_close(ValueShaping::read(in).mean_dof, 4.0, 0.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_training_data_floors_far_values),
        cmocka_unit_test(test_penalty_cut),
        cmocka_unit_test(test_told_surrogate_value),
        cmocka_unit_test(test_noise_shaping_formula),
        cmocka_unit_test(test_builder_and_tell_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
