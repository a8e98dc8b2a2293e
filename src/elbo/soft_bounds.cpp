// Soft bounds of the variational parameters (PyVBMC get_bounds / _vp_bound_loss).
#include "elbo/soft_bounds.hpp"

#include <algorithm>
#include <cmath>

#include "elbo/entropy.hpp"

namespace libvbmc {

VpSoftBounds vp_soft_bounds(const GpData& data, int k, const VpOptimSettings& s) {
    const int dim = data.x.cols;
    VpSoftBounds b;
    b.mu_lb.assign(dim, INFINITY);
    b.mu_ub.assign(dim, -INFINITY);
    for (int i = 0; i < data.size(); ++i)
        for (int d = 0; d < dim; ++d) {
            b.mu_lb[d] = std::min(b.mu_lb[d], data.x(i, d));
            b.mu_ub[d] = std::max(b.mu_ub[d], data.x(i, d));
        }
    b.ln_scale_lb.resize(dim);
    b.ln_scale_ub.resize(dim);
    for (int d = 0; d < dim; ++d) {
        // A degenerate range (one point) gets a unit width so the bounds stay finite.
        const double range = b.mu_ub[d] > b.mu_lb[d] ? b.mu_ub[d] - b.mu_lb[d] : 1.0;
        b.ln_scale_ub[d] = std::log(range);
        b.ln_scale_lb[d] = std::log(range) + std::log(s.tol_length);
        if (!s.ln_scale_cap.empty())
            b.ln_scale_ub[d] = std::max(std::min(b.ln_scale_ub[d], s.ln_scale_cap[d]), b.ln_scale_lb[d] + 1.0);
    }
    b.eta_lb = s.tol_weight > 0.0 ? std::log(0.5 * s.tol_weight) : -INFINITY;
    b.eta_ub = 0.0;
    b.tol_con = s.tol_con_loss;
    b.weight_threshold = std::max(1.0 / (4.0 * k), s.tol_weight);
    b.weight_penalty = s.weight_penalty;
    return b;
}

namespace {
// 1/2 ((x - bound) / ell)^2 outside [lb, ub]; returns the derivative in *dloss.
double soft_violation(double x, double lb, double ub, double tol_con, double* dloss) {
    *dloss = 0.0;
    // A half-open bound (eta without a lower limit) has an infinite scale: no penalty.
    if (!std::isfinite(lb) || !std::isfinite(ub)) return 0.0;
    const double ell = (ub - lb) * tol_con;
    if (x < lb) {
        *dloss = (x - lb) / (ell * ell);
        return 0.5 * (lb - x) * (lb - x) / (ell * ell);
    }
    if (x > ub) {
        *dloss = (x - ub) / (ell * ell);
        return 0.5 * (x - ub) * (x - ub) / (ell * ell);
    }
    return 0.0;
}
}  // namespace

double vp_bound_loss(const VariationalPosterior& vp, const std::vector<double>& theta,
                     const VpSoftBounds& bounds, std::vector<double>* grad) {
    const int dim = vp.dim, k_count = vp.k;
    const int sigma_off = vp.sigma_offset(), lambda_off = vp.lambda_offset(), eta_off = vp.eta_offset();
    double loss = 0.0, dloss = 0.0;
    for (int k = 0; k < k_count; ++k)
        for (int d = 0; d < dim; ++d) {
            loss += soft_violation(theta[k * dim + d], bounds.mu_lb[d], bounds.mu_ub[d], bounds.tol_con, &dloss);
            if (grad) (*grad)[k * dim + d] += dloss;
            const int lambda_at = lambda_off + vp.lambda_index(k, d);
            const double ln_scale = theta[sigma_off + k] + theta[lambda_at];
            loss += soft_violation(ln_scale, bounds.ln_scale_lb[d], bounds.ln_scale_ub[d], bounds.tol_con, &dloss);
            if (grad) {
                (*grad)[sigma_off + k] += dloss;
                (*grad)[lambda_at] += dloss;
            }
        }
    if (!vp.optimize_weights) return loss;
    std::vector<double> w_grad(k_count, 0.0);
    for (int k = 0; k < k_count; ++k) {
        loss += soft_violation(theta[eta_off + k], bounds.eta_lb, bounds.eta_ub, bounds.tol_con, &dloss);
        if (grad) (*grad)[eta_off + k] += dloss;
        // Penalty pushing small weights to zero: penalty * min(w_k, threshold).
        const bool small = vp.w[k] < bounds.weight_threshold;
        loss += bounds.weight_penalty * (small ? vp.w[k] : bounds.weight_threshold);
        w_grad[k] = small ? bounds.weight_penalty : 0.0;
    }
    if (grad) {
        softmax_chain(vp.w, w_grad.data(), k_count);
        for (int k = 0; k < k_count; ++k) (*grad)[eta_off + k] += w_grad[k];
    }
    return loss;
}

}  // namespace libvbmc
