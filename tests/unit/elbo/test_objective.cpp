// Negative ELBO objective with soft bounds (gradient against central differences), Adam and
// BFGS on quadratics, update_k rules, candidate generation.
#include <cmath>

#include "elbo/adam.hpp"
#include "elbo/bfgs.hpp"
#include "elbo/neg_elcbo.hpp"
#include "elbo/update_k.hpp"
#include "elbo/vp_candidates.hpp"
#include "elbo_test_fixtures.hpp"
#include "test_util.h"

using namespace libvbmc;
using namespace libvbmc_test;

static void check_objective_gradient(bool weights, int n_ent, bool component_scales = false,
                                     EntropyDraws draws = EntropyDraws::independent) {
    Rng setup(31);
    const int dim = 2;
    Gp gp = random_gp(dim, 15, setup, {make_theta(dim, 0.9, 1.1, 0.1, 0.4, -0.1, 1.8)});
    VariationalPosterior vp = random_vp(dim, 3, setup, weights, component_scales);
    if (weights) {
        vp.w = {0.7, 0.28, 0.02};  // one weight below the penalty threshold
    }
    VpOptimSettings s = vp_optim_defaults(dim);
    VpSoftBounds bounds = vp_soft_bounds(gp.data, vp.k, s);
    std::vector<double> theta = vp.get_theta();
    theta[0] = bounds.mu_ub[0] + 0.3;                // mean outside its soft bound
    theta[dim * vp.k] = bounds.ln_scale_lb[0] - 1.0;  // scale below its soft bound
    if (weights) theta.back() += 0.5;                 // eta above 0
    auto f = [&](const std::vector<double>& t) {
        VariationalPosterior work = vp;
        Rng rng(5);
        return neg_elcbo(t, work, gp, n_ent, draws, &bounds, false, rng, nullptr, nullptr);
    };
    VariationalPosterior work = vp;
    Rng rng(5);
    std::vector<double> grad;
    ElboTerms terms;
    const double value = neg_elcbo(theta, work, gp, n_ent, draws, &bounds, false, rng, &grad, &terms);
    assert_true(terms.penalty > 0.0);
    assert_close(value, terms.neg_elbo() + terms.penalty, 1e-12);
    const std::vector<double> fd = central_diff(f, theta, 1e-6);
    for (size_t i = 0; i < fd.size(); ++i) assert_close(grad[i], fd[i], 2e-5 * (1.0 + std::fabs(fd[i])));
}

static void test_objective_gradient(void**) {
    check_objective_gradient(false, 0);
    check_objective_gradient(true, 0);
    check_objective_gradient(false, 20);
    check_objective_gradient(true, 20);
    check_objective_gradient(false, 20, true);
    check_objective_gradient(true, 0, true);
    check_objective_gradient(true, 20, true, EntropyDraws::kronecker);  // exact for the lattice drawn too
}

static double quadratic(const std::vector<double>& x, std::vector<double>& g) {
    const double centre[3] = {1.0, -2.0, 0.5}, curv[3] = {1.0, 4.0, 0.5};
    double f = 0.0;
    g.resize(3);
    for (int i = 0; i < 3; ++i) {
        f += 0.5 * curv[i] * (x[i] - centre[i]) * (x[i] - centre[i]);
        g[i] = curv[i] * (x[i] - centre[i]);
    }
    return f;
}

static void test_adam_quadratic(void**) {
    AdamSettings s;
    s.master_max = 0.1;
    s.master_min = 0.001;
    s.max_iter = 5000;
    AdamResult r = minimize_adam(quadratic, {0.0, 0.0, 0.0}, s);
    assert_true(r.iterations < 5000);  // early stopping triggered
    assert_close(r.x[0], 1.0, 0.05);
    assert_close(r.x[1], -2.0, 0.05);
    assert_close(r.x[2], 0.5, 0.05);
    assert_true(r.best_f <= r.f + 1e-12);
}

static void test_bfgs_quadratic(void**) {
    BfgsResult r = minimize_bfgs(quadratic, {3.0, 3.0, 3.0}, 1e-8, 200);
    assert_true(r.converged);
    assert_close(r.x[0], 1.0, 1e-7);
    assert_close(r.x[1], -2.0, 1e-7);
    assert_close(r.x[2], 0.5, 1e-7);
}

static void test_update_k(void**) {
    VpOptimSettings s = vp_optim_defaults(2);
    std::vector<IterationSummary> history;
    for (int i = 0; i < 10; ++i) {
        IterationSummary it;
        it.elbo = i;  // improving
        it.elbo_sd = 0.1;
        it.r_index = 0.5;
        it.warmup = i < 3;
        history.push_back(it);
    }
    // Improving and stable: +1 +adaptive_k.
    assert_int_equal(update_k(3, 100.0, false, 10, false, history, s), 6);
    // Capped by ceil(n_eff^(2/3)) = ceil(8^(2/3)) = 4.
    assert_int_equal(update_k(3, 8.0, false, 10, false, history, s), 4);
    // Not stable: +1 only.
    history.back().r_index = 2.0;
    assert_int_equal(update_k(3, 100.0, false, 10, false, history, s), 4);
    // Pruned last iteration: no change.
    history.back().pruned = 1;
    assert_int_equal(update_k(3, 100.0, false, 10, false, history, s), 3);
    // Not improving: no change; warm-up: no change.
    history.back().pruned = 0;
    history.back().elbo = -10.0;
    assert_int_equal(update_k(3, 100.0, false, 10, false, history, s), 3);
    assert_int_equal(update_k(3, 100.0, true, 10, false, history, s), 3);
}

static void check_candidates(bool component_scales) {
    Rng rng(32);
    VariationalPosterior vp = random_vp(2, 2, rng, true, component_scales);
    Gp gp = random_gp(2, 20, rng, {make_theta(2, 0.9, 1.1, 0.1, 0.4, -0.1, 1.8)});
    Matrix x_hpd;
    std::vector<double> y_hpd;
    hpd_points(gp.data.x, gp.data.y, 0.8, x_hpd, y_hpd);
    assert_int_equal(x_hpd.rows, 16);
    for (int i = 1; i < x_hpd.rows; ++i) assert_true(y_hpd[i] <= y_hpd[i - 1]);
    for (int type = 1; type <= 3; ++type) {
        auto cands = vp_candidates(vp, static_cast<CandidateType>(type), 4, 4, x_hpd, rng);
        assert_int_equal(static_cast<int>(cands.size()), 4);
        for (const VariationalPosterior& c : cands) {
            assert_int_equal(c.k, 4);
            assert_int_equal(c.mu.rows, 4);
            assert_true(c.component_scales == component_scales);
            assert_int_equal(static_cast<int>(c.lambda.size()), component_scales ? 4 * 2 : 2);
            for (double l : c.lambda) assert_true(l > 0.0 && std::isfinite(l));
            double total = 0.0;
            for (int j = 0; j < 4; ++j) {
                assert_true(c.sigma[j] > 0.0 && std::isfinite(c.sigma[j]));
                total += c.w[j];
            }
            assert_close(total, 1.0, 1e-12);
        }
        if (type == 1) {
            // First "previous" candidate keeps the old components verbatim.
            for (int j = 0; j < 2; ++j)
                for (int d = 0; d < 2; ++d) {
                    assert_close(cands[0].mu(j, d), vp.mu(j, d), 0.0);
                    assert_close(cands[0].lambda_of(j, d), vp.lambda_of(j, d), 0.0);
                }
        }
    }
    VariationalPosterior scaled = vp;
    vp_normalize_scales(scaled);
    const double x[2] = {0.2, 0.4};
    assert_close(vp_log_pdf(scaled, x), vp_log_pdf(vp, x), 1e-12);
    for (int j = 0; j < scaled.lambda_rows(); ++j)
        assert_close(scaled.lambda_of(j, 0) * scaled.lambda_of(j, 0) + scaled.lambda_of(j, 1) * scaled.lambda_of(j, 1), 2.0,
                     1e-12);
}

// The boost's cap lowers the upper soft bound of log(sigma_k lambda_kd), never below lb + 1.
static void test_scale_cap(void**) {
    Rng rng(34);
    Gp gp = random_gp(2, 20, rng, {make_theta(2, 0.9, 1.1, 0.1, 0.4, -0.1, 1.8)});
    VpOptimSettings s = vp_optim_defaults(2);
    const VpSoftBounds plain = vp_soft_bounds(gp.data, 3, s);
    s.ln_scale_cap = {plain.ln_scale_ub[0] - 2.0, plain.ln_scale_ub[1] + 2.0};
    const VpSoftBounds capped = vp_soft_bounds(gp.data, 3, s);
    assert_close(capped.ln_scale_ub[0], plain.ln_scale_ub[0] - 2.0, 1e-12);
    assert_close(capped.ln_scale_ub[1], plain.ln_scale_ub[1], 1e-12);
    s.ln_scale_cap = {-1e3, -1e3};
    const VpSoftBounds floor = vp_soft_bounds(gp.data, 3, s);
    for (int d = 0; d < 2; ++d) assert_close(floor.ln_scale_ub[d], floor.ln_scale_lb[d] + 1.0, 1e-12);
}

static void test_candidates(void**) {
    check_candidates(false);
    check_candidates(true);
    Rng rng(33);
    VariationalPosterior init = vp_initial(3, 2, std::vector<double>{0.5, -0.5, 1.0}.data(), rng);
    assert_int_equal(init.k, 2);
    assert_false(init.optimize_weights);
    assert_close(init.mu(1, 2), 1.0, 1e-5);
    assert_close(init.sigma[0], 1e-3, 0.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_objective_gradient), cmocka_unit_test(test_adam_quadratic),
        cmocka_unit_test(test_bfgs_quadratic),     cmocka_unit_test(test_update_k),
        cmocka_unit_test(test_candidates),        cmocka_unit_test(test_scale_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
