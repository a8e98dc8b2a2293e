#include "run/posterior.hpp"

#include "linalg/linalg.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"

namespace libvbmc {

void PosteriorSnapshot::sample(size_t n, uint64_t seed, double* x, int* component) const {
    Rng rng(seed);
    const int dim = vp.dim;
    Matrix z;
    std::vector<int> labels;
    constexpr size_t kChunk = 4096;
    for (size_t done = 0; done < n; done += kChunk) {
        const size_t count = std::min(kChunk, n - done);
        vp_sample(vp, static_cast<int>(count), rng, z, component ? &labels : nullptr);
        for (size_t i = 0; i < count; ++i) {
            transform.to_original(z.row(static_cast<int>(i)), x + (done + i) * static_cast<size_t>(dim));
            if (component) component[done + i] = labels[i];
        }
    }
}

double PosteriorSnapshot::log_pdf(const double* x) const {
    if (!transform.inside_bounds(x)) return -INFINITY;
    std::vector<double> z(static_cast<size_t>(vp.dim));
    transform.to_unbounded(x, z.data());
    return vp_log_pdf(vp, z.data()) - transform.log_abs_det_jacobian(z.data());
}

void PosteriorSnapshot::moments(std::vector<double>& mean, Matrix& cov) const {
    const int dim = vp.dim;
    if (transform.is_affine()) {
        // x = A z + b (coordinate-wise centring and, if present, the rotoscaling stage), so the
        // moments map exactly: mean = A mean_z + b, cov = A cov_z A^T.
        std::vector<double> mean_z;
        Matrix cov_z, half;
        vp_moments(vp, mean_z, cov_z);
        const AffineMap map = transform.original_from_unbounded();
        mean = map.b;
        gemv(false, 1.0, map.a, mean_z.data(), 1.0, mean.data());
        gemm(false, false, 1.0, map.a, cov_z, 0.0, half);
        gemm(false, true, 1.0, half, map.a, 0.0, cov);
        for (int i = 0; i < dim; ++i)
            for (int j = 0; j < i; ++j) cov(i, j) = cov(j, i) = 0.5 * (cov(i, j) + cov(j, i));
        return;
    }
    constexpr size_t kDraws = 100000;
    std::vector<double> draws(kDraws * static_cast<size_t>(dim));
    sample(kDraws, 0x5eed, draws.data());
    mean.assign(static_cast<size_t>(dim), 0.0);
    for (size_t s = 0; s < kDraws; ++s)
        for (int d = 0; d < dim; ++d) mean[static_cast<size_t>(d)] += draws[s * static_cast<size_t>(dim) + static_cast<size_t>(d)];
    for (double& m : mean) m /= static_cast<double>(kDraws);
    cov = Matrix(dim, dim);
    for (size_t s = 0; s < kDraws; ++s) {
        const double* row = draws.data() + s * static_cast<size_t>(dim);
        for (int i = 0; i < dim; ++i)
            for (int j = 0; j <= i; ++j)
                cov(i, j) += (row[i] - mean[static_cast<size_t>(i)]) * (row[j] - mean[static_cast<size_t>(j)]);
    }
    for (int i = 0; i < dim; ++i)
        for (int j = 0; j <= i; ++j) {
            cov(i, j) /= static_cast<double>(kDraws - 1);
            cov(j, i) = cov(i, j);
        }
}

void PosteriorSnapshot::write(Writer& out) const {
    vp.write(out);
    transform.write(out);
    out.f64(elbo);
    out.f64(elbo_sd);
}

PosteriorSnapshot PosteriorSnapshot::read(Reader& in) {
    PosteriorSnapshot p;
    p.vp = VariationalPosterior::read(in);
    p.transform = ParameterTransform::read(in);
    if (p.transform.dim() != p.vp.dim)
        throw_error(Code::format, "the posterior's transform and mixture have different dimensions");
    p.elbo = in.f64();
    p.elbo_sd = in.f64();
    return p;
}

}  // namespace libvbmc
