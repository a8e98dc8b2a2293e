// The trust-region search: it locates a narrow rotated bowl from a box 10^4 times wider and
// reports its covariance, survives failed evaluations, keeps several proposals out at once, and
// a search written and read back mid-way continues bitwise; handed a top and its covariance, it
// checks that top with its star design at once.
#include "optim/trust_region_search.hpp"

#include <cmath>
#include <functional>

#include "optim_test_helpers.hpp"
#include "test_util.h"

using namespace libvbmc;
using namespace optim_test;

// -1/2 (z - top)^T P (z - top) with covariance P^{-1} = R diag(sd^2) R^T, sd ~ 1e-4.
struct Bowl {
    std::vector<double> top;
    Matrix precision, covariance;
    double operator()(const double* z) const {
        std::vector<double> d(top.size());
        for (size_t i = 0; i < d.size(); ++i) d[i] = z[i] - top[i];
        return model_gain(std::vector<double>(d.size(), 0.0), precision, d) * -1.0;
    }
};

static Bowl narrow_bowl(int n, Rng& rng) {
    const Matrix rotation = random_rotation(n, rng);
    std::vector<double> variance, precision;
    for (int i = 0; i < n; ++i) {
        const double sd = 1e-4 * (1.0 + 2.0 * i);
        variance.push_back(sd * sd);
        precision.push_back(1.0 / (sd * sd));
    }
    Bowl b{{}, with_spectrum(rotation, precision), with_spectrum(rotation, variance)};
    for (int i = 0; i < n; ++i) b.top.push_back(0.8 * rng.uniform() - 0.4);
    return b;
}

struct Evaluated {
    Matrix z;
    std::vector<double> y;
};

// Ten uniform points of the unit box around 0.
static Evaluated initial_design(int n, Rng& rng, const std::function<double(const double*)>& f) {
    Evaluated e{Matrix(0, n), {}};
    std::vector<double> p(static_cast<size_t>(n));
    for (int i = 0; i < 10; ++i) {
        for (double& v : p) v = rng.uniform() - 0.5;
        e.z.append_row(p.data(), n);
        e.y.push_back(f(p.data()));
    }
    return e;
}

// Propose / evaluate / tell until the search stops (failed values are told but not kept).
static int run_search(TrustRegionSearch& search, Evaluated& e, Rng& rng, const std::function<double(const double*)>& f) {
    int steps = 0;
    for (std::vector<double> p = search.propose(e.z, e.y, rng); !p.empty(); p = search.propose(e.z, e.y, rng)) {
        const double value = f(p.data());
        if (std::isfinite(value)) {
            e.z.append_row(p.data(), static_cast<int>(p.size()));
            e.y.push_back(value);
        }
        search.tell(p.data(), value);
        ++steps;
    }
    return steps;
}

static void test_locates_a_narrow_bowl(void**) {
    for (int n : {2, 5}) {
        Rng rng(static_cast<uint64_t>(n));
        const Bowl bowl = narrow_bowl(n, rng);
        Evaluated e = initial_design(n, rng, bowl);
        TrustRegionSettings settings;
        settings.max_evaluations = 400;
        TrustRegionSearch search(n, settings);
        const int steps = run_search(search, e, rng, bowl);
        assert_int_equal(static_cast<int>(search.stop()), static_cast<int>(TrustRegionStop::located));
        assert_true(steps < 150);
        // The star design confirmed less than gain_tolerance left to gain.
        assert_true(*std::max_element(e.y.begin(), e.y.end()) > -settings.gain_tolerance);
        // Second differences of a quadratic give its curvature along each star direction exactly;
        // the covariance is exact when those are the bowl's eigenvectors, which the model's are
        // only nearly: the marginal variances (what the plausible box is made of) within 25%.
        const Matrix cov = search.covariance();
        for (int i = 0; i < n; ++i) assert_close(cov(i, i) / bowl.covariance(i, i), 1.0, 0.25);
    }
}

// The initial design and the bowl's top, as a climb that stopped there leaves them.
static Evaluated design_and_top(int n, Rng& rng, const Bowl& bowl) {
    Evaluated e = initial_design(n, rng, bowl);
    e.z.append_row(bowl.top.data(), n);
    e.y.push_back(bowl(bowl.top.data()));
    return e;
}

// Asked to check a top handed to it (a gradient climb's), the search's first proposals are the
// 4 D points of the star design along the given covariance; at a quadratic's top with its exact
// covariance these locate it when the covariance's axes were measured, else the 4 D points of
// the model's own star design follow (see test_star_along_measured_axes_is_the_covariance).
static void test_verifies_a_given_top(void**) {
    for (int n : {2, 5}) {
        Rng rng(static_cast<uint64_t>(30 + n));
        const Bowl bowl = narrow_bowl(n, rng);
        Evaluated e = design_and_top(n, rng, bowl);
        TrustRegionSearch search(n, TrustRegionSettings{});
        search.verify(bowl.top.data(), e.y.back(), bowl.covariance, false);
        assert_true(search.has_star_point());
        for (int k = 0; k < 4 * n; ++k) {
            const std::vector<double> p = search.propose(e.z, e.y, rng);
            if (k < 2 * n) assert_close(-2.0 * bowl(p.data()), 1.0, 1e-9);  // one SD along an eigenvector
            e.z.append_row(p.data(), n);
            e.y.push_back(bowl(p.data()));
            search.tell(p.data(), e.y.back());
        }
        assert_int_equal(static_cast<int>(search.stop()), static_cast<int>(TrustRegionStop::running));
        assert_int_equal(run_search(search, e, rng, bowl), 4 * n);
        assert_int_equal(static_cast<int>(search.stop()), static_cast<int>(TrustRegionStop::located));
        const Matrix cov = search.covariance();
        // The covariance is the model's star's (its accuracy with a model fitted to a whole search
        // is test_locates_a_narrow_bowl's); here, with the stars' +- points and ten design points
        // far below, the model leaves cross terms loose, so only its validity is checked.
        Matrix l = cov;
        assert_true(cholesky_in_place(l));
    }
}

// A star along the axes of a measured Hessian is the top's covariance: on a quadratic its second
// differences are exact along each axis, so after its 4 D points the search has located the top
// and reports the covariance it was given, every axis included.
static void test_star_along_measured_axes_is_the_covariance(void**) {
    for (int n : {2, 6}) {
        Rng rng(static_cast<uint64_t>(40 + n));
        const Bowl bowl = narrow_bowl(n, rng);
        Evaluated e = design_and_top(n, rng, bowl);
        TrustRegionSearch search(n, TrustRegionSettings{});
        search.verify(bowl.top.data(), e.y.back(), bowl.covariance, true);
        assert_int_equal(run_search(search, e, rng, bowl), 4 * n);
        assert_int_equal(static_cast<int>(search.stop()), static_cast<int>(TrustRegionStop::located));
        const Matrix cov = search.covariance();
        double largest = 0.0;
        for (int i = 0; i < n; ++i) largest = std::max(largest, bowl.covariance(i, i));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) assert_close(cov(i, j), bowl.covariance(i, j), 1e-6 * largest);
    }
}

// A third of the proposals fail (NaN, as a failed evaluation): the search still locates the top.
static void test_survives_failed_evaluations(void**) {
    Rng rng(9);
    const Bowl bowl = narrow_bowl(3, rng);
    int calls = 0;
    const auto flaky = [&](const double* z) { return ++calls % 3 == 0 ? NAN : bowl(z); };
    Evaluated e = initial_design(3, rng, bowl);
    TrustRegionSearch search(3, TrustRegionSettings{0.1, 10.0, 1.0, 400});
    run_search(search, e, rng, flaky);
    assert_int_equal(static_cast<int>(search.stop()), static_cast<int>(TrustRegionStop::located));
    assert_true(*std::max_element(e.y.begin(), e.y.end()) > -1.0);
}

// Values with noise of SD 1: the top is still found to within the widened tolerance (the values
// told are noisy, so the true bowl is evaluated at the best point) and the star design's wider
// steps give the marginal variances to within a factor 2.
static void test_locates_a_noisy_bowl(void**) {
    Rng rng(12);
    const Bowl bowl = narrow_bowl(3, rng);
    Rng noise(13);
    const auto noisy = [&](const double* z) { return bowl(z) + noise.normal(); };
    Evaluated e = initial_design(3, rng, noisy);
    TrustRegionSettings settings{0.1, 10.0, 1.5 + 3.0, 600, 1.0};
    TrustRegionSearch search(3, settings);
    run_search(search, e, rng, noisy);
    assert_int_equal(static_cast<int>(search.stop()), static_cast<int>(TrustRegionStop::located));
    const int best = static_cast<int>(std::max_element(e.y.begin(), e.y.end()) - e.y.begin());
    assert_true(bowl(e.z.row(best)) > -2.0 * settings.gain_tolerance);
    const Matrix cov = search.covariance();
    for (int i = 0; i < 3; ++i) assert_close(std::log(cov(i, i) / bowl.covariance(i, i)), 0.0, std::log(2.0));
}

// Two proposals out at once are different points; both values are taken.
static void test_several_proposals_out(void**) {
    Rng rng(10);
    const Bowl bowl = narrow_bowl(3, rng);
    Evaluated e = initial_design(3, rng, bowl);
    TrustRegionSearch search(3, TrustRegionSettings{});
    const std::vector<double> a = search.propose(e.z, e.y, rng);
    const std::vector<double> b = search.propose(e.z, e.y, rng);
    assert_true(a != b);
    search.tell(b.data(), bowl(b.data()));
    search.tell(a.data(), bowl(a.data()));
    assert_int_equal(search.evaluations(), 2);
    search.forget(search.propose(e.z, e.y, rng).data());  // abandoned: never counted
    assert_int_equal(search.evaluations(), 2);
}

// Written after 15 steps and read back, the search proposes bitwise what the original does.
static void test_round_trip_continues_bitwise(void**) {
    Rng rng(11);
    const Bowl bowl = narrow_bowl(4, rng);
    TrustRegionSearch original(4, TrustRegionSettings{0.1, 10.0, 1.0, 1000});
    Evaluated e_original = initial_design(4, rng, bowl);
    for (int i = 0; i < 15; ++i) {
        const std::vector<double> p = original.propose(e_original.z, e_original.y, rng);
        e_original.z.append_row(p.data(), 4);
        e_original.y.push_back(bowl(p.data()));
        original.tell(p.data(), e_original.y.back());
    }
    Writer out;
    original.write(out);
    Reader in(out.bytes().data(), out.bytes().size());
    TrustRegionSearch copy = TrustRegionSearch::read(in);
    Rng rng_copy = rng;
    Evaluated e_copy = e_original;
    for (int i = 0; i < 15; ++i) {
        const std::vector<double> p = original.propose(e_original.z, e_original.y, rng);
        const std::vector<double> q = copy.propose(e_copy.z, e_copy.y, rng_copy);
        assert_int_equal(static_cast<int>(p.size()), static_cast<int>(q.size()));
        if (p.empty()) break;
        assert_memory_equal(p.data(), q.data(), sizeof(double) * p.size());
        for (Evaluated* target : {&e_original, &e_copy}) {
            target->z.append_row(p.data(), 4);
            target->y.push_back(bowl(p.data()));
        }
        original.tell(p.data(), bowl(p.data()));
        copy.tell(q.data(), bowl(q.data()));
    }
    assert_close(original.radius(), copy.radius(), 0.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_locates_a_narrow_bowl),
        cmocka_unit_test(test_verifies_a_given_top),
        cmocka_unit_test(test_star_along_measured_axes_is_the_covariance),
        cmocka_unit_test(test_survives_failed_evaluations),
        cmocka_unit_test(test_locates_a_noisy_bowl),
        cmocka_unit_test(test_several_proposals_out),
        cmocka_unit_test(test_round_trip_continues_bitwise),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
