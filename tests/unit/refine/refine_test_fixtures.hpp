// Shared fixtures of the refinement tests: mixtures of diagonal Gaussians, surrogates built by hand
// (one whose posterior mean is exactly a Gaussian log density, one trained on a grid of a target),
// and moment checks with Monte Carlo standard errors.
#pragma once
#include <cmath>
#include <functional>
#include <vector>

#include "gp/gp.hpp"
#include "gp/surrogate_record.hpp"
#include "test_util.h"
#include "vp/vp.hpp"

namespace libvbmc_test {

// A mixture of diagonal Gaussians N(mu_j, diag(sd_j^2)), one scale row per component.
inline libvbmc::VariationalPosterior diagonal_mixture(const std::vector<double>& w, const std::vector<std::vector<double>>& mu,
                                                      const std::vector<std::vector<double>>& sd) {
    libvbmc::VariationalPosterior vp;
    vp.dim = static_cast<int>(mu[0].size());
    vp.k = static_cast<int>(w.size());
    vp.w = w;
    vp.mu = libvbmc::Matrix(vp.k, vp.dim);
    vp.sigma.assign(static_cast<size_t>(vp.k), 1.0);
    vp.component_scales = true;
    for (int j = 0; j < vp.k; ++j)
        for (int d = 0; d < vp.dim; ++d) {
            vp.mu(j, d) = mu[static_cast<size_t>(j)][static_cast<size_t>(d)];
            vp.lambda.push_back(sd[static_cast<size_t>(j)][static_cast<size_t>(d)]);
        }
    return vp;
}

// Hyperparameters whose mean function is log N(x; mean, diag(sd^2)) + m0: m(x) = m0 - 1/2 sum ((x - mean)/sd)^2.
inline std::vector<double> gaussian_mean_theta(const std::vector<double>& mean, const std::vector<double>& sd, double ell,
                                               double sf, double sn, double m0) {
    const int dim = static_cast<int>(mean.size());
    std::vector<double> theta(static_cast<size_t>(libvbmc::hyp::count(dim)));
    for (int d = 0; d < dim; ++d) {
        theta[static_cast<size_t>(libvbmc::hyp::log_ell(d))] = std::log(ell);
        theta[static_cast<size_t>(libvbmc::hyp::xm(dim, d))] = mean[static_cast<size_t>(d)];
        theta[static_cast<size_t>(libvbmc::hyp::log_omega(dim, d))] = std::log(sd[static_cast<size_t>(d)]);
    }
    theta[static_cast<size_t>(libvbmc::hyp::log_sf(dim))] = std::log(sf);
    theta[static_cast<size_t>(libvbmc::hyp::log_sn(dim))] = std::log(sn);
    theta[static_cast<size_t>(libvbmc::hyp::m0(dim))] = m0;
    return theta;
}

// Training points on a regular grid over the box [lo_d, hi_d] with points[d] points along
// coordinate d, valued by f.
inline libvbmc::GpData grid_data(const std::vector<double>& lo, const std::vector<double>& hi, const std::vector<int>& points,
                                 const std::function<double(const double*)>& f) {
    const int dim = static_cast<int>(lo.size());
    libvbmc::GpData data;
    data.x = libvbmc::Matrix(0, dim);
    std::vector<int> index(static_cast<size_t>(dim), 0);
    std::vector<double> x(static_cast<size_t>(dim));
    for (;;) {
        for (size_t d = 0; d < x.size(); ++d) x[d] = lo[d] + (hi[d] - lo[d]) * index[d] / (points[d] - 1);
        data.x.append_row(x.data(), dim);
        data.y.push_back(f(x.data()));
        data.s2.push_back(0.0);
        size_t d = 0;
        while (d < x.size() && ++index[d] == points[d]) index[d++] = 0;
        if (d == x.size()) break;
    }
    return data;
}

// A surrogate whose posterior mean is exactly log N(x; mean, diag(sd^2)) + m0 everywhere: trained on
// values of its own mean function (so alpha = 0), with a tiny output scale (its SD is negligible).
inline libvbmc::SurrogateRecord gaussian_surrogate(const std::vector<double>& mean, const std::vector<double>& sd) {
    const int dim = static_cast<int>(mean.size());
    const std::vector<double> theta = gaussian_mean_theta(mean, sd, 1.0, 1e-3, 1e-4, 2.0);
    libvbmc::SurrogateRecord record;
    record.data = grid_data(std::vector<double>(mean.size(), -3.0), std::vector<double>(mean.size(), 3.0),
                            std::vector<int>(mean.size(), 5), [&](const double* x) { return libvbmc::gp_mean(x, theta.data(), dim, 0.0); });
    record.thetas = {theta};
    return record;
}

// Sample mean and variance of coordinate d of n draws x (row-major, dim columns).
inline void draw_moments(const std::vector<double>& x, int dim, int d, double& mean, double& var) {
    const size_t n = x.size() / static_cast<size_t>(dim);
    mean = 0.0;
    for (size_t i = 0; i < n; ++i) mean += x[i * static_cast<size_t>(dim) + static_cast<size_t>(d)];
    mean /= static_cast<double>(n);
    var = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double e = x[i * static_cast<size_t>(dim) + static_cast<size_t>(d)] - mean;
        var += e * e;
    }
    var /= static_cast<double>(n - 1);
}

// The draws' mean and variance of coordinate d agree with the expected ones within five Monte Carlo
// standard errors (SE of a mean sqrt(var/n), of a Gaussian variance var sqrt(2/(n-1))).
inline void assert_gaussian_moments(const std::vector<double>& x, int dim, int d, double mean, double var) {
    const double n = static_cast<double>(x.size() / static_cast<size_t>(dim));
    double m, v;
    draw_moments(x, dim, d, m, v);
    assert_close(m, mean, 5.0 * std::sqrt(var / n));
    assert_close(v, var, 5.0 * var * std::sqrt(2.0 / (n - 1.0)));
}

}  // namespace libvbmc_test
