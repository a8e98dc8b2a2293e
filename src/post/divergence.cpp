#include "post/divergence.hpp"

#include <cfloat>
#include <cmath>
#include <string>

#include "post/marginal.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

void require_same_dimension(const PosteriorSnapshot& p, const PosteriorSnapshot& q) {
    if (p.vp.dim != q.vp.dim)
        throw_error(Code::arg, "p has dimension " + std::to_string(p.vp.dim) + " and q dimension " +
                                   std::to_string(q.vp.dim) + ": only posteriors of the same dimension can be compared");
}

std::vector<double> draws_of(const PosteriorSnapshot& posterior, size_t n, uint64_t seed) {
    std::vector<double> x(n * static_cast<size_t>(posterior.vp.dim));
    posterior.sample(n, seed, x.data());
    return x;
}

// Mean and standard error of log from(x) - log to(x) over the draws x of `from`.
void kl_from_draws(const PosteriorSnapshot& from, const PosteriorSnapshot& to, const std::vector<double>& x,
                   size_t n, double& kl, double& sd) {
    const size_t dim = static_cast<size_t>(from.vp.dim);
    const double floor = std::log(DBL_MIN);
    std::vector<double> difference(n);
    double mean = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double log_from = std::fmax(from.log_pdf(x.data() + i * dim), floor);
        const double log_to = std::fmax(to.log_pdf(x.data() + i * dim), floor);
        difference[i] = log_from - log_to;
        mean += difference[i];
    }
    mean /= static_cast<double>(n);
    double spread = 0.0;
    for (double v : difference) spread += (v - mean) * (v - mean);
    sd = std::sqrt(spread / static_cast<double>(n - 1) / static_cast<double>(n));
    if (!std::isfinite(mean) || !std::isfinite(sd))
        throw_error(Code::numeric, "the Monte Carlo KL divergence is not finite (a density is infinite at a draw)");
    kl = std::fmax(mean, 0.0);
}

// Mean over the draws x of `from` of (1 - to_d / from_d)_+ in coordinate d.
double excess_mass(const Marginal& from, const Marginal& to, const std::vector<double>& x, size_t n, size_t dim,
                   size_t d) {
    double total = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double value = x[i * dim + d];
        const double log_from = from.log_pdf(value), log_to = to.log_pdf(value);
        if (log_to < log_from) total += -std::expm1(log_to - log_from);
    }
    return total / static_cast<double>(n);
}

}  // namespace

KlEstimate kl_divergence(const PosteriorSnapshot& p, const PosteriorSnapshot& q, size_t n, uint64_t seed) {
    require_same_dimension(p, q);
    if (n < 2)
        throw_error(Code::arg, "n = " + std::to_string(n) + " draws cannot estimate a KL divergence and its SD; at least 2 are needed");
    KlEstimate kl;
    kl_from_draws(p, q, draws_of(p, n, seed), n, kl.forward, kl.forward_sd);
    kl_from_draws(q, p, draws_of(q, n, seed + 1), n, kl.reverse, kl.reverse_sd);
    return kl;
}

std::vector<double> marginal_total_variation(const PosteriorSnapshot& p, const PosteriorSnapshot& q, size_t n,
                                             uint64_t seed) {
    require_same_dimension(p, q);
    if (n == 0) throw_error(Code::arg, "n = 0 draws cannot estimate a marginal total variation; at least 1 is needed");
    const size_t dim = static_cast<size_t>(p.vp.dim);
    const std::vector<double> x_p = draws_of(p, n, seed), x_q = draws_of(q, n, seed + 1);
    std::vector<double> mtv(dim);
    for (size_t d = 0; d < dim; ++d) {
        const Marginal p_d(p, static_cast<int>(d)), q_d(q, static_cast<int>(d));
        mtv[d] = 0.5 * (excess_mass(p_d, q_d, x_p, n, dim, d) + excess_mass(q_d, p_d, x_q, n, dim, d));
    }
    return mtv;
}

}  // namespace libvbmc
