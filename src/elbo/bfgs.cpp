// BFGS with an inverse-Hessian update and a backtracking Armijo line search (Nocedal & Wright,
// Numerical Optimization, algorithm 6.1); the update is skipped when the curvature condition fails.
#include "elbo/bfgs.hpp"

#include <algorithm>
#include <cmath>

namespace libvbmc {

BfgsResult minimize_bfgs(const std::function<double(const std::vector<double>&, std::vector<double>&)>& objective,
                         std::vector<double> x0, double grad_tol, int max_iter) {
    const int n = static_cast<int>(x0.size());
    BfgsResult result;
    std::vector<double> x = std::move(x0), grad(n), x_new(n), grad_new(n), dir(n), s(n), y(n), hy(n);
    std::vector<double> h(static_cast<size_t>(n) * n, 0.0);  // inverse Hessian approximation
    for (int i = 0; i < n; ++i) h[static_cast<size_t>(i) * n + i] = 1.0;
    double f = objective(x, grad);
    int iter = 0;
    for (; iter < max_iter; ++iter) {
        double gmax = 0.0;
        for (double g : grad) gmax = std::max(gmax, std::fabs(g));
        if (gmax < grad_tol) {
            result.converged = true;
            break;
        }
        double slope = 0.0;
        for (int i = 0; i < n; ++i) {
            double di = 0.0;
            for (int j = 0; j < n; ++j) di -= h[static_cast<size_t>(i) * n + j] * grad[j];
            dir[i] = di;
            slope += di * grad[i];
        }
        if (!(slope < 0.0)) {  // not a descent direction: restart from steepest descent
            for (int i = 0; i < n; ++i) {
                for (int j = 0; j < n; ++j) h[static_cast<size_t>(i) * n + j] = i == j ? 1.0 : 0.0;
                dir[i] = -grad[i];
            }
            slope = 0.0;
            for (int i = 0; i < n; ++i) slope -= grad[i] * grad[i];
        }
        double step = 1.0, f_new = INFINITY;
        bool accepted = false;
        for (int trial = 0; trial < 40; ++trial, step *= 0.5) {
            for (int i = 0; i < n; ++i) x_new[i] = x[i] + step * dir[i];
            f_new = objective(x_new, grad_new);
            if (std::isfinite(f_new) && f_new <= f + 1e-4 * step * slope) {
                accepted = true;
                break;
            }
        }
        if (!accepted) break;
        double sy = 0.0;
        for (int i = 0; i < n; ++i) {
            s[i] = x_new[i] - x[i];
            y[i] = grad_new[i] - grad[i];
            sy += s[i] * y[i];
        }
        x.swap(x_new);
        grad.swap(grad_new);
        f = f_new;
        if (sy > 1e-12) {
            // H <- (I - rho s y^T) H (I - rho y s^T) + rho s s^T
            const double rho = 1.0 / sy;
            double yhy = 0.0;
            for (int i = 0; i < n; ++i) {
                double v = 0.0;
                for (int j = 0; j < n; ++j) v += h[static_cast<size_t>(i) * n + j] * y[j];
                hy[i] = v;
                yhy += y[i] * v;
            }
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                    h[static_cast<size_t>(i) * n + j] +=
                        -rho * (s[i] * hy[j] + hy[i] * s[j]) + (rho * rho * yhy + rho) * s[i] * s[j];
        }
    }
    result.x = std::move(x);
    result.f = f;
    result.iterations = iter;
    return result;
}

}  // namespace libvbmc
