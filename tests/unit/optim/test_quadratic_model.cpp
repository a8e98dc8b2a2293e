// Local quadratic models: exact recovery of a quadratic from enough points (also where its values
// span ten orders of magnitude), the least-change prior where the points leave the Hessian free,
// and the weights.
#include "optim/quadratic_model.hpp"

#include <cmath>

#include "optim_test_helpers.hpp"
#include "test_util.h"

using namespace libvbmc;
using namespace optim_test;

struct Quadratic {
    double c;
    std::vector<double> g;
    Matrix h;
    double operator()(const double* s) const {
        std::vector<double> v(s, s + g.size());
        return c + model_gain(g, h, v);
    }
};

static Quadratic random_quadratic(int n, Rng& rng, double scale) {
    Quadratic q{rng.normal() * scale, {}, Matrix()};
    std::vector<double> spectrum;
    for (int i = 0; i < n; ++i) {
        q.g.push_back(rng.normal() * scale);
        spectrum.push_back(-std::exp(rng.normal()) * scale);
    }
    q.h = with_spectrum(random_rotation(n, rng), spectrum);
    return q;
}

static void sample_points(const Quadratic& q, int n_points, double spread, Rng& rng, Matrix& z, std::vector<double>& y) {
    const int n = static_cast<int>(q.g.size());
    z = Matrix(n_points, n);
    y.clear();
    for (int i = 0; i < n_points; ++i) {
        for (int d = 0; d < n; ++d) z(i, d) = spread * rng.normal();
        y.push_back(q(z.row(i)));
    }
}

// (D+1)(D+2)/2 + D random points determine the quadratic: c, g and H come back up to the bias of
// the fit's ridge (1e-9 of the total weight on H, 1e-10 on c and g, over the conditioning of a
// random design: about 1e-7 here).
static void test_recovers_a_quadratic(void**) {
    Rng rng(5);
    for (int n : {1, 3, 6}) {
        const Quadratic q = random_quadratic(n, rng, 1.0);
        Matrix z;
        std::vector<double> y;
        sample_points(q, (n + 1) * (n + 2) / 2 + n, 1.0, rng, z, y);
        const QuadraticModel m = fit_quadratic_model(z, y, std::vector<double>(y.size(), 1.0),
                                                     std::vector<double>(static_cast<size_t>(n), 0.0), 1.0, Matrix());
        assert_close(m.c, q.c, 1e-6);
        for (int i = 0; i < n; ++i) {
            assert_close(m.g[static_cast<size_t>(i)], q.g[static_cast<size_t>(i)], 1e-6);
            for (int j = 0; j < n; ++j) assert_close(m.h(i, j), q.h(i, j), 1e-6);
        }
        std::vector<double> probe(static_cast<size_t>(n), 0.3);
        assert_close(m.value(probe.data()), q(probe.data()), 1e-6);
    }
}

// A narrow bowl seen from far away (values down to -1e10): the maximiser comes out to 1e-6 of
// the bowl's width, as the locating stage needs.
static void test_recovers_a_narrow_bowl_from_afar(void**) {
    Rng rng(6);
    const int n = 4;
    Quadratic q = random_quadratic(n, rng, 1e10);
    Matrix z;
    std::vector<double> y;
    sample_points(q, 30, 1.0, rng, z, y);
    const QuadraticModel m = fit_quadratic_model(z, y, std::vector<double>(y.size(), 1.0),
                                                 std::vector<double>(static_cast<size_t>(n), 0.0), 1.0, Matrix());
    // Maximisers -H^{-1} g of the truth and of the model.
    Matrix neg_h(n, n), neg_hm(n, n), l, lm;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            neg_h(i, j) = -q.h(i, j);
            neg_hm(i, j) = -m.h(i, j);
        }
    cholesky_jitter(neg_h, l);
    cholesky_jitter(neg_hm, lm);
    std::vector<double> top = q.g, top_model = m.g;
    cholesky_solve(l, top.data());
    cholesky_solve(lm, top_model.data());
    for (int i = 0; i < n; ++i) assert_close(top_model[static_cast<size_t>(i)], top[static_cast<size_t>(i)], 1e-6);
}

// Two points along the first axis of a 2-D quadratic: the curvature across (never sampled) stays
// the prior's, and the model interpolates the points.
static void test_least_change_keeps_the_prior_where_points_are_silent(void**) {
    Matrix z(3, 2);
    z(1, 0) = 1.0;
    z(2, 0) = -1.0;
    const std::vector<double> y = {0.0, 0.5, -1.5};  // f = s - s^2 / 2 along the axis
    Matrix prior(2, 2);
    prior(1, 1) = -7.0;
    const QuadraticModel m = fit_quadratic_model(z, y, {1.0, 1.0, 1.0}, {0.0, 0.0}, 1.0, prior);
    assert_close(m.h(1, 1), -7.0, 1e-6);
    assert_close(m.g[0], 1.0, 1e-6);
    assert_close(m.h(0, 0), -1.0, 1e-6);
    for (int i = 0; i < 3; ++i) assert_close(m.value(z.row(i)), y[static_cast<size_t>(i)], 1e-6);
}

// A zero weight removes a point: an outlier with weight 0 changes nothing.
static void test_zero_weight_ignores_a_point(void**) {
    Rng rng(7);
    const Quadratic q = random_quadratic(2, rng, 1.0);
    Matrix z;
    std::vector<double> y;
    sample_points(q, 12, 1.0, rng, z, y);
    std::vector<double> w(y.size(), 1.0);
    const QuadraticModel clean = fit_quadratic_model(z, y, w, {0.0, 0.0}, 1.0, Matrix());
    z.append_row(std::vector<double>{0.1, 0.2}.data(), 2);
    y.push_back(1e9);
    w.push_back(0.0);
    const QuadraticModel with_outlier = fit_quadratic_model(z, y, w, {0.0, 0.0}, 1.0, Matrix());
    assert_close(with_outlier.c, clean.c, 1e-10);
    assert_close(with_outlier.g[1], clean.g[1], 1e-10);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recovers_a_quadratic),
        cmocka_unit_test(test_recovers_a_narrow_bowl_from_afar),
        cmocka_unit_test(test_least_change_keeps_the_prior_where_points_are_silent),
        cmocka_unit_test(test_zero_weight_ignores_a_point),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
