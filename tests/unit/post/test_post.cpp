// Posterior summaries and comparisons on snapshots whose answers are known in closed form: exact
// marginals (against the affine moments, the mass of draws), the mode (a Gaussian, a log-normal, a
// mixture of two far-apart components), the Monte Carlo KL divergence (two Gaussians under a
// shared bounded transform, against the Gaussian formula), the marginal total variation (two unit
// Gaussians), reproducibility and argument checks; the multi-run diagnostics' choice of the best
// run and their ELBO and convergence criteria on snapshots with given ELBOs.
#include <algorithm>
#include <cmath>
#include <vector>

#include "post/diagnostics.hpp"
#include "post/divergence.hpp"
#include "post/marginal.hpp"
#include "post/mode.hpp"
#include "test_util.h"
#include "transforms/normal_cdf.hpp"
#include "util/error.hpp"
#include "util/math.hpp"

using namespace libvbmc;

namespace {

using Kind = ParameterTransform::Bounded;

// Four coordinates: unbounded, lower bound only, upper bound only, both bounds.
constexpr int kDim = 4;
const double kLb[kDim] = {-INFINITY, 0.5, -INFINITY, -3.0};
const double kUb[kDim] = {INFINITY, INFINITY, 2.0, 7.0};
const double kPlb[kDim] = {-10.0, 1.0, -4.0, -2.0};
const double kPub[kDim] = {20.0, 30.0, 1.5, 4.0};

ParameterTransform mixed(Kind kind) { return ParameterTransform(kDim, kLb, kUb, kPlb, kPub, kind); }

ParameterTransform unbounded(int dim) {
    const std::vector<double> lb(dim, -INFINITY), ub(dim, INFINITY), plb(dim, -1.0), pub(dim, 1.0);
    return ParameterTransform(dim, lb.data(), ub.data(), plb.data(), pub.data(), Kind::probit);
}

// A mixture in z with component means mu (k x dim, row-major), scales sigma[k], shared lambda[dim].
PosteriorSnapshot snapshot(const ParameterTransform& transform, const std::vector<double>& w,
                           const std::vector<double>& mu, const std::vector<double>& sigma,
                           const std::vector<double>& lambda) {
    PosteriorSnapshot p;
    p.transform = transform;
    p.vp.dim = transform.dim();
    p.vp.k = static_cast<int>(w.size());
    p.vp.w = w;
    p.vp.mu = Matrix(p.vp.k, p.vp.dim);
    p.vp.mu.data = mu;
    p.vp.sigma = sigma;
    p.vp.lambda = lambda;
    return p;
}

template <class F>
void expect_error(Code code, F&& f) {
    bool threw = false;
    try {
        f();
    } catch (const Error& e) {
        threw = e.code() == code;
    }
    assert_true(threw);
}

double normal_log_pdf(double x, double mean, double sd) {
    const double u = (x - mean) / sd;
    return -0.5 * u * u - 0.5 * kLog2Pi - std::log(sd);
}

}  // namespace

// With an unbounded, rotoscaled transform x is affine in z, so a one-component snapshot is a
// Gaussian in x whose marginals have the exact moments' mean and variance.
static void test_marginal_of_an_affine_gaussian_matches_its_moments(void**) {
    Matrix cov(3, 3);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) cov(i, j) = i == j ? 1.0 + i : 0.5;
    const PosteriorSnapshot p = snapshot(unbounded(3).rotoscaled(cov, 0.0, 0.0), {1.0}, {0.3, -0.2, 0.5}, {0.8},
                                         {1.0, 0.6, 1.3});
    std::vector<double> mean;
    Matrix moments_cov;
    p.moments(mean, moments_cov);
    for (int d = 0; d < 3; ++d) {
        const Marginal marginal(p, d);
        for (double x : {-3.0, -0.4, 0.0, 1.1, 4.0})
            assert_close(marginal.log_pdf(x), normal_log_pdf(x, mean[d], std::sqrt(moments_cov(d, d))), 1e-10);
    }
}

// A three-component mixture under every bound type and a rotoscaling stage: each marginal
// integrated (trapezoid rule) between the 0.5% and 99.5% order statistics of 100000 draws holds
// 99% of the mass, within 4 binomial standard errors of those order statistics' coverage; it is 0
// outside the hard bounds.
static void test_marginal_integrates_to_the_mass_of_draws(void**) {
    Matrix cov(kDim, kDim);
    for (int i = 0; i < kDim; ++i)
        for (int j = 0; j < kDim; ++j) cov(i, j) = i == j ? 1.0 : 0.3;
    const PosteriorSnapshot p =
        snapshot(mixed(Kind::probit).rotoscaled(cov, 0.0, 0.0), {0.2, 0.5, 0.3},
                 {0.0, 0.1, -0.2, 0.3, 0.5, -0.4, 0.2, 0.0, -0.6, 0.3, 0.1, -0.2}, {0.3, 0.5, 0.4}, {1.0, 0.8, 1.2, 0.9});
    const size_t n = 100000;
    std::vector<double> draws(n * kDim), column(n);
    p.sample(n, 3, draws.data());
    for (int d = 0; d < kDim; ++d) {
        for (size_t i = 0; i < n; ++i) column[i] = draws[i * kDim + d];
        std::sort(column.begin(), column.end());
        const double lo = column[n / 200], hi = column[n - n / 200];
        const Marginal marginal(p, d);
        const int steps = 400000;
        const double h = (hi - lo) / steps;
        double integral = 0.0;
        for (int s = 0; s <= steps; ++s)
            integral += (s == 0 || s == steps ? 0.5 : 1.0) * std::exp(marginal.log_pdf(lo + s * h));
        assert_close(integral * h, 0.99, 4.0 * std::sqrt(2.0 * 0.005 * 0.995 / static_cast<double>(n)));
        if (std::isfinite(kLb[d])) assert_true(marginal.log_pdf(kLb[d] - 0.1) == -INFINITY);
        if (std::isfinite(kUb[d])) assert_true(marginal.log_pdf(kUb[d]) == -INFINITY);
    }
    expect_error(Code::arg, [&] { Marginal(p, kDim); });
    expect_error(Code::arg, [&] { Marginal(p, -1); });
}

// A Gaussian in an affine space: its mean. A log-normal (a Gaussian in y = log(x - lb)): lb +
// exp(m - s^2), not the image of the Gaussian's mode. Two far-apart components: the heavier one's
// mean, whichever order they come in.
static void test_mode_in_closed_form(void**) {
    const PosteriorSnapshot gaussian = snapshot(unbounded(2), {1.0}, {0.4, -1.2}, {0.7}, {1.0, 0.5});
    std::vector<double> mode = posterior_mode(gaussian), x(2);
    gaussian.transform.to_original(gaussian.vp.mu.row(0), x.data());
    for (int d = 0; d < 2; ++d) assert_close(mode[d], x[d], 1e-7);

    const double lb = 0.5, ub = INFINITY, plb = 1.0, pub = 30.0;
    const ParameterTransform log_map(1, &lb, &ub, &plb, &pub, Kind::probit);
    const PosteriorSnapshot log_normal = snapshot(log_map, {1.0}, {0.2}, {0.3}, {1.0});
    const AffineMap y_of_z = log_map.warped_from_unbounded();
    const double m = y_of_z.b[0] + y_of_z.a(0, 0) * 0.2, s = y_of_z.a(0, 0) * 0.3;
    assert_close(posterior_mode(log_normal)[0], lb + std::exp(m - s * s), 1e-7);

    for (const std::vector<double>& w : {std::vector<double>{0.3, 0.7}, std::vector<double>{0.7, 0.3}}) {
        const PosteriorSnapshot two = snapshot(unbounded(2), w, {-10.0, 0.0, 10.0, 1.0}, {0.5, 0.5}, {1.0, 1.0});
        const int heavier = w[0] > w[1] ? 0 : 1;
        two.transform.to_original(two.vp.mu.row(heavier), x.data());
        mode = posterior_mode(two);
        for (int d = 0; d < 2; ++d) assert_close(mode[d], x[d], 1e-7);
    }
}

// Under one bijection shared by p and q the KL divergence is that of their densities in z: for
// one-component snapshots the Gaussian formula (vp_kl_gauss). The estimates lie within 4 of their
// standard errors of it; KL(p||p) is 0 with SD 0; a seed gives its result bitwise.
static void test_kl_of_gaussians_under_a_shared_transform(void**) {
    for (Kind kind : {Kind::probit, Kind::logit}) {
        const PosteriorSnapshot p = snapshot(mixed(kind), {1.0}, {0.1, -0.2, 0.3, 0.0}, {0.3}, {1.0, 0.8, 1.2, 0.9});
        const PosteriorSnapshot q = snapshot(mixed(kind), {1.0}, {0.3, -0.1, 0.2, 0.2}, {0.4}, {0.9, 1.0, 1.0, 0.7});
        const std::pair<double, double> exact = vp_kl_gauss(p.vp, q.vp);
        const KlEstimate kl = kl_divergence(p, q, 20000, 7);
        assert_true(kl.forward_sd > 0.0 && kl.reverse_sd > 0.0);
        assert_close(kl.forward, exact.first, 4.0 * kl.forward_sd);
        assert_close(kl.reverse, exact.second, 4.0 * kl.reverse_sd);
        const KlEstimate again = kl_divergence(p, q, 20000, 7);
        assert_true(again.forward == kl.forward && again.reverse == kl.reverse && again.forward_sd == kl.forward_sd);
        assert_true(kl_divergence(p, q, 20000, 8).forward != kl.forward);
        const KlEstimate self = kl_divergence(p, p, 1000, 7);
        assert_true(self.forward == 0.0 && self.reverse == 0.0 && self.forward_sd == 0.0 && self.reverse_sd == 0.0);
    }
}

// N(0, 1) against N(1, 1): TV = 2 Phi(1/2) - 1, within 4 of the estimate's largest standard error
// 0.5 / sqrt(n); identical snapshots give 0 exactly; far apart, TV approaches 1 and never exceeds it.
static void test_mtv_of_unit_gaussians(void**) {
    // Plausible box [-1, 1]: y = 2 z, so z ~ N(m, 0.5^2) is y ~ N(2 m, 1).
    const PosteriorSnapshot p = snapshot(unbounded(1), {1.0}, {0.0}, {0.5}, {1.0});
    const PosteriorSnapshot q = snapshot(unbounded(1), {1.0}, {0.5}, {0.5}, {1.0});
    const PosteriorSnapshot far = snapshot(unbounded(1), {1.0}, {20.0}, {0.5}, {1.0});
    const size_t n = 20000;
    assert_close(marginal_total_variation(p, q, n, 1)[0], 2.0 * normal_cdf(0.5) - 1.0, 4.0 * 0.5 / std::sqrt(double(n)));
    assert_true(marginal_total_variation(p, p, n, 1)[0] == 0.0);
    const double distant = marginal_total_variation(p, far, n, 1)[0];
    assert_true(distant > 0.999 && distant <= 1.0);
}

static void test_comparisons_refuse_bad_arguments(void**) {
    const PosteriorSnapshot p = snapshot(unbounded(1), {1.0}, {0.0}, {0.5}, {1.0});
    const PosteriorSnapshot q = snapshot(unbounded(2), {1.0}, {0.0, 0.0}, {0.5}, {1.0, 1.0});
    expect_error(Code::arg, [&] { kl_divergence(p, q, 100, 1); });
    expect_error(Code::arg, [&] { kl_divergence(p, p, 1, 1); });
    expect_error(Code::arg, [&] { marginal_total_variation(p, q, 100, 1); });
    expect_error(Code::arg, [&] { marginal_total_variation(p, p, 0, 1); });
}

namespace {
// Identical posteriors with the given ELBOs and SDs; converged[i] for each.
Diagnosis diagnose_elbos(const std::vector<double>& elbo, const std::vector<double>& sd, const std::vector<bool>& converged) {
    std::vector<PosteriorSnapshot> posteriors;
    for (size_t i = 0; i < elbo.size(); ++i) {
        posteriors.push_back(snapshot(unbounded(1), {1.0}, {0.0}, {0.5}, {1.0}));
        posteriors.back().elbo = elbo[i];
        posteriors.back().elbo_sd = sd[i];
    }
    std::vector<RunFacts> facts;
    for (size_t i = 0; i < elbo.size(); ++i) facts.push_back(RunFacts{converged[i], &posteriors[i]});
    return diagnose(facts, 1);
}

bool mentions(const std::string& message, const char* needle) {
    if (message.find(needle) != std::string::npos) return true;
    print_error("message \"%s\" does not mention \"%s\"\n", message.c_str(), needle);
    return false;
}
}  // namespace

// The best run has the highest ELBO - 3 SD among the converged runs; an ELBO 4 away is named, and
// outvoted by two agreeing runs of three but not with two runs (exit flag -2); with no converged
// run the best is chosen among all (exit flag -3); identical posteriors agree on the rest.
static void test_diagnostics_on_elbos(void**) {
    Diagnosis d = diagnose_elbos({-10.0, -10.2, -14.0}, {0.01, 0.01, 0.01}, {true, true, true});
    assert_int_equal(d.best, 0);
    assert_true(d.agree());
    assert_int_equal(d.elbo_agree, 2);
    assert_close(d.elbo_spread, 4.0, 1e-12);
    assert_true(d.max_skl() == 0.0 && d.max_mtv() == 0.0);
    assert_true(mentions(d.message, "ELBO: 2 of 3 runs agree with the best run (|ELBO difference| below 1; at least 2 "
                                    "needed, so this passes): run 2 (ELBO -14) differs by 4."));

    d = diagnose_elbos({-10.0, -10.5}, {1.0, 0.01}, {true, true});
    assert_int_equal(d.best, 1);
    assert_true(d.agree());

    d = diagnose_elbos({-10.0, -14.0}, {0.01, 0.01}, {true, true});
    assert_int_equal(d.exit_flag, -2);
    assert_true(mentions(d.message, "The runs do not agree: too few agree with the best run on the ELBO."));

    d = diagnose_elbos({-10.0, -9.0, -10.0}, {0.01, 0.01, 0.01}, {true, false, true});
    assert_int_equal(d.best, 0);
    assert_close(d.elbo_spread, 0.0, 0.0);
    assert_true(mentions(d.message, "2 of 3 runs converged (run 1 did not)."));

    d = diagnose_elbos({-10.0, -9.5}, {0.01, 0.01}, {false, false});
    assert_int_equal(d.exit_flag, -3);
    assert_int_equal(d.best, 1);
    assert_true(mentions(d.message, "The runs do not agree. No run converged, so the best is chosen among all 2 and "
                                    "should not be trusted. Run 1 is the best: the highest ELBO - 3 SD among all runs"));
    expect_error(Code::arg, [&] { diagnose_elbos({-10.0}, {0.01}, {true}); });
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_marginal_of_an_affine_gaussian_matches_its_moments),
        cmocka_unit_test(test_marginal_integrates_to_the_mass_of_draws),
        cmocka_unit_test(test_mode_in_closed_form),
        cmocka_unit_test(test_kl_of_gaussians_under_a_shared_transform),
        cmocka_unit_test(test_mtv_of_unit_gaussians),
        cmocka_unit_test(test_comparisons_refuse_bad_arguments),
        cmocka_unit_test(test_diagnostics_on_elbos),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
