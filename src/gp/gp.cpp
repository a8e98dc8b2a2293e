#include "gp/gp.hpp"

#include <algorithm>
#include <cmath>

#include "linalg/forward_substitution.hpp"
#include "linalg/linalg.hpp"
#include "util/fast_exp.hpp"
#include "util/error.hpp"

namespace libvbmc {

// Squared-exponential ARD kernel: sf^2 exp(-1/2 sum_d (x1_d - x2_d)^2 / ell_d^2).
double gp_kernel(const double* x1, const double* x2, const double* theta, int dim) {
    double r2 = 0.0;
    for (int d = 0; d < dim; ++d) {
        const double z = (x1[d] - x2[d]) * std::exp(-theta[hyp::log_ell(d)]);
        r2 += z * z;
    }
    return std::exp(2.0 * theta[hyp::log_sf(dim)] - 0.5 * r2);
}

GpSample gp_posterior(const GpData& data, const std::vector<double>& theta) {
    const int n = data.size();
    const int dim = data.x.cols;
    if (static_cast<int>(theta.size()) != hyp::count(dim))
        throw_error(Code::internal, "gp_posterior: theta has the wrong length");
    Matrix z(n, dim);
    for (int d = 0; d < dim; ++d) {
        const double inv_ell = std::exp(-theta[hyp::log_ell(d)]);
        for (int i = 0; i < n; ++i) z(i, d) = data.x(i, d) * inv_ell;
    }
    Matrix cov(n, n);
    gp_kernel_lower(z, 2.0 * theta[hyp::log_sf(dim)], cov);  // the factorisation reads the lower triangle
    const double sn2 = gp_sn2(theta.data(), dim);
    for (int i = 0; i < n; ++i) cov(i, i) = std::exp(2.0 * theta[hyp::log_sf(dim)]) + gp_noise_variance(data, sn2, i);
    GpSample sample;
    sample.theta = theta;
    cholesky_jitter(cov, sample.chol);
    sample.alpha.resize(static_cast<size_t>(n));
    gp_mean_rows(data.x.data.data(), n, theta.data(), dim, data.mean_dof, sample.alpha.data());
    for (int i = 0; i < n; ++i) sample.alpha[static_cast<size_t>(i)] = data.y[static_cast<size_t>(i)] - sample.alpha[static_cast<size_t>(i)];
    cholesky_solve(sample.chol, sample.alpha.data());
    return sample;
}

Gp gp_from_samples(GpData data, const std::vector<std::vector<double>>& thetas) {
    Gp gp;
    gp.dim = data.x.cols;
    gp.data = std::move(data);
    for (const auto& theta : thetas) gp.samples.push_back(gp_posterior(gp.data, theta));
    return gp;
}

namespace {

constexpr int kRowBlock = 32;  // points whose squared distances are accumulated in registers

// out[j] = exp(log_sf2 - 1/2 sum_d (a_d - b_dj)^2) for j < width <= kRowBlock.
VBMC_KERNEL_BODY void kernel_block(const double* a, const double* b_by_dim, int stride, int dim, int width,
                                   double log_sf2, double* out) {
    double r2[kRowBlock];
    for (int j = 0; j < width; ++j) r2[j] = 0.0;
    for (int d = 0; d < dim; ++d) {
        const double ad = a[d];
        const double* bd = b_by_dim + static_cast<size_t>(d) * stride;
        for (int j = 0; j < width; ++j) {
            const double diff = ad - bd[j];
            r2[j] = std::fma(diff, diff, r2[j]);
        }
    }
    for (int j = 0; j < width; ++j) out[j] = exp_fast(std::fma(-0.5, r2[j], log_sf2));
}

VBMC_KERNEL_BODY void kernel_row_body(const double* a, const double* b_by_dim, int stride, int dim, int m,
                                      double log_sf2, double* out) {
    int start = 0;
    for (; start + kRowBlock <= m; start += kRowBlock)
        kernel_block(a, b_by_dim + start, stride, dim, kRowBlock, log_sf2, out + start);
    if (start < m) kernel_block(a, b_by_dim + start, stride, dim, m - start, log_sf2, out + start);
}

using KernelRowFn = void (*)(const double*, const double*, int, int, int, double, double*);

VBMC_TARGET_AVX512 void kernel_row_avx512(const double* a, const double* b_by_dim, int stride, int dim, int m,
                                          double log_sf2, double* out) {
    kernel_row_body(a, b_by_dim, stride, dim, m, log_sf2, out);
}

VBMC_TARGET_AVX2_FMA void kernel_row_avx2_fma(const double* a, const double* b_by_dim, int stride, int dim, int m,
                                              double log_sf2, double* out) {
    kernel_row_body(a, b_by_dim, stride, dim, m, log_sf2, out);
}

void kernel_row_baseline(const double* a, const double* b_by_dim, int stride, int dim, int m, double log_sf2,
                         double* out) {
    kernel_row_body(a, b_by_dim, stride, dim, m, log_sf2, out);
}

}  // namespace

// Kernel row of gp.hpp: squared distances of kRowBlock points at a time in registers, then their
// exponentials, by the copy compiled for isa (util/vector_dispatch.hpp).
void gp_kernel_row_on(VectorIsa isa, const double* a, const double* b_by_dim, int stride, int dim, int m,
                      double log_sf2, double* out) {
    const KernelRowFn impl =
        select_kernel<KernelRowFn>(isa, kernel_row_avx512, kernel_row_avx2_fma, kernel_row_baseline);
    impl(a, b_by_dim, stride, dim, m, log_sf2, out);
}

void gp_kernel_row(const double* a, const double* b_by_dim, int stride, int dim, int m, double log_sf2, double* out) {
    static const KernelRowFn impl =
        select_kernel<KernelRowFn>(best_vector_isa(), kernel_row_avx512, kernel_row_avx2_fma, kernel_row_baseline);
    impl(a, b_by_dim, stride, dim, m, log_sf2, out);
}

void gp_kernel_lower(const Matrix& z, double log_sf2, Matrix& k) {
    const int n = z.rows;
    const int dim = z.cols;
    if (k.rows != n || k.cols != n) k = Matrix(n, n);
    std::vector<double> z_by_dim(static_cast<size_t>(dim) * n);
    for (int i = 0; i < n; ++i)
        for (int d = 0; d < dim; ++d) z_by_dim[static_cast<size_t>(d) * n + i] = z(i, d);
    for (int i = 1; i < n; ++i) gp_kernel_row(z.row(i), z_by_dim.data(), n, dim, i, log_sf2, k.row(i));
}

// Cross-covariance k(X, xs) as an n x m matrix (the SE kernel of eq. 7's GP). Row i is the kernel
// row of x_i against all of xs; when xs are fewer than a register block (a CMA-ES generation),
// column j is formed instead as the row of xs_j against all of X. Both orders give bitwise the
// same entries: (a - b)^2 = (b - a)^2 exactly.
void gp_cross_kernel(const Matrix& x, const Matrix& xs, const double* theta, int dim, Matrix& k) {
    const int n = x.rows;
    const int m = xs.rows;
    const bool by_column = m < kRowBlock && n > m;
    const Matrix& single = by_column ? xs : x;  // points taken one at a time
    const Matrix& many = by_column ? x : xs;    // points stored coordinate-major
    std::vector<double> inv_ell(static_cast<size_t>(dim));
    for (int d = 0; d < dim; ++d) inv_ell[static_cast<size_t>(d)] = std::exp(-theta[hyp::log_ell(d)]);
    std::vector<double> many_by_dim(static_cast<size_t>(dim) * many.rows);
    for (int j = 0; j < many.rows; ++j)
        for (int d = 0; d < dim; ++d)
            many_by_dim[static_cast<size_t>(d) * many.rows + j] = many(j, d) * inv_ell[static_cast<size_t>(d)];
    std::vector<double> a(static_cast<size_t>(dim));
    std::vector<double> column(by_column ? static_cast<size_t>(n) : 0);
    const double log_sf2 = 2.0 * theta[hyp::log_sf(dim)];
    k.reshape(n, m);
    for (int i = 0; i < single.rows; ++i) {
        for (int d = 0; d < dim; ++d) a[static_cast<size_t>(d)] = single(i, d) * inv_ell[static_cast<size_t>(d)];
        if (!by_column) {
            gp_kernel_row(a.data(), many_by_dim.data(), many.rows, dim, many.rows, log_sf2, k.row(i));
            continue;
        }
        gp_kernel_row(a.data(), many_by_dim.data(), n, dim, n, log_sf2, column.data());
        for (int r = 0; r < n; ++r) k(r, i) = column[static_cast<size_t>(r)];
    }
}

Matrix gp_cross_kernel(const Matrix& x, const Matrix& xs, const double* theta, int dim) {
    Matrix k;
    gp_cross_kernel(x, xs, theta, dim, k);
    return k;
}

// Latent variance f_var = k(x*,x*) - v^T v with v = L^{-1} k* (Rasmussen & Williams eq. 2.26).
void gp_latent_variance(const GpSample& sample, double sf2, Matrix& kstar, double* f_var) {
    const int m = kstar.cols;
    forward_substitution(sample.chol, kstar);
    std::vector<double> vv(static_cast<size_t>(m), 0.0);
    for (int i = 0; i < kstar.rows; ++i) {
        const double* row = kstar.row(i);
        for (int j = 0; j < m; ++j) vv[static_cast<size_t>(j)] += row[j] * row[j];
    }
    for (int j = 0; j < m; ++j) f_var[j] = std::max(sf2 - vv[static_cast<size_t>(j)], 0.0);
}

// Standard GP prediction (Rasmussen & Williams eq. 2.25-2.26) with the mean function added:
// f_mean = m(x*) + k*^T alpha, f_var = k(x*,x*) - v^T v with v = L^{-1} k*.
void gp_predict_sample(const GpData& data, const GpSample& sample, const Matrix& xs,
                       double* f_mean, double* f_var) {
    const int dim = data.x.cols;
    const int m = xs.rows;
    const double* theta = sample.theta.data();
    Matrix kstar = gp_cross_kernel(data.x, xs, theta, dim);  // column j holds k(X, xs_j)
    gp_mean_rows(xs.data.data(), m, theta, dim, data.mean_dof, f_mean);
    gemv(true, 1.0, kstar, sample.alpha.data(), 1.0, f_mean);
    if (f_var == nullptr) return;
    gp_latent_variance(sample, std::exp(2.0 * theta[hyp::log_sf(dim)]), kstar, f_var);
}

// Eq. 10 of the paper: mean of the sample means; mean of the sample variances plus the spread
// of the sample means, formed about their mean (two passes, free of cancellation).
void gp_average_samples(size_t ns, size_t m, const double* means, const double* vars, double* f_mean,
                        double* f_var) {
    std::fill(f_mean, f_mean + m, 0.0);
    std::fill(f_var, f_var + m, 0.0);
    for (size_t si = 0; si < ns; ++si)
        for (size_t j = 0; j < m; ++j) {
            f_mean[j] += means[si * m + j];
            f_var[j] += vars[si * m + j];
        }
    const double inv = 1.0 / static_cast<double>(ns);
    for (size_t j = 0; j < m; ++j) f_mean[j] *= inv;
    std::vector<double> spread(m, 0.0);
    if (ns > 1)
        for (size_t si = 0; si < ns; ++si)
            for (size_t j = 0; j < m; ++j) {
                const double deviation = means[si * m + j] - f_mean[j];
                spread[j] += deviation * deviation;
            }
    const double spread_scale = ns > 1 ? 1.0 / (ns - 1.0) : 0.0;
    for (size_t j = 0; j < m; ++j) f_var[j] = f_var[j] * inv + spread[j] * spread_scale;
}

void gp_predict(const Gp& gp, const Matrix& xs, std::vector<double>& f_mean,
                std::vector<double>& f_var) {
    const size_t m = static_cast<size_t>(xs.rows);
    const size_t ns = gp.samples.size();
    if (ns == 0) throw_error(Code::internal, "gp_predict: the GP has no hyperparameter sample");
    std::vector<double> means(ns * m), vars(ns * m);
    for (size_t si = 0; si < ns; ++si)
        gp_predict_sample(gp.data, gp.samples[si], xs, means.data() + si * m, vars.data() + si * m);
    f_mean.resize(m);
    f_var.resize(m);
    gp_average_samples(ns, m, means.data(), vars.data(), f_mean.data(), f_var.data());
}

double gp_max_training_mean(const Gp& gp) {
    const int n = gp.data.size();
    if (n == 0 || gp.samples.empty()) throw_error(Code::internal, "gp_max_training_mean: the GP is empty");
    std::vector<double> mean(static_cast<size_t>(n), 0.0), sample_mean(static_cast<size_t>(n));
    for (const GpSample& sample : gp.samples) {
        gp_predict_sample(gp.data, sample, gp.data.x, sample_mean.data(), nullptr);
        for (size_t i = 0; i < mean.size(); ++i) mean[i] += sample_mean[i];
    }
    return *std::max_element(mean.begin(), mean.end()) / static_cast<double>(gp.samples.size());
}

// Rank-1 extension of each factor: with l = L^{-1} k* and d = sqrt(k** + noise - l^T l),
// the new factor is [[L, 0], [l^T, d]]; alpha is re-solved with the extended factor.
void gp_add_point(Gp& gp, const double* x, double y, double s2) {
    const int dim = gp.dim;
    const int n = gp.data.size();
    gp.data.x.append_row(x, dim);
    gp.data.y.push_back(y);
    gp.data.s2.push_back(s2);
    for (GpSample& sample : gp.samples) {
        const double* theta = sample.theta.data();
        std::vector<double> l(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) l[static_cast<size_t>(i)] = gp_kernel(gp.data.x.row(i), x, theta, dim);
        triangular_solve(sample.chol, false, l.data());
        double ll = 0.0;
        for (double v : l) ll += v * v;
        const double kss = std::exp(2.0 * theta[hyp::log_sf(dim)]) + gp_noise_variance(gp.data, gp_sn2(theta, dim), n);
        const double d2 = kss - ll;
        Matrix grown(n + 1, n + 1);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j <= i; ++j) grown(i, j) = sample.chol(i, j);
        for (int j = 0; j < n; ++j) grown(n, j) = l[static_cast<size_t>(j)];
        if (d2 > kMinRelativeConditionalVariance * kss) {
            grown(n, n) = std::sqrt(d2);
            sample.chol = std::move(grown);
        } else {
            sample = gp_posterior(gp.data, sample.theta);  // ill-conditioned: refactorise with jitter
            continue;
        }
        sample.alpha.resize(static_cast<size_t>(n + 1));
        for (int i = 0; i <= n; ++i)
            sample.alpha[static_cast<size_t>(i)] = gp.data.y[static_cast<size_t>(i)] - gp_mean(gp.data.x.row(i), theta, dim, gp.data.mean_dof);
        cholesky_solve(sample.chol, sample.alpha.data());
    }
}

}  // namespace libvbmc
