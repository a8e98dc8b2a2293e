// The acquisition registry (every name reaches the option, the pruning flag is honoured and
// true of the formulas), noisy mode's acquisition defaults, the expected noise at a candidate and
// the npro acquisition against the variance drop of refitting the GP with the candidate added.
#include "acquisition/acq_registry.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "acquisition/acq_fcn.hpp"
#include "acquisition/active_sample.hpp"
#include "acquisition/expected_noise.hpp"
#include "gp/gp_extend.hpp"
#include "options/options.hpp"
#include "util/error.hpp"
#include "test_util.h"

using namespace libvbmc;

// 2-D surrogate of a Gaussian log density on 16 random points, noise told at every 3rd one;
// one hyperparameter sample per entry of log_ells.
static Gp make_gp(const std::vector<double>& log_ells) {
    Gp gp;
    gp.dim = 2;
    Rng rng(17);
    for (int i = 0; i < 16; ++i) {
        const double x[2] = {1.5 * rng.normal(), 1.5 * rng.normal()};
        gp.data.x.append_row(x, 2);
        gp.data.y.push_back(-0.5 * (x[0] * x[0] + 0.5 * x[1] * x[1]));
        gp.data.s2.push_back(i % 3 == 0 ? 0.05 * (1 + i) : 0.0);
    }
    for (double log_ell : log_ells) {
        std::vector<double> theta(hyp::count(2), 0.0);
        theta[hyp::log_ell(0)] = log_ell;
        theta[hyp::log_ell(1)] = log_ell + 0.3;
        theta[hyp::log_sf(2)] = std::log(1.4);
        theta[hyp::log_sn(2)] = std::log(0.03 + 0.01 * gp.samples.size());
        theta[hyp::log_omega(2, 0)] = 0.4;
        theta[hyp::log_omega(2, 1)] = 0.6;
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
    vp.mu(0, 0) = -0.5;
    vp.mu(1, 1) = 0.4;
    vp.sigma = {0.9, 1.1};
    vp.lambda = {1.0, 0.8};
    return vp;
}

static Matrix single_row(const Matrix& xs, int j) {
    Matrix x(1, xs.cols);
    std::copy(xs.row(j), xs.row(j) + xs.cols, x.row(0));
    return x;
}

static Matrix random_points(int m, Rng& rng) {
    Matrix xs(m, 2);
    for (double& v : xs.data) v = 2.5 * rng.normal();
    return xs;
}

// Each registry name is accepted by search_acq_fcn, alone and in a list; an unknown name is
// refused with a message that names the option, the value and the allowed names.
static void test_every_name_is_an_option_choice(void**) {
    OptionValues options;
    std::string all;
    for (const AcqEntry& entry : acq_registry()) {
        options.set_text("search_acq_fcn", entry.name);
        assert_string_equal(options.get_text("search_acq_fcn").c_str(), entry.name);
        assert_true(acq_find(entry.name) == &entry);
        assert_true(&acq_entry(entry.kind) == &entry);
        assert_non_null(std::strstr(acq_option_help(), entry.description));
        all += (all.empty() ? "" : ",") + std::string(entry.name);
    }
    options.set_text("search_acq_fcn", all);
    assert_null(acq_find("eig"));
    try {
        options.set_text("search_acq_fcn", "pro,eig");
        fail_msg("an unknown acquisition was accepted");
    } catch (const Error& e) {
        assert_int_equal(static_cast<int>(e.code()), static_cast<int>(Code::option));
        assert_message_mentions(e.what(), "search_acq_fcn");
        assert_message_mentions(e.what(), "\"pro,eig\"");
        assert_message_mentions(e.what(), acq_option_choices());
    }
    assert_string_equal(options.get_text("search_acq_fcn").c_str(), all.c_str());  // unchanged
}

// Noisy mode's acquisition defaults (viqr, 1024 candidates) replace only what the user left
// unset; exact runs keep ivr and 2048 candidates.
static void test_noisy_mode_acquisition_defaults(void**) {
    OptionValues options;
    const Settings exact = Settings::resolve(options, 3);
    assert_string_equal(exact.search_acq_fcn.c_str(), "ivr");
    assert_int_equal(exact.ns_search, 2048);
    options.set_number("specify_target_noise", 1.0);
    const Settings noisy = Settings::resolve(options, 3);
    assert_string_equal(noisy.search_acq_fcn.c_str(), "viqr");
    assert_int_equal(noisy.ns_search, 1024);
    options.set_number("ns_search", 4096);
    options.set_text("search_acq_fcn", "imiqr");
    const Settings chosen = Settings::resolve(options, 3);
    assert_string_equal(chosen.search_acq_fcn.c_str(), "imiqr");
    assert_int_equal(chosen.ns_search, 4096);
}

// The candidate search prunes with the moments bound only where the registry says the value
// does not increase with the variance; and for every row that says so, it does not.
static void test_pruning_flag_is_honoured_and_true(void**) {
    for (const AcqEntry& entry : acq_registry()) {
        AcqEntry blind = entry;
        blind.decreases_in_variance = false;
        const AcqBound expected = entry.bound == AcqBound::moments ? AcqBound::none : entry.bound;
        assert_int_equal(static_cast<int>(acq_pruning(blind)), static_cast<int>(expected));
        if (entry.bound == AcqBound::moments) assert_true(entry.decreases_in_variance && entry.from_moments != nullptr);
    }
    Rng rng(5);
    AcqSettings s;
    for (const AcqEntry& entry : acq_registry()) {
        if (!entry.decreases_in_variance) continue;
        s.kind = entry.kind;
        for (int trial = 0; trial < 200; ++trial) {
            const double f = 3.0 * rng.normal(), log_q = -3.0 + rng.normal(), noise = 0.2 * rng.uniform();
            double previous = std::numeric_limits<double>::infinity();
            for (double var = 1e-7; var < 1e3; var *= 1.7) {
                const double value = acq_from_moments(s, f, var, log_q, 0.0, noise);
                assert_true(value <= previous);
                previous = value;
            }
        }
    }
}

// The told part is the s2 of the nearest training point in the metric of the samples'
// geometric-mean length scales (brute force here); the samples' own sn^2 is added per sample.
static void test_expected_noise_is_the_nearest_told_noise(void**) {
    const Gp gp = make_gp({std::log(0.6), std::log(1.8)});
    Rng rng(2);
    const Matrix xs = random_points(300, rng);
    const ExpectedNoise noise = expected_noise(gp, xs);
    const double ell[2] = {std::exp((std::log(0.6) + std::log(1.8)) / 2.0),
                           std::exp((std::log(0.6) + 0.3 + std::log(1.8) + 0.3) / 2.0)};
    int told_points = 0;
    for (int j = 0; j < xs.rows; ++j) {
        int nearest = 0;
        double best = INFINITY;
        for (int i = 0; i < gp.data.size(); ++i) {
            const double a = (xs(j, 0) - gp.data.x(i, 0)) / ell[0], b = (xs(j, 1) - gp.data.x(i, 1)) / ell[1];
            if (a * a + b * b < best) best = a * a + b * b, nearest = i;
        }
        assert_true(noise.told[j] == gp.data.s2[nearest]);
        told_points += noise.told[j] > 0.0 ? 1 : 0;
        for (size_t si = 0; si < gp.samples.size(); ++si)
            assert_close(noise.at(si, j), gp.data.s2[nearest] + std::pow(0.03 + 0.01 * si, 2), 1e-15);
        assert_close(noise.mean(j), gp.data.s2[nearest] + (0.03 * 0.03 + 0.04 * 0.04) / 2.0, 1e-15);
    }
    assert_true(told_points > 30 && told_points < 270);
    Gp exact = gp;
    for (double& v : exact.data.s2) v = 0.0;
    for (double v : expected_noise(exact, xs).told) assert_true(v == 0.0);
}

// npro (AcqFcnNoisy): -V^2 / (V + sigma^2) exp(f - y_max) q, i.e. a_pro with V replaced by the
// variance an evaluation with the expected noise sigma^2 removes. Against the drop of the
// latent variance at x when the GP (one sample) is refitted with x added at that noise.
static void test_npro_is_the_variance_drop_at_the_point(void**) {
    const Gp gp = make_gp({std::log(0.8)});
    const VariationalPosterior vp = make_vp();
    Rng rng(9);
    const Matrix xs = random_points(40, rng);
    AcqSettings s;
    s.kind = AcqKind::npro;
    s.variance_regularized = false;
    std::vector<double> acq(xs.rows), f, var;
    acq_evaluate(gp, vp, xs, 0.3, s, acq.data());
    gp_predict(gp, xs, f, var);
    const ExpectedNoise noise = expected_noise(gp, xs);
    for (int j = 0; j < xs.rows; ++j) {
        Gp grown = gp;
        gp_add_point(grown, xs.row(j), 0.0, noise.told[j]);
        Matrix x(1, 2);
        std::copy(xs.row(j), xs.row(j) + 2, x.row(0));
        std::vector<double> f_after, var_after;
        gp_predict(grown, x, f_after, var_after);
        const double drop = var[j] - var_after[0];
        const double expected = -drop * std::exp(f[j] - 0.3 + vp_log_pdf(vp, xs.row(j)));
        assert_close(acq[j], expected, 1e-7 * std::abs(expected) + 1e-300);
    }
}

// A pending point is fantasised at the predicted mean with the told noise of its nearest
// training point: after it the latent variance there is that of a noisy observation,
// V sigma^2 / (V + sigma^2) (one sample), not the near-zero of a noise-free one. Points already
// in the GP are skipped.
static void test_pending_points_carry_the_expected_noise(void**) {
    const Gp gp = make_gp({std::log(0.8)});
    Matrix pending(0, 2);
    for (int i : {0, 3, 1}) {  // next to noisy points 0 and 3 and the exact point 1
        const double x[2] = {gp.data.x(i, 0) + 0.2, gp.data.x(i, 1) - 0.1};
        pending.append_row(x, 2);
    }
    pending.append_row(gp.data.x.row(5), 2);  // already a training point
    const std::unique_ptr<Gp> fantasy = gp_with_pending(gp, pending);
    assert_non_null(fantasy.get());
    assert_int_equal(fantasy->data.size(), gp.data.size() + 3);
    const ExpectedNoise noise = expected_noise(gp, pending);
    assert_true(noise.told[0] > 0.0 && noise.told[1] > 0.0 && noise.told[2] == 0.0);
    Gp growing = gp;
    for (int k = 0; k < 3; ++k) {
        assert_true(fantasy->data.s2[gp.data.size() + k] == expected_noise(growing, single_row(pending, k)).told[0]);
        std::vector<double> f, before, after;
        gp_predict(growing, single_row(pending, k), f, before);
        gp_add_point(growing, pending.row(k), f[0], fantasy->data.s2[gp.data.size() + k]);
        gp_predict(growing, single_row(pending, k), f, after);
        const double sigma2 = noise.sn2[0] + fantasy->data.s2[gp.data.size() + k];
        assert_close(after[0], before[0] * sigma2 / (before[0] + sigma2), 1e-9 * before[0]);
    }
}

// Pending points the block extension cannot take (two a rounding error apart, with almost no
// noise: the second has no variance left once the first is in) are added one at a time, the
// second by refactorising with jitter; every pending point ends up in the surrogate.
static void test_pending_points_too_close_for_the_block(void**) {
    Gp gp = make_gp({std::log(0.8)});
    for (GpSample& sample : gp.samples) {
        sample.theta[hyp::log_sn(2)] = std::log(1e-9);
        sample = gp_posterior(gp.data, sample.theta);
    }
    const double x[2] = {0.31, -0.27};
    Matrix pending(0, 2);
    pending.append_row(x, 2);
    const double next[2] = {std::nextafter(x[0], 1.0), x[1]};
    pending.append_row(next, 2);
    Gp block;
    assert_false(gp_add_points(gp, pending, [](const Gp&, int, const std::vector<double>& means, double& y, double& s2) {
        y = means[0];
        s2 = 0.0;
    }, block));
    const std::unique_ptr<Gp> fantasy = gp_with_pending(gp, pending);
    assert_non_null(fantasy.get());
    assert_int_equal(fantasy->data.size(), gp.data.size() + 2);
    for (double a : fantasy->samples[0].alpha) assert_true(std::isfinite(a));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_name_is_an_option_choice),
        cmocka_unit_test(test_pruning_flag_is_honoured_and_true),
        cmocka_unit_test(test_expected_noise_is_the_nearest_told_noise),
        cmocka_unit_test(test_npro_is_the_variance_drop_at_the_point),
        cmocka_unit_test(test_pending_points_carry_the_expected_noise),
        cmocka_unit_test(test_pending_points_too_close_for_the_block),
        cmocka_unit_test(test_noisy_mode_acquisition_defaults),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
