#include "post/mode.hpp"

#include <algorithm>
#include <cmath>

#include "elbo/bfgs.hpp"
#include "util/rng.hpp"

namespace libvbmc {

namespace {

constexpr int kStartDraws = 1000;
constexpr uint64_t kStartSeed = 0x6d6f6465;  // fixed: the mode is deterministic

// -log p_x(x(z)) = -(log q(z) - log |det dx/dz|(z)) and its gradient in z; +inf where it is not
// finite (with a zero gradient: BFGS backtracks from there, or stops at once if it starts there).
double negative_log_density(const PosteriorSnapshot& posterior, const std::vector<double>& z,
                            std::vector<double>& grad) {
    const int dim = posterior.vp.dim;
    std::vector<double> jacobian_grad(static_cast<size_t>(dim));
    const double log_q = vp_log_pdf_gradient(posterior.vp, z.data(), grad.data());
    const double log_jacobian = posterior.transform.log_abs_det_jacobian(z.data());
    posterior.transform.log_abs_det_jacobian_gradient(z.data(), jacobian_grad.data());
    for (int d = 0; d < dim; ++d) grad[d] = jacobian_grad[d] - grad[d];
    const double value = log_jacobian - log_q;
    if (std::isfinite(value)) return value;
    std::fill(grad.begin(), grad.end(), 0.0);
    return INFINITY;
}

// The component means and the highest of kStartDraws draws (all in z).
std::vector<std::vector<double>> starting_points(const PosteriorSnapshot& posterior) {
    const VariationalPosterior& vp = posterior.vp;
    std::vector<std::vector<double>> starts;
    for (int j = 0; j < vp.k; ++j) starts.emplace_back(vp.mu.row(j), vp.mu.row(j) + vp.dim);
    Rng rng(kStartSeed);
    Matrix draws;
    vp_sample(vp, kStartDraws, rng, draws);
    std::vector<double> z(static_cast<size_t>(vp.dim)), grad(static_cast<size_t>(vp.dim)), best;
    double best_value = INFINITY;
    for (int i = 0; i < kStartDraws; ++i) {
        z.assign(draws.row(i), draws.row(i) + vp.dim);
        const double value = negative_log_density(posterior, z, grad);
        if (value < best_value) {
            best_value = value;
            best = z;
        }
    }
    if (!best.empty()) starts.push_back(best);
    return starts;
}

}  // namespace

std::vector<double> posterior_mode(const PosteriorSnapshot& posterior) {
    const int dim = posterior.vp.dim;
    const auto objective = [&](const std::vector<double>& z, std::vector<double>& grad) {
        return negative_log_density(posterior, z, grad);
    };
    BfgsResult best;
    best.f = INFINITY;
    for (const std::vector<double>& start : starting_points(posterior)) {
        BfgsResult fit = minimize_bfgs(objective, start, 1e-9, 200 * dim);
        if (best.x.empty() || fit.f < best.f) best = std::move(fit);
    }
    std::vector<double> x(static_cast<size_t>(dim));
    posterior.transform.to_original(best.x.data(), x.data());
    return x;
}

}  // namespace libvbmc
