#include "acquisition/cmaes.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>

#include "linalg/linalg.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

// Mirror x into [lo, hi] (period 2 (hi - lo)); unchanged for an infinite side.
double mirror_into(double x, double lo, double hi) {
    if (!std::isfinite(lo) || !std::isfinite(hi)) {
        if (std::isfinite(lo) && x < lo) return 2.0 * lo - x;
        if (std::isfinite(hi) && x > hi) return 2.0 * hi - x;
        return x;
    }
    const double width = hi - lo;
    if (width <= 0.0) return lo;
    double t = std::fmod(x - lo, 2.0 * width);
    if (t < 0.0) t += 2.0 * width;
    return t <= width ? lo + t : hi - (t - width);
}

// Strategy constants of Hansen's tutorial (table 1), for dimension n and population lambda.
struct Strategy {
    int lambda, mu;
    std::vector<double> weights;  // mu positive weights, sum 1
    double mu_eff, cc, cs, c1, cmu, damps, chi_n;

    Strategy(int n, int population) {
        lambda = population > 0 ? population : 4 + static_cast<int>(std::floor(3.0 * std::log(n)));
        lambda = std::max(lambda, 2);
        mu = lambda / 2;
        weights.resize(static_cast<size_t>(mu));
        for (int i = 0; i < mu; ++i) weights[i] = std::log((lambda + 1.0) / 2.0) - std::log(i + 1.0);
        const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
        double sum_sq = 0.0;
        for (double& w : weights) {
            w /= sum;
            sum_sq += w * w;
        }
        mu_eff = 1.0 / sum_sq;
        cc = (4.0 + mu_eff / n) / (n + 4.0 + 2.0 * mu_eff / n);
        cs = (mu_eff + 2.0) / (n + mu_eff + 5.0);
        c1 = 2.0 / ((n + 1.3) * (n + 1.3) + mu_eff);
        cmu = std::min(1.0 - c1, 2.0 * (mu_eff - 2.0 + 1.0 / mu_eff) / ((n + 2.0) * (n + 2.0) + mu_eff));
        damps = 1.0 + 2.0 * std::max(0.0, std::sqrt((mu_eff - 1.0) / (n + 1.0)) - 1.0) + cs;
        chi_n = std::sqrt(static_cast<double>(n)) * (1.0 - 1.0 / (4.0 * n) + 1.0 / (21.0 * n * n));
    }
};

// C = B diag(d^2) B^T: eigenvector columns B and axis lengths d (eigenvalues floored at 0).
void decompose(const Matrix& cov, Matrix& basis, std::vector<double>& axis) {
    std::vector<double> values;
    symmetric_eigen(cov, values, basis);
    axis.resize(values.size());
    for (size_t i = 0; i < values.size(); ++i) axis[i] = std::sqrt(std::max(values[i], 0.0));
}

}  // namespace

CmaesResult cmaes_minimize(const BatchObjective& f, const std::vector<double>& x0, double sigma0,
                           const Matrix& c0, const CmaesSettings& settings, Rng& rng) {
    const int n = static_cast<int>(x0.size());
    if (n == 0) throw_error(Code::internal, "cmaes_minimize: empty starting point");
    if (!(sigma0 > 0.0) || !std::isfinite(sigma0)) throw_error(Code::internal, "cmaes_minimize: step size must be positive");
    const bool boxed = !settings.lower.empty();
    if (boxed && (static_cast<int>(settings.lower.size()) != n || static_cast<int>(settings.upper.size()) != n))
        throw_error(Code::internal, "cmaes_minimize: bounds have the wrong length");

    const Strategy st(n, settings.population);
    const int budget = settings.max_fun_evals > 0 ? settings.max_fun_evals : 1000 * (n + 5) * (n + 5);
    const size_t history_length = 10 + static_cast<size_t>(std::ceil(30.0 * n / st.lambda));

    std::vector<double> mean = x0;
    double sigma = sigma0;
    Matrix cov = c0.empty() ? Matrix::identity(n) : c0;
    Matrix basis;
    std::vector<double> axis;
    decompose(cov, basis, axis);
    std::vector<double> path_c(n, 0.0), path_s(n, 0.0);

    Matrix steps(st.lambda, n);       // y_k = B D z_k
    Matrix candidates(st.lambda, n);  // mean + sigma y_k, mirrored into the box
    std::vector<double> values(st.lambda), z(n), y_w(n), tmp(n);
    std::vector<int> order(st.lambda);
    std::deque<double> best_history;

    CmaesResult result;
    result.f_best = std::numeric_limits<double>::infinity();
    result.x_best = x0;
    bool stopped = false;
    while (!stopped) {
        // Sample the generation.
        for (int k = 0; k < st.lambda; ++k) {
            for (int i = 0; i < n; ++i) z[i] = axis[i] * rng.normal();
            double* y = steps.row(k);
            for (int r = 0; r < n; ++r) {
                double acc = 0.0;
                for (int c = 0; c < n; ++c) acc += basis(r, c) * z[c];
                y[r] = acc;
            }
            double* x = candidates.row(k);
            for (int i = 0; i < n; ++i) {
                x[i] = mean[i] + sigma * y[i];
                if (boxed) x[i] = mirror_into(x[i], settings.lower[i], settings.upper[i]);
            }
        }
        f(candidates, values.data());
        for (double& v : values)
            if (std::isnan(v)) v = std::numeric_limits<double>::infinity();
        result.evaluations += st.lambda;
        ++result.generations;
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return values[a] < values[b]; });
        if (values[order[0]] < result.f_best) {
            result.f_best = values[order[0]];
            const double* xb = candidates.row(order[0]);
            result.x_best.assign(xb, xb + n);
        }

        // Mean update: y_w = sum_i w_i y_{i:lambda}.
        std::fill(y_w.begin(), y_w.end(), 0.0);
        for (int i = 0; i < st.mu; ++i) {
            const double* y = steps.row(order[i]);
            for (int d = 0; d < n; ++d) y_w[d] += st.weights[i] * y[d];
        }
        for (int d = 0; d < n; ++d) mean[d] += sigma * y_w[d];

        // Step-size path uses C^{-1/2} y_w = B D^{-1} B^T y_w.
        for (int c = 0; c < n; ++c) {
            double acc = 0.0;
            for (int r = 0; r < n; ++r) acc += basis(r, c) * y_w[r];
            tmp[c] = axis[c] > 0.0 ? acc / axis[c] : 0.0;
        }
        const double ps_scale = std::sqrt(st.cs * (2.0 - st.cs) * st.mu_eff);
        double ps_norm2 = 0.0;
        for (int r = 0; r < n; ++r) {
            double acc = 0.0;
            for (int c = 0; c < n; ++c) acc += basis(r, c) * tmp[c];
            path_s[r] = (1.0 - st.cs) * path_s[r] + ps_scale * acc;
            ps_norm2 += path_s[r] * path_s[r];
        }
        const double ps_norm = std::sqrt(ps_norm2);
        const double h_denominator = std::sqrt(1.0 - std::pow(1.0 - st.cs, 2.0 * result.generations));
        const bool h_sigma = ps_norm / h_denominator / st.chi_n < 1.4 + 2.0 / (n + 1.0);
        const double pc_scale = h_sigma ? std::sqrt(st.cc * (2.0 - st.cc) * st.mu_eff) : 0.0;
        for (int d = 0; d < n; ++d) path_c[d] = (1.0 - st.cc) * path_c[d] + pc_scale * y_w[d];

        // Covariance: rank-one (evolution path) plus rank-mu (selected steps) update.
        const double keep = 1.0 - st.c1 - st.cmu + (h_sigma ? 0.0 : st.c1 * st.cc * (2.0 - st.cc));
        for (int r = 0; r < n; ++r) {
            for (int c = 0; c <= r; ++c) {
                double rank_mu = 0.0;
                for (int i = 0; i < st.mu; ++i) {
                    const double* y = steps.row(order[i]);
                    rank_mu += st.weights[i] * y[r] * y[c];
                }
                const double v = keep * cov(r, c) + st.c1 * path_c[r] * path_c[c] + st.cmu * rank_mu;
                cov(r, c) = v;
                cov(c, r) = v;
            }
        }
        sigma *= std::exp((st.cs / st.damps) * (ps_norm / st.chi_n - 1.0));
        decompose(cov, basis, axis);

        // Termination tests (pycma's maxfevals, tolfun, tolx, conditioncov).
        best_history.push_front(values[order[0]]);
        if (best_history.size() > history_length) best_history.pop_back();
        const auto [hist_min, hist_max] = std::minmax_element(best_history.begin(), best_history.end());
        const double generation_range = values[order[st.lambda - 1]] - values[order[0]];
        bool small_steps = true;
        for (int d = 0; d < n; ++d)
            small_steps = small_steps && sigma * std::abs(path_c[d]) < settings.tol_x &&
                          sigma * std::sqrt(cov(d, d)) < settings.tol_x;
        const double axis_min = *std::min_element(axis.begin(), axis.end());
        const double axis_max = *std::max_element(axis.begin(), axis.end());
        if (result.evaluations + st.lambda > budget) {
            result.stop = CmaesStop::max_fun_evals;
            stopped = true;
        } else if (generation_range < settings.tol_fun && *hist_max - *hist_min < settings.tol_fun) {
            result.stop = CmaesStop::tol_fun;
            stopped = true;
        } else if (small_steps) {
            result.stop = CmaesStop::tol_x;
            stopped = true;
        } else if (!(axis_min > 0.0) || axis_max * axis_max > settings.max_condition * axis_min * axis_min) {
            result.stop = CmaesStop::condition;
            stopped = true;
        }
    }
    result.mean = mean;
    if (boxed)
        for (int d = 0; d < n; ++d) result.mean[d] = mirror_into(mean[d], settings.lower[d], settings.upper[d]);
    return result;
}

}  // namespace libvbmc
