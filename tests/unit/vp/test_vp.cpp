// Variational posterior: packing, density, sampling moments, Gaussian KL, serialisation, component
// edits; with a shared diagonal scale and with one per component.
#include "vp/vp.hpp"

#include <cmath>

#include "test_util.h"
#include "util/math.hpp"

using namespace libvbmc;

static VariationalPosterior make_vp(int dim, int k, Rng& rng, bool component_scales = false) {
    VariationalPosterior vp;
    vp.dim = dim;
    vp.k = k;
    vp.mu = Matrix(k, dim);
    for (double& v : vp.mu.data) v = 2.0 * rng.normal();
    vp.sigma.resize(k);
    for (double& s : vp.sigma) s = 0.5 + rng.uniform();
    vp.component_scales = component_scales;
    vp.lambda.resize(static_cast<size_t>(vp.lambda_rows()) * dim);
    for (double& l : vp.lambda) l = 0.5 + rng.uniform();
    vp.w.resize(k);
    double total = 0.0;
    for (double& v : vp.w) total += (v = 0.2 + rng.uniform());
    for (double& v : vp.w) v /= total;
    vp.optimize_weights = true;
    return vp;
}

static void check_theta_round_trip(bool component_scales) {
    Rng rng(3);
    VariationalPosterior vp = make_vp(3, 4, rng, component_scales);
    std::vector<double> theta = vp.get_theta();
    assert_int_equal(static_cast<int>(theta.size()), vp.theta_size());
    VariationalPosterior copy = vp;
    copy.set_theta(theta);
    for (int j = 0; j < vp.k; ++j) {
        assert_close(copy.w[j], vp.w[j], 1e-14);
        assert_close(copy.sigma[j], vp.sigma[j], 1e-14);
        for (int d = 0; d < vp.dim; ++d) assert_close(copy.mu(j, d), vp.mu(j, d), 0.0);
    }
    assert_int_equal(static_cast<int>(copy.lambda.size()), component_scales ? 4 * 3 : 3);
    for (size_t i = 0; i < vp.lambda.size(); ++i) assert_close(copy.lambda[i], vp.lambda[i], 1e-14);
    // Shifting every eta by a constant leaves the weights unchanged (softmax).
    for (int j = 0; j < vp.k; ++j) theta[theta.size() - 1 - j] += 3.0;
    copy.set_theta(theta);
    for (int j = 0; j < vp.k; ++j) assert_close(copy.w[j], vp.w[j], 1e-14);
    VariationalPosterior fixed = vp;
    fixed.optimize_weights = false;
    assert_int_equal(fixed.theta_size(), 3 * 4 + 4 + (component_scales ? 4 * 3 : 3));
}

static void test_theta_round_trip(void**) {
    check_theta_round_trip(false);
    check_theta_round_trip(true);
}

// Weighted density of component j at x (2-D), written out from the definition: w_j times the
// product over coordinates of a normal density with SD sigma_j lambda_jd, lambda indexed by hand.
static double component_density(const VariationalPosterior& vp, int j, const double* x) {
    double density = vp.w[j];
    for (int d = 0; d < 2; ++d) {
        const double s = vp.sigma[j] * vp.lambda[static_cast<size_t>(vp.component_scales ? j * 2 + d : d)];
        const double z = (x[d] - vp.mu(j, d)) / s;
        density *= std::exp(-0.5 * z * z) / (std::sqrt(2 * M_PI) * s);
    }
    return density;
}

static void check_log_pdf_direct(bool component_scales) {
    Rng rng(4);
    VariationalPosterior vp = make_vp(2, 3, rng, component_scales);
    const double x[2] = {0.3, -0.7};
    double density = 0.0;
    for (int j = 0; j < vp.k; ++j) density += component_density(vp, j, x);
    assert_close(vp_log_pdf(vp, x), std::log(density), 1e-12);
}

static void test_log_pdf_direct(void**) {
    check_log_pdf_direct(false);
    check_log_pdf_direct(true);
}

static void check_sample_moments(bool component_scales) {
    Rng rng(5);
    VariationalPosterior vp = make_vp(3, 3, rng, component_scales);
    std::vector<double> mean;
    Matrix cov;
    vp_moments(vp, mean, cov);
    const int n = 200000;
    Matrix xs;
    std::vector<int> comp;
    vp_sample(vp, n, rng, xs, &comp);
    std::vector<double> counts(vp.k, 0.0);
    for (int c : comp) counts[c] += 1.0;
    for (int j = 0; j < vp.k; ++j)
        assert_close(counts[j] / n, vp.w[j], 5.0 * std::sqrt(vp.w[j] * (1 - vp.w[j]) / n));
    for (int d = 0; d < 3; ++d) {
        double m = 0.0;
        for (int i = 0; i < n; ++i) m += xs(i, d);
        m /= n;
        assert_close(m, mean[d], 5.0 * std::sqrt(cov(d, d) / n));
        for (int e = 0; e < 3; ++e) {
            double c = 0.0;
            for (int i = 0; i < n; ++i) c += (xs(i, d) - mean[d]) * (xs(i, e) - mean[e]);
            c /= n;
            // SE of a sample covariance is about sqrt((S_dd S_ee + S_de^2)/n) for Gaussians;
            // use a generous factor for the mixture's heavier tails.
            assert_close(c, cov(d, e), 8.0 * std::sqrt((cov(d, d) * cov(e, e) + cov(d, e) * cov(d, e)) / n));
        }
    }
}

static void test_sample_moments(void**) {
    check_sample_moments(false);
    check_sample_moments(true);
}

static void test_kl_gauss(void**) {
    Rng rng(6);
    VariationalPosterior a = make_vp(2, 2, rng);
    auto self = vp_kl_gauss(a, a);
    assert_close(self.first, 0.0, 1e-12);
    assert_close(self.second, 0.0, 1e-12);
    // Two single Gaussians with diagonal covariances: closed form per coordinate.
    VariationalPosterior p, q;
    for (VariationalPosterior* v : {&p, &q}) {
        v->dim = 2;
        v->k = 1;
        v->w = {1.0};
        v->mu = Matrix(1, 2);
        v->sigma = {1.0};
    }
    p.lambda = {1.0, 2.0};
    q.lambda = {0.5, 1.5};
    q.mu(0, 0) = 1.0;
    q.mu(0, 1) = -0.5;
    double kl_pq = 0.0, kl_qp = 0.0;
    for (int d = 0; d < 2; ++d) {
        const double s0 = p.lambda[d] * p.lambda[d], s1 = q.lambda[d] * q.lambda[d];
        const double dm = q.mu(0, d) - p.mu(0, d);
        kl_pq += 0.5 * (s0 / s1 + dm * dm / s1 - 1 + std::log(s1 / s0));
        kl_qp += 0.5 * (s1 / s0 + dm * dm / s0 - 1 + std::log(s0 / s1));
    }
    auto kl = vp_kl_gauss(p, q);
    assert_close(kl.first, kl_pq, 1e-12);
    assert_close(kl.second, kl_qp, 1e-12);
}

static void check_serial_round_trip(bool component_scales) {
    Rng rng(7);
    VariationalPosterior vp = make_vp(4, 3, rng, component_scales);
    Writer out;
    vp.write(out);
    Reader in(out.bytes().data(), out.bytes().size());
    VariationalPosterior back = VariationalPosterior::read(in);
    assert_int_equal(in.remaining(), 0);
    Writer again;
    back.write(again);
    assert_true(again.bytes() == out.bytes());
    assert_true(back.component_scales == component_scales);
}

static void test_serial_round_trip(void**) {
    check_serial_round_trip(false);
    check_serial_round_trip(true);
}

// Splitting components keeps the density: same log pdf everywhere, weights sum to one.
static void check_split_components_keeps_the_density(bool component_scales) {
    Rng rng(8);
    const VariationalPosterior vp = make_vp(3, 3, rng, component_scales);
    const VariationalPosterior split = vp_split_components(vp, 8);
    assert_int_equal(split.k, 8);
    assert_int_equal(split.mu.rows, 8);
    assert_int_equal(static_cast<int>(split.sigma.size()), 8);
    double total = 0.0;
    for (double w : split.w) total += w;
    assert_close(total, 1.0, 1e-15);
    for (int i = 0; i < 50; ++i) {
        double x[3];
        for (double& v : x) v = 3.0 * rng.normal();
        assert_close(vp_log_pdf(split, x), vp_log_pdf(vp, x), 1e-12);
    }
}

static void test_split_components_keeps_the_density(void**) {
    check_split_components_keeps_the_density(false);
    check_split_components_keeps_the_density(true);
}

// Giving each component its own copy of the shared scale keeps the density; the new scales are
// free parameters (theta grows by (k - 1) dim).
static void test_with_component_scales_keeps_the_density(void**) {
    Rng rng(9);
    const VariationalPosterior vp = make_vp(3, 4, rng);
    const VariationalPosterior per = vp_with_component_scales(vp);
    assert_true(per.component_scales);
    assert_int_equal(per.theta_size(), vp.theta_size() + 3 * 3);
    for (int i = 0; i < 50; ++i) {
        double x[3];
        for (double& v : x) v = 3.0 * rng.normal();
        assert_close(vp_log_pdf(per, x), vp_log_pdf(vp, x), 1e-12);
    }
}

// Removing a component: the density of the others, renormalised, with their own scales.
static void check_without_component(bool component_scales) {
    Rng rng(10);
    const VariationalPosterior vp = make_vp(2, 3, rng, component_scales);
    const VariationalPosterior rest = vp_without_component(vp, 1);
    assert_int_equal(rest.k, 2);
    const double x[2] = {0.4, -1.1};
    const double density = (component_density(vp, 0, x) + component_density(vp, 2, x)) / (1.0 - vp.w[1]);
    assert_close(vp_log_pdf(rest, x), std::log(density), 1e-12);
}

static void test_without_component(void**) {
    check_without_component(false);
    check_without_component(true);
}

// The analytic gradient of log q against central differences, with a shared and with per-component
// scales.
static void test_log_pdf_gradient_matches_finite_differences(void**) {
    Rng rng(17);
    for (bool component_scales : {false, true}) {
        const VariationalPosterior vp = make_vp(3, 4, rng, component_scales);
        for (int n = 0; n < 50; ++n) {
            double x[3], grad[3];
            for (double& v : x) v = 3.0 * rng.normal();
            assert_close(vp_log_pdf_gradient(vp, x, grad), vp_log_pdf(vp, x), 1e-14 * std::fabs(vp_log_pdf(vp, x)));
            for (int d = 0; d < 3; ++d) {
                const double h = 1e-5;
                double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
                xp[d] += h;
                xm[d] -= h;
                const double expected = (vp_log_pdf(vp, xp) - vp_log_pdf(vp, xm)) / (2.0 * h);
                assert_close(grad[d], expected, 1e-6 * std::fmax(1.0, std::fabs(expected)));
            }
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_theta_round_trip), cmocka_unit_test(test_log_pdf_direct),
        cmocka_unit_test(test_log_pdf_gradient_matches_finite_differences),
        cmocka_unit_test(test_sample_moments),   cmocka_unit_test(test_kl_gauss),
        cmocka_unit_test(test_serial_round_trip), cmocka_unit_test(test_split_components_keeps_the_density),
        cmocka_unit_test(test_with_component_scales_keeps_the_density), cmocka_unit_test(test_without_component),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
