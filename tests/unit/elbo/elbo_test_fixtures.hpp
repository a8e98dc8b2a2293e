// Shared fixtures of the elbo tests: random mixtures, GPs built by hand, finite differences.
#pragma once
#include <cmath>
#include <functional>
#include <vector>

#include "gp/gp.hpp"
#include "util/rng.hpp"
#include "vp/vp.hpp"

namespace libvbmc_test {

// A random mixture; with component_scales each component has its own diagonal scale lambda_k.
inline libvbmc::VariationalPosterior random_vp(int dim, int k, libvbmc::Rng& rng, bool weights,
                                               bool component_scales = false) {
    libvbmc::VariationalPosterior vp;
    vp.dim = dim;
    vp.k = k;
    vp.mu = libvbmc::Matrix(k, dim);
    for (double& v : vp.mu.data) v = rng.normal();
    vp.sigma.resize(k);
    for (double& s : vp.sigma) s = 0.3 + 0.5 * rng.uniform();
    vp.component_scales = component_scales;
    vp.lambda.resize(static_cast<size_t>(component_scales ? k : 1) * dim);
    for (double& l : vp.lambda) l = 0.6 + 0.8 * rng.uniform();
    vp.w.resize(k);
    double total = 0.0;
    for (double& v : vp.w) total += (v = 0.3 + rng.uniform());
    for (double& v : vp.w) v /= total;
    vp.optimize_weights = weights;
    return vp;
}

// GP on n random points of a wiggly log density, one sample per theta in thetas, with the mean
// shape mean_dof (gp/mean_function.hpp).
inline libvbmc::Gp random_gp(int dim, int n, libvbmc::Rng& rng, const std::vector<std::vector<double>>& thetas,
                             double mean_dof = 0.0) {
    libvbmc::Gp gp;
    gp.dim = dim;
    gp.data.mean_dof = mean_dof;
    gp.data.x = libvbmc::Matrix(n, dim);
    gp.data.y.resize(n);
    gp.data.s2.assign(n, 0.0);
    for (int i = 0; i < n; ++i) {
        double q = 0.0, wiggle = 0.0;
        for (int d = 0; d < dim; ++d) {
            const double x = 1.5 * rng.normal();
            gp.data.x(i, d) = x;
            q += x * x;
            wiggle += std::sin(1.3 * x + d);
        }
        gp.data.y[i] = -0.5 * q + 0.5 * wiggle;
    }
    for (const auto& theta : thetas) gp.samples.push_back(libvbmc::gp_posterior(gp.data, theta));
    return gp;
}

// Hyperparameters: ell, sf, sn, m0, xm, omega.
inline std::vector<double> make_theta(int dim, double ell, double sf, double sn, double m0, double xm,
                                      double omega) {
    std::vector<double> theta(libvbmc::hyp::count(dim));
    for (int d = 0; d < dim; ++d) {
        theta[libvbmc::hyp::log_ell(d)] = std::log(ell * (1.0 + 0.1 * d));
        theta[libvbmc::hyp::xm(dim, d)] = xm + 0.05 * d;
        theta[libvbmc::hyp::log_omega(dim, d)] = std::log(omega * (1.0 + 0.05 * d));
    }
    theta[libvbmc::hyp::log_sf(dim)] = std::log(sf);
    theta[libvbmc::hyp::log_sn(dim)] = std::log(sn);
    theta[libvbmc::hyp::m0(dim)] = m0;
    return theta;
}

// Central finite differences of f at x with step h.
inline std::vector<double> central_diff(const std::function<double(const std::vector<double>&)>& f,
                                        const std::vector<double>& x, double h) {
    std::vector<double> g(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        std::vector<double> xp = x, xm = x;
        xp[i] += h;
        xm[i] -= h;
        g[i] = (f(xp) - f(xm)) / (2.0 * h);
    }
    return g;
}

}  // namespace libvbmc_test
