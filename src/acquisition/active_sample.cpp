#include "acquisition/active_sample.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "acquisition/acq_registry.hpp"
#include "acquisition/candidate_search.hpp"
#include "acquisition/cmaes.hpp"
#include "acquisition/expected_noise.hpp"
#include "acquisition/search_points.hpp"
#include "gp/gp_extend.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

bool has_row(const Matrix& rows, const double* x) {
    for (int i = 0; i < rows.rows; ++i)
        if (std::equal(x, x + rows.cols, rows.row(i))) return true;
    return false;
}

// Initial CMA-ES scales: per-coordinate SDs of the vp (search_cmaes_vp_init, as MATLAB VBMC's
// insigma vector) or of the top hpd_frac of the training points by value (get_hpd).
std::vector<double> search_scales(const Gp& gp, const VariationalPosterior& vp, const AcqSettings& s) {
    const int dim = gp.dim;
    std::vector<double> sd(dim, 0.0);
    if (s.search_cmaes_vp_init) {
        std::vector<double> mean;
        Matrix cov;
        vp_moments(vp, mean, cov);
        for (int d = 0; d < dim; ++d) sd[d] = std::sqrt(std::max(cov(d, d), 0.0));
        return sd;
    }
    const int n = gp.data.size();
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return gp.data.y[a] > gp.data.y[b]; });
    const int top = std::max(1, static_cast<int>(std::ceil(s.hpd_frac * n)));
    for (int d = 0; d < dim; ++d) {
        double mean = 0.0, sq = 0.0;
        for (int i = 0; i < top; ++i) mean += gp.data.x(order[i], d);
        mean /= top;
        for (int i = 0; i < top; ++i) sq += (gp.data.x(order[i], d) - mean) * (gp.data.x(order[i], d) - mean);
        sd[d] = std::sqrt(sq / top);
    }
    return sd;
}

// CMA-ES box: the search box widened to contain x0 or, if it is unbounded, the training range
// widened by 10% on each side (PyVBMC active_sample).
void search_box(const Gp& gp, const std::vector<double>& x0, const AcqSettings& s, std::vector<double>& lower,
                std::vector<double>& upper) {
    const int dim = gp.dim;
    lower.assign(dim, 0.0);
    upper.assign(dim, 0.0);
    bool finite = !s.lb_search.empty();
    for (int d = 0; finite && d < dim; ++d) finite = std::isfinite(s.lb_search[d]) && std::isfinite(s.ub_search[d]);
    for (int d = 0; d < dim; ++d) {
        if (finite) {
            lower[d] = std::min(x0[d], s.lb_search[d]);
            upper[d] = std::max(x0[d], s.ub_search[d]);
            continue;
        }
        double x_min = x0[d], x_max = x0[d];
        for (int i = 0; i < gp.data.size(); ++i) {
            x_min = std::min(x_min, gp.data.x(i, d));
            x_max = std::max(x_max, gp.data.x(i, d));
        }
        const double margin = 0.1 * (x_max - x_min);
        lower[d] = x_min - margin;
        upper[d] = x_max + margin;
    }
}

// The avoid points not in the GP yet, each once, in their order.
Matrix points_not_in(const GpData& data, const Matrix& avoid_points) {
    Matrix fresh(0, avoid_points.cols);
    for (int i = 0; i < avoid_points.rows; ++i) {
        const double* x = avoid_points.row(i);
        if (!has_row(data.x, x) && !has_row(fresh, x)) fresh.append_row(x, avoid_points.cols);
    }
    return fresh;
}

// One point at a time, each a rank-1 extension: where a pending point is too close to the data
// for the block extension of gp_add_points (gp_add_point refactorises with jitter there).
void add_one_at_a_time(Gp& augmented, const Matrix& fresh) {
    for (int j = 0; j < fresh.rows; ++j) {
        Matrix point(1, augmented.dim);
        std::copy(fresh.row(j), fresh.row(j) + augmented.dim, point.row(0));
        std::vector<double> mean, var;
        gp_predict(augmented, point, mean, var);
        gp_add_point(augmented, fresh.row(j), mean[0], expected_noise(augmented, point).told[0]);
    }
}

}  // namespace

// Each pending point is fantasised at the mean over the samples of their posterior means given
// the data and the pending points before it (eq. 10's mean, as gp_predict), with the noise expected there.
std::unique_ptr<Gp> gp_with_pending(const Gp& gp, const Matrix& avoid_points) {
    const Matrix fresh = points_not_in(gp.data, avoid_points);
    if (fresh.rows == 0) return nullptr;
    auto augmented = std::make_unique<Gp>();
    const NewPointValue fantasy = [&](const Gp& current, int j, const std::vector<double>& sample_means, double& y, double& s2) {
        y = 0.0;
        for (double mean : sample_means) y += mean;
        y *= 1.0 / static_cast<double>(sample_means.size());
        Matrix point(1, current.dim);
        std::copy(fresh.row(j), fresh.row(j) + current.dim, point.row(0));
        s2 = expected_noise(current, point).told[0];
    };
    if (gp_add_points(gp, fresh, fantasy, *augmented)) return augmented;
    *augmented = gp;
    add_one_at_a_time(*augmented, fresh);
    return augmented;
}

AcqResult acquire(const Gp& gp_in, const VariationalPosterior& vp, const Matrix& avoid_points,
                  const Matrix& start_cache, const AcqSettings& s, Rng& rng) {
    const int dim = gp_in.dim;
    if (gp_in.data.size() == 0 || gp_in.samples.empty())
        throw_error(Code::internal, "acquire: the GP has no training data or no hyperparameter sample");
    if (vp.dim != dim) throw_error(Code::internal, "acquire: the GP and the vp differ in dimension");
    if (avoid_points.rows > 0 && avoid_points.cols != dim)
        throw_error(Code::internal, "acquire: avoid_points have the wrong number of columns");
    const std::unique_ptr<Gp> augmented = gp_with_pending(gp_in, avoid_points);
    const Gp& gp = augmented ? *augmented : gp_in;
    const double y_max = s.best_value(gp_in.data.y);

    // Fast search over the candidate set.
    std::vector<int> cache_index;
    const Matrix candidates = search_points(gp.data.x, vp, start_cache, s, rng, cache_index);
    if (candidates.rows == 0) throw_error(Code::option, "ns_search must be positive.");
    const std::unique_ptr<AcqScorer> scorer = make_acq_scorer(gp, vp, y_max, s, rng);
    const BestCandidate best = best_candidate(gp, vp, candidates, y_max, s, *scorer);
    AcqResult result;
    result.x.assign(candidates.row(best.index), candidates.row(best.index) + dim);
    result.value = best.value;
    result.cache_index = cache_index[best.index];
    if (!s.search_cmaes) return result;

    // Refinement of the best candidate by CMA-ES.
    const std::vector<double> sd = search_scales(gp, vp, s);
    const double sigma0 = *std::max_element(sd.begin(), sd.end());
    if (!(sigma0 > 0.0) || !std::isfinite(sigma0)) return result;
    Matrix c0(dim, dim);  // diag((sd / sigma0)^2), floored so no axis is degenerate
    for (int d = 0; d < dim; ++d) {
        const double relative = std::max(sd[d] / sigma0, 1e-6);
        c0(d, d) = relative * relative;
    }
    CmaesSettings cs;
    cs.max_fun_evals = s.search_max_fun_evals > 0 ? s.search_max_fun_evals : 500 * (dim + 2);
    cs.tol_fun = acq_entry(s.kind).log_valued ? 1e-2 : std::max(1e-12, std::abs(result.value) * 1e-3);
    search_box(gp, result.x, s, cs.lower, cs.upper);
    const BatchObjective objective = [&](const Matrix& xs, double* out) { scorer->evaluate(xs, out); };
    const CmaesResult refined = cmaes_minimize(objective, result.x, sigma0, c0, cs, rng);
    if (refined.f_best < result.value) {
        result.x = refined.x_best;
        result.value = refined.f_best;
        result.cache_index = -1;
    }
    return result;
}

std::vector<double> acquire_point(const Gp& gp, const VariationalPosterior& vp, const Matrix& avoid_points,
                                  const AcqSettings& s, Rng& rng) {
    return acquire(gp, vp, avoid_points, Matrix(), s, rng).x;
}

}  // namespace libvbmc
