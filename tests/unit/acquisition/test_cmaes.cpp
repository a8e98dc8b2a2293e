// CMA-ES minimiser: convergence on ill-conditioned and curved problems, budget, box, determinism.
#include "acquisition/cmaes.hpp"

#include <cmath>

#include "linalg/linalg.hpp"
#include "test_util.h"

using namespace libvbmc;

// Random rotation: eigenvectors of a random symmetric matrix.
static Matrix random_rotation(int n, Rng& rng) {
    Matrix a(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) a(i, j) = a(j, i) = rng.normal();
    std::vector<double> values;
    Matrix vectors;
    symmetric_eigen(a, values, vectors);
    return vectors;
}

struct RotatedQuadratic {
    Matrix hessian;
    std::vector<double> minimum;
    double operator()(const double* x) const {
        const int n = hessian.rows;
        double f = 0.0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) f += 0.5 * (x[i] - minimum[i]) * hessian(i, j) * (x[j] - minimum[j]);
        return f;
    }
};

// H = R diag(10^(4 i / (n-1))) R^T: condition number 1e4.
static RotatedQuadratic make_quadratic(int n, Rng& rng) {
    const Matrix rot = random_rotation(n, rng);
    RotatedQuadratic q;
    q.hessian = Matrix(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < n; ++k) q.hessian(i, j) += rot(i, k) * std::pow(10.0, 4.0 * k / (n - 1)) * rot(j, k);
    for (int i = 0; i < n; ++i) q.minimum.push_back(rng.normal());
    return q;
}

static double rosenbrock(const double* x, int n) {
    double f = 0.0;
    for (int i = 0; i + 1 < n; ++i) f += 100.0 * std::pow(x[i + 1] - x[i] * x[i], 2) + std::pow(1.0 - x[i], 2);
    return f;
}

static void test_rotated_quadratic(void**) {
    const int n = 6;
    Rng problem_rng(11);
    const RotatedQuadratic q = make_quadratic(n, problem_rng);
    const BatchObjective f = [&](const Matrix& xs, double* values) {
        for (int k = 0; k < xs.rows; ++k) values[k] = q(xs.row(k));
    };
    CmaesSettings settings;
    settings.tol_fun = 1e-16;
    settings.tol_x = 1e-12;
    Rng rng(5);
    const CmaesResult r = cmaes_minimize(f, std::vector<double>(n, 0.0), 1.0, Matrix(), settings, rng);
    assert_true(r.stop == CmaesStop::tol_fun || r.stop == CmaesStop::tol_x);
    assert_close(r.f_best, 0.0, 1e-12);
    // f <= 1e-12 with smallest Hessian eigenvalue 1 bounds the error by sqrt(2e-12).
    for (int i = 0; i < n; ++i) assert_close(r.x_best[i], q.minimum[i], 2e-6);
    assert_true(r.evaluations <= 1000 * (n + 5) * (n + 5));
}

static void test_rosenbrock(void**) {
    for (int n : {2, 6}) {
        const BatchObjective f = [&](const Matrix& xs, double* values) {
            for (int k = 0; k < xs.rows; ++k) values[k] = rosenbrock(xs.row(k), n);
        };
        CmaesSettings settings;
        settings.tol_fun = 1e-16;
        settings.tol_x = 1e-12;
        Rng rng(3);
        const CmaesResult r = cmaes_minimize(f, std::vector<double>(n, -0.5), 0.5, Matrix(), settings, rng);
        assert_close(r.f_best, 0.0, 1e-12);
        for (int i = 0; i < n; ++i) assert_close(r.x_best[i], 1.0, 1e-5);
    }
}

// A full initial covariance matched to the Hessian's inverse makes the problem isotropic:
// fewer evaluations are needed than from the identity.
static void test_initial_covariance_helps(void**) {
    const int n = 6;
    Rng problem_rng(11);
    const RotatedQuadratic q = make_quadratic(n, problem_rng);
    const BatchObjective f = [&](const Matrix& xs, double* values) {
        for (int k = 0; k < xs.rows; ++k) values[k] = q(xs.row(k));
    };
    CmaesSettings settings;
    settings.tol_fun = 1e-12;
    Matrix l;
    cholesky_jitter(q.hessian, l);
    const Matrix h_inverse = cholesky_inverse(l);
    Rng rng_a(8), rng_b(8);
    const CmaesResult plain = cmaes_minimize(f, std::vector<double>(n, 0.0), 1.0, Matrix(), settings, rng_a);
    const CmaesResult shaped = cmaes_minimize(f, std::vector<double>(n, 0.0), 1.0, h_inverse, settings, rng_b);
    assert_true(shaped.stop == CmaesStop::tol_fun);
    assert_true(shaped.evaluations < plain.evaluations);
    for (int i = 0; i < n; ++i) assert_close(shaped.x_best[i], q.minimum[i], 1e-4);
}

static void test_budget_box_and_determinism(void**) {
    const int n = 3;
    CmaesSettings settings;
    settings.max_fun_evals = 200;
    settings.lower = {-1.0, -1.0, 0.5};
    settings.upper = {1.0, 2.0, 1.0};
    bool inside = true;
    // Minimum (2, 0, 0) lies outside the box: the constrained optimum is (1, 0, 0.5).
    const BatchObjective f = [&](const Matrix& xs, double* values) {
        for (int k = 0; k < xs.rows; ++k) {
            const double* x = xs.row(k);
            for (int d = 0; d < n; ++d) inside = inside && x[d] >= settings.lower[d] && x[d] <= settings.upper[d];
            values[k] = (x[0] - 2.0) * (x[0] - 2.0) + x[1] * x[1] + x[2] * x[2];
        }
    };
    Rng rng_a(21), rng_b(21);
    const CmaesResult a = cmaes_minimize(f, {0.0, 0.0, 0.7}, 0.3, Matrix(), settings, rng_a);
    const CmaesResult b = cmaes_minimize(f, {0.0, 0.0, 0.7}, 0.3, Matrix(), settings, rng_b);
    assert_true(inside);
    assert_true(a.stop == CmaesStop::max_fun_evals);
    assert_true(a.evaluations <= settings.max_fun_evals);
    assert_true(a.f_best == b.f_best);
    for (int d = 0; d < n; ++d) assert_true(a.x_best[d] == b.x_best[d]);
    assert_true(a.evaluations == b.evaluations);
    // Run to convergence: the optimum on the boundary is found.
    settings.max_fun_evals = 10000;
    settings.tol_fun = 1e-12;
    Rng rng_c(21);
    const CmaesResult c = cmaes_minimize(f, {0.0, 0.0, 0.7}, 0.3, Matrix(), settings, rng_c);
    assert_true(inside);
    assert_true(c.stop == CmaesStop::tol_fun);
    assert_close(c.f_best, 1.25, 1e-9);
    assert_close(c.x_best[0], 1.0, 1e-6);
    assert_close(c.x_best[1], 0.0, 1e-4);
    assert_close(c.x_best[2], 0.5, 1e-6);
}

// NaN values rank last instead of propagating.
static void test_nan_values_rank_last(void**) {
    const BatchObjective f = [](const Matrix& xs, double* values) {
        for (int k = 0; k < xs.rows; ++k) {
            const double* x = xs.row(k);
            values[k] = x[0] > 0.5 ? NAN : (x[0] - 0.2) * (x[0] - 0.2) + x[1] * x[1];
        }
    };
    CmaesSettings settings;
    settings.tol_fun = 1e-14;
    Rng rng(4);
    const CmaesResult r = cmaes_minimize(f, {0.0, 0.0}, 0.5, Matrix(), settings, rng);
    assert_close(r.f_best, 0.0, 1e-10);
    assert_close(r.x_best[0], 0.2, 1e-4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rotated_quadratic),
        cmocka_unit_test(test_rosenbrock),
        cmocka_unit_test(test_initial_covariance_helps),
        cmocka_unit_test(test_budget_box_and_determinism),
        cmocka_unit_test(test_nan_values_rank_last),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
