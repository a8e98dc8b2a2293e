// BBQ (bq/bbq.hpp): each closed-form term against numerical quadrature of its definition in 1-D
// and 2-D, the input-scale marginalisation against finite differences of the integral of the
// log-GP's mean, the estimate on a Gaussian target whose evidence is known, and the error paths.
#include "bq/bbq.hpp"

#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "linalg/linalg.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"
#include "test_util.h"

using namespace libvbmc;

namespace {

// A bumpy log density: a correlated Gaussian plus a small bump, scaled by log_z0 (exact Z unknown).
double bumpy_log_joint(const double* x, int dim) {
    double q = 0.0, b = 0.0;
    for (int d = 0; d < dim; ++d) q += (x[d] - 0.2 * d) * (x[d] - 0.2 * d) / (1.0 + 0.5 * d), b += (x[d] - 1.0) * (x[d] - 1.0);
    return 1.5 - 0.5 * q + std::log1p(0.5 * std::exp(-2.0 * b));
}

GpData design(int dim, int n, uint64_t seed, const std::function<double(const double*)>& f, double spread) {
    Rng rng(seed);
    GpData data;
    data.x = Matrix(n, dim);
    data.y.resize(n);
    data.s2.assign(n, 0.0);
    for (int i = 0; i < n; ++i) {
        for (int d = 0; d < dim; ++d) data.x(i, d) = spread * rng.normal();
        data.y[i] = f(data.x.row(i));
    }
    return data;
}

BbqMeasure measure(int dim) {
    BbqMeasure p;
    for (int d = 0; d < dim; ++d) p.mean.push_back(0.1 * d), p.var.push_back(4.0 * (1.0 + 0.3 * d));
    return p;
}

double normal_pdf(const BbqMeasure& p, const double* x) {
    double v = 1.0;
    for (size_t d = 0; d < p.mean.size(); ++d)
        v *= std::exp(-0.5 * (x[d] - p.mean[d]) * (x[d] - p.mean[d]) / p.var[d]) / std::sqrt(2.0 * M_PI * p.var[d]);
    return v;
}

// Grid of the trapezoid rule on p's mean +- 8 SD: points (rows) and weights times p.
void grid(const BbqMeasure& p, int points, Matrix& xs, std::vector<double>& wp) {
    const int dim = static_cast<int>(p.mean.size());
    int total = 1;
    for (int d = 0; d < dim; ++d) total *= points;
    xs = Matrix(total, dim);
    wp.assign(total, 1.0);
    for (int a = 0; a < total; ++a) {
        int rest = a;
        for (int d = 0; d < dim; ++d) {
            const int i = rest % points;
            rest /= points;
            const double sd = std::sqrt(p.var[d]), step = 16.0 * sd / (points - 1);
            xs(a, d) = p.mean[d] - 8.0 * sd + i * step;
            wp[a] *= step * ((i == 0 || i == points - 1) ? 0.5 : 1.0);
        }
        wp[a] *= normal_pdf(p, xs.row(a));
    }
}

std::vector<double> predict(const ZeroMeanGp& gp, const Matrix& xs) {
    std::vector<double> out(xs.rows);
    zero_mean_gp_predict(gp, xs, out.data());
    return out;
}

void check_terms(int dim, int n, int points) {
    const BbqMeasure p = measure(dim);
    const GpData data = design(dim, n, 7 + dim, [dim](const double* x) { return bumpy_log_joint(x, dim); }, 1.5);
    const BbqModel model = bbq_model(data, p, 3);
    const BbqMoments m = bbq_moments(model);
    Matrix xs;
    std::vector<double> wp;
    grid(p, points, xs, wp);
    const std::vector<double> m_l = predict(model.l, xs), m_d = predict(model.delta, xs);
    double mean_l = 0.0, correction = 0.0;
    std::vector<double> u(xs.rows);  // quadrature weight times (1 + m_l) p
    for (int a = 0; a < xs.rows; ++a) {
        mean_l += wp[a] * m_l[a];
        correction += wp[a] * (1.0 + m_l[a]) * m_d[a];
        u[a] = wp[a] * (1.0 + m_l[a]);
    }
    assert_close(m.mean_l, mean_l, 1e-8 * std::fabs(mean_l));
    assert_true(model.delta.data.size() > 0);
    assert_close(m.correction, correction, 1e-8 * std::fabs(mean_l));
    // eq. 10: sum_ab u_a u_b C_g(x_a, x_b) = u^T K u - |L^{-1} K(X, grid) u|^2.
    const ZeroMeanGp& g = model.g;
    Matrix kxg = gp_cross_kernel(g.data.x, xs, g.sample.theta.data(), dim);
    std::vector<double> ku(g.data.size());
    gemv(false, 1.0, kxg, u.data(), 0.0, ku.data());
    triangular_solve(g.sample.chol, false, ku.data());
    double prior = 0.0, explained = 0.0;
    for (int a = 0; a < xs.rows; ++a) {
        double row = 0.0;
        for (int b = 0; b < xs.rows; ++b) row += gp_kernel(xs.row(a), xs.row(b), g.sample.theta.data(), dim) * u[b];
        prior += u[a] * row;
    }
    for (double v : ku) explained += v * v;
    assert_true(m.variance > 0.0);
    assert_close(m.variance, prior - explained, 1e-6 * m.variance + 1e-12 * prior);
    // eq. 12: sum_d C_w,d (d/dlog ell_d int (1 + m_l) m_g p)^2, the derivative by central differences
    // (truncation error ~h^2 = 1e-6 relative).
    double marginal = 0.0;
    for (int d = 0; d < dim; ++d) {
        const double h = 1e-3;
        double side[2];
        for (int s = 0; s < 2; ++s) {
            std::vector<double> theta = g.sample.theta;
            theta[hyp::log_ell(d)] += s == 0 ? h : -h;
            const std::vector<double> m_g = predict(zero_mean_gp(g.data, theta), xs);
            side[s] = 0.0;
            for (int a = 0; a < xs.rows; ++a) side[s] += u[a] * m_g[a];
        }
        const double grad = (side[0] - side[1]) / (2.0 * h);
        marginal += g.log_ell_var[d] * grad * grad;
    }
    assert_true(m.marginal_var > 0.0);
    // The fitted noise is ~1e-5 of sf, so K's condition number is ~1e10 and each side carries a
    // relative rounding error near 1e-7; over 2h = 2e-3 that is 1e-4 of the derivative.
    assert_close(m.marginal_var, marginal, 5e-4 * marginal);
}

void test_terms_1d(void**) { check_terms(1, 12, 2001); }
void test_terms_2d(void**) { check_terms(2, 30, 101); }

// f = log Z0 + log N(x; m, S) with S diagonal: Z = Z0 exactly.
void test_gaussian_target(void**) {
    const int dim = 2;
    const double log_z0 = 3.7, m[2] = {0.5, -1.0}, s2[2] = {0.8, 2.5};
    auto f = [&](const double* x) {
        double v = log_z0;
        for (int d = 0; d < dim; ++d) v -= 0.5 * (std::log(2.0 * M_PI * s2[d]) + (x[d] - m[d]) * (x[d] - m[d]) / s2[d]);
        return v;
    };
    GpData data = design(dim, 80, 21, f, 1.0);
    for (int i = 0; i < data.size(); ++i) {  // the design around the target: m + 1.5 sqrt(S) z
        for (int d = 0; d < dim; ++d) data.x(i, d) = m[d] + 1.5 * std::sqrt(s2[d]) * data.x(i, d);
        data.y[i] = f(data.x.row(i));
    }
    const BbqMeasure p{{m[0], m[1]}, {4.0 * s2[0], 4.0 * s2[1]}};
    const BbqResult r = bbq_estimate(data, p, 5);
    print_message("log Z = %.6f +/- %.6f (true %.6f)\n", r.log_z, r.log_z_sd, log_z0);
    // 80 points around the target pin log Z down to about 1e-2, and the truth lies within 3 SD.
    assert_true(r.log_z_sd > 0.0);
    assert_close(r.log_z, log_z0, 0.02);
    assert_true(std::fabs(r.log_z - log_z0) < 3.0 * r.log_z_sd);
}

void test_measure_of_vp(void**) {
    VariationalPosterior vp;
    vp.dim = 2;
    vp.k = 1;
    vp.w = {1.0};
    vp.mu = Matrix(1, 2);
    vp.mu(0, 0) = 0.3;
    vp.mu(0, 1) = -2.0;
    vp.sigma = {0.5};
    vp.lambda = {1.0, 2.0};
    const BbqMeasure p = bbq_measure(vp);
    assert_close(p.mean[0], 0.3, 0.0);
    assert_close(p.mean[1], -2.0, 0.0);
    assert_close(p.var[0], 4.0 * 0.25, 1e-15);
    assert_close(p.var[1], 4.0 * 1.0, 1e-15);
}

void expect_error(Code code, const std::function<void()>& f, const char* part) {
    try {
        f();
        fail_msg("no error");
    } catch (const Error& e) {
        assert_int_equal(static_cast<int>(e.code()), static_cast<int>(code));
        assert_non_null(std::strstr(e.what(), part));
    }
}

void test_errors(void**) {
    const GpData data = design(2, 10, 1, [](const double* x) { return -x[0] * x[0] - x[1] * x[1]; }, 1.0);
    expect_error(Code::arg, [&] { bbq_estimate(data, measure(1), 1); }, "the measure has dimension 1, the training set 2");
    BbqMeasure bad = measure(2);
    bad.var[1] = 0.0;
    expect_error(Code::arg, [&] { bbq_estimate(data, bad, 1); }, "not positive and finite");
    GpData one = data;
    one.x = Matrix(1, 2);
    one.y.resize(1);
    one.s2.resize(1);
    expect_error(Code::arg, [&] { bbq_estimate(one, measure(2), 1); }, "at least two training points, got 1");
}

}  // namespace

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terms_1d),
        cmocka_unit_test(test_terms_2d),
        cmocka_unit_test(test_gaussian_target),
        cmocka_unit_test(test_measure_of_vp),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
