#include "util/qmc.hpp"

#include <cmath>

namespace libvbmc {

std::vector<double> kronecker_alpha(int s) {
    // Newton's method on f(x) = x^(s+1) - x - 1 from x = 2, where f is increasing and convex.
    double phi = 2.0;
    for (int it = 0; it < 60; ++it) {
        const double step = (std::pow(phi, s + 1) - phi - 1.0) / ((s + 1) * std::pow(phi, s) - 1.0);
        phi -= step;
        if (std::fabs(step) < 1e-16 * phi) break;
    }
    std::vector<double> alpha(static_cast<size_t>(s));
    for (int k = 0; k < s; ++k) {
        const double a = std::pow(phi, -(k + 1));
        alpha[static_cast<size_t>(k)] = a - std::floor(a);
    }
    return alpha;
}

KroneckerNormals::KroneckerNormals(int dim) : dim_(dim), alpha_(kronecker_alpha(2 * ((dim + 1) / 2))) {}

void KroneckerNormals::draw(Rng& rng, int n, double* out) const {
    std::vector<double> shift(alpha_.size());
    for (double& s : shift) s = rng.uniform();
    for (int i = 0; i < n; ++i) {
        double* row = out + static_cast<size_t>(i) * dim_;
        for (size_t p = 0; 2 * p < alpha_.size(); ++p) {
            const double a = shift[2 * p] + i * alpha_[2 * p];
            const double b = shift[2 * p + 1] + i * alpha_[2 * p + 1];
            // 1 - frac(a) lies in (0, 1], so the radius is finite.
            const double radius = std::sqrt(-2.0 * std::log(1.0 - (a - std::floor(a))));
            const double angle = 2.0 * M_PI * (b - std::floor(b));
            row[2 * p] = radius * std::cos(angle);
            if (2 * p + 1 < static_cast<size_t>(dim_)) row[2 * p + 1] = radius * std::sin(angle);
        }
    }
}

}  // namespace libvbmc
