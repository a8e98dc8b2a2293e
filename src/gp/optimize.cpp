#include "gp/optimize.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

#include "util/error.hpp"

namespace libvbmc {

namespace {

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0.0;
    for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

void project(std::vector<double>& x, const std::vector<double>& lower, const std::vector<double>& upper) {
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::min(std::max(x[i], lower[i]), upper[i]);
}

// A variable is held when it sits on a bound and the gradient pushes it outward.
bool held(double x, double g, double lo, double hi) { return (x <= lo && g > 0.0) || (x >= hi && g < 0.0); }

struct Correction {
    std::vector<double> s, y;
    double rho;
};

}  // namespace

MinimizeResult minimize_bounded(const ObjectiveWithGradient& f, std::vector<double> x0,
                                const std::vector<double>& lower, const std::vector<double>& upper,
                                const MinimizeOptions& options) {
    const size_t n = x0.size();
    if (lower.size() != n || upper.size() != n)
        throw_error(Code::arg, "minimize_bounded: bounds must have the length of x0");
    MinimizeResult r;
    project(x0, lower, upper);
    r.x = x0;
    std::vector<double> g(n, 0.0);
    r.f = f(r.x, g);
    r.evaluations = 1;
    if (!std::isfinite(r.f)) return r;

    std::deque<Correction> memory;
    std::vector<double> q(n), d(n), x_trial(n), g_trial(n, 0.0), s(n), yv(n);
    std::vector<double> alpha_hist;
    for (r.iterations = 0; r.iterations < options.max_iterations; ++r.iterations) {
        double pg_max = 0.0;
        for (size_t i = 0; i < n; ++i) {
            q[i] = held(r.x[i], g[i], lower[i], upper[i]) || lower[i] == upper[i] ? 0.0 : g[i];
            pg_max = std::max(pg_max, std::fabs(q[i]));
        }
        if (pg_max <= options.tol) {
            r.converged = true;
            break;
        }
        // Two-loop recursion d = -H q, then zero the held coordinates (descent is kept: q^T H q > 0).
        d = q;
        alpha_hist.assign(memory.size(), 0.0);
        for (size_t k = memory.size(); k-- > 0;) {
            alpha_hist[k] = memory[k].rho * dot(memory[k].s, d);
            for (size_t i = 0; i < n; ++i) d[i] -= alpha_hist[k] * memory[k].y[i];
        }
        double h0;
        if (memory.empty()) {
            h0 = 1.0 / std::sqrt(dot(q, q));  // first step moves a unit distance
        } else {
            const Correction& last = memory.back();
            h0 = dot(last.s, last.y) / dot(last.y, last.y);
        }
        for (double& v : d) v *= h0;
        for (size_t k = 0; k < memory.size(); ++k) {
            const double beta = memory[k].rho * dot(memory[k].y, d);
            for (size_t i = 0; i < n; ++i) d[i] += (alpha_hist[k] - beta) * memory[k].s[i];
        }
        for (size_t i = 0; i < n; ++i) d[i] = q[i] == 0.0 ? 0.0 : -d[i];
        double slope = dot(d, g);
        if (!(slope < 0.0)) {  // lost curvature information: restart along steepest descent
            memory.clear();
            const double norm = std::sqrt(dot(q, q));
            for (size_t i = 0; i < n; ++i) d[i] = -q[i] / norm;
            slope = dot(d, g);
        }

        // Armijo backtracking along the projected path x(t) = P(x + t d), with safeguarded
        // quadratic interpolation of the step.
        double step = 1.0, f_trial = INFINITY;
        bool accepted = false;
        while (r.evaluations < options.max_evaluations) {
            for (size_t i = 0; i < n; ++i) x_trial[i] = r.x[i] + step * d[i];
            project(x_trial, lower, upper);
            double decrease = 0.0;
            for (size_t i = 0; i < n; ++i) decrease += g[i] * (x_trial[i] - r.x[i]);
            f_trial = f(x_trial, g_trial);
            ++r.evaluations;
            if (std::isfinite(f_trial) && f_trial <= r.f + 1e-4 * decrease) {
                accepted = true;
                break;
            }
            double next = 0.5 * step;
            if (std::isfinite(f_trial)) {
                const double curvature = f_trial - r.f - slope * step;
                if (curvature > 0.0) next = std::min(0.5 * step, std::max(0.1 * step, -slope * step * step / (2.0 * curvature)));
            } else {
                next = 0.1 * step;
            }
            step = next;
            if (step < 1e-20) break;
        }
        if (!accepted) break;  // no decrease possible along the path: at a (numerical) minimum

        for (size_t i = 0; i < n; ++i) {
            s[i] = x_trial[i] - r.x[i];
            yv[i] = g_trial[i] - g[i];
        }
        const double sy = dot(s, yv);
        if (sy > 1e-10 * dot(yv, yv)) {
            if (static_cast<int>(memory.size()) >= options.memory) memory.pop_front();
            memory.push_back(Correction{s, yv, 1.0 / sy});
        }
        const double relative_decrease = (r.f - f_trial) / std::max({std::fabs(r.f), std::fabs(f_trial), 1.0});
        r.x = x_trial;
        r.f = f_trial;
        g = g_trial;
        if (relative_decrease <= options.tol || dot(s, s) == 0.0) {
            r.converged = true;
            ++r.iterations;
            break;
        }
    }
    return r;
}

}  // namespace libvbmc
