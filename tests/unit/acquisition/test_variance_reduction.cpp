// The ivr acquisition: the expected drop of Var[E_q f] (eq. 5) by one evaluation, against the
// drop computed by adding the point to the GP and recomputing the quadrature variance.
#include "acquisition/variance_reduction.hpp"

#include <cmath>

#include "acquisition/acq_fcn.hpp"
#include "acquisition/active_sample.hpp"
#include "acquisition/expected_noise.hpp"
#include "elbo/expected_log_joint.hpp"
#include "test_util.h"

using namespace libvbmc;

// 2-D surrogate of a Gaussian log density from 14 points on the left (x0 < 0), one
// hyperparameter sample per entry of log_ells.
static Gp make_gp(const std::vector<double>& log_ells) {
    Gp gp;
    gp.dim = 2;
    Rng rng(8);
    for (int i = 0; i < 14; ++i) {
        const double x[2] = {-0.2 - 1.5 * rng.uniform(), 2.0 * rng.normal()};
        gp.data.x.append_row(x, 2);
        gp.data.y.push_back(-0.5 * (x[0] * x[0] + 0.7 * x[1] * x[1]));
        gp.data.s2.push_back(i % 5 == 0 ? 0.02 : 0.0);
    }
    for (double log_ell : log_ells) {
        std::vector<double> theta(hyp::count(2));
        theta[hyp::log_ell(0)] = log_ell;
        theta[hyp::log_ell(1)] = log_ell + 0.2;
        theta[hyp::log_sf(2)] = std::log(1.3);
        theta[hyp::log_sn(2)] = std::log(0.05);
        theta[hyp::m0(2)] = 0.1;
        theta[hyp::xm(2, 0)] = -0.1;
        theta[hyp::xm(2, 1)] = 0.2;
        theta[hyp::log_omega(2, 0)] = 0.3;
        theta[hyp::log_omega(2, 1)] = 0.1;
        gp.samples.push_back(gp_posterior(gp.data, theta));
    }
    return gp;
}

// A 3-component mixture; with component_scales each component gets its own stretch of lambda.
static VariationalPosterior make_vp(bool component_scales = false) {
    VariationalPosterior vp;
    vp.dim = 2;
    vp.k = 3;
    vp.w = {0.5, 0.3, 0.2};
    vp.mu = Matrix(3, 2);
    vp.mu(0, 0) = -0.8;
    vp.mu(1, 0) = 0.9;
    vp.mu(1, 1) = 0.5;
    vp.mu(2, 0) = 2.0;
    vp.mu(2, 1) = -1.0;
    vp.sigma = {0.5, 0.7, 1.1};
    vp.lambda = {1.0, 0.8};
    if (component_scales) {
        vp = vp_with_component_scales(vp);
        vp.lambda = {1.0, 0.8, 0.5, 1.4, 1.2, 0.6};
    }
    return vp;
}

static Matrix test_points() {
    Matrix xs(0, 2);
    const double points[][2] = {{-0.9, 0.1}, {0.8, 0.4}, {2.5, -1.2}, {4.0, 3.0}, {0.0, 0.0}};
    for (const auto& p : points) xs.append_row(p, 2);
    return xs;
}

static double quadrature_variance(const Gp& gp, const VariationalPosterior& vp) {
    LogJointEstimate estimate;
    expected_log_joint(vp, gp, false, true, estimate);
    return estimate.variance;
}

// Var[E_q f] does not depend on the observed value, so the drop from adding x (with the
// sample's noise sn^2 and the told noise of its nearest training point) to a one-sample GP is
// exactly c(x)^2 / (V(x) + sn^2 + s2_nearest).
static void check_reduction_is_the_variance_drop(bool component_scales) {
    const Gp gp = make_gp({std::log(0.9)});
    const VariationalPosterior vp = make_vp(component_scales);
    const Matrix xs = test_points();
    AcqSettings s;
    s.kind = AcqKind::ivr;
    s.variance_regularized = false;
    std::vector<double> acq(xs.rows);
    ivr_evaluate(gp, VarianceReduction(gp, vp), xs, 0.0, s, acq.data());
    const double before = quadrature_variance(gp, vp);
    const ExpectedNoise noise = expected_noise(gp, xs);
    double told_at_some = 0.0;
    for (int j = 0; j < xs.rows; ++j) told_at_some = std::max(told_at_some, noise.told[j]);
    assert_true(told_at_some > 0.0);  // the told noise matters at some test point
    for (int j = 0; j < xs.rows; ++j) {
        Gp grown = gp;
        gp_add_point(grown, xs.row(j), 0.0, noise.told[j]);
        const double drop = before - quadrature_variance(grown, vp);
        assert_true(drop > 0.0);
        assert_close(std::exp(-acq[j]), drop, 1e-8 * before);
    }
}

static void test_reduction_is_the_variance_drop(void**) {
    check_reduction_is_the_variance_drop(false);
    check_reduction_is_the_variance_drop(true);
}

// With several samples the reduction is the mean of the samples' reductions.
static void test_reduction_averages_samples(void**) {
    const std::vector<double> log_ells = {std::log(0.7), std::log(1.1), std::log(1.6)};
    const Gp gp = make_gp(log_ells);
    const VariationalPosterior vp = make_vp();
    const Matrix xs = test_points();
    AcqSettings s;
    s.kind = AcqKind::ivr;
    s.variance_regularized = false;
    std::vector<double> acq(xs.rows), single(xs.rows), mean_reduction(xs.rows, 0.0);
    acq_evaluate(gp, vp, xs, 0.0, s, acq.data());
    for (double log_ell : log_ells) {
        const Gp one = make_gp({log_ell});
        ivr_evaluate(one, VarianceReduction(one, vp), xs, 0.0, s, single.data());
        for (int j = 0; j < xs.rows; ++j) mean_reduction[j] += std::exp(-single[j]) / log_ells.size();
    }
    for (int j = 0; j < xs.rows; ++j) assert_close(std::exp(-acq[j]), mean_reduction[j], 1e-12 * mean_reduction[j]);
}

// zq(x) = E_{x'~q}[k(x', x)] against a midpoint rule on a fine grid.
static void check_prior_covariance_is_the_kernel_mean(bool component_scales) {
    const Gp gp = make_gp({std::log(0.9)});
    const VariationalPosterior vp = make_vp(component_scales);
    const VarianceReduction terms(gp, vp);
    const Matrix xs = test_points();
    std::vector<double> zq(xs.rows), expected(xs.rows, 0.0);
    terms.prior_covariance(0, xs, zq.data());
    const int g = 600;
    const double lo = -7.0, hi = 9.0, h = (hi - lo) / g;
    for (int a = 0; a < g; ++a)
        for (int b = 0; b < g; ++b) {
            const double x[2] = {lo + (a + 0.5) * h, lo + (b + 0.5) * h};
            const double q = std::exp(vp_log_pdf(vp, x));
            for (int j = 0; j < xs.rows; ++j)
                expected[j] += q * gp_kernel(x, xs.row(j), gp.samples[0].theta.data(), 2) * h * h;
        }
    for (int j = 0; j < xs.rows; ++j) assert_close(zq[j], expected[j], 1e-6);
}

static void test_prior_covariance_is_the_kernel_mean(void**) {
    check_prior_covariance_is_the_kernel_mean(false);
    check_prior_covariance_is_the_kernel_mean(true);
}

// A training point gets (almost) no reduction; the regulariser then adds tol/V - 1.
static void test_training_point_and_regulariser(void**) {
    const Gp gp = make_gp({std::log(0.9)});
    const VariationalPosterior vp = make_vp();
    Matrix x(1, 2);
    x(0, 0) = gp.data.x(1, 0);
    x(0, 1) = gp.data.x(1, 1);
    AcqSettings off, on;
    off.kind = on.kind = AcqKind::ivr;
    off.variance_regularized = false;
    on.tol_gp_var = 1.0;  // above the latent variance at the point
    double without = 0.0, with = 0.0, far = 0.0;
    const VarianceReduction terms(gp, vp);
    ivr_evaluate(gp, terms, x, 0.0, off, &without);
    ivr_evaluate(gp, terms, x, 0.0, on, &with);
    std::vector<double> f, v;
    gp_predict(gp, x, f, v);
    assert_close(with - without, 1.0 / v[0] - 1.0, 1e-9 * (1.0 / v[0]));
    Matrix broad(1, 2);
    broad(0, 0) = 2.0;
    broad(0, 1) = -1.0;
    ivr_evaluate(gp, terms, broad, 0.0, off, &far);
    assert_true(far < without);
    assert_true(std::isinf(ivr_from_terms(off, 0.0, 1.0)));
    assert_true(std::isinf(ivr_from_terms(off, NAN, 1.0)));
    assert_true(std::isinf(ivr_from_terms(on, 1.0, 0.0)));
}

// Var[E_q f] of a sample is the quadrature variance of eq. 5, and the Cauchy-Schwarz bound
// c^2 / (c^2 / Var[E_q f] + sn^2) is never below the exact reduction (nor above Var[E_q f]).
static void test_integral_variance_bounds_the_reduction(void**) {
    const Gp gp = make_gp({std::log(0.9)});
    const VariationalPosterior vp = make_vp();
    const VarianceReduction terms(gp, vp);
    const double integral_var = terms.integral_variance(0);
    assert_close(integral_var, quadrature_variance(gp, vp), 1e-10 * integral_var);
    Rng rng(5);
    Matrix xs(0, 2);
    for (int j = 0; j < 400; ++j) {
        const double x[2] = {-6.0 + 12.0 * rng.uniform(), -6.0 + 12.0 * rng.uniform()};
        xs.append_row(x, 2);
    }
    for (int j = 0; j < gp.data.size(); ++j) xs.append_row(gp.data.x.row(j), 2);
    Matrix kstar;
    gp_cross_kernel(gp.data.x, xs, gp.samples[0].theta.data(), 2, kstar);
    std::vector<double> cov(xs.rows), var(xs.rows);
    terms.covariance(0, xs, kstar, cov.data());
    gp_latent_variance(gp.samples[0], std::exp(2.0 * gp.samples[0].theta[hyp::log_sf(2)]), kstar, var.data());
    double tightest = 0.0;
    for (int j = 0; j < xs.rows; ++j) {
        const double exact = terms.reduction(0, cov[j], var[j], std::exp(2.0 * gp.samples[0].theta[hyp::log_sn(gp.dim)]));
        const double bound = terms.reduction_bound(0, cov[j]);
        assert_true(exact <= bound * (1.0 + 1e-9));
        assert_true(bound <= integral_var * (1.0 + 1e-9));
        tightest = std::max(tightest, exact / bound);
    }
    assert_true(tightest > 0.5);  // the bound is tight where the reduction is large
}

// A latent variance below c^2 / Var[E_q f], which only rounding can give, enters as that floor: the
// reduction stays at or below its bound (which the candidate search's pruning relies on) and below
// Var[E_q f]; a variance above the floor is used as it is, bitwise.
static void test_reduction_floors_an_inconsistent_variance(void**) {
    const Gp gp = make_gp({std::log(0.9)});
    const VariationalPosterior vp = make_vp();
    const VarianceReduction terms(gp, vp);
    const double integral_var = terms.integral_variance(0);
    const double sn2 = std::exp(2.0 * gp.samples[0].theta[hyp::log_sn(gp.dim)]);
    for (double cov : {1e-3, 0.05, -0.3}) {
        const double floor = cov * cov / integral_var;
        for (double noise : {sn2, sn2 + 0.01}) {
            const double inconsistent = terms.reduction(0, cov, 1e-3 * floor, noise);
            assert_true(inconsistent <= terms.reduction_bound(0, cov));
            assert_true(inconsistent <= integral_var * (1.0 + 1e-9));
            assert_close(inconsistent, cov * cov / (floor + noise), 1e-6 * inconsistent);
            const double consistent = 3.0 * floor;
            assert_true(terms.reduction(0, cov, consistent, noise) == cov * cov / (consistent + noise));
        }
    }
    assert_true(terms.reduction(0, 0.0, 0.5, sn2) == 0.0);
}

// acquire() with ivr: the refined point is at least as good as a fine grid's best and lies in the
// vp mass on the unexplored right.
static void test_acquire_finds_grid_optimum(void**) {
    const Gp gp = make_gp({std::log(0.7), std::log(1.1)});
    const VariationalPosterior vp = make_vp();
    AcqSettings s;
    s.kind = AcqKind::ivr;
    s.lb_search = {-5.0, -5.0};
    s.ub_search = {5.0, 5.0};
    Rng rng(3);
    const AcqResult r = acquire(gp, vp, Matrix(), Matrix(), s, rng);
    assert_true(r.x[0] > 0.0);
    const int g = 121;
    Matrix grid(g * g, 2);
    for (int i = 0; i < g; ++i)
        for (int j = 0; j < g; ++j) {
            grid(i * g + j, 0) = -5.0 + 10.0 * i / (g - 1);
            grid(i * g + j, 1) = -5.0 + 10.0 * j / (g - 1);
        }
    std::vector<double> acq(grid.rows);
    acq_evaluate(gp, vp, grid, 0.0, s, acq.data());
    double grid_min = INFINITY;
    for (double v : acq) grid_min = std::min(grid_min, v);
    assert_true(r.value <= grid_min + 1e-2);
    Rng again(3);
    assert_true(acquire(gp, vp, Matrix(), Matrix(), s, again).x == r.x);
}

// One point as a 1 x 2 matrix.
static Matrix single_point(const double* x) {
    Matrix m(0, 2);
    m.append_row(x, 2);
    return m;
}

// plausible_drop: a point where the surrogate's optimistic value (mean + 3 SD) lies more than
// the drop below the best observed value gets +inf, so ivr does not spend evaluations where the
// posterior has no mass.
static void test_points_without_posterior_mass_are_excluded(void**) {
    AcqSettings s;
    s.kind = AcqKind::ivr;
    s.plausible_drop = 10.0;
    assert_false(implausible(s, -9.0, 0.0, 0.0));
    assert_true(implausible(s, -11.0, 0.0, 0.0));
    assert_false(implausible(s, -11.0, 1.0, 0.0));  // -11 + 3 sd is within the drop
    assert_true(implausible(s, -14.0, 1.0, 0.0));
    AcqSettings unlimited = s;
    unlimited.plausible_drop = INFINITY;
    assert_false(implausible(unlimited, -1e300, 0.0, 0.0));

    // A long length scale (as a GP fit to a smooth target has): far from the data the surrogate
    // is uncertain but still correlated with E_q f, so without the drop ivr's best point in a
    // wide box lies where q has no mass (measured: x0 = 15, the vp's components at x0 <= 2).
    const Gp gp = make_gp({std::log(100.0)});
    const VariationalPosterior vp = make_vp();
    const VarianceReduction terms(gp, vp);
    double y_max = -INFINITY;
    for (double y : gp.data.y) y_max = std::max(y_max, y);
    double log_q_peak = -INFINITY;
    for (int k = 0; k < vp.k; ++k) log_q_peak = std::max(log_q_peak, vp_log_pdf(vp, vp.mu.row(k)));
    const double corner[2] = {40.0, -40.0};
    const Matrix far = single_point(corner);
    double value = 0.0;
    ivr_evaluate(gp, terms, far, y_max, unlimited, &value);
    assert_true(std::isfinite(value));
    ivr_evaluate(gp, terms, far, y_max, s, &value);
    assert_true(std::isinf(value));

    // +inf exactly where gp_predict's mean + 3 SD lies more than the drop below y_max.
    Matrix grid(0, 2);
    for (int i = 0; i <= 20; ++i)
        for (int j = 0; j <= 20; ++j) {
            const double x[2] = {-12.0 + 1.2 * i, -12.0 + 1.2 * j};
            grid.append_row(x, 2);
        }
    std::vector<double> grid_values(grid.rows), grid_f, grid_v;
    ivr_evaluate(gp, terms, grid, y_max, s, grid_values.data());
    gp_predict(gp, grid, grid_f, grid_v);
    int excluded = 0;
    for (int j = 0; j < grid.rows; ++j) {
        const bool expected = implausible(s, grid_f[j], grid_v[j], y_max);
        assert_int_equal(std::isinf(grid_values[j]), expected);
        excluded += expected ? 1 : 0;
    }
    assert_true(excluded > 20 && excluded < grid.rows - 20);

    unlimited.lb_search = s.lb_search = {-40.0, -40.0};
    unlimited.ub_search = s.ub_search = {40.0, 40.0};
    Rng rng(3);
    const AcqResult wild = acquire(gp, vp, Matrix(), Matrix(), unlimited, rng);
    const AcqResult kept = acquire(gp, vp, Matrix(), Matrix(), s, rng);
    // (measured: x0 = 12.1, log q 45 below its peak; with the noise-blind ivr, 50 below)
    assert_true(vp_log_pdf(vp, wild.x.data()) < log_q_peak - 40.0);
    std::vector<double> f, v;
    gp_predict(gp, single_point(wild.x.data()), f, v);
    assert_true(implausible(s, f[0], v[0], y_max));
    gp_predict(gp, single_point(kept.x.data()), f, v);
    assert_false(implausible(s, f[0], v[0], y_max));
    assert_true(std::isfinite(kept.value));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduction_is_the_variance_drop),
        cmocka_unit_test(test_reduction_averages_samples),
        cmocka_unit_test(test_prior_covariance_is_the_kernel_mean),
        cmocka_unit_test(test_training_point_and_regulariser),
        cmocka_unit_test(test_integral_variance_bounds_the_reduction),
        cmocka_unit_test(test_reduction_floors_an_inconsistent_variance),
        cmocka_unit_test(test_acquire_finds_grid_optimum),
        cmocka_unit_test(test_points_without_posterior_mass_are_excluded),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
