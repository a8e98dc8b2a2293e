#include "bq/bbq.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "bq/kernel_integrals.hpp"
#include "linalg/linalg.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"

namespace libvbmc {

namespace {

constexpr int kCandidatesPerDim = 10;     // Delta candidates beyond the training points (section 3)
constexpr double kDeltaRelNoise = 1e-6;   // Delta GP noise variance relative to its sf^2

// (1 + m_l) p as a mixture: p itself, and for each training point k_l(x, x_i) p(x) alpha_i, the
// Gaussian N((nu E + x_i lambda) / tau2, E lambda / tau2) (E = ell^2, tau2 = lambda + E) with
// weight alpha_i times the kernel mean of p at x_i.
DiagMixture weight_mixture(const BbqMeasure& p, const ZeroMeanGp& l) {
    const int dim = static_cast<int>(p.mean.size());
    const int n = l.data.size();
    DiagMixture q{std::vector<double>(static_cast<size_t>(n) + 1, 1.0), Matrix(n + 1, dim), Matrix(n + 1, dim)};
    std::vector<double> tau2(static_cast<size_t>(dim)), inv_tau2(static_cast<size_t>(dim));
    const double log_norm = kernel_mean_log_norm(l.kernel, p.var.data(), dim, tau2.data());
    for (int d = 0; d < dim; ++d) {
        inv_tau2[static_cast<size_t>(d)] = 1.0 / tau2[static_cast<size_t>(d)];
        q.mu(0, d) = p.mean[static_cast<size_t>(d)];
        q.s2(0, d) = p.var[static_cast<size_t>(d)];
    }
    for (int i = 0; i < n; ++i) {
        const double* x = l.data.x.row(i);
        q.w[static_cast<size_t>(i) + 1] =
            l.sample.alpha[static_cast<size_t>(i)] * kernel_mean_at(log_norm, inv_tau2.data(), p.mean.data(), x, dim);
        for (int d = 0; d < dim; ++d) {
            const double ell2 = l.kernel.ell[static_cast<size_t>(d)] * l.kernel.ell[static_cast<size_t>(d)];
            const double lambda = p.var[static_cast<size_t>(d)];
            q.mu(i + 1, d) = (p.mean[static_cast<size_t>(d)] * ell2 + x[d] * lambda) * inv_tau2[static_cast<size_t>(d)];
            q.s2(i + 1, d) = ell2 * lambda * inv_tau2[static_cast<size_t>(d)];
        }
    }
    return q;
}

// z_s = int k(x, xs_s) q(x) dx at the rows of xs; with dz (xs.rows x dim), also d z_s / d log ell_d.
void mixture_kernel_means(const SeKernel& kernel, const DiagMixture& q, const Matrix& xs, double* z, Matrix* dz) {
    const int dim = xs.cols;
    std::fill(z, z + xs.rows, 0.0);
    if (dz) *dz = Matrix(xs.rows, dim);
    std::vector<double> tau2(static_cast<size_t>(dim)), inv_tau2(static_cast<size_t>(dim));
    for (int j = 0; j < q.mu.rows; ++j) {
        const double log_norm = kernel_mean_log_norm(kernel, q.s2.row(j), dim, tau2.data());
        for (int d = 0; d < dim; ++d) inv_tau2[static_cast<size_t>(d)] = 1.0 / tau2[static_cast<size_t>(d)];
        for (int s = 0; s < xs.rows; ++s) {
            const double value = q.w[static_cast<size_t>(j)] * kernel_mean_at(log_norm, inv_tau2.data(), q.mu.row(j), xs.row(s), dim);
            z[s] += value;
            if (!dz) continue;
            // d log(ell / tau) - r^2 / (2 tau^2) / d log ell = s2 / tau^2 + ell^2 r^2 / tau^4
            for (int d = 0; d < dim; ++d) {
                const double ell2 = kernel.ell[static_cast<size_t>(d)] * kernel.ell[static_cast<size_t>(d)];
                const double r = q.mu(j, d) - xs(s, d), it2 = inv_tau2[static_cast<size_t>(d)];
                (*dz)(s, d) += value * (q.s2(j, d) * it2 + ell2 * r * r * it2 * it2);
            }
        }
    }
}

// int int k(x, x') q(x) q(x') dx dx'.
double mixture_pair_mean(const SeKernel& kernel, const DiagMixture& q) {
    const int dim = q.mu.cols;
    double total = 0.0;
    for (int j = 0; j < q.mu.rows; ++j) {
        double row = 0.5 * q.w[static_cast<size_t>(j)] * kernel_pair_mean(kernel, q.mu.row(j), q.s2.row(j), q.mu.row(j), q.s2.row(j), dim);
        for (int k = 0; k < j; ++k)
            row += q.w[static_cast<size_t>(k)] * kernel_pair_mean(kernel, q.mu.row(j), q.s2.row(j), q.mu.row(k), q.s2.row(k), dim);
        total += 2.0 * q.w[static_cast<size_t>(j)] * row;
    }
    return total;
}

// The candidates (section 3): the training points, and kCandidatesPerDim * D points at one length
// scale of l's GP (on the ellipse of its scales) in a random direction from random training points.
Matrix delta_candidates(const ZeroMeanGp& l, uint64_t seed) {
    const int dim = l.data.x.cols, n = l.data.size(), extra = kCandidatesPerDim * dim;
    Matrix xc(n + extra, dim);
    for (int i = 0; i < n; ++i) std::copy(l.data.x.row(i), l.data.x.row(i) + dim, xc.row(i));
    Rng rng(seed);
    std::vector<double> u(static_cast<size_t>(dim));
    for (int c = n; c < n + extra; ++c) {
        const double* x = l.data.x.row(static_cast<int>(rng.below(static_cast<uint64_t>(n))));
        double norm2 = 0.0;
        for (double& v : u) v = rng.normal(), norm2 += v * v;
        const double inv = 1.0 / std::sqrt(norm2);
        for (int d = 0; d < dim; ++d) xc(c, d) = x[d] + l.kernel.ell[static_cast<size_t>(d)] * u[static_cast<size_t>(d)] * inv;
    }
    return xc;
}

// The GP on Delta = m_g - log(1 + max(m_l, 0)): zero at the training points, l's length scales,
// output scale by maximum likelihood given them (sf^2 = Delta^T K1^{-1} Delta / N for the unit-scale
// covariance K1, which leaves the posterior mean unchanged).
ZeroMeanGp delta_gp(const ZeroMeanGp& l, const ZeroMeanGp& g, uint64_t seed) {
    const int dim = l.data.x.cols, n = l.data.size();
    GpData data;
    data.x = delta_candidates(l, seed);
    const int m = data.x.rows;
    data.y.assign(static_cast<size_t>(m), 0.0);
    std::vector<double> m_l(static_cast<size_t>(m)), m_g(static_cast<size_t>(m));
    zero_mean_gp_predict(l, data.x, m_l.data());
    zero_mean_gp_predict(g, data.x, m_g.data());
    for (int c = n; c < m; ++c)
        data.y[static_cast<size_t>(c)] = m_g[static_cast<size_t>(c)] - std::log1p(std::max(m_l[static_cast<size_t>(c)], 0.0));
    std::vector<double> log_ell(static_cast<size_t>(dim));
    for (int d = 0; d < dim; ++d) log_ell[static_cast<size_t>(d)] = std::log(l.kernel.ell[static_cast<size_t>(d)]);
    const ZeroMeanGp unit = zero_mean_gp(data, zero_mean_theta(log_ell, 0.0, 0.5 * std::log(kDeltaRelNoise)));
    double quad = 0.0;
    for (int c = 0; c < m; ++c) quad += data.y[static_cast<size_t>(c)] * unit.sample.alpha[static_cast<size_t>(c)];
    if (!(quad > 0.0)) return ZeroMeanGp{};
    const double log_sf = 0.5 * std::log(quad / m);
    return zero_mean_gp(std::move(data), zero_mean_theta(log_ell, log_sf, log_sf + 0.5 * std::log(kDeltaRelNoise)));
}

// Eq. 12's extra term: sum_d C_w,d (int (1 + m_l) dm_g/dlog ell_d p)^2 with
// dm_g/dlog ell_d = dk(x, X)/dlog ell_d alpha - k(x, X) K^{-1} dK/dlog ell_d alpha.
double marginalisation_term(const ZeroMeanGp& g, const std::vector<double>& beta, const Matrix& dz) {
    const int dim = g.data.x.cols, n = g.data.size();
    const Matrix k = gp_cross_kernel(g.data.x, g.data.x, g.sample.theta.data(), dim);
    double total = 0.0;
    for (int d = 0; d < dim; ++d) {
        const double var = g.log_ell_var[static_cast<size_t>(d)];
        if (var == 0.0) continue;
        const double inv_ell2 = 1.0 / (g.kernel.ell[static_cast<size_t>(d)] * g.kernel.ell[static_cast<size_t>(d)]);
        double grad = 0.0;
        for (int s = 0; s < n; ++s) {
            double dk_alpha = 0.0;
            for (int t = 0; t < n; ++t) {
                const double r = g.data.x(s, d) - g.data.x(t, d);
                dk_alpha += k(s, t) * r * r * inv_ell2 * g.sample.alpha[static_cast<size_t>(t)];
            }
            grad += g.sample.alpha[static_cast<size_t>(s)] * dz(s, d) - beta[static_cast<size_t>(s)] * dk_alpha;
        }
        total += var * grad * grad;
    }
    return total;
}

}  // namespace

double bbq_log_measure(const BbqMeasure& p, const double* x) {
    double lp = 0.0;
    for (size_t d = 0; d < p.mean.size(); ++d) {
        const double r = x[d] - p.mean[d];
        lp -= 0.5 * (std::log(2.0 * M_PI * p.var[d]) + r * r / p.var[d]);
    }
    return lp;
}

BbqMeasure bbq_measure(const VariationalPosterior& vp) {
    BbqMeasure p;
    Matrix cov;
    vp_moments(vp, p.mean, cov);
    p.var.resize(static_cast<size_t>(vp.dim));
    for (int d = 0; d < vp.dim; ++d) p.var[static_cast<size_t>(d)] = 4.0 * cov(d, d);
    return p;
}

BbqModel bbq_model(const GpData& data, const BbqMeasure& p, uint64_t seed) {
    const int dim = data.x.cols, n = data.size();
    if (static_cast<int>(p.mean.size()) != dim || static_cast<int>(p.var.size()) != dim)
        throw_error(Code::arg, "BBQ: the measure has dimension " + std::to_string(p.mean.size()) +
                                   ", the training set " + std::to_string(dim) + ".");
    for (double v : p.var)
        if (!(v > 0.0 && std::isfinite(v))) throw_error(Code::arg, "BBQ: a variance of the measure is " + std::to_string(v) + ", not positive and finite.");
    if (n < 2) throw_error(Code::arg, "BBQ needs at least two training points, got " + std::to_string(n) + ".");
    BbqModel model;
    model.p = p;
    std::vector<double> log_l(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) log_l[static_cast<size_t>(i)] = data.y[static_cast<size_t>(i)] - bbq_log_measure(p, data.x.row(i));
    model.log_scale = *std::max_element(log_l.begin(), log_l.end());
    GpData on_l{data.x, std::vector<double>(static_cast<size_t>(n)), std::vector<double>(static_cast<size_t>(n), 0.0)};
    GpData on_g = on_l;
    for (int i = 0; i < n; ++i) {
        const size_t u = static_cast<size_t>(i);
        const double l = std::exp(log_l[u] - model.log_scale), s2 = data.s2.empty() ? 0.0 : data.s2[u];
        on_l.y[u] = l;
        on_l.s2[u] = l * l * s2;  // delta method: Var[l] = l^2 Var[f], Var[log(1 + l)] = (l / (1 + l))^2 Var[f]
        on_g.y[u] = std::log1p(l);
        on_g.s2[u] = l * l / ((1.0 + l) * (1.0 + l)) * s2;
    }
    model.l = fit_zero_mean_gp(std::move(on_l), false);
    model.g = fit_zero_mean_gp(std::move(on_g), true);
    model.delta = delta_gp(model.l, model.g, seed);
    model.weight = weight_mixture(p, model.l);
    return model;
}

BbqMoments bbq_moments(const BbqModel& model) {
    BbqMoments m;
    for (size_t j = 1; j < model.weight.w.size(); ++j) m.mean_l += model.weight.w[j];
    if (model.delta.data.size() > 0) {
        std::vector<double> z(static_cast<size_t>(model.delta.data.size()));
        mixture_kernel_means(model.delta.kernel, model.weight, model.delta.data.x, z.data(), nullptr);
        for (size_t c = 0; c < z.size(); ++c) m.correction += z[c] * model.delta.sample.alpha[c];
    }
    const ZeroMeanGp& g = model.g;
    std::vector<double> beta(static_cast<size_t>(g.data.size()));
    Matrix dz;
    mixture_kernel_means(g.kernel, model.weight, g.data.x, beta.data(), &dz);
    const std::vector<double> z = beta;
    cholesky_solve(g.sample.chol, beta.data());
    double explained = 0.0;
    for (size_t s = 0; s < z.size(); ++s) explained += z[s] * beta[s];
    m.variance = std::max(mixture_pair_mean(g.kernel, model.weight) - explained, 0.0);
    m.marginal_var = marginalisation_term(g, beta, dz);
    return m;
}

BbqResult bbq_estimate(const GpData& data, const BbqMeasure& p, uint64_t seed) {
    const BbqModel model = bbq_model(data, p, seed);
    const BbqMoments m = bbq_moments(model);
    const double mean = m.mean_l + m.correction;
    if (!(mean > 0.0))
        throw_error(Code::numeric, "BBQ: the mean of the evidence under the linearised model is " + std::to_string(mean) +
                                       ", not positive.");
    BbqResult r;
    r.log_z = model.log_scale + std::log(mean);
    r.log_z_sd = std::sqrt(m.variance + m.marginal_var) / mean;
    return r;
}

BbqResult bbq_log_evidence(const GpData& data, const VariationalPosterior& vp) {
    constexpr uint64_t kCandidateSeed = 0x5eedbb9ULL;  // the Delta candidates; fixed, so two reads agree
    try {
        return bbq_estimate(data, bbq_measure(vp), kCandidateSeed);
    } catch (const Error& e) {
        if (e.code() != Code::numeric) throw;
        return {NAN, NAN};
    }
}

}  // namespace libvbmc
