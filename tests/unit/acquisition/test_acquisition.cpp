// Acquisition functions, candidate generation and acquire_point on a hand-built surrogate.
#include <cfloat>
#include <cmath>

#include "acquisition/acq_fcn.hpp"
#include "acquisition/active_sample.hpp"
#include "acquisition/search_points.hpp"
#include "test_util.h"

using namespace libvbmc;

// Target: log of a standard 2-D normal. Training points on a grid over the left half-plane
// x0 <= -0.2 only, so the surrogate is uncertain on the right.
static Gp make_gp() {
    Gp gp;
    gp.dim = 2;
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) {
            const double x[2] = {-2.2 + 0.5 * i, -2.0 + 1.0 * j};
            gp.data.x.append_row(x, 2);
            gp.data.y.push_back(-0.5 * (x[0] * x[0] + x[1] * x[1]) - std::log(2.0 * M_PI));
            gp.data.s2.push_back(0.0);
        }
    for (double log_ell : {std::log(0.9), std::log(1.2)}) {
        std::vector<double> theta(hyp::count(2));
        theta[hyp::log_ell(0)] = log_ell;
        theta[hyp::log_ell(1)] = log_ell + 0.1;
        theta[hyp::log_sf(2)] = std::log(1.5);
        theta[hyp::log_sn(2)] = std::log(1e-3);
        theta[hyp::m0(2)] = -std::log(2.0 * M_PI);
        theta[hyp::xm(2, 0)] = 0.1;
        theta[hyp::xm(2, 1)] = 0.0;
        theta[hyp::log_omega(2, 0)] = 0.0;
        theta[hyp::log_omega(2, 1)] = 0.05;
        gp.samples.push_back(gp_posterior(gp.data, theta));
    }
    return gp;
}

static VariationalPosterior make_vp() {
    VariationalPosterior vp;
    vp.dim = 2;
    vp.k = 2;
    vp.w = {0.4, 0.6};
    vp.mu = Matrix(2, 2);
    vp.mu(0, 0) = -0.4;
    vp.mu(0, 1) = 0.1;
    vp.mu(1, 0) = 0.3;
    vp.mu(1, 1) = -0.1;
    vp.sigma = {0.8, 0.9};
    vp.lambda = {1.0, 1.1};
    return vp;
}

static double max_y(const Gp& gp) {
    double y = -INFINITY;
    for (double v : gp.data.y) y = std::max(y, v);
    return y;
}

// Eq. 10 moments computed sample by sample, then each acquisition by its direct formula.
static void test_values_match_direct_formula(void**) {
    const Gp gp = make_gp();
    const VariationalPosterior vp = make_vp();
    const double y_max = max_y(gp);
    Rng rng(2);
    Matrix xs(12, 2);
    for (double& v : xs.data) v = 1.5 * rng.normal();
    xs(0, 0) = gp.data.x(7, 0);  // a training point: tiny variance
    xs(0, 1) = gp.data.x(7, 1);
    const int ns = static_cast<int>(gp.samples.size());
    std::vector<double> means(ns * xs.rows), vars(ns * xs.rows);
    for (int s = 0; s < ns; ++s)
        gp_predict_sample(gp.data, gp.samples[s], xs, means.data() + s * xs.rows, vars.data() + s * xs.rows);
    for (AcqKind kind : {AcqKind::pro, AcqKind::us, AcqKind::log}) {
        for (bool regularized : {false, true}) {
            AcqSettings settings;
            settings.kind = kind;
            settings.variance_regularized = regularized;
            std::vector<double> acq(xs.rows);
            acq_evaluate(gp, vp, xs, y_max, settings, acq.data());
            for (int j = 0; j < xs.rows; ++j) {
                double f_bar = 0.0, var_bar = 0.0;
                for (int s = 0; s < ns; ++s) {
                    f_bar += means[s * xs.rows + j] / ns;
                    var_bar += vars[s * xs.rows + j] / ns;
                }
                double spread = 0.0;
                for (int s = 0; s < ns; ++s) spread += std::pow(means[s * xs.rows + j] - f_bar, 2) / (ns - 1);
                const double var_tot = var_bar + spread;
                const double q = std::exp(vp_log_pdf(vp, xs.row(j)));
                double expected = 0.0;
                if (kind == AcqKind::pro) expected = -var_tot * std::exp(f_bar - y_max) * q;
                if (kind == AcqKind::us) expected = -var_tot * q * q;
                if (kind == AcqKind::log) expected = -(std::log(var_tot) + f_bar - y_max + std::log(q));
                if (regularized && var_tot < settings.tol_gp_var) {
                    const double excess = settings.tol_gp_var / var_tot - 1.0;
                    if (kind == AcqKind::log)
                        expected += excess;
                    else
                        expected *= std::exp(-excess);
                }
                // Both sides form the spread about the mean (two passes), so only summation
                // order differs.
                assert_close(acq[j], expected, 1e-11 * std::max(1.0, std::abs(expected)));
            }
        }
    }
}

// At a training point the variance is ~ sn^2 < tol_gp_var: the regulariser raises the value.
static void test_regulariser_penalises_training_point(void**) {
    const Gp gp = make_gp();
    const VariationalPosterior vp = make_vp();
    Matrix x(1, 2);
    x(0, 0) = gp.data.x(12, 0);
    x(0, 1) = gp.data.x(12, 1);
    std::vector<double> f, v;
    gp_predict(gp, x, f, v);
    assert_true(v[0] < 1e-4);
    for (AcqKind kind : {AcqKind::pro, AcqKind::us, AcqKind::log}) {
        AcqSettings on, off;
        on.kind = off.kind = kind;
        off.variance_regularized = false;
        double with = 0.0, without = 0.0;
        acq_evaluate(gp, vp, x, max_y(gp), on, &with);
        acq_evaluate(gp, vp, x, max_y(gp), off, &without);
        assert_true(with > without);
        if (kind == AcqKind::log) assert_close(with - without, 1e-4 / v[0] - 1.0, 1e-6 * (1e-4 / v[0]));
    }
    // Zero variance and a density far below DBL_MIN stay NaN-free.
    AcqSettings log_settings;
    assert_true(std::isinf(acq_from_moments(log_settings, 0.0, 0.0, -1e6, 0.0)));
    AcqSettings pro_settings;
    pro_settings.kind = AcqKind::pro;
    assert_close(acq_from_moments(pro_settings, 1e4, 0.0, -1e6, 0.0), 0.0, 0.0);
    assert_close(acq_from_moments(pro_settings, 1e4, 1.0, 0.0, 0.0), -DBL_MAX, 0.0);
    assert_true(std::isinf(acq_from_moments(log_settings, NAN, 1.0, 0.0, 0.0)));
}

static void test_hard_limits(void**) {
    const Gp gp = make_gp();
    const VariationalPosterior vp = make_vp();
    AcqSettings settings;
    settings.lb_eps = {-1.0, -1.0};
    settings.ub_eps = {1.0, 1.0};
    Matrix xs(2, 2);
    xs(0, 0) = 0.5;
    xs(1, 0) = 1.5;
    std::vector<double> acq(2);
    acq_evaluate(gp, vp, xs, max_y(gp), settings, acq.data());
    assert_true(std::isfinite(acq[0]));
    assert_true(std::isinf(acq[1]) && acq[1] > 0);
}

static void test_search_points(void**) {
    const Gp gp = make_gp();
    const VariationalPosterior vp = make_vp();
    AcqSettings settings;
    settings.ns_search = 1000;
    settings.lb_search = {-3.0, -2.5};
    settings.ub_search = {3.0, 2.5};
    Matrix cache(3, 2);
    for (int i = 0; i < 3; ++i) cache(i, 0) = cache(i, 1) = 0.1 * i;
    Rng rng(9);
    std::vector<int> index;
    const Matrix points = search_points(gp.data.x, vp, cache, settings, rng, index);
    assert_int_equal(points.rows, 1000);
    assert_int_equal(index.size(), 1000);
    for (int i = 0; i < 3; ++i) {
        assert_true(index[i] >= 0 && index[i] < 3);
        assert_close(points(i, 0), 0.1 * index[i], 0.0);
    }
    for (int i = 3; i < 1000; ++i) assert_int_equal(index[i], -1);
    for (int i = 0; i < points.rows; ++i)
        for (int d = 0; d < 2; ++d)
            assert_true(points(i, d) >= settings.lb_search[d] && points(i, d) <= settings.ub_search[d]);

    // All candidates from the moment-matched Gaussian: its sample mean and variance agree with
    // vp_moments within 5 standard errors.
    AcqSettings mvn_only;
    mvn_only.ns_search = 40000;
    mvn_only.heavy_tail_search_frac = 0.0;
    mvn_only.box_search_frac = 0.0;
    mvn_only.mvn_search_frac = 1.0;
    const Matrix draws = search_points(gp.data.x, vp, Matrix(), mvn_only, rng, index);
    std::vector<double> mean;
    Matrix cov;
    vp_moments(vp, mean, cov);
    for (int d = 0; d < 2; ++d) {
        double m = 0.0, v = 0.0;
        for (int i = 0; i < draws.rows; ++i) m += draws(i, d) / draws.rows;
        for (int i = 0; i < draws.rows; ++i) v += std::pow(draws(i, d) - m, 2) / (draws.rows - 1);
        assert_close(m, mean[d], 5.0 * std::sqrt(cov(d, d) / draws.rows));
        assert_close(v, cov(d, d), 5.0 * cov(d, d) * std::sqrt(2.0 / draws.rows));
    }
    // Box candidates stay in the training box widened by half its diameter.
    AcqSettings box_only = mvn_only;
    box_only.mvn_search_frac = 0.0;
    box_only.box_search_frac = 1.0;
    box_only.ns_search = 500;
    const Matrix box = search_points(gp.data.x, vp, Matrix(), box_only, rng, index);
    for (int i = 0; i < box.rows; ++i) {
        assert_true(box(i, 0) >= -2.2 - 1.0 && box(i, 0) <= -0.2 + 1.0);
        assert_true(box(i, 1) >= -4.0 && box(i, 1) <= 4.0);
    }
}

static double min_distance_to_training(const Gp& gp, const std::vector<double>& x) {
    double best = INFINITY;
    for (int i = 0; i < gp.data.size(); ++i)
        best = std::min(best, std::hypot(x[0] - gp.data.x(i, 0), x[1] - gp.data.x(i, 1)));
    return best;
}

// The chosen point lies where V q exp(f) is large: the unexplored right half near the vp mass.
// It is at least as good as the best point of a fine grid, up to CMA-ES's tolerance.
static void test_acquire_point_targets_uncertain_mass(void**) {
    const Gp gp = make_gp();
    const VariationalPosterior vp = make_vp();
    AcqSettings settings;
    settings.lb_search = {-4.0, -4.0};
    settings.ub_search = {4.0, 4.0};
    Rng rng(17);
    const AcqResult r = acquire(gp, vp, Matrix(), Matrix(), settings, rng);
    assert_true(r.x[0] > 0.0);
    assert_true(std::hypot(r.x[0], r.x[1]) < 3.0);
    assert_true(min_distance_to_training(gp, r.x) > 0.3);
    assert_int_equal(r.cache_index, -1);
    const int g = 161;
    Matrix grid(g * g, 2);
    for (int i = 0; i < g; ++i)
        for (int j = 0; j < g; ++j) {
            grid(i * g + j, 0) = -4.0 + 8.0 * i / (g - 1);
            grid(i * g + j, 1) = -4.0 + 8.0 * j / (g - 1);
        }
    std::vector<double> acq(grid.rows);
    acq_evaluate(gp, vp, grid, max_y(gp), settings, acq.data());
    double grid_min = INFINITY;
    for (double v : acq) grid_min = std::min(grid_min, v);
    assert_true(r.value <= grid_min + 1e-2);
    double check = 0.0;
    Matrix x(1, 2);
    x(0, 0) = r.x[0];
    x(0, 1) = r.x[1];
    acq_evaluate(gp, vp, x, max_y(gp), settings, &check);
    assert_close(check, r.value, 1e-12);
}

static void test_determinism_and_pending_points(void**) {
    const Gp gp = make_gp();
    const VariationalPosterior vp = make_vp();
    AcqSettings settings;
    Rng a(5), b(5);
    const std::vector<double> xa = acquire_point(gp, vp, Matrix(), settings, a);
    const std::vector<double> xb = acquire_point(gp, vp, Matrix(), settings, b);
    assert_true(xa == xb);
    // Avoid points already in the training set change nothing.
    Rng c(5);
    assert_true(acquire_point(gp, vp, gp.data.x, settings, c) == xa);
    // A pending point is treated as observed: the next choice moves away from it.
    Matrix pending(1, 2);
    pending(0, 0) = xa[0];
    pending(0, 1) = xa[1];
    Rng d(5);
    const std::vector<double> xd = acquire_point(gp, vp, pending, settings, d);
    assert_true(std::hypot(xd[0] - xa[0], xd[1] - xa[1]) > 0.3);
    // Same as adding the point to the GP at its predicted mean.
    Gp grown = gp;
    std::vector<double> f, v;
    gp_predict(gp, pending, f, v);
    gp_add_point(grown, xa.data(), f[0], 0.0);
    AcqSettings fixed_y_max = settings;
    Rng e(5);
    const AcqResult re = acquire(grown, vp, Matrix(), Matrix(), fixed_y_max, e);
    if (f[0] <= max_y(gp)) assert_true(re.x == xd);
}

// With the same seed the candidate set is the same, so the CMA-ES refinement can only improve
// on the fast search, for every acquisition kind and both initial scalings.
static void test_refinement_never_worse(void**) {
    const Gp gp = make_gp();
    const VariationalPosterior vp = make_vp();
    for (AcqKind kind : {AcqKind::pro, AcqKind::us, AcqKind::log, AcqKind::ivr}) {
        for (bool vp_init : {true, false}) {
            AcqSettings refined;
            refined.kind = kind;
            refined.search_cmaes_vp_init = vp_init;
            refined.ns_search = 512;
            AcqSettings fast = refined;
            fast.search_cmaes = false;
            Rng a(33), b(33);
            const AcqResult r_fast = acquire(gp, vp, Matrix(), Matrix(), fast, a);
            const AcqResult r_refined = acquire(gp, vp, Matrix(), Matrix(), refined, b);
            assert_true(r_refined.value <= r_fast.value);
            assert_true(std::isfinite(r_refined.value));
            assert_true(min_distance_to_training(gp, r_refined.x) > 0.1);
        }
    }
}

static void test_start_cache_candidate(void**) {
    const Gp gp = make_gp();
    const VariationalPosterior vp = make_vp();
    // Without CMA-ES and with only the cache as candidates, the best cache row is returned.
    AcqSettings settings;
    settings.search_cmaes = false;
    settings.ns_search = 3;
    settings.cache_frac = 1.0;
    Matrix cache(3, 2);
    cache(0, 0) = -2.2;  // a training point: heavily penalised
    cache(0, 1) = -2.0;
    cache(1, 0) = 0.8;   // unexplored, near the vp mass
    cache(2, 0) = 3.9;   // unexplored, far in the tail
    cache(2, 1) = 3.9;
    Rng rng(1);
    const AcqResult r = acquire(gp, vp, Matrix(), cache, settings, rng);
    assert_int_equal(r.cache_index, 1);
    assert_close(r.x[0], 0.8, 0.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_match_direct_formula),
        cmocka_unit_test(test_regulariser_penalises_training_point),
        cmocka_unit_test(test_hard_limits),
        cmocka_unit_test(test_search_points),
        cmocka_unit_test(test_acquire_point_targets_uncertain_mass),
        cmocka_unit_test(test_determinism_and_pending_points),
        cmocka_unit_test(test_refinement_never_worse),
        cmocka_unit_test(test_start_cache_candidate),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
