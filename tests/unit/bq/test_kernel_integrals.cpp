// The Gaussian kernel integrals of bq/ against numerical quadrature in 1-D and 2-D, and the ivr
// rounding (the _ratio forms) against the plain forms.
#include "bq/kernel_integrals.hpp"

#include <cmath>
#include <functional>
#include <vector>

#include "test_util.h"

using namespace libvbmc;

namespace {

double normal_pdf(double x, double mu, double s2) { return std::exp(-0.5 * (x - mu) * (x - mu) / s2) / std::sqrt(2.0 * M_PI * s2); }

double se(const SeKernel& k, const double* a, const double* b, int dim) {
    double r2 = 0.0;
    for (int d = 0; d < dim; ++d) r2 += (a[d] - b[d]) * (a[d] - b[d]) / (k.ell[d] * k.ell[d]);
    return std::exp(k.log_sf2 - 0.5 * r2);
}

// Trapezoid rule on [c - 10 s, c + 10 s] per coordinate: for these smooth integrands decaying like
// Gaussians its error is far below the tolerances (exponentially small in the step).
double quad(int dim, const double* centre, const double* sd, int points, const std::function<double(const double*)>& f) {
    std::vector<double> x(dim), step(dim);
    for (int d = 0; d < dim; ++d) step[d] = 20.0 * sd[d] / (points - 1);
    std::vector<int> idx(dim, 0);
    double total = 0.0;
    for (;;) {
        double w = 1.0;
        for (int d = 0; d < dim; ++d) {
            x[d] = centre[d] - 10.0 * sd[d] + idx[d] * step[d];
            w *= step[d] * ((idx[d] == 0 || idx[d] == points - 1) ? 0.5 : 1.0);
        }
        total += w * f(x.data());
        int d = 0;
        while (d < dim && ++idx[d] == points) idx[d++] = 0;
        if (d == dim) break;
    }
    return total;
}

void check_kernel_mean(int dim) {
    const double log_ell[2] = {std::log(0.7), std::log(1.6)};
    const SeKernel k = se_kernel(log_ell, std::log(1.3), dim);
    const double mu[2] = {0.3, -0.8}, s2[2] = {0.5, 2.0}, xp[2] = {-0.4, 0.9}, sd[2] = {std::sqrt(0.5), std::sqrt(2.0)};
    std::vector<double> tau2(dim), inv_tau2(dim);
    const double log_norm = kernel_mean_log_norm(k, s2, dim, tau2.data());
    for (int d = 0; d < dim; ++d) inv_tau2[d] = 1.0 / tau2[d];
    const double closed = kernel_mean_at(log_norm, inv_tau2.data(), mu, xp, dim);
    const double numeric = quad(dim, mu, sd, dim == 1 ? 801 : 301, [&](const double* x) {
        double p = 1.0;
        for (int d = 0; d < dim; ++d) p *= normal_pdf(x[d], mu[d], s2[d]);
        return se(k, x, xp, dim) * p;
    });
    assert_close(closed, numeric, 1e-10 * numeric);
    const double ratio = kernel_mean_log_norm_ratio(k, std::log(0.25), s2, dim, tau2.data());
    assert_close(ratio, log_norm + std::log(0.25), 1e-14 * (1.0 + std::fabs(log_norm)));
}

void check_kernel_pair(int dim) {
    const double log_ell[2] = {std::log(1.1), std::log(0.6)};
    const SeKernel k = se_kernel(log_ell, std::log(0.8), dim);
    const double mu_a[2] = {0.2, 0.5}, s2_a[2] = {0.4, 0.9}, mu_b[2] = {-0.6, 1.1}, s2_b[2] = {1.5, 0.3};
    const double closed = kernel_pair_mean(k, mu_a, s2_a, mu_b, s2_b, dim);
    // Integrate x' in closed form is what is tested; here both by quadrature on the 2 dim grid.
    std::vector<double> centre(2 * dim), sd(2 * dim);
    for (int d = 0; d < dim; ++d) {
        centre[d] = mu_a[d], sd[d] = std::sqrt(s2_a[d]);
        centre[dim + d] = mu_b[d], sd[dim + d] = std::sqrt(s2_b[d]);
    }
    const double numeric = quad(2 * dim, centre.data(), sd.data(), dim == 1 ? 401 : 61, [&](const double* z) {
        double p = 1.0;
        for (int d = 0; d < dim; ++d) p *= normal_pdf(z[d], mu_a[d], s2_a[d]) * normal_pdf(z[dim + d], mu_b[d], s2_b[d]);
        return se(k, z, z + dim, dim) * p;
    });
    assert_close(closed, numeric, 1e-9 * numeric);
    const double ratio = kernel_pair_mean_ratio(k, std::log(0.3), mu_a, s2_a, mu_b, s2_b, dim);
    assert_close(ratio, 0.3 * closed, 1e-14 * closed);
}

void test_kernel_mean_1d(void**) { check_kernel_mean(1); }
void test_kernel_mean_2d(void**) { check_kernel_mean(2); }
void test_kernel_pair_1d(void**) { check_kernel_pair(1); }
void test_kernel_pair_2d(void**) { check_kernel_pair(2); }

}  // namespace

// The vectorised row (kernel_mean_row) against kernel_mean_at point by point, in 3-D at 45
// points (a whole register block of the kernel row and a ragged rest), some far in the tails.
static void test_kernel_mean_row_matches_pointwise(void**) {
    const int dim = 3, m = 45;
    const double log_ell[3] = {std::log(0.7), std::log(1.6), std::log(0.4)};
    const SeKernel k = se_kernel(log_ell, std::log(1.3), dim);
    const double mu[3] = {0.3, -0.8, 1.1}, s2[3] = {0.5, 2.0, 0.1};
    std::vector<double> tau2(dim), inv_tau2(dim), inv_tau(dim);
    const double log_norm = kernel_mean_log_norm(k, s2, dim, tau2.data());
    for (int d = 0; d < dim; ++d) {
        inv_tau2[d] = 1.0 / tau2[d];
        inv_tau[d] = 1.0 / std::sqrt(tau2[d]);
    }
    std::vector<double> points(static_cast<size_t>(m) * dim), by_dim(points.size());
    for (int j = 0; j < m; ++j)
        for (int d = 0; d < dim; ++d) {
            points[static_cast<size_t>(j) * dim + d] = mu[d] + 0.37 * (j - 20) * (d + 1) * 0.3;
            by_dim[static_cast<size_t>(d) * m + j] = points[static_cast<size_t>(j) * dim + d];
        }
    std::vector<double> row(m), scaled_mu, scaled;
    kernel_mean_row(log_norm, inv_tau.data(), mu, by_dim.data(), m, dim, scaled_mu, scaled, row.data());
    for (int j = 0; j < m; ++j) {
        const double exact = kernel_mean_at(log_norm, inv_tau2.data(), mu, &points[static_cast<size_t>(j) * dim], dim);
        assert_true(exact > 0.0);
        assert_close(row[j], exact, 1e-12 * exact);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_mean_1d),
        cmocka_unit_test(test_kernel_mean_2d),
        cmocka_unit_test(test_kernel_pair_1d),
        cmocka_unit_test(test_kernel_pair_2d),
        cmocka_unit_test(test_kernel_mean_row_matches_pointwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
