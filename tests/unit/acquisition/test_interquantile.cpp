// viqr and imiqr (interquantile.hpp) against their definitions: the reduced variance against
// refitting the GP with the candidate added (at its expected noise), the vp average against a
// large plain Monte Carlo average, imiqr's importance-sampling estimate against a dense
// quadrature of its integral, and the average over hyperparameter samples.
#include "acquisition/interquantile.hpp"

#include <cmath>

#include "acquisition/acq_registry.hpp"
#include "acquisition/expected_noise.hpp"
#include "transforms/normal_cdf.hpp"
#include "test_util.h"

using namespace libvbmc;

// 2-D surrogate of a Gaussian log density on 14 random points, noise told at every 4th one.
static Gp make_gp(const std::vector<double>& log_ells) {
    Gp gp;
    gp.dim = 2;
    Rng rng(23);
    for (int i = 0; i < 14; ++i) {
        const double x[2] = {1.4 * rng.normal(), 1.4 * rng.normal()};
        gp.data.x.append_row(x, 2);
        gp.data.y.push_back(-0.5 * (x[0] * x[0] + 0.6 * x[1] * x[1]));
        gp.data.s2.push_back(i % 4 == 0 ? 0.1 : 0.0);
    }
    for (double log_ell : log_ells) {
        std::vector<double> theta(hyp::count(2), 0.0);
        theta[hyp::log_ell(0)] = log_ell;
        theta[hyp::log_ell(1)] = log_ell + 0.2;
        theta[hyp::log_sf(2)] = std::log(1.2);
        theta[hyp::log_sn(2)] = std::log(0.05);
        theta[hyp::log_omega(2, 0)] = 0.3;
        theta[hyp::log_omega(2, 1)] = 0.5;
        gp.samples.push_back(gp_posterior(gp.data, theta));
    }
    return gp;
}

// wide: imiqr's test needs a proposal with heavier tails than exp(f).
static VariationalPosterior make_vp(double wide = 1.0) {
    VariationalPosterior vp;
    vp.dim = 2;
    vp.k = 2;
    vp.w = {0.3, 0.7};
    vp.mu = Matrix(2, 2);
    vp.mu(0, 0) = -0.6;
    vp.mu(1, 1) = 0.3;
    vp.sigma = {0.8 * wide, 1.0 * wide};
    vp.lambda = {1.0, 0.9};
    return vp;
}

static AcqSettings settings(AcqKind kind, int points) {
    AcqSettings s;
    s.kind = kind;
    s.variance_regularized = false;
    s.iqr_points = points;
    return s;
}

// Five spread points and two next to training points with told noise.
static Matrix candidates(const Gp& gp) {
    Matrix xs(0, 2);
    const double points[][2] = {{-0.5, 0.2}, {0.9, -0.7}, {2.2, 1.5}, {0.0, 0.0}, {-2.5, -1.0}};
    for (const auto& p : points) xs.append_row(p, 2);
    for (int i : {0, 4}) {
        const double x[2] = {gp.data.x(i, 0) + 0.05, gp.data.x(i, 1) - 0.05};
        xs.append_row(x, 2);
    }
    return xs;
}

// One sample's log of (1/N) sum_a w_a 2 sinh(u s_{n+1}(x_a; x)), with s_{n+1} from the GP
// refitted with x added at its expected noise and w_a = exp(f(x_a) - y_max) / q(x_a) for
// imiqr (f the current mean), 1 for viqr.
static double refitted_value(const Gp& gp, const VariationalPosterior& vp, const double* x, double told,
                             const Matrix& points, bool weighted, double y_max) {
    Gp grown = gp;
    gp_add_point(grown, x, 0.0, told);
    std::vector<double> f, var_after, unused;
    gp_predict(grown, points, unused, var_after);
    gp_predict(gp, points, f, unused);
    const double u = -normal_quantile(0.25);
    double sum = 0.0;
    for (int a = 0; a < points.rows; ++a) {
        const double w = weighted ? std::exp(f[a] - y_max - vp_log_pdf(vp, points.row(a))) : 1.0;
        sum += w * 2.0 * std::sinh(u * std::sqrt(std::max(var_after[a], 0.0)));
    }
    return std::log(sum / points.rows);
}

// The batched reduced variances and log-sum-exp give the value the refitted GP gives, at the
// same integration points, for both kinds.
static void test_value_matches_refitted_gp(void**) {
    const Gp gp = make_gp({std::log(0.9)});
    const VariationalPosterior vp = make_vp();
    const Matrix xs = candidates(gp);
    const ExpectedNoise noise = expected_noise(gp, xs);
    double told_somewhere = 0.0;
    for (double v : noise.told) told_somewhere = std::max(told_somewhere, v);
    assert_true(told_somewhere > 0.0);
    for (AcqKind kind : {AcqKind::viqr, AcqKind::imiqr}) {
        const AcqSettings s = settings(kind, 300);
        Rng rng(4);
        const InterquantileRange terms(gp, vp, 0.5, s, rng);
        std::vector<double> acq(xs.rows);
        terms.evaluate(xs, acq.data());
        for (int j = 0; j < xs.rows; ++j) {
            const double expected =
                refitted_value(gp, vp, xs.row(j), noise.told[j], terms.points(), kind == AcqKind::imiqr, 0.5);
            assert_close(acq[j], expected, 1e-8 * (1.0 + std::abs(expected)));
        }
    }
}

// viqr's points are draws from q: with 4000 of them the value is the vp average of
// 2 sinh(u s_{n+1}) that 200000 independent draws give, within 4 standard errors.
static void test_viqr_is_the_vp_average(void**) {
    const Gp gp = make_gp({std::log(0.9)});
    const VariationalPosterior vp = make_vp();
    const Matrix xs = candidates(gp);
    const ExpectedNoise noise = expected_noise(gp, xs);
    Rng rng(6);
    const InterquantileRange terms(gp, vp, 0.0, settings(AcqKind::viqr, 4000), rng);
    std::vector<double> acq(xs.rows);
    terms.evaluate(xs, acq.data());
    Matrix draws;
    Rng mc_rng(99);
    vp_sample(vp, 200000, mc_rng, draws);
    const double u = -normal_quantile(0.25);
    for (int j = 0; j < xs.rows; ++j) {
        Gp grown = gp;
        gp_add_point(grown, xs.row(j), 0.0, noise.told[j]);
        std::vector<double> mean, var;
        gp_predict(grown, draws, mean, var);
        double sum = 0.0, sq = 0.0;
        for (double v : var) {
            const double g = 2.0 * std::sinh(u * std::sqrt(std::max(v, 0.0)));
            sum += g;
            sq += g * g;
        }
        const double n = static_cast<double>(draws.rows), average = sum / n;
        const double sd = std::sqrt(sq / n - average * average);
        const double se = std::sqrt(sd * sd / n + sd * sd / 4000.0);  // both estimates' errors
        assert_close(std::exp(acq[j]), average, 4.0 * se);
    }
}

// imiqr's importance-sampling estimate against a midpoint rule of
// integral exp(f(x') - y_max) 2 sinh(u s_{n+1}(x'; x)) dx' on a fine grid, within 3%, with a
// vp wider than exp(f) (the weights' variance is unbounded otherwise).
static void test_imiqr_is_the_integral(void**) {
    const Gp gp = make_gp({std::log(0.9)});
    const VariationalPosterior vp = make_vp(1.8);
    const Matrix xs = candidates(gp);
    const ExpectedNoise noise = expected_noise(gp, xs);
    Rng rng(8);
    const InterquantileRange terms(gp, vp, 0.0, settings(AcqKind::imiqr, 20000), rng);
    std::vector<double> acq(xs.rows);
    terms.evaluate(xs, acq.data());
    const int steps = 160;
    const double lo = -7.0, h = 14.0 / steps;
    Matrix grid(0, 2);
    for (int i = 0; i < steps; ++i)
        for (int k = 0; k < steps; ++k) {
            const double x[2] = {lo + (i + 0.5) * h, lo + (k + 0.5) * h};
            grid.append_row(x, 2);
        }
    std::vector<double> f, unused;
    gp_predict(gp, grid, f, unused);
    const double u = -normal_quantile(0.25);
    for (int j = 0; j < xs.rows; ++j) {
        Gp grown = gp;
        gp_add_point(grown, xs.row(j), 0.0, noise.told[j]);
        std::vector<double> mean, var;
        gp_predict(grown, grid, mean, var);
        double integral = 0.0;
        for (int a = 0; a < grid.rows; ++a)
            integral += std::exp(f[a]) * 2.0 * std::sinh(u * std::sqrt(std::max(var[a], 0.0))) * h * h;
        assert_close(std::exp(acq[j]), integral, 0.03 * integral);
    }
}

// With several hyperparameter samples the value is log of the mean over the samples of each
// sample's average (same integration points: the same stream); the same seed gives the same
// values; hard limits give +inf.
static void test_samples_averaged_and_seeded(void**) {
    const std::vector<double> log_ells = {std::log(0.7), std::log(1.3)};
    const Gp gp = make_gp(log_ells);
    const VariationalPosterior vp = make_vp();
    const Matrix xs = candidates(gp);
    const AcqSettings s = settings(AcqKind::viqr, 200);
    Rng rng(12), same(12);
    const InterquantileRange terms(gp, vp, 0.0, s, rng), again(gp, vp, 0.0, s, same);
    std::vector<double> acq(xs.rows), repeat(xs.rows), mean(xs.rows, 0.0), single(xs.rows);
    terms.evaluate(xs, acq.data());
    again.evaluate(xs, repeat.data());
    for (int j = 0; j < xs.rows; ++j) assert_true(acq[j] == repeat[j]);
    for (double log_ell : log_ells) {
        const Gp one = make_gp({log_ell});
        Rng one_rng(12);
        InterquantileRange(one, vp, 0.0, s, one_rng).evaluate(xs, single.data());
        for (int j = 0; j < xs.rows; ++j) mean[j] += std::exp(single[j]) / log_ells.size();
    }
    for (int j = 0; j < xs.rows; ++j) assert_close(acq[j], std::log(mean[j]), 1e-12 * (1.0 + std::abs(acq[j])));
    AcqSettings limited = s;
    limited.lb_eps = {-1.0, -1.0};
    limited.ub_eps = {1.0, 1.0};
    Rng limited_rng(12);
    InterquantileRange(gp, vp, 0.0, limited, limited_rng).evaluate(xs, single.data());
    for (int j = 0; j < xs.rows; ++j) {
        const bool outside = std::abs(xs(j, 0)) > 1.0 || std::abs(xs(j, 1)) > 1.0;
        if (outside)
            assert_true(std::isinf(single[j]) && single[j] > 0.0);
        else
            assert_true(single[j] == acq[j]);
    }
}

// Through the registry: acquire picks the minimiser of the scorer over the candidates, and a
// candidate at a training point (no variance left to remove there) scores worse than one where
// the surrogate is uncertain inside q's mass.
static void test_registry_scorer_prefers_uncertain_mass(void**) {
    const Gp gp = make_gp({std::log(0.9)});
    const VariationalPosterior vp = make_vp();
    for (AcqKind kind : {AcqKind::viqr, AcqKind::imiqr}) {
        const AcqSettings s = settings(kind, 200);
        Rng rng(1);
        const std::unique_ptr<AcqScorer> scorer = make_acq_scorer(gp, vp, 0.0, s, rng);
        assert_null(scorer->variance_reduction());
        assert_int_equal(static_cast<int>(acq_pruning(acq_entry(kind))), static_cast<int>(AcqBound::none));
        Matrix xs(0, 2);
        xs.append_row(gp.data.x.row(1), 2);  // a training point without told noise
        double gap_point[2] = {0.0, 0.0};
        double best_gap = 0.0;  // the vp mode region point farthest from the data
        for (int i = -4; i <= 4; ++i)
            for (int k = -4; k <= 4; ++k) {
                const double x[2] = {0.25 * i, 0.25 * k};
                double nearest = INFINITY;
                for (int n = 0; n < gp.data.size(); ++n)
                    nearest = std::min(nearest, std::hypot(x[0] - gp.data.x(n, 0), x[1] - gp.data.x(n, 1)));
                if (nearest > best_gap) best_gap = nearest, gap_point[0] = x[0], gap_point[1] = x[1];
            }
        xs.append_row(gap_point, 2);
        std::vector<double> acq(2);
        scorer->evaluate(xs, acq.data());
        assert_true(acq[1] < acq[0]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_matches_refitted_gp),
        cmocka_unit_test(test_viqr_is_the_vp_average),
        cmocka_unit_test(test_imiqr_is_the_integral),
        cmocka_unit_test(test_samples_averaged_and_seeded),
        cmocka_unit_test(test_registry_scorer_prefers_uncertain_mass),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
