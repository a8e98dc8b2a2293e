// The block extension of gp_add_points against its definition, one rank-1 extension
// (gp_add_point) after another with each value chosen from the sample means at that point, and
// against refactorising the grown data; the refusal of a point the block cannot take.
#include <cmath>

#include "gp/gp.hpp"
#include "gp/gp_extend.hpp"
#include "gp_test_data.hpp"
#include "test_util.h"

using namespace libvbmc;
using namespace libvbmc_test;

// A surrogate of three hyperparameter samples on noisy data (every third point exact).
static Gp three_sample_gp(int n, int dim, Rng& rng) {
    Gp gp;
    gp.dim = dim;
    gp.data = make_data(n, dim, rng, false);
    for (int i = 0; i < n; ++i) gp.data.s2[i] = i % 3 == 0 ? 0.0 : 0.3 * rng.uniform();
    for (int s = 0; s < 3; ++s) gp.samples.push_back(gp_posterior(gp.data, make_theta(dim, rng)));
    return gp;
}

// A value rule that uses every sample's mean and the data so far (as the pending points'
// fantasies do): a weighted mean of the sample means, and a noise from the last point told.
static void chosen_value(const Gp& gp, int j, const std::vector<double>& means, double& y, double& s2) {
    y = 0.0;
    for (size_t s = 0; s < means.size(); ++s) y += (1.0 + static_cast<double>(s)) * means[s];
    y = y / 6.0 + 0.1 * j;
    s2 = 0.5 * gp.data.s2.back() + 0.01 * j;
}

static double sample_mean_at(const Gp& gp, size_t s, const double* x) {
    Matrix point(1, gp.dim);
    for (int d = 0; d < gp.dim; ++d) point(0, d) = x[d];
    double mean = 0.0, var = 0.0;
    gp_predict_sample(gp.data, gp.samples[s], point, &mean, &var);
    return mean;
}

static void test_block_equals_one_point_at_a_time(void**) {
    Rng rng(41);
    const int dim = 3, n = 30, m = 6;
    const Gp gp = three_sample_gp(n, dim, rng);
    Matrix points(m, dim);
    for (double& v : points.data) v = 2.0 * rng.uniform() - 1.0;
    Gp block;
    assert_true(gp_add_points(gp, points, chosen_value, block));

    Gp sequential = gp;
    for (int j = 0; j < m; ++j) {
        std::vector<double> means(gp.samples.size());
        for (size_t s = 0; s < means.size(); ++s) means[s] = sample_mean_at(sequential, s, points.row(j));
        double y = 0.0, s2 = 0.0;
        chosen_value(sequential, j, means, y, s2);
        gp_add_point(sequential, points.row(j), y, s2);
    }
    assert_int_equal(block.data.size(), n + m);
    for (int i = 0; i < n + m; ++i) {
        assert_close(block.data.y[i], sequential.data.y[i], 1e-10 * (1.0 + std::fabs(sequential.data.y[i])));
        assert_close(block.data.s2[i], sequential.data.s2[i], 1e-12);
    }
    for (size_t s = 0; s < gp.samples.size(); ++s) {
        const GpSample refactorised = gp_posterior(block.data, gp.samples[s].theta);
        for (int i = 0; i < n + m; ++i) {
            const double a = sequential.samples[s].alpha[i];
            assert_close(block.samples[s].alpha[i], a, 1e-8 * (1.0 + std::fabs(a)));
            assert_close(refactorised.alpha[i], a, 1e-8 * (1.0 + std::fabs(a)));
            for (int k = 0; k <= i; ++k) assert_close(block.samples[s].chol(i, k), sequential.samples[s].chol(i, k), 1e-10);
        }
    }
}

// A new point repeated without noise (the GP's own noise 1e-18) has no conditional variance left
// once its first copy is in: the block refuses it and leaves the output as it was. No points:
// the output is the surrogate itself.
static void test_point_on_exact_data_is_refused(void**) {
    Rng rng(42);
    const int dim = 2, n = 12;
    Gp gp = three_sample_gp(n, dim, rng);
    for (GpSample& sample : gp.samples) {
        sample.theta[hyp::log_sn(dim)] = std::log(1e-9);
        sample = gp_posterior(gp.data, sample.theta);
    }
    Matrix points(2, dim);
    for (int d = 0; d < dim; ++d) points(0, d) = points(1, d) = 0.4 + 0.1 * d;
    const auto exact = [](const Gp&, int, const std::vector<double>& means, double& y, double& s2) {
        y = means[0];
        s2 = 0.0;
    };
    Gp out;
    out.dim = -1;
    assert_false(gp_add_points(gp, points, exact, out));
    assert_int_equal(out.dim, -1);
    assert_true(out.samples.empty() && out.data.size() == 0);
    assert_true(gp_add_points(gp, Matrix(0, dim), exact, out));
    assert_true(out.data.y == gp.data.y && out.data.s2 == gp.data.s2 && out.data.x.data == gp.data.x.data);
    for (size_t s = 0; s < gp.samples.size(); ++s) {
        assert_true(out.samples[s].chol.data == gp.samples[s].chol.data);
        assert_true(out.samples[s].alpha == gp.samples[s].alpha && out.samples[s].theta == gp.samples[s].theta);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_equals_one_point_at_a_time),
        cmocka_unit_test(test_point_on_exact_data_is_refused),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
