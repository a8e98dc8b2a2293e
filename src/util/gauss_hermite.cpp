#include "util/gauss_hermite.hpp"

#include <cmath>

#include "util/error.hpp"

namespace libvbmc {

namespace {

// The orthonormal Hermite functions' recurrence for the weight exp(-x^2): p_n(x) and the
// derivative p_n'(x) = sqrt(2n) p_{n-1}(x), at x.
void hermite_pair(int n, double x, double& p_n, double& dp_n) {
    const double pi_quarter = 0.7511255444649425;  // pi^(-1/4)
    double p_prev = 0.0, p = pi_quarter;
    for (int j = 1; j <= n; ++j) {
        const double p_next = x * std::sqrt(2.0 / j) * p - std::sqrt((j - 1.0) / j) * p_prev;
        p_prev = p;
        p = p_next;
    }
    p_n = p;
    dp_n = std::sqrt(2.0 * n) * p_prev;
}

}  // namespace

GaussHermiteRule gauss_hermite_rule(int n) {
    if (n < 1) throw_error(Code::internal, "gauss_hermite_rule needs at least one node");
    std::vector<double> root(static_cast<size_t>(n)), w(static_cast<size_t>(n));
    double x = 0.0;
    // Roots of the physicists' polynomial H_n from the largest down, each Newton run started from
    // an asymptotic guess (Numerical Recipes, gauher); the rule is symmetric.
    for (int i = 0; i < (n + 1) / 2; ++i) {
        if (i == 0)
            x = std::sqrt(2.0 * n + 1.0) - 1.85575 * std::pow(2.0 * n + 1.0, -0.16667);
        else if (i == 1)
            x -= 1.14 * std::pow(static_cast<double>(n), 0.426) / x;
        else if (i == 2)
            x = 1.86 * x - 0.86 * root[0];
        else if (i == 3)
            x = 1.91 * x - 0.91 * root[1];
        else
            x = 2.0 * x - root[static_cast<size_t>(i - 2)];
        double p = 0.0, dp = 1.0;
        for (int iter = 0; iter < 100; ++iter) {
            hermite_pair(n, x, p, dp);
            const double step = p / dp;
            x -= step;
            if (std::fabs(step) <= 1e-15 * (1.0 + std::fabs(x))) break;
        }
        hermite_pair(n, x, p, dp);
        root[static_cast<size_t>(i)] = x;
        root[static_cast<size_t>(n - 1 - i)] = -x;
        w[static_cast<size_t>(i)] = w[static_cast<size_t>(n - 1 - i)] = 2.0 / (dp * dp);
    }
    // To the standard normal: t = sqrt(2) x, weights / sqrt(pi).
    GaussHermiteRule rule;
    for (int i = 0; i < n; ++i) {
        rule.node.push_back(std::sqrt(2.0) * root[static_cast<size_t>(i)]);
        rule.weight.push_back(w[static_cast<size_t>(i)] / std::sqrt(M_PI));
    }
    return rule;
}

}  // namespace libvbmc
