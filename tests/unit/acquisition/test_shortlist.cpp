// The iteration's shortlist of asks with many points out: the best candidates of a set drawn from
// the given stream, the same for the same stream, never clipped to the search box, and without
// candidates that cannot be chosen.
#include "acquisition/shortlist.hpp"

#include <algorithm>
#include <cmath>

#include "acquisition/acq_fcn.hpp"
#include "test_util.h"

using namespace libvbmc;

// A D = 2 surrogate of a Gaussian log density on 40 points of a grid, and a vp near its mode.
static void make_surrogate(Gp& gp, VariationalPosterior& vp) {
    const int dim = 2;
    gp.dim = dim;
    for (int i = 0; i < 40; ++i) {
        const double x[2] = {-2.0 + 0.5 * (i % 8), -1.5 + 0.75 * (i / 8)};
        gp.data.x.append_row(x, dim);
        gp.data.y.push_back(-0.5 * (x[0] * x[0] + 2.0 * x[1] * x[1]));
        gp.data.s2.push_back(0.0);
    }
    std::vector<double> theta(hyp::count(dim), 0.0);
    theta[hyp::log_ell(0)] = theta[hyp::log_ell(1)] = std::log(0.9);
    theta[hyp::log_sf(dim)] = std::log(2.0);
    theta[hyp::log_sn(dim)] = std::log(1e-3);
    theta[hyp::log_omega(dim, 0)] = theta[hyp::log_omega(dim, 1)] = std::log(1.5);
    gp.samples.push_back(gp_posterior(gp.data, theta));
    vp.dim = dim;
    vp.k = 2;
    vp.w = {0.5, 0.5};
    vp.mu = Matrix(2, dim);
    vp.mu(0, 0) = 0.3;
    vp.mu(1, 1) = -0.2;
    vp.sigma = {0.7, 0.6};
    vp.lambda.assign(dim, 1.0);
}

static void test_best_of_its_own_stream(void**) {
    Gp gp;
    VariationalPosterior vp;
    make_surrogate(gp, vp);
    for (AcqKind kind : {AcqKind::ivr, AcqKind::log}) {
        AcqSettings s;
        s.kind = kind;
        s.ns_search = 1024;
        s.lb_search.assign(2, -0.1);  // a box far narrower than the candidates: not applied
        s.ub_search.assign(2, 0.1);
        Rng a(77), b(77);
        const Matrix first = acquisition_shortlist(gp, vp, s, a), again = acquisition_shortlist(gp, vp, s, b);
        assert_int_equal(first.rows, 64);  // 1024 / 16
        assert_int_equal(shortlist_fresh_count(s), 64);
        assert_true(first.data == again.data);
        std::vector<double> values(first.rows);
        acq_evaluate(gp, vp, first, *std::max_element(gp.data.y.begin(), gp.data.y.end()), s, values.data());
        int outside_box = 0;
        for (int i = 0; i < first.rows; ++i) {
            assert_true(std::isfinite(values[i]));
            if (i > 0) assert_true(values[i] >= values[i - 1] - 1e-12 * (1.0 + std::abs(values[i])));
            outside_box += std::abs(first(i, 0)) > 0.1 || std::abs(first(i, 1)) > 0.1;
        }
        assert_true(outside_box > 0);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_best_of_its_own_stream),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
