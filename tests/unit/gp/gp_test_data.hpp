// Shared fixtures for the GP unit tests: random training sets and finite differences.
#pragma once
#include <cmath>
#include <functional>
#include <vector>

#include "gp/gp.hpp"
#include "util/rng.hpp"

namespace libvbmc_test {

// n points in [-2, 2]^dim (shifted by `offset`), y from a negative quadratic plus a sine,
// s2 = 0.01 * u for a random half of the points when `noisy`.
inline libvbmc::GpData make_data(int n, int dim, libvbmc::Rng& rng, bool noisy, double offset = 0.0) {
    libvbmc::GpData data;
    data.x = libvbmc::Matrix(n, dim);
    for (int i = 0; i < n; ++i) {
        double q = 0.0, s = 0.0;
        for (int d = 0; d < dim; ++d) {
            const double v = 4.0 * rng.uniform() - 2.0;
            data.x(i, d) = v + offset;
            q += v * v / (1.0 + d);
            s += std::sin(2.0 * v);
        }
        data.y.push_back(-0.5 * q + 0.3 * s);
        data.s2.push_back(noisy && rng.uniform() < 0.5 ? 0.01 * rng.uniform() : 0.0);
    }
    return data;
}

inline std::vector<double> make_theta(int dim, libvbmc::Rng& rng, double offset = 0.0) {
    std::vector<double> theta(static_cast<size_t>(libvbmc::hyp::count(dim)));
    for (int d = 0; d < dim; ++d) theta[libvbmc::hyp::log_ell(d)] = std::log(0.7 + 0.6 * rng.uniform());
    theta[libvbmc::hyp::log_sf(dim)] = std::log(1.0 + rng.uniform());
    theta[libvbmc::hyp::log_sn(dim)] = std::log(0.05 + 0.1 * rng.uniform());
    theta[libvbmc::hyp::m0(dim)] = 0.5 * rng.normal();
    for (int d = 0; d < dim; ++d) {
        theta[libvbmc::hyp::xm(dim, d)] = offset + 0.3 * rng.normal();
        theta[libvbmc::hyp::log_omega(dim, d)] = std::log(1.0 + rng.uniform());
    }
    return theta;
}

// Central finite difference of f along coordinate i.
inline double central_difference(const std::function<double(const std::vector<double>&)>& f,
                                 std::vector<double> x, size_t i, double h) {
    const double x0 = x[i];
    x[i] = x0 + h;
    const double fp = f(x);
    x[i] = x0 - h;
    const double fm = f(x);
    return (fp - fm) / (2.0 * h);
}

}  // namespace libvbmc_test

namespace libvbmc_test {

// Gauss-Jordan inverse with partial pivoting (independent of the LAPACK wrappers); returns
// log |det A| through log_det.
inline libvbmc::Matrix dense_inverse(libvbmc::Matrix a, double* log_det) {
    const int n = a.rows;
    libvbmc::Matrix inv = libvbmc::Matrix::identity(n);
    double ld = 0.0;
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int r = c + 1; r < n; ++r)
            if (std::fabs(a(r, c)) > std::fabs(a(p, c))) p = r;
        for (int j = 0; j < n; ++j) {
            std::swap(a(c, j), a(p, j));
            std::swap(inv(c, j), inv(p, j));
        }
        const double piv = a(c, c);
        ld += std::log(std::fabs(piv));
        for (int j = 0; j < n; ++j) {
            a(c, j) /= piv;
            inv(c, j) /= piv;
        }
        for (int r = 0; r < n; ++r) {
            if (r == c) continue;
            const double f = a(r, c);
            for (int j = 0; j < n; ++j) {
                a(r, j) -= f * a(c, j);
                inv(r, j) -= f * inv(c, j);
            }
        }
    }
    if (log_det != nullptr) *log_det = ld;
    return inv;
}

// K + diag(sn^2 + s2) written out entry by entry from the kernel formula.
inline libvbmc::Matrix dense_covariance(const libvbmc::GpData& data, const std::vector<double>& theta) {
    const int n = data.size(), dim = data.x.cols;
    libvbmc::Matrix c(n, n);
    const double sf2 = std::exp(2.0 * theta[libvbmc::hyp::log_sf(dim)]);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double r2 = 0.0;
            for (int d = 0; d < dim; ++d) {
                const double ell = std::exp(theta[libvbmc::hyp::log_ell(d)]);
                r2 += std::pow((data.x(i, d) - data.x(j, d)) / ell, 2);
            }
            c(i, j) = sf2 * std::exp(-0.5 * r2);
        }
    for (int i = 0; i < n; ++i) c(i, i) += std::exp(2.0 * theta[libvbmc::hyp::log_sn(dim)]) + data.s2[i];
    return c;
}

// m(x) written out: the negative quadratic (dof 0) or m0 - (dof/2) sum_d log(1 + z_d^2/dof).
inline double dense_mean(const double* x, const std::vector<double>& theta, int dim, double dof = 0.0) {
    double q = 0.0;
    for (int d = 0; d < dim; ++d) {
        const double omega = std::exp(theta[libvbmc::hyp::log_omega(dim, d)]);
        const double z2 = std::pow((x[d] - theta[libvbmc::hyp::xm(dim, d)]) / omega, 2);
        q += dof > 0.0 ? dof * std::log(1.0 + z2 / dof) : z2;
    }
    return theta[libvbmc::hyp::m0(dim)] - 0.5 * q;
}

}  // namespace libvbmc_test
