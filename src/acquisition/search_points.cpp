#include "acquisition/search_points.hpp"

#include <algorithm>
#include <cmath>

#include "linalg/linalg.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

void append_rows(Matrix& to, const Matrix& from) {
    for (int i = 0; i < from.rows; ++i) to.append_row(from.row(i), from.cols);
}

// vp draws whose offset from the component mean is scaled by sqrt(df / chi2_df): a mixture of
// multivariate Student-t components (PyVBMC vp.sample with df = 3).
Matrix heavy_tail_draws(const VariationalPosterior& vp, int count, double df, Rng& rng) {
    Matrix draws;
    std::vector<int> component;
    vp_sample(vp, count, rng, draws, &component);
    const int whole_df = std::max(1, static_cast<int>(std::lround(df)));
    for (int i = 0; i < count; ++i) {
        double chi2 = 0.0;
        for (int r = 0; r < whole_df; ++r) {
            const double g = rng.normal();
            chi2 += g * g;
        }
        const double scale = std::sqrt(whole_df / std::max(chi2, 1e-300));
        const double* mu = vp.mu.row(component[i]);
        double* x = draws.row(i);
        for (int d = 0; d < vp.dim; ++d) x[d] = mu[d] + scale * (x[d] - mu[d]);
    }
    return draws;
}

// Draws from N(mean, cov) of the mixture moments.
Matrix moment_gaussian_draws(const VariationalPosterior& vp, int count, Rng& rng) {
    std::vector<double> mean;
    Matrix cov, chol;
    vp_moments(vp, mean, cov);
    cholesky_jitter(cov, chol);
    Matrix draws(count, vp.dim);
    std::vector<double> z(vp.dim);
    for (int i = 0; i < count; ++i) {
        for (double& v : z) v = rng.normal();
        double* x = draws.row(i);
        for (int r = 0; r < vp.dim; ++r) {
            double acc = mean[r];
            for (int c = 0; c <= r; ++c) acc += chol(r, c) * z[c];
            x[r] = acc;
        }
    }
    return draws;
}

// Uniform draws in [min X - diam/2, max X + diam/2] cut to the search box. (PyVBMC scales
// standard-normal draws by the box width here; MATLAB VBMC, followed here, draws uniformly.)
Matrix box_draws(const Matrix& train_x, const AcqSettings& s, int count, Rng& rng) {
    const int dim = train_x.cols;
    std::vector<double> lo(dim), hi(dim);
    for (int d = 0; d < dim; ++d) {
        double x_min = train_x(0, d), x_max = train_x(0, d);
        for (int i = 1; i < train_x.rows; ++i) {
            x_min = std::min(x_min, train_x(i, d));
            x_max = std::max(x_max, train_x(i, d));
        }
        const double half_diameter = 0.5 * (x_max - x_min);
        lo[d] = x_min - half_diameter;
        hi[d] = x_max + half_diameter;
        if (!s.lb_search.empty()) {
            lo[d] = std::max(lo[d], s.lb_search[d]);
            hi[d] = std::min(hi[d], s.ub_search[d]);
        }
    }
    Matrix draws(count, dim);
    for (int i = 0; i < count; ++i)
        for (int d = 0; d < dim; ++d) draws(i, d) = lo[d] + rng.uniform() * (hi[d] - lo[d]);
    return draws;
}

}  // namespace

Matrix search_points(const Matrix& train_x, const VariationalPosterior& vp, const Matrix& start_cache,
                     const AcqSettings& s, Rng& rng, std::vector<int>& cache_index) {
    const int dim = vp.dim;
    const int total = s.ns_search;
    Matrix points(0, dim);
    points.data.reserve(static_cast<size_t>(std::max(total, 0)) * dim);
    cache_index.clear();
    if (start_cache.rows > 0) {
        // A random subset of the start cache (partial Fisher-Yates shuffle).
        const int taken = std::min(start_cache.rows, static_cast<int>(std::ceil(total * s.cache_frac)));
        std::vector<int> perm(start_cache.rows);
        for (int i = 0; i < start_cache.rows; ++i) perm[i] = i;
        for (int i = 0; i < taken; ++i) {
            const int j = i + static_cast<int>(rng.below(static_cast<uint64_t>(start_cache.rows - i)));
            std::swap(perm[i], perm[j]);
            points.append_row(start_cache.row(perm[i]), dim);
            cache_index.push_back(perm[i]);
        }
    }
    const int random_count = total - points.rows;
    if (random_count > 0) {
        const int heavy = static_cast<int>(std::lround(s.heavy_tail_search_frac * random_count));
        const int mvn = static_cast<int>(std::lround(s.mvn_search_frac * random_count));
        const int box = train_x.rows > 0 ? static_cast<int>(std::lround(s.box_search_frac * random_count)) : 0;
        const int plain = random_count - heavy - mvn - box;
        if (plain < 0) throw_error(Code::option, "The search fractions add up to more than 1.");
        if (heavy > 0) append_rows(points, heavy_tail_draws(vp, heavy, s.heavy_tail_df, rng));
        if (mvn > 0) append_rows(points, moment_gaussian_draws(vp, mvn, rng));
        if (box > 0) append_rows(points, box_draws(train_x, s, box, rng));
        if (plain > 0) {
            Matrix draws;
            vp_sample(vp, plain, rng, draws);
            append_rows(points, draws);
        }
        cache_index.resize(static_cast<size_t>(points.rows), -1);
    }
    if (!s.lb_search.empty())
        for (int i = 0; i < points.rows; ++i)
            for (int d = 0; d < dim; ++d)
                points(i, d) = std::min(std::max(points(i, d), s.lb_search[d]), s.ub_search[d]);
    return points;
}

}  // namespace libvbmc
