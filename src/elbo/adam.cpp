// Adam with PyVBMC's step-size schedule and stopping rule (minimize_adam.py):
//   step_i = master_min + (master_max - master_min) exp(-i / master_decay),
// stop at the end of a mini-batch of 20 iterations (from the second on) when the slope of a line
// fitted to the batch's objective values is within its standard error (plus tol_fun) and the
// batch-mean iterate moved less than tol_x.
#include "elbo/adam.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "util/error.hpp"

namespace libvbmc {

AdamResult minimize_adam(const std::function<double(const std::vector<double>&, std::vector<double>&)>& objective,
                         std::vector<double> x0, const AdamSettings& settings) {
    const double beta1 = 0.9, beta2 = 0.999, fudge = std::sqrt(DBL_EPSILON);
    const int batch = 20;
    const double tol_x = 0.001, tol_x_max = 0.1;
    const double tol_fun_max = settings.tol_fun * 100.0;
    const int n_vars = static_cast<int>(x0.size());
    if (settings.max_iter < 1) throw_error(Code::internal, "minimize_adam needs max_iter >= 1.");

    std::vector<double> x = std::move(x0), grad(n_vars), m(n_vars, 0.0), v(n_vars, 0.0);
    // Ring buffers of the last two mini-batches of iterates (after update) and objective values.
    std::vector<double> x_ring(static_cast<size_t>(2 * batch) * n_vars), f_ring(2 * batch);
    AdamResult result;
    result.best_f = INFINITY;
    double beta1_pow = 1.0, beta2_pow = 1.0;
    int iter = 0;
    for (; iter < settings.max_iter; ++iter) {
        const double f = objective(x, grad);
        if (!std::isfinite(f)) throw_error(Code::numeric, "The variational objective is not finite.");
        if (f < result.best_f) {
            result.best_f = f;
            result.best_x = x;
        }
        beta1_pow *= beta1;
        beta2_pow *= beta2;
        const double step = settings.master_min + (settings.master_max - settings.master_min) *
                                                      std::exp(-(iter + 1) / settings.master_decay);
        const int slot = iter % (2 * batch);
        for (int i = 0; i < n_vars; ++i) {
            m[i] = beta1 * m[i] + (1.0 - beta1) * grad[i];
            v[i] = beta2 * v[i] + (1.0 - beta2) * grad[i] * grad[i];
            const double m_hat = m[i] / (1.0 - beta1_pow);
            const double v_hat = v[i] / (1.0 - beta2_pow);
            x[i] -= step * m_hat / (std::sqrt(v_hat) + fudge);
            x_ring[static_cast<size_t>(slot) * n_vars + i] = x[i];
        }
        f_ring[slot] = f;
        const bool batch_end = (iter + 1) % batch == 0;
        if (settings.early_stopping && batch_end && iter + 1 >= 2 * batch) {
            // Least-squares line through the batch's values at centred abscissae t.
            double sum_f = 0.0, sum_tf = 0.0, sum_t2 = 0.0;
            for (int b = 0; b < batch; ++b) {
                const double t = b - 0.5 * (batch - 1);
                const double fb = f_ring[(iter - batch + 1 + b) % (2 * batch)];
                sum_f += fb;
                sum_tf += t * fb;
                sum_t2 += t * t;
            }
            const double slope = sum_tf / sum_t2, intercept = sum_f / batch;
            double resid = 0.0;
            for (int b = 0; b < batch; ++b) {
                const double t = b - 0.5 * (batch - 1);
                const double r = f_ring[(iter - batch + 1 + b) % (2 * batch)] - intercept - slope * t;
                resid += r * r;
            }
            const double slope_var = resid / (batch - 2) / sum_t2;
            const double slope_err = std::sqrt(slope_var + settings.tol_fun * settings.tol_fun);
            const double slope_err_max = std::sqrt(slope_var + tol_fun_max * tol_fun_max);
            // Distance between the mean iterates of the last two batches, scaled by the batch size.
            double dx2 = 0.0;
            for (int i = 0; i < n_vars; ++i) {
                double recent = 0.0, previous = 0.0;
                for (int b = 0; b < batch; ++b) {
                    recent += x_ring[static_cast<size_t>((iter - batch + 1 + b) % (2 * batch)) * n_vars + i];
                    previous += x_ring[static_cast<size_t>((iter - 2 * batch + 1 + b) % (2 * batch)) * n_vars + i];
                }
                const double diff = (recent - previous) / batch;
                dx2 += diff * diff / batch;
            }
            const double dx = std::sqrt(dx2);
            if ((dx < tol_x && std::fabs(slope) < slope_err_max) ||
                (std::fabs(slope) < slope_err && dx < tol_x_max)) {
                ++iter;
                break;
            }
        }
    }
    // Average of the last (up to) one mini-batch of iterates.
    const int n_last = std::min(iter, batch);
    result.x.assign(n_vars, 0.0);
    result.f = 0.0;
    for (int b = 0; b < n_last; ++b) {
        const int slot = (iter - n_last + b) % (2 * batch);
        for (int i = 0; i < n_vars; ++i) result.x[i] += x_ring[static_cast<size_t>(slot) * n_vars + i] / n_last;
        result.f += f_ring[slot] / n_last;
    }
    result.iterations = iter;
    return result;
}

}  // namespace libvbmc
