#include "gp/lml.hpp"

#include <algorithm>
#include <cmath>

#include "linalg/linalg.hpp"
#include "util/error.hpp"
#include "util/math.hpp"

namespace libvbmc {

// log p(y | X, theta) = -1/2 r^T alpha - 1/2 log det(K + N) - n/2 log(2 pi), r = y - m(X)
// (Rasmussen & Williams eq. 2.30, with the negative-quadratic mean of paper eq. 7).
// Gradient (R&W eq. 5.9): d/dtheta_j = -1/2 sum_ij W_ij dC_ij/dtheta_j + alpha^T dm/dtheta_j,
// with C = K + N and W = C^{-1} - alpha alpha^T, formed once by BLAS-3 solves. For the length
// scales dK_ij/dlog ell_d = K_ij (z_id - z_jd)^2 with z = x / ell, so with P = W o K
//   sum_ij P_ij (z_id - z_jd)^2 = 2 sum_i z_id^2 (P 1)_i - 2 sum_i z_id (P z)_id,
// all D traces come from one n x n x D product instead of D dense dK matrices.
double gp_log_marginal_likelihood(const GpData& data, const std::vector<double>& theta,
                                  std::vector<double>* grad, GpLmlWorkspace& work) {
    const int n = data.size();
    const int dim = data.x.cols;
    if (static_cast<int>(theta.size()) != hyp::count(dim))
        throw_error(Code::internal, "gp_log_marginal_likelihood: theta has the wrong length");
    if (grad != nullptr) grad->assign(theta.size(), 0.0);
    for (double t : theta)
        if (!std::isfinite(t)) return -INFINITY;

    const double sf2 = std::exp(2.0 * theta[hyp::log_sf(dim)]);
    const double sn2 = gp_sn2(theta.data(), dim);

    const bool cached = grad == nullptr && work.factor_data == &data && work.factor_rows == n &&
                        work.factor_theta.size() == static_cast<size_t>(dim + 2) &&
                        std::equal(work.factor_theta.begin(), work.factor_theta.end(), theta.begin());
    if (!cached) {
        work.invalidate();
        // Inputs scaled by the length scales, centred per column (keeps the trace identity well
        // conditioned when the data sit far from the origin).
        work.z = Matrix(n, dim);
        for (int d = 0; d < dim; ++d) {
            const double inv_ell = std::exp(-theta[hyp::log_ell(d)]);
            double centre = 0.0;
            for (int i = 0; i < n; ++i) centre += data.x(i, d);
            centre = n > 0 ? centre / n : 0.0;
            for (int i = 0; i < n; ++i) work.z(i, d) = (data.x(i, d) - centre) * inv_ell;
        }

        Matrix& cov = work.cov;
        gp_kernel_lower(work.z, 2.0 * theta[hyp::log_sf(dim)], cov);
        for (int i = 0; i < n; ++i) {
            cov(i, i) = sf2 + gp_noise_variance(data, sn2, i);
            if (grad != nullptr)  // the gradient reads the full K below; the factorisation only the lower triangle
                for (int j = 0; j < i; ++j) cov(j, i) = cov(i, j);
        }
        try {
            cholesky_jitter(cov, work.chol);
        } catch (const Error& e) {
            if (e.code() == Code::numeric) return -INFINITY;
            throw;
        }
        work.factor_data = &data;
        work.factor_rows = n;
        work.factor_theta.assign(theta.begin(), theta.begin() + dim + 2);
    }

    std::vector<double>& alpha = work.alpha;
    alpha.resize(static_cast<size_t>(n));
    gp_mean_rows(data.x.data.data(), n, theta.data(), dim, data.mean_dof, alpha.data());
    for (int i = 0; i < n; ++i) alpha[static_cast<size_t>(i)] = data.y[static_cast<size_t>(i)] - alpha[static_cast<size_t>(i)];
    // r^T C^{-1} r = |L^{-1} r|^2; the gradient also needs alpha = L^{-T} (L^{-1} r).
    triangular_solve(work.chol, false, alpha.data());
    double quad = 0.0;
    for (double v : alpha) quad += v * v;
    const double lml = -0.5 * quad - 0.5 * cholesky_log_det(work.chol) - 0.5 * n * kLog2Pi;
    if (!std::isfinite(lml)) return -INFINITY;
    if (grad == nullptr) return lml;
    triangular_solve(work.chol, true, alpha.data());

    std::vector<double>& g = *grad;
    // Mean hyperparameters: alpha^T dm/dtheta (the heavy-tailed mean's slope carries a factor).
    std::vector<double> inv_omega2(static_cast<size_t>(dim)), inv_omega(static_cast<size_t>(dim));
    for (int d = 0; d < dim; ++d) {
        inv_omega2[static_cast<size_t>(d)] = std::exp(-2.0 * theta[hyp::log_omega(dim, d)]);
        inv_omega[static_cast<size_t>(d)] = std::sqrt(inv_omega2[static_cast<size_t>(d)]);
    }
    for (int i = 0; i < n; ++i) {
        const double a = alpha[static_cast<size_t>(i)];
        const double* xi = data.x.row(i);
        g[static_cast<size_t>(hyp::m0(dim))] += a;
        for (int d = 0; d < dim; ++d) {
            const double dx = xi[d] - theta[hyp::xm(dim, d)];
            const double factor = mean_rho_slope_factor(dx * inv_omega[static_cast<size_t>(d)], data.mean_dof);
            g[static_cast<size_t>(hyp::xm(dim, d))] += a * dx * inv_omega2[static_cast<size_t>(d)] * factor;
            g[static_cast<size_t>(hyp::log_omega(dim, d))] += a * dx * dx * inv_omega2[static_cast<size_t>(d)] * factor;
        }
    }

    // W = C^{-1} - alpha alpha^T.
    work.w = cholesky_inverse(work.chol);
    Matrix& w = work.w;
    double trace_w = 0.0;
    for (int i = 0; i < n; ++i) {
        const double ai = alpha[static_cast<size_t>(i)];
        double* wi = w.row(i);
        for (int j = 0; j < n; ++j) wi[j] -= ai * alpha[static_cast<size_t>(j)];
        trace_w += wi[i];
    }
    g[static_cast<size_t>(hyp::log_sn(dim))] = -sn2 * trace_w;

    // P = W o K (kernel part only: the noise is not a function of the kernel hyperparameters),
    // overwriting K: the gradient path never takes the cached factor, so K is fresh here.
    Matrix& cov = work.cov;
    work.row_sum.assign(static_cast<size_t>(n), 0.0);
    double sum_p = 0.0;
    for (int i = 0; i < n; ++i) {
        double* ci = cov.row(i);
        const double* wi = w.row(i);
        ci[i] = sf2;
        double s = 0.0;
        for (int j = 0; j < n; ++j) {
            ci[j] *= wi[j];
            s += ci[j];
        }
        work.row_sum[static_cast<size_t>(i)] = s;
        sum_p += s;
    }
    g[static_cast<size_t>(hyp::log_sf(dim))] = -sum_p;  // dK/dlog sf = 2K
    gemm(false, false, 1.0, cov, work.z, 0.0, work.pz);
    for (int d = 0; d < dim; ++d) {
        double t = 0.0;
        for (int i = 0; i < n; ++i) {
            const double zid = work.z(i, d);
            t += zid * (zid * work.row_sum[static_cast<size_t>(i)] - work.pz(i, d));
        }
        g[static_cast<size_t>(hyp::log_ell(d))] = -t;  // -1/2 * 2 * (...)
    }
    for (double v : g)
        if (!std::isfinite(v)) return -INFINITY;
    return lml;
}

double gp_log_marginal_likelihood(const GpData& data, const std::vector<double>& theta,
                                  std::vector<double>* grad) {
    GpLmlWorkspace work;
    return gp_log_marginal_likelihood(data, theta, grad, work);
}

}  // namespace libvbmc
