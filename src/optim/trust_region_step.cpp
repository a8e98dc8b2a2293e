#include "optim/trust_region_step.hpp"

#include <algorithm>
#include <cmath>

#include "linalg/linalg.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

constexpr int kBisections = 200;

// Eigenvalue i of B counts as equal to the smallest when within this fraction of B's spectral radius.
bool ties_smallest(const std::vector<double>& beta, size_t i) {
    const double scale = std::max(std::fabs(beta.front()), std::fabs(beta.back()));
    return beta[i] - beta[0] <= 1e-12 * scale;
}

// In the eigenbasis of B = -H (eigenvalues beta ascending, gh = V^T g), the maximiser for the
// multiplier lambda is s_i = gh_i / (beta_i + lambda); its norm falls as lambda grows.
double step_norm(const std::vector<double>& beta, const std::vector<double>& gh, double lambda) {
    double total = 0.0;
    for (size_t i = 0; i < beta.size(); ++i) {
        const double denominator = beta[i] + lambda;
        if (denominator <= 0.0) return INFINITY;
        const double si = gh[i] / denominator;
        total += si * si;
    }
    return std::sqrt(total);
}

// The step in the eigenbasis for lambda; components with beta_i + lambda <= 0 are set to 0 (they
// carry no gradient in the hard case).
std::vector<double> eigen_step(const std::vector<double>& beta, const std::vector<double>& gh, double lambda) {
    std::vector<double> sh(beta.size(), 0.0);
    for (size_t i = 0; i < beta.size(); ++i)
        if (beta[i] + lambda > 0.0) sh[i] = gh[i] / (beta[i] + lambda);
    return sh;
}

// The hard case (Nocedal & Wright 4.3): at the smallest admissible multiplier, lambda = -beta_0,
// g has no component along the eigenvectors of beta_0, and the rest of the step fits inside.
bool hard_case(const std::vector<double>& beta, const std::vector<double>& gh, double radius) {
    if (beta[0] > 0.0) return false;
    double g_norm = 0.0;
    for (double x : gh) g_norm = std::max(g_norm, std::fabs(x));
    double rest = 0.0;
    for (size_t i = 0; i < beta.size(); ++i) {
        if (ties_smallest(beta, i)) {
            if (std::fabs(gh[i]) > 1e-12 * g_norm) return false;
        } else {
            const double si = gh[i] / (beta[i] - beta[0]);
            rest += si * si;
        }
    }
    return std::sqrt(rest) <= radius;
}

double norm(const std::vector<double>& v) {
    double total = 0.0;
    for (double x : v) total += x * x;
    return std::sqrt(total);
}

}  // namespace

TrustRegionStep trust_region_step(const std::vector<double>& g, const Matrix& h, double radius) {
    const int dim = static_cast<int>(g.size());
    if (h.rows != dim || h.cols != dim || !(radius > 0.0) || !std::isfinite(radius))
        throw_error(Code::numeric, "the trust-region step needs a square Hessian and a positive finite radius");
    for (double v : g)
        if (!std::isfinite(v)) throw_error(Code::numeric, "the trust-region step got a non-finite gradient");
    Matrix b(dim, dim);
    for (int i = 0; i < dim; ++i)
        for (int j = 0; j < dim; ++j) b(i, j) = -0.5 * (h(i, j) + h(j, i));
    std::vector<double> beta;
    Matrix v;
    symmetric_eigen(b, beta, v);
    std::vector<double> gh(static_cast<size_t>(dim), 0.0);
    for (int i = 0; i < dim; ++i)
        for (int k = 0; k < dim; ++k) gh[static_cast<size_t>(i)] += v(k, i) * g[static_cast<size_t>(k)];

    const double lambda_low = std::max(0.0, -beta[0]);
    TrustRegionStep result;
    std::vector<double> sh;
    if (beta[0] > 0.0 && step_norm(beta, gh, 0.0) <= radius) {
        sh = eigen_step(beta, gh, 0.0);
        result.interior = true;
    } else if (hard_case(beta, gh, radius)) {
        // g has no component along the most positive curvature of H: move along it to the boundary.
        sh = eigen_step(beta, gh, lambda_low);
        for (size_t i = 0; i < beta.size(); ++i)
            if (ties_smallest(beta, i)) sh[i] = 0.0;
        const double rest = norm(sh);
        sh[0] += std::sqrt(std::max(0.0, radius * radius - rest * rest));
    } else {
        double lo = lambda_low, hi = lambda_low + norm(g) / radius;
        for (int it = 0; it < kBisections && hi - lo > 1e-15 * std::max(1.0, hi); ++it) {
            const double mid = 0.5 * (lo + hi);
            (step_norm(beta, gh, mid) > radius ? lo : hi) = mid;
        }
        sh = eigen_step(beta, gh, hi);
    }
    result.s.assign(static_cast<size_t>(dim), 0.0);
    for (int k = 0; k < dim; ++k)
        for (int i = 0; i < dim; ++i) result.s[static_cast<size_t>(k)] += v(k, i) * sh[static_cast<size_t>(i)];
    // Gain in the eigenbasis: sum gh_i sh_i - 1/2 beta_i sh_i^2.
    for (int i = 0; i < dim; ++i) {
        const size_t u = static_cast<size_t>(i);
        result.predicted_gain += gh[u] * sh[u] - 0.5 * beta[u] * sh[u] * sh[u];
    }
    return result;
}

}  // namespace libvbmc
