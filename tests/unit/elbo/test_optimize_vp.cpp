// optimize_vp on a GP that represents a Gaussian log density exactly (negative-quadratic mean
// at the target): recovers the mean, covariance and ELBO = log Z; also a correlated target
// learned by the GP, pruning bookkeeping and the final boost.
#include "elbo/optimize_vp.hpp"

#include <cmath>

#include "elbo/vp_candidates.hpp"
#include "test_util.h"
#include "util/math.hpp"

using namespace libvbmc;

// Target: log Z + log N(x; m, C) on training points spread around m.
struct Target {
    std::vector<double> m;
    Matrix c;
    double log_z;
};

// A 2-D Gaussian with diagonal covariance.
static Target diagonal_target(const std::vector<double>& mean, const std::vector<double>& variance, double log_z) {
    Target t{mean, Matrix(2, 2), log_z};
    t.c(0, 0) = variance[0];
    t.c(1, 1) = variance[1];
    return t;
}

static double target_log_density(const Target& t, const double* x) {
    const double det = t.c(0, 0) * t.c(1, 1) - t.c(0, 1) * t.c(1, 0);
    const double i00 = t.c(1, 1) / det, i11 = t.c(0, 0) / det, i01 = -t.c(0, 1) / det;
    const double a = x[0] - t.m[0], b = x[1] - t.m[1];
    return t.log_z - 0.5 * (i00 * a * a + 2 * i01 * a * b + i11 * b * b) - 0.5 * (2 * kLog2Pi + std::log(det));
}

static Gp target_gp(const Target& t, int n, double ell, double sf, Rng& rng) {
    Gp gp;
    gp.dim = 2;
    gp.data.x = Matrix(n, 2);
    gp.data.y.resize(n);
    gp.data.s2.assign(n, 0.0);
    for (int i = 0; i < n; ++i) {
        for (int d = 0; d < 2; ++d) gp.data.x(i, d) = t.m[d] + 3.0 * std::sqrt(t.c(d, d)) * (2.0 * rng.uniform() - 1.0);
        gp.data.y[i] = target_log_density(t, gp.data.x.row(i));
    }
    std::vector<double> theta(hyp::count(2));
    const double det = t.c(0, 0) * t.c(1, 1) - t.c(0, 1) * t.c(1, 0);
    for (int d = 0; d < 2; ++d) {
        theta[hyp::log_ell(d)] = std::log(ell * std::sqrt(t.c(d, d)));
        theta[hyp::xm(2, d)] = t.m[d];
        // Curvature of the target along each axis: the mean is exact when C is diagonal.
        const double precision = (d == 0 ? t.c(1, 1) : t.c(0, 0)) / det;
        theta[hyp::log_omega(2, d)] = -0.5 * std::log(precision);
    }
    theta[hyp::log_sf(2)] = std::log(sf);
    theta[hyp::log_sn(2)] = std::log(1e-3);
    theta[hyp::m0(2)] = t.log_z - 0.5 * (2 * kLog2Pi + std::log(det));
    gp.samples.push_back(gp_posterior(gp.data, theta));
    return gp;
}

static void check_recovery(const VariationalPosterior& vp, const ElboEstimate& e, const Target& t,
                           double elbo_tol, double moment_tol) {
    std::vector<double> mean;
    Matrix cov;
    vp_moments(vp, mean, cov);
    for (int d = 0; d < 2; ++d) {
        assert_close(mean[d], t.m[d], moment_tol * std::sqrt(t.c(d, d)));
        for (int e2 = 0; e2 < 2; ++e2)
            assert_close(cov(d, e2), t.c(d, e2), moment_tol * std::sqrt(t.c(d, d) * t.c(e2, e2)));
    }
    assert_close(e.elbo, t.log_z, elbo_tol);
    assert_close(e.elbo, e.e_log_joint + e.entropy, 1e-10);
}

static void test_warmup_diagonal_target(void**) {
    Rng rng(41);
    const Target t = diagonal_target({0.5, -1.0}, {0.8, 2.0}, -3.0);
    Gp gp = target_gp(t, 60, 1.0, 1.0, rng);
    const double x0[2] = {0.0, 0.0};
    VariationalPosterior vp = vp_initial(2, 2, x0, rng);
    VpOptimSettings s = vp_optim_defaults(2);
    s.warmup = true;
    int n_fast = 0, n_slow = 0;
    vp_optim_counts(s, vp.k, true, n_fast, n_slow);
    assert_int_equal(n_fast, 100);
    assert_int_equal(n_slow, 2);
    int pruned = -1;
    ElboEstimate e = optimize_vp(vp, gp, s, 2, n_fast, n_slow, rng, &pruned);
    assert_int_equal(pruned, 0);
    assert_int_equal(vp.k, 2);
    assert_close(vp.w[0], 0.5, 0.0);
    // ELBO <= log Z up to Monte Carlo error of the entropy (2 x 4096 draws).
    check_recovery(vp, e, t, 0.05, 0.1);
    assert_true(e.elbo_sd > 0.0 && e.elbo_sd < 0.2);
}

static void test_free_weights_correlated_target(void**) {
    Rng rng(42);
    Target t{{0.0, 1.0}, Matrix(2, 2), 1.5};
    t.c(0, 0) = 1.0;
    t.c(1, 1) = 1.0;
    t.c(0, 1) = t.c(1, 0) = 0.5;
    Gp gp = target_gp(t, 150, 1.5, 2.0, rng);
    const double x0[2] = {0.2, 0.8};
    VariationalPosterior vp = vp_initial(2, 2, x0, rng);
    VpOptimSettings s = vp_optim_defaults(2);
    s.warmup = false;
    vp.optimize_weights = true;
    int n_fast = 0, n_slow = 0;
    vp_optim_counts(s, 4, true, n_fast, n_slow);
    int pruned = -1;
    ElboEstimate e = optimize_vp(vp, gp, s, 4, n_fast, n_slow, rng, &pruned);
    assert_int_equal(vp.k + pruned, 4);
    // As in a run, later iterations refine the previous solution (fewer candidates, one start).
    for (int iteration = 0; iteration < 6; ++iteration) {
        vp_optim_counts(s, vp.k, false, n_fast, n_slow);
        assert_int_equal(n_slow, 1);
        e = optimize_vp(vp, gp, s, vp.k, n_fast, n_slow, rng, &pruned);
    }
    double total = 0.0;
    for (double w : vp.w) total += w;
    assert_close(total, 1.0, 1e-12);
    // A mixture of axis-aligned components approximates the correlated Gaussian from below.
    check_recovery(vp, e, t, 0.05, 0.1);
    assert_true(e.elbo < t.log_z + 0.03);

    // Final boost: more components, no pruning. One short Adam run (PyVBMC's stopping rule stops
    // as soon as the noisy objective looks flat), so it only has to stay close.
    VpOptimSettings boost = s;
    boost.min_final_components = 6;
    ElboEstimate b = vp_final_boost(vp, gp, boost, rng);
    assert_int_equal(vp.k, 6);
    assert_true(b.elbo > e.elbo - 0.1);
    check_recovery(vp, b, t, 0.1, 0.2);
}

static void test_single_component_bfgs_path(void**) {
    Rng rng(43);
    const Target t = diagonal_target({1.0, 2.0}, {0.5, 1.5}, 0.0);
    Gp gp = target_gp(t, 60, 1.0, 1.0, rng);
    const double x0[2] = {0.5, 1.5};
    VariationalPosterior vp = vp_initial(2, 1, x0, rng);
    VpOptimSettings s = vp_optim_defaults(2);
    s.warmup = false;
    vp.optimize_weights = true;
    ElboEstimate e = optimize_vp(vp, gp, s, 1, 50, 2, rng, nullptr);
    // Deterministic path, exact entropy: the optimum is the target itself.
    check_recovery(vp, e, t, 2e-3, 0.02);
}

// Two equal components at a diagonal Gaussian target: the best any mixture can do.
static VariationalPosterior two_components_at(const Target& t) {
    VariationalPosterior vp;
    vp.dim = 2;
    vp.k = 2;
    vp.mu = Matrix(2, 2);
    for (int k = 0; k < 2; ++k)
        for (int d = 0; d < 2; ++d) vp.mu(k, d) = t.m[d];
    vp.sigma = {1.0, 1.0};
    vp.lambda = {std::sqrt(t.c(0, 0)), std::sqrt(t.c(1, 1))};
    vp.w = {0.5, 0.5};
    vp.optimize_weights = true;
    return vp;
}

// A refinement whose stochastic optimisation drifts (a few large Adam steps, the best iterate not
// scored) returns its starting point when that is the better fit: here the start is the target
// itself (two equal components at the Gaussian), the best any posterior can do.
static void test_refinement_keeps_a_better_start(void**) {
    Rng rng(44);
    const Target t = diagonal_target({0.3, -0.4}, {0.6, 1.4}, -1.0);
    Gp gp = target_gp(t, 80, 1.0, 1.0, rng);
    VariationalPosterior vp = two_components_at(t);
    VpOptimSettings s = vp_optim_defaults(2);
    s.warmup = false;
    s.tol_weight = 0.0;
    s.elcbo_midpoint = false;
    s.sgd_step_size = 0.1;
    s.max_iter_stochastic = 4;
    const ElboEstimate e = optimize_vp(vp, gp, s, 2, 0, 1, rng, nullptr);
    check_recovery(vp, e, t, 0.03, 1e-9);
}

// The final boost never returns a posterior scored below the one it started from (here the
// surrogate's two-component optimum, boosted to 10 components with a run stopped after its first
// Adam batches): it starts from the same density with split components, and keeps the unboosted
// posterior when the boosted fit scores lower.
static void test_final_boost_never_scores_below_its_start(void**) {
    Rng rng(45);
    const Target t = diagonal_target({-0.2, 0.5}, {0.8, 1.2}, 0.5);
    Gp gp = target_gp(t, 80, 1.0, 1.0, rng);
    VariationalPosterior vp = two_components_at(t);
    VpOptimSettings s = vp_optim_defaults(2);
    s.warmup = false;
    s.tol_weight = 0.0;
    const ElboEstimate start = optimize_vp(vp, gp, s, 2, 0, 1, rng, nullptr);
    std::vector<double> start_mean, mean;
    Matrix start_cov, cov;
    vp_moments(vp, start_mean, start_cov);
    s.min_final_components = 10;
    s.elcbo_midpoint = false;
    s.tol_fun_stochastic = 10.0;
    const ElboEstimate e = vp_final_boost(vp, gp, s, rng);
    print_message("start ELBO %.5f, returned %.5f with %d components\n", start.elbo, e.elbo, vp.k);
    // Two Monte Carlo estimates (control variate) of nearly the same posterior.
    assert_true(e.elbo >= start.elbo - 2e-3);
    vp_moments(vp, mean, cov);
    for (int d = 0; d < 2; ++d) {
        assert_close(mean[d], start_mean[d], 0.02);
        assert_close(cov(d, d), start_cov(d, d), 0.02);
    }
}

// Two lumps stretched along different axes, N((-2.5, 0), diag(1, 0.25)) and N((2.5, 0), diag(0.25, 1))
// with equal weights (log Z = 0), learned by a GP on a grid. Components sharing one diagonal
// scale must give both lumps the same aspect ratio (each lump's best such fit, isotropic with
// variance 0.625, costs KL = log(1.5625) / 2 = 0.22); with a scale per component the boost fits
// the target exactly.
static void test_boost_component_scales_fit_differently_stretched_lumps(void**) {
    const double centre = 2.5, long_var = 1.0, short_var = 0.25;
    auto log_target = [&](const double* x) {
        const double a = -0.5 * ((x[0] + centre) * (x[0] + centre) / long_var + x[1] * x[1] / short_var);
        const double b = -0.5 * ((x[0] - centre) * (x[0] - centre) / short_var + x[1] * x[1] / long_var);
        const double terms[2] = {a, b};
        return std::log(0.5) - kLog2Pi - 0.5 * std::log(long_var * short_var) + log_sum_exp(terms, 2);
    };
    Gp gp;
    gp.dim = 2;
    gp.data.x = Matrix(0, 2);
    for (double x0 = -6.0; x0 <= 6.0 + 1e-9; x0 += 0.3)
        for (double x1 = -4.0; x1 <= 4.0 + 1e-9; x1 += 0.3) {
            const double x[2] = {x0, x1};
            gp.data.x.append_row(x, 2);
            gp.data.y.push_back(log_target(x));
        }
    gp.data.s2.assign(gp.data.y.size(), 0.0);
    std::vector<double> theta(hyp::count(2));
    for (int d = 0; d < 2; ++d) {
        theta[hyp::log_ell(d)] = std::log(0.6);
        theta[hyp::xm(2, d)] = 0.0;
        theta[hyp::log_omega(2, d)] = std::log(d == 0 ? 4.0 : 2.0);
    }
    theta[hyp::log_sf(2)] = std::log(5.0);
    theta[hyp::log_sn(2)] = std::log(1e-3);
    theta[hyp::m0(2)] = 0.0;
    gp.samples.push_back(gp_posterior(gp.data, theta));

    // The shared-scale optimum from two components at the lumps.
    Rng rng(46);
    VariationalPosterior start;
    start.dim = 2;
    start.k = 2;
    start.mu = Matrix(2, 2);
    start.mu(0, 0) = -centre;
    start.mu(1, 0) = centre;
    start.sigma = {0.7, 0.7};
    start.lambda = {1.0, 1.0};
    start.w = {0.5, 0.5};
    start.optimize_weights = true;
    VpOptimSettings s = vp_optim_defaults(2);
    s.warmup = false;
    s.tol_weight = 0.0;
    optimize_vp(start, gp, s, 2, 0, 1, rng, nullptr);
    s.min_final_components = 2;

    VariationalPosterior shared = start, per_component = start;
    s.boost_component_scales = false;
    const ElboEstimate shared_elbo = vp_final_boost(shared, gp, s, rng);
    s.boost_component_scales = true;
    s.tol_fun_stochastic = 1e-5;  // Adam run to convergence: the test is about the fit, not the schedule
    const ElboEstimate per_component_elbo = vp_final_boost(per_component, gp, s, rng);
    print_message("ELBO with a shared scale %.4f, with component scales %.4f (log Z = 0)\n", shared_elbo.elbo,
                  per_component_elbo.elbo);
    assert_false(shared.component_scales);
    assert_true(per_component.component_scales);
    assert_close(shared_elbo.elbo, -0.5 * std::log(1.5625), 0.05);
    assert_close(per_component_elbo.elbo, 0.0, 0.03);
    // Each component took its lump's shape: SD ratio x / y of 2 at -2.5 and 1/2 at +2.5 (within 25%;
    // a shared scale gives both the same ratio).
    double widest_start = 0.0;
    for (int k = 0; k < 2; ++k)
        for (int d = 0; d < 2; ++d) widest_start = std::max(widest_start, start.sigma[k] * start.lambda_of(k, d));
    for (int k = 0; k < 2; ++k) {
        const double ratio = per_component.lambda_of(k, 0) / per_component.lambda_of(k, 1);
        assert_close(std::log(ratio), std::log(per_component.mu(k, 0) < 0.0 ? 2.0 : 0.5), std::log(1.25));
        for (int d = 0; d < 2; ++d)
            assert_true(per_component.sigma[k] * per_component.lambda_of(k, d) < s.boost_max_widening * widest_start);
    }

    // A component-scale fit whose ELBO SD grew too much is replaced by the shared-scale boost; when
    // the posterior already has component scales, the unboosted posterior is kept.
    s.boost_max_sd_growth = 0.0;
    VariationalPosterior fallback = start;
    const ElboEstimate fallback_elbo = vp_final_boost(fallback, gp, s, rng);
    assert_false(fallback.component_scales);
    assert_close(fallback_elbo.elbo, shared_elbo.elbo, 0.01);
    VariationalPosterior already = vp_with_component_scales(start);
    s.min_final_components = 4;
    vp_final_boost(already, gp, s, rng);
    assert_int_equal(already.k, 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warmup_diagonal_target),
        cmocka_unit_test(test_free_weights_correlated_target),
        cmocka_unit_test(test_single_component_bfgs_path),
        cmocka_unit_test(test_refinement_keeps_a_better_start),
        cmocka_unit_test(test_final_boost_never_scores_below_its_start),
        cmocka_unit_test(test_boost_component_scales_fit_differently_stretched_lumps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
