// Slice sampler: moments of a correlated 2-D Gaussian within Monte Carlo error, bounds respected,
// fixed coordinates untouched, reproducible given the seed.
#include <cmath>

#include "gp/slice_sample.hpp"
#include "test_util.h"
#include "util/error.hpp"

using namespace libvbmc;

// N(mu, Sigma) with sd (1, 2) and correlation 0.8.
static const double kMu[2] = {1.0, -2.0}, kSd[2] = {1.0, 2.0}, kRho = 0.8;

static double correlated_gaussian(const std::vector<double>& x) {
    const double u = (x[0] - kMu[0]) / kSd[0], v = (x[1] - kMu[1]) / kSd[1];
    return -0.5 * (u * u - 2 * kRho * u * v + v * v) / (1 - kRho * kRho);
}

static void check_moments(bool step_out, uint64_t seed) {
    Rng rng(seed);
    SliceSampleOptions opt;
    opt.n_samples = 20000;
    opt.thin = 2;
    opt.burn = 500;
    opt.step_out = step_out;
    const std::vector<double> inf(2, INFINITY), minf(2, -INFINITY);
    const SliceSampleResult r = slice_sample(correlated_gaussian, {0.0, 0.0}, {1.0, 1.0}, minf, inf, opt, rng);
    double m[2] = {0, 0}, c[3] = {0, 0, 0};
    const int n = r.samples.rows;
    for (int i = 0; i < n; ++i)
        for (int d = 0; d < 2; ++d) m[d] += r.samples(i, d) / n;
    for (int i = 0; i < n; ++i) {
        const double a = r.samples(i, 0) - m[0], b = r.samples(i, 1) - m[1];
        c[0] += a * a / (n - 1);
        c[1] += a * b / (n - 1);
        c[2] += b * b / (n - 1);
    }
    // Standard errors inflated by an autocorrelation allowance (effective size >= n / 10),
    // and a 5-sigma band.
    const double n_eff = n / 10.0;
    for (int d = 0; d < 2; ++d) assert_close(m[d], kMu[d], 5.0 * kSd[d] / std::sqrt(n_eff));
    assert_close(c[0], 1.0, 5.0 * std::sqrt(2.0 / n_eff) * 1.0);
    assert_close(c[2], 4.0, 5.0 * std::sqrt(2.0 / n_eff) * 4.0);
    assert_close(c[1], kRho * 2.0, 5.0 * std::sqrt((1 + kRho * kRho) / n_eff) * 2.0);
    for (int i = 0; i < n; ++i) assert_close(r.log_density[i], correlated_gaussian({r.samples(i, 0), r.samples(i, 1)}), 1e-12);
}

static void test_correlated_gaussian_moments(void**) { check_moments(false, 41); }
static void test_correlated_gaussian_moments_step_out(void**) { check_moments(true, 42); }

// Standard normal truncated to [0, inf) in coordinate 0, fixed coordinate 1: mean sqrt(2/pi).
static void test_bounds_and_fixed_coordinate(void**) {
    Rng rng(43);
    SliceSampleOptions opt;
    opt.n_samples = 20000;
    opt.burn = 200;
    auto f = [](const std::vector<double>& x) { return -0.5 * x[0] * x[0] - x[1]; };
    const SliceSampleResult r = slice_sample(f, {0.5, 3.0}, {}, {0.0, 3.0}, {INFINITY, 3.0}, opt, rng);
    double mean = 0.0;
    for (int i = 0; i < r.samples.rows; ++i) {
        assert_true(r.samples(i, 0) >= 0.0);
        assert_close(r.samples(i, 1), 3.0, 0.0);
        mean += r.samples(i, 0) / r.samples.rows;
    }
    const double sd = std::sqrt(1.0 - 2.0 / M_PI);
    assert_close(mean, std::sqrt(2.0 / M_PI), 5.0 * sd / std::sqrt(r.samples.rows / 10.0));
}

static void test_reproducible_and_validates_input(void**) {
    SliceSampleOptions opt;
    opt.n_samples = 50;
    const std::vector<double> inf(2, INFINITY), minf(2, -INFINITY);
    Rng a(44), b(44);
    const SliceSampleResult ra = slice_sample(correlated_gaussian, {0.0, 0.0}, {1.0, 1.0}, minf, inf, opt, a);
    const SliceSampleResult rb = slice_sample(correlated_gaussian, {0.0, 0.0}, {1.0, 1.0}, minf, inf, opt, b);
    for (size_t k = 0; k < ra.samples.data.size(); ++k) assert_close(ra.samples.data[k], rb.samples.data[k], 0.0);
    bool thrown = false;
    try {
        slice_sample(correlated_gaussian, {5.0, 0.0}, {}, {-1.0, -1.0}, {1.0, 1.0}, opt, a);
    } catch (const Error& e) {
        thrown = e.code() == Code::arg;
    }
    assert_true(thrown);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_correlated_gaussian_moments),
        cmocka_unit_test(test_correlated_gaussian_moments_step_out),
        cmocka_unit_test(test_bounds_and_fixed_coordinate),
        cmocka_unit_test(test_reproducible_and_validates_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
