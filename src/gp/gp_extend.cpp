#include "gp/gp_extend.hpp"

#include <cmath>

#include "linalg/linalg.hpp"

namespace libvbmc {

namespace {

// One sample's block: W = L^{-1} K(X, P), W^T W, K(P, P), the new rows R over the new points,
// u = L_new^{-1} (y - m) (its first n entries at the start) and W^T u.
struct SampleBlock {
    Matrix w, wtw, kpp, r;
    std::vector<double> u, wtu;
};

SampleBlock start_block(const Gp& gp, const GpSample& sample, const Matrix& points) {
    const int n = gp.data.size(), m = points.rows;
    SampleBlock b;
    b.w = gp_cross_kernel(gp.data.x, points, sample.theta.data(), gp.dim);
    triangular_solve(sample.chol, false, b.w);
    gemm(true, false, 1.0, b.w, b.w, 0.0, b.wtw);
    b.kpp = gp_cross_kernel(points, points, sample.theta.data(), gp.dim);
    b.r = Matrix(m, m);
    b.u.resize(static_cast<size_t>(n));
    gp_mean_rows(gp.data.x.data.data(), n, sample.theta.data(), gp.dim, gp.data.mean_dof, b.u.data());
    for (int i = 0; i < n; ++i) b.u[static_cast<size_t>(i)] = gp.data.y[static_cast<size_t>(i)] - b.u[static_cast<size_t>(i)];
    triangular_solve(sample.chol, false, b.u.data());
    b.wtu.assign(static_cast<size_t>(m), 0.0);
    gemv(true, 1.0, b.w, b.u.data(), 0.0, b.wtu.data());
    b.u.resize(static_cast<size_t>(n + m), 0.0);
    return b;
}

// Row j of R left of its diagonal, and the sample's posterior mean at p_j given the points before.
double fill_row(SampleBlock& b, const GpSample& sample, const Matrix& points, int dim, double mean_dof, int n, int j) {
    double mean = gp_mean(points.row(j), sample.theta.data(), dim, mean_dof) + b.wtu[static_cast<size_t>(j)];
    for (int k = 0; k < j; ++k) {
        double v = b.kpp(j, k) - b.wtw(j, k);
        for (int l = 0; l < k; ++l) v -= b.r(j, l) * b.r(k, l);
        b.r(j, k) = v / b.r(k, k);
        mean += b.r(j, k) * b.u[static_cast<size_t>(n + k)];
    }
    return mean;
}

// The diagonal of row j once the point's value y and noise are known; false when its
// conditional variance vanishes (the same test as gp_add_point's).
bool finish_row(SampleBlock& b, const GpData& data, const GpSample& sample, int dim, int n, int j, double y, double mean) {
    const double noise = gp_noise_variance(data, gp_sn2(sample.theta.data(), dim), n + j);
    const double kss = std::exp(2.0 * sample.theta[hyp::log_sf(dim)]) + noise;
    double d2 = b.kpp(j, j) + noise - b.wtw(j, j);
    for (int k = 0; k < j; ++k) d2 -= b.r(j, k) * b.r(j, k);
    if (!(d2 > kMinRelativeConditionalVariance * kss)) return false;
    b.r(j, j) = std::sqrt(d2);
    b.u[static_cast<size_t>(n + j)] = (y - mean) / b.r(j, j);
    return true;
}

// The grown sample: theta, [L 0; W^T R] and alpha = L_new^{-T} u.
GpSample grown_sample(const GpSample& sample, const SampleBlock& b, int n, int m) {
    GpSample grown;
    grown.theta = sample.theta;
    grown.chol = Matrix(n + m, n + m);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) grown.chol(i, j) = sample.chol(i, j);
    for (int j = 0; j < m; ++j) {
        for (int i = 0; i < n; ++i) grown.chol(n + j, i) = b.w(i, j);
        for (int k = 0; k <= j; ++k) grown.chol(n + j, n + k) = b.r(j, k);
    }
    grown.alpha = b.u;
    triangular_solve(grown.chol, true, grown.alpha.data());
    return grown;
}

}  // namespace

bool gp_add_points(const Gp& gp, const Matrix& points, const NewPointValue& value_at, Gp& grown) {
    const int n = gp.data.size(), m = points.rows;
    std::vector<SampleBlock> blocks;
    for (const GpSample& sample : gp.samples) blocks.push_back(start_block(gp, sample, points));
    Gp so_far;  // the data told so far; the samples' hyperparameters without their factors
    so_far.dim = gp.dim;
    so_far.data = gp.data;
    for (const GpSample& sample : gp.samples) so_far.samples.push_back({sample.theta, Matrix(), {}});
    std::vector<double> means(gp.samples.size());
    for (int j = 0; j < m; ++j) {
        for (size_t s = 0; s < blocks.size(); ++s) means[s] = fill_row(blocks[s], gp.samples[s], points, gp.dim, gp.data.mean_dof, n, j);
        double y = 0.0, s2 = 0.0;
        value_at(so_far, j, means, y, s2);
        so_far.data.x.append_row(points.row(j), gp.dim);
        so_far.data.y.push_back(y);
        so_far.data.s2.push_back(s2);
        for (size_t s = 0; s < blocks.size(); ++s)
            if (!finish_row(blocks[s], so_far.data, gp.samples[s], gp.dim, n, j, y, means[s])) return false;
    }
    for (size_t s = 0; s < blocks.size(); ++s) so_far.samples[s] = grown_sample(gp.samples[s], blocks[s], n, m);
    grown = std::move(so_far);
    return true;
}

}  // namespace libvbmc
