#include "optim/quadratic_model.hpp"

#include <algorithm>
#include <cmath>

#include "linalg/linalg.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

// Weight of ||H - H_prior||_F^2 relative to the total weight of the points: small enough not to
// bias a model the points determine, large enough to fix the coefficients they do not.
constexpr double kHessianRidge = 1e-9;
// The same relative to the value and gradient: only fixes them where fewer than D + 1 points exist.
constexpr double kLinearRidge = 1e-10;

int coefficient_count(int dim) { return 1 + dim + dim * (dim + 1) / 2; }

// Features of a scaled offset u: 1, u_j, u_j^2 / 2 and u_j u_k (j < k), in the order of the
// coefficients c, g_j, H_jj, H_jk.
void features(const double* u, int dim, double* phi) {
    int k = 0;
    phi[k++] = 1.0;
    for (int j = 0; j < dim; ++j) phi[k++] = u[j];
    for (int j = 0; j < dim; ++j) phi[k++] = 0.5 * u[j] * u[j];
    for (int j = 0; j < dim; ++j)
        for (int l = j + 1; l < dim; ++l) phi[k++] = u[j] * u[l];
}

// The Hessian's coefficients in the feature order (diagonal, then upper triangle).
void hessian_to_coefficients(const Matrix& h, int dim, double factor, double* theta) {
    int k = 1 + dim;
    for (int j = 0; j < dim; ++j) theta[k++] = factor * h(j, j);
    for (int j = 0; j < dim; ++j)
        for (int l = j + 1; l < dim; ++l) theta[k++] = factor * h(j, l);
}

void coefficients_to_hessian(const double* theta, int dim, double factor, Matrix& h) {
    h = Matrix(dim, dim);
    int k = 1 + dim;
    for (int j = 0; j < dim; ++j) h(j, j) = factor * theta[k++];
    for (int j = 0; j < dim; ++j)
        for (int l = j + 1; l < dim; ++l) h(j, l) = h(l, j) = factor * theta[k++];
}

}  // namespace

double QuadraticModel::value(const double* z) const {
    const int dim = static_cast<int>(centre.size());
    double total = c;
    for (int j = 0; j < dim; ++j) {
        const double sj = z[j] - centre[static_cast<size_t>(j)];
        total += g[static_cast<size_t>(j)] * sj;
        for (int l = 0; l < dim; ++l) total += 0.5 * sj * h(j, l) * (z[l] - centre[static_cast<size_t>(l)]);
    }
    return total;
}

QuadraticModel fit_quadratic_model(const Matrix& z, const std::vector<double>& y, const std::vector<double>& w,
                                   const std::vector<double>& centre, double scale, const Matrix& prior_h) {
    const int dim = z.cols, n = z.rows, p = coefficient_count(dim);
    if (!(scale > 0.0) || !std::isfinite(scale))
        throw_error(Code::numeric, "the quadratic model needs a positive finite scale");
    // Values centred on their weighted mean and divided by their largest deviation.
    double weight_total = 0.0, mean = 0.0;
    for (int i = 0; i < n; ++i) {
        if (!std::isfinite(y[static_cast<size_t>(i)]) || !(w[static_cast<size_t>(i)] >= 0.0))
            throw_error(Code::numeric, "the quadratic model got a non-finite value or a negative weight");
        weight_total += w[static_cast<size_t>(i)];
        mean += w[static_cast<size_t>(i)] * y[static_cast<size_t>(i)];
    }
    if (!(weight_total > 0.0)) throw_error(Code::numeric, "the quadratic model got no positive weight");
    mean /= weight_total;
    double spread = 0.0;
    for (int i = 0; i < n; ++i)
        if (w[static_cast<size_t>(i)] > 0.0) spread = std::max(spread, std::fabs(y[static_cast<size_t>(i)] - mean));
    if (!(spread > 0.0)) spread = 1.0;

    // Weighted rows sqrt(w_i) (phi_i, t_i), then one ridge row per coefficient pulling the Hessian
    // towards the prior (and, much more weakly, the value and gradient towards 0).
    int rows = 0;
    for (int i = 0; i < n; ++i) rows += w[static_cast<size_t>(i)] > 0.0 ? 1 : 0;
    Matrix a(rows + p, p);
    std::vector<double> b(static_cast<size_t>(rows + p), 0.0), u(static_cast<size_t>(dim));
    int row = 0;
    for (int i = 0; i < n; ++i) {
        const double root_w = std::sqrt(w[static_cast<size_t>(i)]);
        if (root_w == 0.0) continue;
        for (int j = 0; j < dim; ++j) u[static_cast<size_t>(j)] = (z(i, j) - centre[static_cast<size_t>(j)]) / scale;
        features(u.data(), dim, a.row(row));
        for (int k = 0; k < p; ++k) a(row, k) *= root_w;
        b[static_cast<size_t>(row)] = root_w * (y[static_cast<size_t>(i)] - mean) / spread;
        ++row;
    }
    std::vector<double> prior(static_cast<size_t>(p), 0.0);
    if (!prior_h.empty()) hessian_to_coefficients(prior_h, dim, scale * scale / spread, prior.data());
    for (int k = 0; k < p; ++k) {
        // Off-diagonal Hessian entries count twice in the Frobenius norm.
        const double ridge = k < 1 + dim ? kLinearRidge : k < 1 + 2 * dim ? kHessianRidge : 2.0 * kHessianRidge;
        const double root = std::sqrt(ridge * weight_total);
        a(rows + k, k) = root;
        b[static_cast<size_t>(rows + k)] = root * prior[static_cast<size_t>(k)];
    }
    const std::vector<double> theta = least_squares(std::move(a), std::move(b));

    QuadraticModel model;
    model.centre = centre;
    model.c = mean + spread * theta[0];
    model.g.resize(static_cast<size_t>(dim));
    for (int j = 0; j < dim; ++j) model.g[static_cast<size_t>(j)] = spread * theta[static_cast<size_t>(1 + j)] / scale;
    coefficients_to_hessian(theta.data(), dim, spread / (scale * scale), model.h);
    return model;
}

}  // namespace libvbmc
