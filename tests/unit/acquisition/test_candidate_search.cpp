// The pruned candidate search returns the same argmin, and the same best few, as scoring every
// candidate.
#include "acquisition/candidate_search.hpp"

#include <algorithm>
#include <cmath>

#include "acquisition/acq_fcn.hpp"
#include "acquisition/acq_registry.hpp"
#include "acquisition/search_points.hpp"
#include "acquisition/variance_reduction.hpp"
#include "test_util.h"
#include "util/parallel.hpp"

using namespace libvbmc;

// D = 4 surrogate of a correlated Gaussian log density on 120 random points, 3 samples,
// one of them with a training point duplicated (jittered factor).
static Gp make_gp(Rng& rng) {
    const int dim = 4, n = 120;
    Gp gp;
    gp.dim = dim;
    for (int i = 0; i < n; ++i) {
        double x[dim], q = 0.0;
        for (int d = 0; d < dim; ++d) x[d] = 1.2 * rng.normal();
        for (int d = 0; d < dim; ++d) q += x[d] * x[d] * (1.0 + 0.5 * d) + (d > 0 ? 0.6 * x[d] * x[d - 1] : 0.0);
        gp.data.x.append_row(x, dim);
        gp.data.y.push_back(-0.5 * q);
        gp.data.s2.push_back(i % 7 == 0 ? 0.01 : 0.0);
    }
    for (int s = 0; s < 3; ++s) {
        std::vector<double> theta(hyp::count(dim), 0.0);
        for (int d = 0; d < dim; ++d) {
            theta[hyp::log_ell(d)] = std::log(0.8 + 0.2 * s + 0.1 * d);
            theta[hyp::xm(dim, d)] = 0.1 * s;
            theta[hyp::log_omega(dim, d)] = std::log(1.0 + 0.1 * s);
        }
        theta[hyp::log_sf(dim)] = std::log(2.0 + s);
        theta[hyp::log_sn(dim)] = std::log(s == 2 ? 1e-5 : 1e-3);
        theta[hyp::m0(dim)] = 0.2 * s;
        gp.samples.push_back(gp_posterior(gp.data, theta));
    }
    return gp;
}

static VariationalPosterior make_vp(int dim, Rng& rng) {
    VariationalPosterior vp;
    vp.dim = dim;
    vp.k = 3;
    vp.w = {0.2, 0.3, 0.5};
    vp.mu = Matrix(3, dim);
    for (double& v : vp.mu.data) v = 0.7 * rng.normal();
    vp.sigma = {0.6, 0.8, 0.7};
    vp.lambda.assign(dim, 1.0);
    vp.lambda[1] = 0.7;
    return vp;
}

// The largest training value, the y_max of the acquisitions.
static double largest_value(const Gp& gp) { return *std::max_element(gp.data.y.begin(), gp.data.y.end()); }

// Every value of every candidate: acq_evaluate for the kinds it covers, else the kind's scorer.
static void score_all(const Gp& gp, const VariationalPosterior& vp, const Matrix& candidates, double y_max,
                      const AcqSettings& s, const AcqScorer& scorer, std::vector<double>& all) {
    all.assign(candidates.rows, 0.0);
    if (acq_entry(s.kind).from_moments != nullptr || s.kind == AcqKind::ivr)
        acq_evaluate(gp, vp, candidates, y_max, s, all.data());
    else
        scorer.evaluate(candidates, all.data());
}

// Every registered acquisition (noise told at every 7th training point, so npro's and ivr's
// expected noise varies between candidates).
static void test_matches_exhaustive_scoring(void**) {
    Rng rng(12);
    const Gp gp = make_gp(rng);
    const VariationalPosterior vp = make_vp(gp.dim, rng);
    const double y_max = largest_value(gp);
    for (const AcqEntry& entry : acq_registry()) {
        const AcqKind kind = entry.kind;
        for (int config = 0; config < (kind == AcqKind::ivr ? 3 : 2); ++config) {
            const bool regularized = config == 1;
            AcqSettings s;
            s.kind = kind;
            s.variance_regularized = regularized;
            if (config == 2) s.plausible_drop = 1.5;  // ivr's exclusion of points without posterior mass
            s.ns_search = entry.bound == AcqBound::none ? 600 : 2500;
            std::vector<int> index;
            Matrix candidates = search_points(gp.data.x, vp, Matrix(), s, rng, index);
            for (int i = 0; i < 40; ++i)  // training points and near neighbours among them
                for (int d = 0; d < gp.dim; ++d)
                    candidates(i, d) = gp.data.x(i, d) + (i % 2 ? 1e-3 * rng.normal() : 0.0);
            Rng scorer_rng(3);
            const std::unique_ptr<AcqScorer> scorer = make_acq_scorer(gp, vp, y_max, s, scorer_rng);
            std::vector<double> all;
            score_all(gp, vp, candidates, y_max, s, *scorer, all);
            int argmin = 0;
            for (int j = 1; j < candidates.rows; ++j)
                if (all[j] < all[argmin]) argmin = j;
            if (config == 2) {
                int excluded = 0;
                for (double v : all) excluded += std::isinf(v) ? 1 : 0;
                assert_true(excluded > 100 && excluded < candidates.rows - 100);
            }
            const BestCandidate best = best_candidate(gp, vp, candidates, y_max, s, *scorer);
            assert_int_equal(best.index, argmin);
            assert_close(best.value, all[argmin], 1e-12 * (1.0 + std::abs(all[argmin])));
        }
    }
}

// A GP sample whose factor no longer matches its kernel, as rounding leaves a badly conditioned
// one (here the factor shrunk to 0.7 of itself): its computed Var[E_q f] is negative and its
// latent variances break Cauchy-Schwarz. ivr's pruned search still returns the exhaustive argmin,
// with one thread and with two.
static void test_ivr_pruning_exact_on_an_inconsistent_sample(void**) {
    Rng rng(21);
    Gp gp = make_gp(rng);
    for (double& v : gp.samples[1].chol.data) v *= 0.7;
    const VariationalPosterior vp = make_vp(gp.dim, rng);
    const double y_max = largest_value(gp);
    AcqSettings s;
    s.kind = AcqKind::ivr;
    s.ns_search = 2500;
    std::vector<int> index;
    const Matrix candidates = search_points(gp.data.x, vp, Matrix(), s, rng, index);
    Rng scorer_rng(3);
    const std::unique_ptr<AcqScorer> scorer = make_acq_scorer(gp, vp, y_max, s, scorer_rng);
    assert_true(scorer->variance_reduction()->integral_variance(1) < 0.0);
    std::vector<double> all;
    score_all(gp, vp, candidates, y_max, s, *scorer, all);
    int argmin = 0;
    for (int j = 1; j < candidates.rows; ++j)
        if (all[j] < all[argmin]) argmin = j;
    assert_true(std::isfinite(all[argmin]));
    for (int threads : {1, 2}) {
        const ThreadScope scope(threads);
        const BestCandidate best = best_candidate(gp, vp, candidates, y_max, s, *scorer);
        assert_int_equal(best.index, argmin);
        assert_true(best.value == all[argmin]);
    }
}

// The best `count` candidates, best first, are the `count` lowest values of scoring every
// candidate (the first index on ties), whatever the acquisition; the first is best_candidate's.
static void test_best_few_match_exhaustive_scoring(void**) {
    Rng rng(21);
    const Gp gp = make_gp(rng);
    const VariationalPosterior vp = make_vp(gp.dim, rng);
    const double y_max = largest_value(gp);
    for (AcqKind kind : {AcqKind::log, AcqKind::ivr, AcqKind::npro, AcqKind::viqr}) {
        AcqSettings s;
        s.kind = kind;
        s.ns_search = 1500;
        std::vector<int> index;
        const Matrix candidates = search_points(gp.data.x, vp, Matrix(), s, rng, index);
        Rng scorer_rng(8);
        const std::unique_ptr<AcqScorer> scorer = make_acq_scorer(gp, vp, y_max, s, scorer_rng);
        std::vector<double> all;
        score_all(gp, vp, candidates, y_max, s, *scorer, all);
        std::vector<int> order(candidates.rows);
        for (int j = 0; j < candidates.rows; ++j) order[j] = j;
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return all[a] < all[b]; });
        const int count = 37;
        const std::vector<BestCandidate> best = best_candidates(gp, vp, candidates, y_max, s, *scorer, count);
        assert_int_equal(static_cast<int>(best.size()), count);
        for (int k = 0; k < count; ++k) {
            assert_int_equal(best[k].index, order[k]);
            assert_close(best[k].value, all[order[k]], 1e-12 * (1.0 + std::abs(all[order[k]])));
        }
        const BestCandidate first = best_candidate(gp, vp, candidates, y_max, s, *scorer);
        assert_int_equal(first.index, best[0].index);
        assert_true(first.value == best[0].value);
    }
}

// Several workers find the same best candidates, values bitwise equal, as one: each prunes
// only what cannot be among its own best, and the merge breaks ties by index.
static void test_threads_give_the_same_result(void**) {
    Rng rng(33);
    const Gp gp = make_gp(rng);
    const VariationalPosterior vp = make_vp(gp.dim, rng);
    const double y_max = largest_value(gp);
    for (AcqKind kind : {AcqKind::log, AcqKind::ivr, AcqKind::viqr}) {
        AcqSettings s;
        s.kind = kind;
        s.ns_search = 3000;  // 12 blocks
        std::vector<int> index;
        const Matrix candidates = search_points(gp.data.x, vp, Matrix(), s, rng, index);
        Rng scorer_rng(5);
        const std::unique_ptr<AcqScorer> scorer = make_acq_scorer(gp, vp, y_max, s, scorer_rng);
        const std::vector<BestCandidate> one = best_candidates(gp, vp, candidates, y_max, s, *scorer, 9);
        for (int threads : {2, 5}) {
            const ThreadScope scope(threads);
            const std::vector<BestCandidate> several = best_candidates(gp, vp, candidates, y_max, s, *scorer, 9);
            assert_int_equal(static_cast<int>(several.size()), 9);
            for (size_t k = 0; k < one.size(); ++k) {
                assert_int_equal(several[k].index, one[k].index);
                assert_memory_equal(&several[k].value, &one[k].value, sizeof(double));
            }
        }
    }
}

// Hard limits remove candidates; if every candidate is outside, the first one is returned (with
// one worker or several).
static void test_hard_limits_respected(void**) {
    Rng rng(4);
    const Gp gp = make_gp(rng);
    const VariationalPosterior vp = make_vp(gp.dim, rng);
    AcqSettings s;
    s.lb_eps.assign(gp.dim, -0.5);
    s.ub_eps.assign(gp.dim, 0.5);
    Matrix candidates(200, gp.dim);
    for (double& v : candidates.data) v = rng.normal();
    const std::unique_ptr<AcqScorer> scorer = make_acq_scorer(gp, vp, 0.0, s, rng);
    const BestCandidate best = best_candidate(gp, vp, candidates, 0.0, s, *scorer);
    for (int d = 0; d < gp.dim; ++d) assert_true(std::abs(candidates(best.index, d)) <= 0.5);
    for (double& v : candidates.data) v = 5.0 + rng.uniform();
    for (int threads : {1, 2}) {
        const ThreadScope scope(threads);
        const BestCandidate none = best_candidate(gp, vp, candidates, 0.0, s, *scorer);
        assert_int_equal(none.index, 0);
        assert_true(std::isinf(none.value));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_exhaustive_scoring),
        cmocka_unit_test(test_best_few_match_exhaustive_scoring),
        cmocka_unit_test(test_threads_give_the_same_result),
        cmocka_unit_test(test_ivr_pruning_exact_on_an_inconsistent_sample),
        cmocka_unit_test(test_hard_limits_respected),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
