// Entropy estimators: closed form of a single Gaussian, lower-bound property, Monte Carlo
// consistency, and every gradient against central finite differences (fixed draws for MC).
#include "elbo/entropy.hpp"

#include <algorithm>
#include <cmath>

#include "elbo_test_fixtures.hpp"
#include "test_util.h"
#include "util/error.hpp"
#include "util/math.hpp"
#include "util/parallel.hpp"

using namespace libvbmc;
using namespace libvbmc_test;

static double gaussian_entropy(const VariationalPosterior& vp) {
    double h = 0.5 * vp.dim * (1.0 + kLog2Pi) + vp.dim * std::log(vp.sigma[0]);
    for (double l : vp.lambda) h += std::log(l);
    return h;
}

static void test_single_gaussian(void**) {
    Rng rng(21);
    VariationalPosterior vp = random_vp(4, 1, rng, false);
    const double exact = gaussian_entropy(vp);
    assert_close(entropy_lb(vp, nullptr), exact, 1e-12);
    // log q(x) = const - |eps|^2 / 2: the estimate's SE is sqrt(D / 2 / n).
    const int n = 20000;
    const double mc = entropy_mc(vp, n, rng, nullptr);
    assert_close(mc, exact, 4.0 * std::sqrt(4.0 / 2.0 / n));
}

static void check_mixture_mc_vs_bound(bool component_scales) {
    Rng rng(22);
    VariationalPosterior vp = random_vp(2, 3, rng, true, component_scales);
    // Reference by brute-force Monte Carlo with vp_sample / vp_log_pdf.
    const int n = 200000;
    Matrix xs;
    vp_sample(vp, n, rng, xs);
    double mean = 0.0, sq = 0.0;
    std::vector<double> lq(n);
    for (int i = 0; i < n; ++i) mean += (lq[i] = -vp_log_pdf(vp, xs.row(i)));
    mean /= n;
    for (double v : lq) sq += (v - mean) * (v - mean);
    const double se = std::sqrt(sq / (n - 1) / n);
    const double mc = entropy_mc(vp, 40000, rng, nullptr);
    assert_close(mc, mean, 5.0 * se + 5.0 * std::sqrt(sq / (n - 1) / (3 * 40000)));
    assert_true(entropy_lb(vp, nullptr) <= mean + 4.0 * se);
}

static void test_mixture_mc_vs_bound(void**) {
    check_mixture_mc_vs_bound(false);
    check_mixture_mc_vs_bound(true);
}

// n draws per component: 30 fit one chunk of the vectorised loops; 601 (rounded up to 602)
// span three, with antithetic partners in different chunks and a ragged last chunk.
static void check_mc_gradient(bool weights, int n, bool component_scales = false) {
    Rng setup(weights ? 23 : 24);
    VariationalPosterior vp = random_vp(3, 3, setup, weights, component_scales);
    const std::vector<double> theta = vp.get_theta();
    auto f = [&](const std::vector<double>& t) {
        VariationalPosterior v = vp;
        v.set_theta(t);
        Rng rng(99);  // the same draws at every evaluation
        return entropy_mc(v, n, rng, nullptr);
    };
    std::vector<double> grad;
    Rng rng(99);
    const double h = entropy_mc(vp, n, rng, &grad);
    assert_close(h, f(theta), 1e-12);
    const std::vector<double> fd = central_diff(f, theta, 1e-5);
    assert_int_equal(static_cast<int>(grad.size()), vp.theta_size());
    for (size_t i = 0; i < fd.size(); ++i) assert_close(grad[i], fd[i], 1e-6 * (1.0 + std::fabs(fd[i])));
}

static void test_mc_gradient_fixed_weights(void**) { check_mc_gradient(false, 30); }
static void test_mc_gradient_free_weights(void**) { check_mc_gradient(true, 30); }
static void test_mc_gradient_many_chunks(void**) {
    check_mc_gradient(false, 601);
    check_mc_gradient(true, 601);
}
static void test_mc_gradient_component_scales(void**) {
    check_mc_gradient(false, 30, true);
    check_mc_gradient(true, 601, true);
}

// Enough components and draws for the estimate to be shared among workers (12 components in
// 8 groups of one or two): value and gradient are bitwise the same on 1, 2 or 5 threads, and the
// gradient is still the derivative of the estimate.
static void test_mc_same_on_any_thread_count(void**) {
    Rng setup(41);
    VariationalPosterior vp = random_vp(4, 12, setup, true, true);
    const int n = 1500;
    std::vector<double> grad_one;
    double h_one = 0.0;
    {
        const ThreadScope scope(1);
        Rng rng(7);
        h_one = entropy_mc(vp, n, rng, &grad_one);
    }
    for (int threads : {2, 5}) {
        const ThreadScope scope(threads);
        std::vector<double> grad;
        Rng rng(7);
        const double h = entropy_mc(vp, n, rng, &grad);
        assert_memory_equal(&h, &h_one, sizeof h);
        assert_memory_equal(grad.data(), grad_one.data(), grad.size() * sizeof(double));
        Rng rng_value(7);
        const double value_only = entropy_mc(vp, n, rng_value, nullptr, true);
        Rng rng_value_one(7);
        const ThreadScope one(1);
        const double value_only_one = entropy_mc(vp, n, rng_value_one, nullptr, true);
        assert_memory_equal(&value_only, &value_only_one, sizeof value_only);
    }
    const ThreadScope scope(2);
    const std::vector<double> theta = vp.get_theta();
    auto f = [&](const std::vector<double>& t) {
        VariationalPosterior v = vp;
        v.set_theta(t);
        Rng rng(7);
        return entropy_mc(v, n, rng, nullptr);
    };
    const std::vector<double> fd = central_diff(f, theta, 1e-5);
    for (size_t i = 0; i < fd.size(); ++i) assert_close(grad_one[i], fd[i], 1e-6 * (1.0 + std::fabs(fd[i])));
}

static void check_lb_gradient(int k, bool weights, bool component_scales = false) {
    Rng setup(25 + k);
    VariationalPosterior vp = random_vp(3, k, setup, weights, component_scales);
    const std::vector<double> theta = vp.get_theta();
    auto f = [&](const std::vector<double>& t) {
        VariationalPosterior v = vp;
        v.set_theta(t);
        return entropy_lb(v, nullptr);
    };
    std::vector<double> grad;
    entropy_lb(vp, &grad);
    const std::vector<double> fd = central_diff(f, theta, 1e-5);
    for (size_t i = 0; i < fd.size(); ++i) assert_close(grad[i], fd[i], 1e-6 * (1.0 + std::fabs(fd[i])));
}

static void test_lb_gradient(void**) {
    check_lb_gradient(1, false);
    check_lb_gradient(1, true);
    check_lb_gradient(4, false);
    check_lb_gradient(4, true);
    check_lb_gradient(1, true, true);
    check_lb_gradient(4, false, true);
    check_lb_gradient(4, true, true);
}

// The MC gradient is unbiased: its average over many independent draws matches the gradient of
// the entropy, which for a single Gaussian is exact (d H / d log sigma = D, d / d log lambda = 1).
static void test_mc_gradient_unbiased_single(void**) {
    Rng rng(27);
    VariationalPosterior vp = random_vp(2, 1, rng, false);
    std::vector<double> grad;
    entropy_mc(vp, 50, rng, &grad);
    assert_close(grad[0], 0.0, 1e-12);
    assert_close(grad[1], 0.0, 1e-12);
    assert_close(grad[2], 2.0, 1e-12);
    assert_close(grad[3], 1.0, 1e-12);
    assert_close(grad[4], 1.0, 1e-12);
}

// The control-variate estimate: exact for one Gaussian (log q is -u plus a constant), and for an
// overlapping mixture unbiased with a much smaller spread than the plain estimate on the same draws.
static void test_mc_control_variate(void**) {
    Rng rng(28);
    VariationalPosterior single = random_vp(4, 1, rng, false);
    assert_close(entropy_mc(single, 64, rng, nullptr, true), gaussian_entropy(single), 1e-12);

    VariationalPosterior vp = random_vp(6, 8, rng, true);
    const int n = 256, repeats = 200;
    double plain_sum = 0.0, plain_sq = 0.0, cv_sum = 0.0, cv_sq = 0.0;
    for (int r = 0; r < repeats; ++r) {
        Rng draws_plain(1000 + r), draws_cv(1000 + r);
        const double plain = entropy_mc(vp, n, draws_plain, nullptr);
        const double cv = entropy_mc(vp, n, draws_cv, nullptr, true);
        plain_sum += plain;
        plain_sq += plain * plain;
        cv_sum += cv;
        cv_sq += cv * cv;
    }
    const double plain_mean = plain_sum / repeats, cv_mean = cv_sum / repeats;
    const double plain_sd = std::sqrt(plain_sq / repeats - plain_mean * plain_mean);
    const double cv_sd = std::sqrt(cv_sq / repeats - cv_mean * cv_mean);
    print_message("entropy SD over %d repeats: plain %.5f, control variate %.5f\n", repeats, plain_sd, cv_sd);
    assert_true(cv_sd < 0.5 * plain_sd);
    const double reference = entropy_mc(vp, 400000, rng, nullptr, true);
    assert_close(cv_mean, reference, 4.0 * cv_sd / std::sqrt(repeats) + 1e-3);
    assert_close(plain_mean, reference, 4.0 * plain_sd / std::sqrt(repeats) + 1e-3);
    std::vector<double> grad;
    bool threw = false;
    try {
        entropy_mc(vp, n, rng, &grad, true);
    } catch (const Error& e) {
        threw = e.code() == Code::internal;
    }
    assert_true(threw);
}

// Kronecker draws (the final boost's): on an overlapping mixture the value and the gradient are
// unbiased (their means over independent shifts match an estimate from 200000 draws per
// component) and vary less between calls than with independent draws of the same count.
static void test_mc_kronecker_draws(void**) {
    Rng setup(29);
    VariationalPosterior vp = random_vp(4, 10, setup, true);
    const int n = 512, repeats = 200;
    const size_t size = vp.theta_size();
    std::vector<double> grad, grad_sum[2], grad_sq[2];
    double value_sum[2] = {0.0, 0.0}, value_sq[2] = {0.0, 0.0};
    for (int kind = 0; kind < 2; ++kind) {
        const EntropyDraws draws = kind == 0 ? EntropyDraws::independent : EntropyDraws::kronecker;
        grad_sum[kind].assign(size, 0.0);
        grad_sq[kind].assign(size, 0.0);
        for (int r = 0; r < repeats; ++r) {
            Rng rng(2000 + r);
            const double h = entropy_mc(vp, n, rng, &grad, false, draws);
            value_sum[kind] += h;
            value_sq[kind] += h * h;
            for (size_t i = 0; i < size; ++i) {
                grad_sum[kind][i] += grad[i];
                grad_sq[kind][i] += grad[i] * grad[i];
            }
        }
    }
    std::vector<double> reference_grad;
    Rng reference_rng(7);
    const double reference = entropy_mc(vp, 200000, reference_rng, &reference_grad, false, EntropyDraws::kronecker);
    double spread[2] = {0.0, 0.0};
    for (int kind = 0; kind < 2; ++kind) {
        const double mean = value_sum[kind] / repeats;
        const double sd = std::sqrt(value_sq[kind] / repeats - mean * mean);
        assert_close(mean, reference, 4.0 * sd / std::sqrt(repeats) + 1e-3);
        for (size_t i = 0; i < size; ++i) {
            const double g_mean = grad_sum[kind][i] / repeats;
            const double g_var = std::max(grad_sq[kind][i] / repeats - g_mean * g_mean, 0.0);
            assert_close(g_mean, reference_grad[i], 4.0 * std::sqrt(g_var / repeats) + 2e-3);
            spread[kind] += g_var;
        }
    }
    print_message("total gradient variance over %d calls: independent %.3g, kronecker %.3g\n", repeats, spread[0],
                  spread[1]);
    assert_true(spread[1] < 0.5 * spread[0]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_gaussian),
        cmocka_unit_test(test_mixture_mc_vs_bound),
        cmocka_unit_test(test_mc_control_variate),
        cmocka_unit_test(test_mc_kronecker_draws),
        cmocka_unit_test(test_mc_gradient_fixed_weights),
        cmocka_unit_test(test_mc_gradient_free_weights),
        cmocka_unit_test(test_mc_gradient_many_chunks),
        cmocka_unit_test(test_mc_gradient_component_scales),
        cmocka_unit_test(test_mc_same_on_any_thread_count),
        cmocka_unit_test(test_lb_gradient),
        cmocka_unit_test(test_mc_gradient_unbiased_single),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
