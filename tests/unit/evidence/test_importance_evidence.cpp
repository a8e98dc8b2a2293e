// The importance-sampling log evidence: exact where the surrogate is an exact Gaussian log density
// of known normaliser, unbiased within its Monte Carlo error under a wrong proposal, the spread of
// its posterior functions the surrogate's latent SD at a single draw, independent latent noise of
// variance v shifting its functions' log Z by v / 2 (E exp(eps) = exp(v / 2)), a jackknife that vanishes when no
// point carries information, and the same seed giving the same estimate.
#include "evidence/importance_evidence.hpp"

#include <cmath>

#include "../refine/refine_test_fixtures.hpp"
#include "util/error.hpp"

using namespace libvbmc;
using namespace libvbmc_test;

namespace {
const std::vector<double> kMean = {0.4, -0.3}, kSd = {0.8, 1.3};
// gaussian_surrogate's mean is 2 - 1/2 sum_d ((x_d - kMean_d) / kSd_d)^2, whose integral is
// exp(2) (2 pi)^(D/2) prod_d kSd_d.
const double kLogZ = 2.0 + std::log(2.0 * M_PI) + std::log(kSd[0]) + std::log(kSd[1]);

Gp exact_gaussian_gp() { return gaussian_surrogate(kMean, kSd).build(); }

EvidenceSettings settings(int draws, int function_draws, int functions, int groups) {
    EvidenceSettings s;
    s.draws = draws;
    s.function_draws = function_draws;
    s.functions = functions;
    s.jackknife_groups = groups;
    return s;
}
}  // namespace

// q equal to the target: every weight is Z, so the estimate is exact and the MC error zero; the
// surrogate's functions spread by less than its output scale, 1e-3.
static void test_exact_proposal_gives_the_exact_evidence(void** state) {
    (void)state;
    const VariationalPosterior q = diagonal_mixture({1.0}, {kMean}, {kSd});
    const EvidenceParts parts = importance_evidence(q, exact_gaussian_gp(), settings(500, 400, 200, 10), 3);
    assert_close(parts.log_z, kLogZ, 1e-9);
    assert_true(parts.var_surrogate < 1e-6 && parts.var_shift < 1e-6);
    assert_true(parts.var_mc < 1e-12);  // rounding only
    assert_true(parts.var_jackknife < 1e-16);  // the points sit on the mean function: none informs
    const LogEvidence evidence = log_evidence(q, exact_gaussian_gp());
    assert_close(evidence.log_z, kLogZ, 1e-9);
    assert_true(evidence.log_z_sd < 1e-3);
}

// A shifted, wider proposal: the ELBO would be below log Z; importance sampling is not a bound and
// lands on log Z within a few of its own Monte Carlo SDs.
static void test_wrong_proposal_is_corrected_within_its_error(void** state) {
    (void)state;
    const VariationalPosterior q = diagonal_mixture({0.6, 0.4}, {{0.9, 0.2}, {-0.5, -1.0}}, {{1.2, 1.5}, {1.0, 1.8}});
    const EvidenceParts parts = importance_evidence(q, exact_gaussian_gp(), settings(4000, 400, 200, 10), 5);
    assert_true(parts.var_mc > 0.0);
    assert_close(parts.log_z, kLogZ, 4.0 * std::sqrt(parts.var_mc));
    assert_true(std::fabs(parts.log_z - kLogZ) < 0.05);
}

// With one draw, log Z_k = m(z) + eps_k - log q(z): the estimate is m(z) - log q(z), and the
// functions' half 16-84% range is the surrogate's latent SD at that draw.
static void test_one_draw_spread_is_the_latent_sd(void** state) {
    (void)state;
    const std::vector<double> theta = gaussian_mean_theta(kMean, kSd, 0.7, 1.5, 1e-3, 2.0);
    SurrogateRecord record;
    record.data = grid_data({-2.0, -2.0}, {2.0, 2.0}, {4, 4}, [](const double* x) { return -0.5 * (x[0] * x[0] + 2.0 * x[1] * x[1]); });
    record.thetas = {theta};
    const Gp gp = record.build();
    const VariationalPosterior q = diagonal_mixture({1.0}, {kMean}, {kSd});
    const EvidenceParts parts = importance_evidence(q, gp, settings(1, 1, 4000, 10), 9);
    Rng rng(9);
    Matrix z;
    vp_sample(q, 1, rng, z);
    double mean = 0.0, var = 0.0;
    gp_predict_sample(gp.data, gp.samples[0], z, &mean, &var);
    assert_true(var > 1e-3);
    assert_close(std::sqrt(parts.var_surrogate), std::sqrt(var), 0.05 * std::sqrt(var));  // quantiles of 4000 normals
    assert_close(parts.log_z, mean - vp_log_pdf(q, z.row(0)), 1e-12);
}

// A surrogate whose mean is the exact Gaussian log density but which is unsure by an independent
// N(0, v) at every draw (a tiny length scale, its one training point far away): averaged over its
// functions Z is the mean of exp(m + eps) / q, log Z_m + v / 2; the estimate stays at log Z_m and
// the median of 200 functions, each a mean over 400 draws, is shifted by v / 2 within 0.01.
static void test_independent_latent_noise_shifts_its_functions_by_half_its_variance(void** state) {
    (void)state;
    const double sf = 0.5;
    SurrogateRecord record;
    record.thetas = {gaussian_mean_theta(kMean, kSd, 1e-3, sf, 1e-4, 2.0)};
    record.data.x = Matrix(0, 2);
    const double far[2] = {40.0, 40.0};
    record.data.x.append_row(far, 2);
    record.data.y.push_back(gp_mean(far, record.thetas[0].data(), 2, record.data.mean_dof));
    record.data.s2.push_back(0.0);
    const VariationalPosterior q = diagonal_mixture({1.0}, {kMean}, {kSd});
    const EvidenceParts parts = importance_evidence(q, record.build(), settings(2000, 400, 200, 10), 4);
    assert_close(parts.log_z, kLogZ, 1e-9);
    assert_close(std::sqrt(parts.var_shift), 0.5 * sf * sf, 0.01);
    // Each function's log mean of 400 lognormals spreads by sqrt((e^v - 1) / 400) = 0.027.
    assert_close(std::sqrt(parts.var_surrogate), std::sqrt((std::exp(sf * sf) - 1.0) / 400.0), 0.008);
}

static void test_same_seed_same_estimate(void** state) {
    (void)state;
    SurrogateRecord record;
    const std::vector<double> theta = gaussian_mean_theta(kMean, kSd, 0.7, 1.5, 1e-3, 2.0);
    record.data = grid_data({-2.0, -2.0}, {2.0, 2.0}, {5, 5}, [](const double* x) { return -0.5 * (x[0] * x[0] + x[1] * x[1]); });
    record.thetas = {theta, gaussian_mean_theta(kMean, kSd, 0.9, 1.2, 1e-3, 1.5)};
    const VariationalPosterior q = diagonal_mixture({1.0}, {{0.0, 0.0}}, {{1.0, 1.0}});
    const EvidenceSettings s = settings(300, 200, 100, 5);
    const EvidenceParts a = importance_evidence(q, record.build(), s, 4);
    const EvidenceParts b = importance_evidence(q, record.build(), s, 4);
    const EvidenceParts c = importance_evidence(q, record.build(), s, 5);
    assert_true(a.log_z == b.log_z && a.var_surrogate == b.var_surrogate && a.var_jackknife == b.var_jackknife);
    assert_true(a.log_z != c.log_z);
    assert_true(a.var_surrogate > 0.0 && a.var_jackknife > 0.0);  // the surrogate is unsure; the points inform
    // The grid holds the standard Gaussian's log density up to -log(2 pi): log Z near log(2 pi).
    assert_true(std::fabs(a.log_z - std::log(2.0 * M_PI)) < 0.3);
}

// Settings below their minimums are argument errors, not an empty pool read out of range.
static void test_settings_below_minimum_are_errors(void** state) {
    (void)state;
    const VariationalPosterior q = diagonal_mixture({1.0}, {kMean}, {kSd});
    const Gp gp = exact_gaussian_gp();
    for (const EvidenceSettings& s : {settings(0, 1, 1, 2), settings(10, 0, 1, 2), settings(10, 5, 0, 2), settings(10, 5, 5, 1)}) {
        try {
            importance_evidence(q, gp, s, 1);
            fail_msg("settings below their minimums must be an error");
        } catch (const Error& e) {
            assert_true(e.code() == Code::arg);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_proposal_gives_the_exact_evidence),
        cmocka_unit_test(test_wrong_proposal_is_corrected_within_its_error),
        cmocka_unit_test(test_one_draw_spread_is_the_latent_sd),
        cmocka_unit_test(test_independent_latent_noise_shifts_its_functions_by_half_its_variance),
        cmocka_unit_test(test_same_seed_same_estimate),
        cmocka_unit_test(test_settings_below_minimum_are_errors),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
