// The importance-sampling log evidence: exact where the surrogate is an exact Gaussian log density
// of known normaliser, unbiased within its Monte Carlo error under a wrong proposal, its latent
// term the surrogate's variance at a single draw, a jackknife that vanishes when no point carries
// information, and the same seed giving the same estimate.
#include "evidence/importance_evidence.hpp"

#include <cmath>

#include "../refine/refine_test_fixtures.hpp"

using namespace libvbmc;
using namespace libvbmc_test;

namespace {
const std::vector<double> kMean = {0.4, -0.3}, kSd = {0.8, 1.3};
// gaussian_surrogate's mean is 2 - 1/2 sum_d ((x_d - kMean_d) / kSd_d)^2, whose integral is
// exp(2) (2 pi)^(D/2) prod_d kSd_d.
const double kLogZ = 2.0 + std::log(2.0 * M_PI) + std::log(kSd[0]) + std::log(kSd[1]);

Gp exact_gaussian_gp() { return gaussian_surrogate(kMean, kSd).build(); }
}  // namespace

// q equal to the target: every weight is Z, so the estimate is exact and the MC error zero.
static void test_exact_proposal_gives_the_exact_evidence(void** state) {
    (void)state;
    const VariationalPosterior q = diagonal_mixture({1.0}, {kMean}, {kSd});
    const EvidenceParts parts = importance_evidence(q, exact_gaussian_gp(), 500, 3, 10);
    assert_close(parts.log_z, kLogZ, 1e-9);
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
    const EvidenceParts parts = importance_evidence(q, exact_gaussian_gp(), 4000, 5, 10);
    assert_true(parts.var_mc > 0.0);
    assert_close(parts.log_z, kLogZ, 4.0 * std::sqrt(parts.var_mc));
    assert_true(std::fabs(parts.log_z - kLogZ) < 0.05);
}

// With one draw u = (1), so the latent term is the surrogate's latent variance at that draw.
static void test_latent_term_is_the_variance_at_one_draw(void** state) {
    (void)state;
    const std::vector<double> theta = gaussian_mean_theta(kMean, kSd, 0.7, 1.5, 1e-3, 2.0);
    SurrogateRecord record;
    record.data = grid_data({-2.0, -2.0}, {2.0, 2.0}, {4, 4}, [](const double* x) { return -0.5 * (x[0] * x[0] + 2.0 * x[1] * x[1]); });
    record.thetas = {theta};
    const Gp gp = record.build();
    const VariationalPosterior q = diagonal_mixture({1.0}, {kMean}, {kSd});
    const EvidenceParts parts = importance_evidence(q, gp, 1, 9, 10);
    Rng rng(9);
    Matrix z;
    vp_sample(q, 1, rng, z);
    double mean = 0.0, var = 0.0;
    gp_predict_sample(gp.data, gp.samples[0], z, &mean, &var);
    assert_close(parts.var_latent, var, 1e-10 * (1.0 + var));
    assert_true(var > 1e-3);
}

static void test_same_seed_same_estimate(void** state) {
    (void)state;
    SurrogateRecord record;
    const std::vector<double> theta = gaussian_mean_theta(kMean, kSd, 0.7, 1.5, 1e-3, 2.0);
    record.data = grid_data({-2.0, -2.0}, {2.0, 2.0}, {5, 5}, [](const double* x) { return -0.5 * (x[0] * x[0] + x[1] * x[1]); });
    record.thetas = {theta, gaussian_mean_theta(kMean, kSd, 0.9, 1.2, 1e-3, 1.5)};
    const VariationalPosterior q = diagonal_mixture({1.0}, {{0.0, 0.0}}, {{1.0, 1.0}});
    const EvidenceParts a = importance_evidence(q, record.build(), 300, 4, 5);
    const EvidenceParts b = importance_evidence(q, record.build(), 300, 4, 5);
    const EvidenceParts c = importance_evidence(q, record.build(), 300, 5, 5);
    assert_true(a.log_z == b.log_z && a.var_latent == b.var_latent && a.var_jackknife == b.var_jackknife);
    assert_true(a.log_z != c.log_z);
    assert_true(a.var_hyper > 0.0 && a.var_jackknife > 0.0);  // two samples differ; the points inform
    // The grid holds the standard Gaussian's log density up to -log(2 pi): log Z near log(2 pi).
    assert_true(std::fabs(a.log_z - std::log(2.0 * M_PI)) < 0.3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_proposal_gives_the_exact_evidence),
        cmocka_unit_test(test_wrong_proposal_is_corrected_within_its_error),
        cmocka_unit_test(test_latent_term_is_the_variance_at_one_draw),
        cmocka_unit_test(test_same_seed_same_estimate),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
