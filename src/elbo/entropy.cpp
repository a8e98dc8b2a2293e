// Entropy estimators of the mixture variational posterior (paper section 3.1; PyVBMC
// entmc_vbmc and entlb_vbmc).
#include "elbo/entropy.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "util/error.hpp"
#include "util/fast_exp.hpp"
#include "util/lanes.hpp"
#include "util/math.hpp"
#include "util/parallel.hpp"
#include "util/qmc.hpp"
#include "util/vector_clones.hpp"
#include "util/vector_dispatch.hpp"

namespace libvbmc {

void softmax_chain(const std::vector<double>& w, double* grad_w, int k) {
    double weighted = 0.0;
    for (int j = 0; j < k; ++j) weighted += w[j] * grad_w[j];
    for (int j = 0; j < k; ++j) grad_w[j] = w[j] * (grad_w[j] - weighted);
}

namespace {

constexpr int kChunk = 256;  // draws processed together, stored coordinate-major

// Every sum over a chunk's draws is taken in the one order of util/lanes.hpp: the first
// lanes_part(count) terms in eight lanes, combined by lanes_total, then the rest one by one.
double sum_lanes(const double* v, int count) {
    Lanes part{};
    const int full = lanes_part(count);
    for (int c = 0; c < full; c += kLanes) {
        Lanes x;
        load(x, v + c);
        part += x;
    }
    double total = lanes_total(part);
    for (int c = full; c < count; ++c) total += v[c];
    return total;
}

// For the draws xs (row d of xs holds coordinate d, row length kChunk) and one component with
// mean mu and diagonal precision: maha[c] = sum_d (x_cd - mu_d)^2 precision_d and
// log_term[c] = log_coef - maha[c] / 2.
VBMC_VECTOR_CLONES
void component_log_terms(const double* xs, int count, int dim, const double* mu, const double* precision,
                         double log_coef, double* maha, double* log_term) {
    std::fill(maha, maha + count, 0.0);
    for (int d = 0; d < dim; ++d) {
        const double* x = xs + static_cast<size_t>(d) * kChunk;
        for (int c = 0; c < count; ++c) {
            const double diff = x[c] - mu[d];
            maha[c] += diff * precision[d] * diff;
        }
    }
    for (int c = 0; c < count; ++c) log_term[c] = log_coef - 0.5 * maha[c];
}

// Log-sum-exp over the k_count components for each draw, in place: terms[k][c] (log terms on
// entry) become exp(terms[k][c] - log_max[c]), the unnormalised responsibilities, with
// log_max[c] = max_k terms[k][c] and total[c] = their sum, so log q = log_max + log total.
// Compiled per instruction set for exp_fast's fused multiply-adds (util/vector_dispatch.hpp).
VBMC_KERNEL_BODY void log_sum_exp_body(double* terms, int k_count, int count, double* log_max, double* total) {
    std::fill(log_max, log_max + count, -INFINITY);
    for (int k = 0; k < k_count; ++k) {
        const double* t = terms + static_cast<size_t>(k) * kChunk;
        for (int c = 0; c < count; ++c) log_max[c] = std::max(log_max[c], t[c]);
    }
    std::fill(total, total + count, 0.0);
    for (int k = 0; k < k_count; ++k) {
        double* t = terms + static_cast<size_t>(k) * kChunk;
        for (int c = 0; c < count; ++c) {
            t[c] = exp_fast(t[c] - log_max[c]);
            total[c] += t[c];
        }
    }
}

using LogSumExpFn = void (*)(double*, int, int, double*, double*);

VBMC_TARGET_AVX512 void log_sum_exp_avx512(double* terms, int k_count, int count, double* log_max, double* total) {
    log_sum_exp_body(terms, k_count, count, log_max, total);
}

VBMC_TARGET_AVX2_FMA void log_sum_exp_avx2_fma(double* terms, int k_count, int count, double* log_max, double* total) {
    log_sum_exp_body(terms, k_count, count, log_max, total);
}

void log_sum_exp_baseline(double* terms, int k_count, int count, double* log_max, double* total) {
    log_sum_exp_body(terms, k_count, count, log_max, total);
}

void log_sum_exp_draws(double* terms, int k_count, int count, double* log_max, double* total) {
    static const LogSumExpFn impl =
        select_kernel<LogSumExpFn>(best_vector_isa(), log_sum_exp_avx512, log_sum_exp_avx2_fma, log_sum_exp_baseline);
    impl(terms, k_count, count, log_max, total);
}

// Normalises component k's responsibilities of the chunk in place (r_c *= inv_total_c) and returns
// sum_c r_c in r_sum and sum_c r_c (maha_c - D) in scale_sum.
VBMC_VECTOR_CLONES
void normalise_responsibilities(double* r, const double* inv_total, const double* maha, int count, int dim,
                                double& r_sum, double& scale_sum) {
    const double d_count = dim;
    Lanes part_r{}, part_scale{};
    const int full = lanes_part(count);
    for (int c = 0; c < full; c += kLanes) {
        Lanes rv, inv, m;
        load(rv, r + c);
        load(inv, inv_total + c);
        load(m, maha + c);
        rv *= inv;
        store(r + c, rv);
        part_r += rv;
        part_scale += rv * (m - d_count);
    }
    r_sum = lanes_total(part_r);
    scale_sum = lanes_total(part_scale);
    for (int c = full; c < count; ++c) {
        r[c] *= inv_total[c];
        r_sum += r[c];
        scale_sum += r[c] * (maha[c] - d_count);
    }
}

// Gradient terms of one component k for the chunk: with r = resp (normalised) and
// u_d = (x_d - mu_d) precision_d, accumulates dlogq_dx[d][c] -= r u_d and returns
// sum_c r u_d in mu_sum[d] and sum_c r u_d (x_d - mu_d) in scale_sum[d].
VBMC_VECTOR_CLONES
void component_gradient_terms(const double* xs, const double* resp, int count, int dim, const double* mu,
                              const double* precision, double* dlogq_dx, double* mu_sum, double* scale_sum) {
    const int full = lanes_part(count);
    for (int d = 0; d < dim; ++d) {
        const double* x = xs + static_cast<size_t>(d) * kChunk;
        double* dx = dlogq_dx + static_cast<size_t>(d) * kChunk;
        const double m = mu[d], p = precision[d];
        Lanes part_mu{}, part_scale{};
        for (int c = 0; c < full; c += kLanes) {
            Lanes xv, rv, dxv;
            load(xv, x + c);
            load(rv, resp + c);
            load(dxv, dx + c);
            const Lanes diff = xv - m;
            const Lanes ru = rv * (diff * p);
            store(dx + c, dxv - ru);
            part_mu += ru;
            part_scale += ru * diff;
        }
        double sum_mu = lanes_total(part_mu), sum_scale = lanes_total(part_scale);
        for (int c = full; c < count; ++c) {
            const double diff = x[c] - m;
            const double ru = resp[c] * (diff * p);
            dx[c] -= ru;
            sum_mu += ru;
            sum_scale += ru * diff;
        }
        mu_sum[d] = sum_mu;
        scale_sum[d] = sum_scale;
    }
}

// sum_c dx_c and sum_c dx_c off_c over the chunk: component j's reparameterisation paths in one
// coordinate.
VBMC_VECTOR_CLONES
void path_sums(const double* dx, const double* off, int count, double& dx_sum, double& path_sum) {
    Lanes part_dx{}, part_path{};
    const int full = lanes_part(count);
    for (int c = 0; c < full; c += kLanes) {
        Lanes dv, ov;
        load(dv, dx + c);
        load(ov, off + c);
        part_dx += dv;
        part_path += dv * ov;
    }
    dx_sum = lanes_total(part_dx);
    path_sum = lanes_total(part_path);
    for (int c = full; c < count; ++c) {
        dx_sum += dx[c];
        path_sum += dx[c] * off[c];
    }
}

}  // namespace

// Monte Carlo entropy (entmc_vbmc). For a draw x from component j, with responsibilities
// r_k = w_k N_k(x) / q(x), u_kd = (x_d - mu_kd) / (sigma_k lambda_kd)^2, c_kd = u_kd (x_d - mu_kd)
// (lambda_kd = lambda_d when the scale is shared):
//   d log q / d x_d       = -sum_k r_k u_kd
//   d log q / d mu_kd     =  r_k u_kd                       (direct)
//   d log q / d log s_k   =  r_k (sum_d c_kd - D)            (direct)
//   d log q / d log l_kd  =  r_k (c_kd - 1)                  (direct; summed over k when shared)
// plus the reparameterisation paths dx/dmu_j = 1, dx/dlog s_j = s_j l_j eps, dx/dlog l_jd = s_j l_jd eps_d.
// Draws are processed in chunks, coordinate-major, so every loop runs over draws (vectorised).
namespace {

// Components are handled in this many fixed groups (fewer when there are fewer components), each
// summing its gradient terms in component order; the groups' sums are added in group order, so
// the estimate is the same however many workers share the groups.
constexpr int kEntropyGroups = 8;
// Below this many multiply-adds (draws x components x D) one call is too short to share.
constexpr double kParallelWork = 1 << 18;

// Per component: log(w_k) + log normaliser, and the diagonal precision 1 / (sigma_k lambda_kd)^2.
struct MixtureConstants {
    std::vector<double> log_coef;   // k
    std::vector<double> precision;  // k x dim
};

MixtureConstants mixture_constants(const VariationalPosterior& vp) {
    const int dim = vp.dim;
    MixtureConstants m{std::vector<double>(vp.k), std::vector<double>(static_cast<size_t>(vp.k) * dim)};
    for (int k = 0; k < vp.k; ++k) {
        double sum_log_lambda = 0.0;
        for (int d = 0; d < dim; ++d) {
            sum_log_lambda += std::log(vp.lambda_of(k, d));
            const double scale = vp.sigma[k] * vp.lambda_of(k, d);
            m.precision[static_cast<size_t>(k) * dim + d] = 1.0 / (scale * scale);
        }
        m.log_coef[k] = std::log(vp.w[k]) - 0.5 * dim * kLog2Pi - dim * std::log(vp.sigma[k]) - sum_log_lambda;
    }
    return m;
}

// One worker's buffers for a chunk of draws.
struct ChunkScratch {
    ChunkScratch(int dim, int k_count)
        : xs(static_cast<size_t>(dim) * kChunk), offset(xs.size()), dlogq_dx(xs.size()),
          maha(static_cast<size_t>(k_count) * kChunk), resp(maha.size()), log_max(kChunk), total(kChunk),
          log_q(kChunk), mu_sum(dim), scale_sum(dim) {}
    std::vector<double> xs, offset, dlogq_dx, maha, resp, log_max, total, log_q, mu_sum, scale_sum;
};

// A group's share of the gradient: its terms of the packed theta and of sum_j w_j mean_s r_k
// (the direct weight term).
struct GradientPart {
    std::vector<double> g;
    std::vector<double> w_direct;
};

// Chunk [start, start + count) of component j's draws into w.xs / w.offset: x = mu_j + sigma_j
// lambda_j eps, with antithetic pairs (draw s and s + half).
void place_draws(const VariationalPosterior& vp, int j, const double* eps, int half, int start, int count,
                 ChunkScratch& w) {
    for (int d = 0; d < vp.dim; ++d)
        for (int c = 0; c < count; ++c) {
            const int s = start + c;
            const double sign = s < half ? 1.0 : -1.0;
            const double e = eps[static_cast<size_t>(s % half) * vp.dim + d];
            const size_t at = static_cast<size_t>(d) * kChunk + c;
            w.offset[at] = sign * vp.sigma[j] * vp.lambda_of(j, d) * e;
            w.xs[at] = vp.mu(j, d) + w.offset[at];
        }
}

// The chunk's gradient terms, weighted by -scale (d H = -scale * d log q): the direct terms of
// every component through the responsibilities, then component j's reparameterisation paths.
void add_chunk_gradient(const VariationalPosterior& vp, const MixtureConstants& mix, int j, int count,
                        double scale, ChunkScratch& w, GradientPart& part) {
    const int dim = vp.dim;
    const int sigma_off = vp.sigma_offset(), lambda_off = vp.lambda_offset();
    std::vector<double>& g = part.g;
    std::fill(w.dlogq_dx.begin(), w.dlogq_dx.end(), 0.0);
    for (int c = 0; c < count; ++c) w.total[c] = 1.0 / w.total[c];
    for (int k = 0; k < vp.k; ++k) {
        double* r = w.resp.data() + static_cast<size_t>(k) * kChunk;
        double r_sum = 0.0, sigma_sum = 0.0;
        normalise_responsibilities(r, w.total.data(), w.maha.data() + static_cast<size_t>(k) * kChunk, count, dim,
                                   r_sum, sigma_sum);
        g[sigma_off + k] -= scale * sigma_sum;
        part.w_direct[k] += scale * r_sum;
        component_gradient_terms(w.xs.data(), r, count, dim, vp.mu.row(k), mix.precision.data() + static_cast<size_t>(k) * dim,
                                 w.dlogq_dx.data(), w.mu_sum.data(), w.scale_sum.data());
        for (int d = 0; d < dim; ++d) {
            g[k * dim + d] -= scale * w.mu_sum[d];
            g[lambda_off + vp.lambda_index(k, d)] -= scale * (w.scale_sum[d] - r_sum);
        }
    }
    double path_sigma = 0.0;
    for (int d = 0; d < dim; ++d) {
        double dx_sum = 0.0, path = 0.0;
        path_sums(w.dlogq_dx.data() + static_cast<size_t>(d) * kChunk, w.offset.data() + static_cast<size_t>(d) * kChunk,
                  count, dx_sum, path);
        g[j * dim + d] -= scale * dx_sum;
        path_sigma += path;
        g[lambda_off + vp.lambda_index(j, d)] -= scale * path;
    }
    g[sigma_off + j] -= scale * path_sigma;
}

// Mean of log q over component j's 2 half draws (eps: half x dim standard normals); with
// control_variate corrected by regression on u = (|eps|^2 - D) / 2, which has mean 0 under q_j
// and is -log q_j(x) up to a constant. With part, the draws' gradient terms are added to it.
double component_mean_log_q(const VariationalPosterior& vp, const MixtureConstants& mix, int j, const double* eps,
                            int half, bool control_variate, ChunkScratch& w, GradientPart* part) {
    const int dim = vp.dim;
    const int n_draws = 2 * half;
    const double scale = vp.w[j] / n_draws;
    std::vector<double> u_of(control_variate ? static_cast<size_t>(half) : 0);
    for (size_t h = 0; h < u_of.size(); ++h) {
        double norm2 = 0.0;
        for (int d = 0; d < dim; ++d) norm2 += eps[h * dim + d] * eps[h * dim + d];
        u_of[h] = 0.5 * (norm2 - dim);
    }
    double sum_log_q = 0.0, sum_u = 0.0, sum_u2 = 0.0, sum_u_log_q = 0.0;
    for (int start = 0; start < n_draws; start += kChunk) {
        const int count = std::min(kChunk, n_draws - start);
        place_draws(vp, j, eps, half, start, count, w);
        for (int k = 0; k < vp.k; ++k)
            component_log_terms(w.xs.data(), count, dim, vp.mu.row(k), mix.precision.data() + static_cast<size_t>(k) * dim,
                                mix.log_coef[k], w.maha.data() + static_cast<size_t>(k) * kChunk,
                                w.resp.data() + static_cast<size_t>(k) * kChunk);
        log_sum_exp_draws(w.resp.data(), vp.k, count, w.log_max.data(), w.total.data());
        for (int c = 0; c < count; ++c) w.log_q[c] = w.log_max[c] + std::log(w.total[c]);
        sum_log_q += sum_lanes(w.log_q.data(), count);
        if (control_variate)
            for (int c = 0; c < count; ++c) {
                const double u = u_of[static_cast<size_t>((start + c) % half)];
                sum_u += u;
                sum_u2 += u * u;
                sum_u_log_q += u * w.log_q[c];
            }
        if (part) add_chunk_gradient(vp, mix, j, count, scale, w, *part);
    }
    double mean_log_q = sum_log_q / n_draws;
    if (control_variate) {
        // Regression estimator mean(log q) - beta mean(u), beta the least-squares slope of log q on u.
        const double mean_u = sum_u / n_draws;
        const double var_u = sum_u2 / n_draws - mean_u * mean_u;
        if (var_u > 0.0) mean_log_q -= (sum_u_log_q / n_draws - mean_u * mean_log_q) / var_u * mean_u;
    }
    return mean_log_q;
}

}  // namespace

double entropy_mc(const VariationalPosterior& vp, int n_per_component, Rng& rng,
                  std::vector<double>* grad, bool control_variate, EntropyDraws draws) {
    if (grad && control_variate)
        throw_error(Code::internal, "entropy_mc: the control-variate estimate has no gradient.");
    const int dim = vp.dim;
    const int k_count = vp.k;
    const int half = (std::max(n_per_component, 1) + 1) / 2;
    const size_t per_component = static_cast<size_t>(half) * dim;
    const MixtureConstants mix = mixture_constants(vp);
    std::vector<double> eps(per_component * k_count);  // component by component, as the generator gives them
    if (draws == EntropyDraws::kronecker) {
        const KroneckerNormals lattice(dim);
        for (int j = 0; j < k_count; ++j) lattice.draw(rng, half, eps.data() + j * per_component);
    } else {
        for (int j = 0; j < k_count; ++j) rng.normals(eps.data() + j * per_component, per_component);
    }

    const int groups = std::min(k_count, kEntropyGroups);
    std::vector<double> mean_log_q(k_count);
    std::vector<GradientPart> parts(grad ? groups : 0, GradientPart{std::vector<double>(vp.theta_size(), 0.0),
                                                                    std::vector<double>(k_count, 0.0)});
    const double work = 2.0 * half * k_count * k_count * dim;
    const int workers = work >= kParallelWork ? std::min(current_threads(), groups) : 1;
    std::vector<std::unique_ptr<ChunkScratch>> scratch(static_cast<size_t>(std::max(workers, 1)));
    parallel_for(groups, workers, [&](int group, int worker) {
        std::unique_ptr<ChunkScratch>& w = scratch[static_cast<size_t>(worker)];
        if (!w) w = std::make_unique<ChunkScratch>(dim, k_count);
        GradientPart* part = grad ? &parts[static_cast<size_t>(group)] : nullptr;
        for (int j = group * k_count / groups; j < (group + 1) * k_count / groups; ++j)
            mean_log_q[j] = component_mean_log_q(vp, mix, j, eps.data() + j * per_component, half, control_variate, *w, part);
    });

    double entropy = 0.0;
    for (int j = 0; j < k_count; ++j) entropy -= vp.w[j] * mean_log_q[j];
    if (!std::isfinite(entropy)) throw_error(Code::numeric, "The Monte Carlo entropy is not finite.");
    if (!grad) return entropy;
    grad->assign(vp.theta_size(), 0.0);
    std::vector<double> w_direct(k_count, 0.0);  // sum_j w_j mean_s r_k
    for (const GradientPart& part : parts) {
        for (size_t i = 0; i < grad->size(); ++i) (*grad)[i] += part.g[i];
        for (int k = 0; k < k_count; ++k) w_direct[k] += part.w_direct[k];
    }
    if (vp.optimize_weights) {
        double* gw = grad->data() + vp.eta_offset();
        // -E_j[log q] is the derivative of -w_j E_j[log q] in w_j with q held fixed; the derivative
        // of q in w_k is N_k / q = r_k / w_k.
        for (int k = 0; k < k_count; ++k) gw[k] = -mean_log_q[k] - w_direct[k] / vp.w[k];
        softmax_chain(vp.w, gw, k_count);
    }
    return entropy;
}

// Deterministic entropy lower bound (entlb_vbmc). With the pairwise variances
// v_ijd = sigma_i^2 lambda_id^2 + sigma_j^2 lambda_jd^2 and Delta_ij = mu_i - mu_j,
//   log gamma_ij = log N(Delta_ij; 0, diag(v_ij)) = -1/2 sum_d (log(2 pi v_ijd) + Delta_ijd^2 / v_ijd)
//   H = -sum_i w_i log Gamma_i,  Gamma_i = sum_j w_j gamma_ij.
// With a_ij = w_i w_j gamma_ij / Gamma_i the parameter gradient is -sum_ij a_ij d log gamma_ij, where
// d log gamma_ij / d v_ijd = (Delta_ijd^2 / v_ijd - 1) / (2 v_ijd) and d v_ijd / d log sigma_i =
// d v_ijd / d log lambda_id = 2 sigma_i^2 lambda_id^2.
double entropy_lb(const VariationalPosterior& vp, std::vector<double>* grad) {
    const int dim = vp.dim;
    const int k_count = vp.k;
    const int sigma_off = vp.sigma_offset(), lambda_off = vp.lambda_offset(), eta_off = vp.eta_offset();
    if (grad) grad->assign(vp.theta_size(), 0.0);

    if (k_count == 1) {
        // Exact entropy of a single Gaussian.
        double sum_log_lambda = 0.0;
        for (int d = 0; d < dim; ++d) sum_log_lambda += std::log(vp.lambda_of(0, d));
        if (grad) {
            (*grad)[sigma_off] = dim;
            for (int d = 0; d < dim; ++d) (*grad)[lambda_off + d] = 1.0;
        }
        return 0.5 * dim * (1.0 + kLog2Pi) + dim * std::log(vp.sigma[0]) + sum_log_lambda;
    }

    // Per-component variances sigma_k^2 lambda_kd^2.
    Matrix comp_var(k_count, dim);
    for (int k = 0; k < k_count; ++k)
        for (int d = 0; d < dim; ++d) {
            const double scale = vp.sigma[k] * vp.lambda_of(k, d);
            comp_var(k, d) = scale * scale;
        }
    const size_t kk = static_cast<size_t>(k_count) * k_count;
    std::vector<double> log_gamma(kk), log_big_gamma(k_count), row(k_count);
    for (int i = 0; i < k_count; ++i) {
        for (int j = 0; j < k_count; ++j) {
            double log_g = 0.0;
            for (int d = 0; d < dim; ++d) {
                const double v = comp_var(i, d) + comp_var(j, d);
                const double delta = vp.mu(i, d) - vp.mu(j, d);
                log_g -= 0.5 * (kLog2Pi + std::log(v) + delta * delta / v);
            }
            log_gamma[static_cast<size_t>(i) * k_count + j] = log_g;
            row[j] = std::log(vp.w[j]) + log_g;
        }
        log_big_gamma[i] = log_sum_exp(row.data(), k_count);
    }
    double entropy = 0.0;
    for (int i = 0; i < k_count; ++i) entropy -= vp.w[i] * log_big_gamma[i];
    if (!std::isfinite(entropy)) throw_error(Code::numeric, "The entropy lower bound is not finite.");
    if (!grad) return entropy;

    std::vector<double>& g = *grad;
    for (int i = 0; i < k_count; ++i) {
        for (int j = 0; j < k_count; ++j) {
            const size_t ij = static_cast<size_t>(i) * k_count + j;
            const double a = vp.w[i] * std::exp(std::log(vp.w[j]) + log_gamma[ij] - log_big_gamma[i]);
            for (int d = 0; d < dim; ++d) {
                const double v = comp_var(i, d) + comp_var(j, d);
                const double delta = vp.mu(i, d) - vp.mu(j, d);
                // d log gamma / d mu_i = -Delta / v, d / d mu_j = +Delta / v
                g[i * dim + d] += a * delta / v;
                g[j * dim + d] -= a * delta / v;
                const double dlog_v = 0.5 * (delta * delta / v - 1.0) / v;
                const double di = a * dlog_v * 2.0 * comp_var(i, d);
                const double dj = a * dlog_v * 2.0 * comp_var(j, d);
                g[sigma_off + i] -= di;
                g[sigma_off + j] -= dj;
                g[lambda_off + vp.lambda_index(i, d)] -= di;
                g[lambda_off + vp.lambda_index(j, d)] -= dj;
            }
        }
    }
    if (vp.optimize_weights) {
        double* gw = g.data() + eta_off;
        // dH/dw_m = -log Gamma_m - sum_i w_i gamma_im / Gamma_i
        for (int m = 0; m < k_count; ++m) {
            double cross = 0.0;
            for (int i = 0; i < k_count; ++i)
                cross += vp.w[i] * std::exp(log_gamma[static_cast<size_t>(i) * k_count + m] - log_big_gamma[i]);
            gw[m] = -log_big_gamma[m] - cross;
        }
        softmax_chain(vp.w, gw, k_count);
    }
    return entropy;
}

}  // namespace libvbmc
