// The run's prior: per-coordinate priors sum, a missing coordinate or a lost callback is named,
// per-coordinate priors and a callback exclude each other, a callback's NaN or +inf is refused,
// and a checkpoint keeps the coordinates and the fact that there was a callback.
#include "prior/prior.hpp"

#include <cmath>
#include <functional>

#include "util/error.hpp"
#include "test_util.h"

using namespace libvbmc;

static CoordinatePrior coordinate(const char* kind, std::vector<double> params) {
    return make_coordinate_prior(0, kind, params.data(), static_cast<int>(params.size()));
}

static void expect_error(const std::function<void()>& call, Code code, const char* needle) {
    try {
        call();
    } catch (const Error& e) {
        assert_int_equal(static_cast<int>(e.code()), static_cast<int>(code));
        assert_message_mentions(e.what(), needle);
        return;
    }
    fail_msg("no error; expected one mentioning \"%s\"", needle);
}

static void test_coordinates_sum(void**) {
    Prior prior(3);
    assert_false(prior.given());
    prior.set_coordinate(0, coordinate("gaussian", {0, 1}));
    prior.set_coordinate(2, coordinate("uniform", {0, 4}));
    assert_true(prior.given());
    expect_error([&] { prior.require_ready(); }, Code::state, "coordinate 1 has no prior");
    prior.set_coordinate(1, coordinate("lognormal", {0, 1}));
    prior.require_ready();
    const double x[3] = {0.5, 1.0, 3.0};
    const double expected = coordinate("gaussian", {0, 1}).log_pdf(0.5) + coordinate("lognormal", {0, 1}).log_pdf(1.0) - std::log(4.0);
    assert_close(prior.log_density(x), expected, 1e-15);
    const double outside[3] = {0.5, -1.0, 3.0};
    assert_true(std::isinf(prior.log_density(outside)) && prior.log_density(outside) < 0);
    assert_string_equal(prior.describe().c_str(), "gaussian on x[0], lognormal on x[1], uniform on x[2]");
    expect_error([&] { prior.set_callback([](const double*) { return 0.0; }); }, Code::state,
                 "the run has per-coordinate priors: a prior is either per coordinate (vbmc_set_prior) or a callback");
}

static void test_callback_values(void**) {
    Prior prior(2);
    double returned = -1.5;
    prior.set_callback([&](const double* x) { return returned + x[0]; });
    prior.require_ready();
    const double x[2] = {0.25, 9.0};
    assert_close(prior.log_density(x), -1.25, 0.0);
    returned = -INFINITY;
    assert_true(std::isinf(prior.log_density(x)));
    for (double bad : {double(NAN), double(INFINITY), 2e150}) {
        returned = bad;
        expect_error([&] { prior.log_density(x); }, Code::arg, "the log prior callback returned");
    }
    returned = NAN;
    expect_error([&] { prior.log_density(x); }, Code::arg, "returned nan: a log prior density is finite (at most 1e150) or -INFINITY");
    expect_error([&] { prior.set_coordinate(1, coordinate("gaussian", {0, 1})); }, Code::state, "the run has a prior callback");
    assert_string_equal(prior.describe().c_str(), "a callback");
}

static Prior round_trip(const Prior& prior, int dim) {
    Writer out;
    prior.write(out);
    Reader in(out.bytes().data(), out.bytes().size());
    Prior back = Prior::read(in, dim);
    assert_int_equal(in.remaining(), 0);
    return back;
}

static void test_checkpoint(void**) {
    Prior none(2);
    assert_false(round_trip(none, 2).given());
    Prior coords(2);
    coords.set_coordinate(1, coordinate("smoothbox", {0, 1, 0.5}));
    const Prior back = round_trip(coords, 2);
    assert_true(back.source() == Prior::Source::coordinates);
    expect_error([&] { back.require_ready(); }, Code::state, "coordinate 0 has no prior");
    assert_string_equal(back.describe().c_str(), "none on x[0], smoothbox on x[1]");
    Prior callback(2);
    callback.set_callback([](const double*) { return 0.0; });
    Prior lost = round_trip(callback, 2);
    assert_true(lost.callback_missing());
    expect_error([&] { lost.require_ready(); }, Code::state, "call vbmc_set_prior_fn again after vbmc_load");
    lost.set_callback([](const double*) { return 2.0; });
    lost.require_ready();
    const double x[2] = {0, 0};
    assert_close(lost.log_density(x), 2.0, 0.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coordinates_sum),
        cmocka_unit_test(test_callback_values),
        cmocka_unit_test(test_checkpoint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
