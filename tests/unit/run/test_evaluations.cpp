// The evaluation log's training data: failed and trimmed evaluations left out, the transformed
// log joint as the target, and values far below the best floored at best - kSurrogateFloorGap.
#include "run/evaluations.hpp"

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
    log.add(evaluation(1.0, -1e300));   // a penalty value
    log.add(evaluation(2.0, NAN));      // failed: never in the training set
    log.add(evaluation(3.0, -3e5));     // far below, but within the gap: as told
    log.add(evaluation(4.0, -2.0 - kSurrogateFloorGap - 1.0));
    Evaluation trimmed = evaluation(5.0, 10.0);
    trimmed.in_training = false;
    log.add(trimmed);
    const std::vector<int> index = log.training_index();
    assert_int_equal(index.size(), 4);
    assert_int_equal(index[1], 1);
    assert_int_equal(index[2], 3);
    const GpData data = log.training_data(index, 1);
    const double best = -2.0 + 0.5;
    assert_close(log.max_training_value(), best, 0.0);
    assert_close(data.y[0], best, 0.0);
    assert_close(data.y[1], best - kSurrogateFloorGap, 0.0);
    assert_close(data.y[2], -3e5 + 0.5, 0.0);
    assert_close(data.y[3], best - kSurrogateFloorGap, 0.0);
    assert_close(data.x(2, 0), 3.0, 0.0);
    // The same through the transform of another iteration (an affine map: constant Jacobian).
    const double lb = -INFINITY, ub = INFINITY, plb = -3.0, pub = 5.0;
    const ParameterTransform affine(1, &lb, &ub, &plb, &pub, ParameterTransform::Bounded::logit);
    const GpData again = log.training_data(index, affine);
    assert_close(again.y[1], again.y[0] - kSurrogateFloorGap, 0.0);
    assert_close(again.y[3], again.y[0] - kSurrogateFloorGap, 0.0);
    assert_close(again.y[2] - again.y[0], -3e5 + 2.0, 1e-9);
    assert_close(surrogate_value(-5.0, 0.0), -5.0, 0.0);
    assert_close(surrogate_value(-1e300, 0.0), -kSurrogateFloorGap, 0.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_training_data_floors_far_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
