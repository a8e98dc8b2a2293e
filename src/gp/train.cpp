#include "gp/train.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "gp/lml.hpp"
#include "gp/optimize.hpp"
#include "gp/slice_sample.hpp"
#include "util/error.hpp"
#include "util/parallel.hpp"

namespace libvbmc {

namespace {

// Records whose covariance weight has fallen below this (relative to the newest, weight 1)
// contribute nothing measurable and are dropped from the memory.
constexpr double kNegligibleWeight = 1e-12;

using Rows = std::vector<std::vector<double>>;

double resolved(double value, double fallback) { return value > 0.0 ? value : fallback; }

double tol_skl(const GpTrainSettings& s, int dim) { return resolved(s.tol_skl, 0.01 * std::sqrt(static_cast<double>(dim))); }

// Weight factor between consecutive past iterations in PyVBMC _get_hyp_cov.
double weight_step(const GpTrainSettings& s, double skl, int dim) {
    double diff_mult = 1.0;
    if (!std::isnan(skl)) diff_mult = std::max(1.0, std::log(skl / tol_skl(s, dim) * s.fun_evals_per_iter));
    return std::pow(s.hyp_run_weight, s.fun_evals_per_iter * diff_mult);
}

// Weights of memory.records (same order), newest = 1, PyVBMC _get_hyp_cov.
std::vector<double> record_weights(const GpTrainMemory& m, const GpTrainSettings& s, int dim) {
    std::vector<double> w(m.records.size(), 0.0);
    double weight = 1.0;
    for (size_t i = 0; i < m.records.size(); ++i) {
        const size_t k = m.records.size() - 1 - i;
        if (i > 0) weight *= weight_step(s, m.records[k + 1].skl, dim);
        w[k] = weight;
    }
    return w;
}

// Weighted covariance of past samples (PyVBMC _get_hyp_cov); empty if unavailable.
Matrix hyp_covariance(const GpTrainMemory& m, const GpTrainSettings& s, int dim) {
    const int count = hyp::count(dim);
    if (m.trainings == 0) return Matrix();
    if (!s.weighted_hyp_cov) return m.run_cov.rows == count ? m.run_cov : Matrix();
    const std::vector<double> weights = record_weights(m, s, dim);
    Rows rows;
    std::vector<double> w;
    for (size_t i = 0; i < m.records.size(); ++i) {
        const size_t k = m.records.size() - 1 - i;
        if (weights[k] < s.tol_cov_weight) break;
        const Matrix& smp = m.records[k].samples;
        if (smp.cols != count || smp.rows == 0) continue;
        for (int r = 0; r < smp.rows; ++r) {
            rows.emplace_back(smp.row(r), smp.row(r) + count);
            w.push_back(weights[k] / smp.rows);
        }
    }
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    if (rows.empty() || !(total > 0.0)) return Matrix();
    double sum_sq = 0.0;
    for (double& v : w) {
        v /= total;
        sum_sq += v * v;
    }
    if (!(1.0 - sum_sq > 0.0)) return Matrix();
    std::vector<double> mean(static_cast<size_t>(count), 0.0);
    for (size_t j = 0; j < rows.size(); ++j)
        for (int a = 0; a < count; ++a) mean[static_cast<size_t>(a)] += w[j] * rows[j][static_cast<size_t>(a)];
    Matrix cov(count, count);
    for (size_t j = 0; j < rows.size(); ++j)
        for (int a = 0; a < count; ++a) {
            const double da = rows[j][static_cast<size_t>(a)] - mean[static_cast<size_t>(a)];
            for (int b = 0; b < count; ++b) cov(a, b) += w[j] * da * (rows[j][static_cast<size_t>(b)] - mean[static_cast<size_t>(b)]);
        }
    for (double& v : cov.data) v /= 1.0 - sum_sq;
    return cov;
}

// Inverse CDF of gpyreg's mixture of uniforms: weight w on [b1, b2], (1-w) spread over
// [b0, b1] and [b2, b3] in proportion to their lengths (f_min_fill.uuinv).
double mixture_uniform_quantile(double p, double b0, double b1, double b2, double b3, double w) {
    const double outer = b3 - b0 + b1 - b2;
    if (w == 1.0) return p * (b2 - b1) + b1;
    if (outer == 0.0) {
        if (p <= (1.0 - w) / 2.0) return b0;
        if (p <= (1.0 - w) / 2.0 + w) return (p - (1.0 - w) / 2.0) * (b2 - b1) / w + b1;
        return b3;
    }
    const double first = (1.0 - w) * (b1 - b0) / outer;
    if (p <= first) return b0 + p * outer / (1.0 - w);
    if (p <= first + w) return (p - first) * (b2 - b1) / w + b1;
    return (p - w - first) * outer / (1.0 - w) + b2;
}

// One random design point per gpyreg f_min_fill ("rand" design): priors are sampled within the
// bounds (tails forced to df <= 3), flat coordinates from a mixture of the hard and plausible
// boxes, or the plausible box when a bound is infinite.
std::vector<double> design_point(const GpHyperSetup& s, Rng& rng) {
    const size_t count = s.lower.size();
    const double w_mix = std::pow(0.5, 1.0 / static_cast<double>(count));
    std::vector<double> x(count);
    for (size_t i = 0; i < count; ++i) {
        const double u = rng.uniform();
        const double lo = s.lower[i], hi = s.upper[i];
        HyperPrior prior = s.priors[i];
        if (prior.kind == PriorKind::uniform) {
            if (std::isfinite(lo) && std::isfinite(hi))
                x[i] = lo == hi ? lo : mixture_uniform_quantile(u, lo, s.plausible_lower[i], s.plausible_upper[i], hi, w_mix);
            else
                x[i] = s.plausible_lower[i] + u * (s.plausible_upper[i] - s.plausible_lower[i]);
            continue;
        }
        if (prior.kind == PriorKind::student_t || prior.kind == PriorKind::smoothbox_student_t)
            prior.df = std::min(std::isfinite(prior.df) ? prior.df : 3.0, 3.0);
        const double c_lo = std::isfinite(lo) ? hyperprior_cdf(prior, lo) : 0.0;
        const double c_hi = std::isfinite(hi) ? hyperprior_cdf(prior, hi) : 1.0;
        x[i] = std::min(std::max(hyperprior_quantile(prior, c_lo + (c_hi - c_lo) * u, lo, hi), lo), hi);
    }
    return x;
}

// Partial Fisher-Yates: k distinct indices of [0, n) in random order.
std::vector<size_t> choose_without_replacement(size_t n, size_t k, Rng& rng) {
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), size_t{0});
    for (size_t i = 0; i < k; ++i) std::swap(idx[i], idx[i + rng.below(n - i)]);
    idx.resize(k);
    return idx;
}

std::vector<double> column_sd(const Rows& rows, size_t count) {
    std::vector<double> sd(count, 0.0);
    if (rows.size() < 2) return sd;
    for (size_t a = 0; a < count; ++a) {
        double mean = 0.0;
        for (const auto& r : rows) mean += r[a];
        mean /= static_cast<double>(rows.size());
        double ss = 0.0;
        for (const auto& r : rows) ss += (r[a] - mean) * (r[a] - mean);
        sd[a] = std::sqrt(ss / static_cast<double>(rows.size() - 1));
    }
    return sd;
}

// Index (into PyVBMC's iteration history) of the first iteration whose samples seed the starts.
long first_seed_training(long trainings) { return (trainings + 2) / 2 - 1; }  // ceil((t+1)/2) - 1

}  // namespace

int gp_train_sample_count(const GpTrainSettings& s, int n_points, int dim) {
    double count = 0.0;
    bool stop = s.stop_sampling;
    if (!stop) {
        count = s.ns_gp_max / std::sqrt(static_cast<double>(n_points));
        count = std::min(count, s.warmup ? s.ns_gp_max_warmup : s.ns_gp_max_main);
        if (n_points >= resolved(s.stable_gp_sampling, 200.0 + 10.0 * dim)) stop = true;
        if (s.vp_components >= s.stable_gp_vp_k) stop = true;
    }
    if (stop) count = s.stable_gp_samples;
    return static_cast<int>(std::nearbyint(count));
}

int gp_train_design_size(const GpTrainSettings& s, int n_points, int dim) {
    const double n_eff = resolved(s.n_eff, n_points);
    const double fun_eval_start = resolved(s.fun_eval_start, std::max(dim, 10));
    const double max_fun_evals = resolved(s.max_fun_evals, 50.0 * (2 + dim));
    // Cubic from gp_train_n_init (at fun_eval_start) to gp_train_n_init_final, in the budget
    // fraction xr clamped to [0, 1] (a budget no larger than fun_eval_start counts as spent).
    const double ca = -(s.gp_train_n_init - s.gp_train_n_init_final);
    const double budget_span = std::min(max_fun_evals, 1e3) - fun_eval_start;
    const double xr = budget_span > 0.0 ? std::clamp((n_eff - fun_eval_start) / budget_span, 0.0, 1.0) : 1.0;
    const double size = ca * xr * xr * xr - 3.0 * ca * xr * xr + 3.0 * ca * xr + s.gp_train_n_init;
    return std::max(static_cast<int>(std::nearbyint(size)), 9);
}

void GpTrainMemory::set_last_skl(double skl) {
    if (!records.empty()) records.back().skl = skl;
}

void GpTrainMemory::write(Writer& w) const {
    w.i64(trainings);
    w.u64(records.size());
    for (const GpTrainRecord& r : records) {
        w.matrix(r.samples);
        w.f64(r.skl);
    }
    w.matrix(run_cov);
}

GpTrainMemory GpTrainMemory::read(Reader& r) {
    GpTrainMemory m;
    m.trainings = r.bounded(0, INT64_C(1) << 40, "GP training count");
    const int64_t n = r.bounded(0, m.trainings, "GP training records");
    // One record at a time, so a corrupt count fails on the data it lacks, not in one huge allocation.
    for (int64_t i = 0; i < n; ++i) {
        GpTrainRecord rec;
        rec.samples = r.matrix();
        rec.skl = r.f64();
        m.records.push_back(std::move(rec));
    }
    m.run_cov = r.matrix();
    return m;
}

Gp gp_train(const GpData& data, const GpTrainSettings& settings, GpTrainMemory& memory, Rng& rng) {
    const int n = data.size();
    const int dim = data.x.cols;
    const int count = hyp::count(dim);
    const size_t ucount = static_cast<size_t>(count);
    if (n < 1) throw_error(Code::internal, "gp_train: the training set is empty");

    const GpHyperSetup setup = gp_hyper_setup(data, settings.plausible_lower, settings.plausible_upper, settings.hyperprior);
    const int n_samples = gp_train_sample_count(settings, n, dim);

    // Training options (PyVBMC _get_gp_training_options).
    const int thin = settings.gp_sample_thin;
    const long iteration = memory.trainings;
    const double r_index = iteration > 0 ? settings.previous_r_index : INFINITY;
    std::vector<double> widths;
    const Matrix hyp_cov = hyp_covariance(memory, settings, dim);
    if (settings.gp_sample_widths > 0.0 && !hyp_cov.empty()) {
        const double width_mult = std::max(settings.gp_sample_widths, r_index);
        widths.resize(ucount);
        for (size_t a = 0; a < ucount; ++a)
            widths[a] = std::max(std::sqrt(std::max(hyp_cov(static_cast<int>(a), static_cast<int>(a)), 0.0)), 1e-3) * width_mult;
    }
    const int design_size = gp_train_design_size(settings, n, dim);
    int burn, init_n, opts_n;
    if (settings.recompute_var_post) {
        burn = thin * n_samples;
        init_n = design_size;
        opts_n = n_samples > 0 ? 1 : 2;
    } else {
        burn = thin * 3;
        if (iteration > 1 && r_index < settings.gp_retrain_threshold) {
            init_n = 0;
            opts_n = n_samples > 0 ? 0 : 1;
        } else {
            init_n = design_size;
            opts_n = n_samples > 0 ? 1 : 2;
        }
    }

    // Starting points: samples of the latter half of past iterations and the last samples.
    Rows starts;
    auto usable = [&](const Matrix& m) { return m.cols == count; };
    if (init_n > 0 && iteration > 0) {
        const long first_kept = memory.trainings - static_cast<long>(memory.records.size());
        for (size_t k = 0; k < memory.records.size(); ++k) {
            if (first_kept + static_cast<long>(k) < first_seed_training(iteration)) continue;
            const Matrix& m = memory.records[k].samples;
            if (!usable(m)) continue;
            for (int r = 0; r < m.rows; ++r) starts.emplace_back(m.row(r), m.row(r) + count);
        }
        const size_t half = static_cast<size_t>(std::ceil(init_n / 2.0));
        if (starts.size() > init_n / 2.0) {
            Rows chosen;
            for (size_t i : choose_without_replacement(starts.size(), half, rng)) chosen.push_back(starts[i]);
            starts = std::move(chosen);
        }
    }
    if (!memory.records.empty() && usable(memory.records.back().samples)) {
        const Matrix& m = memory.records.back().samples;
        for (int r = 0; r < m.rows; ++r) starts.emplace_back(m.row(r), m.row(r) + count);
    } else {
        starts.push_back(setup.x0);
    }
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    for (auto& s : starts)
        for (size_t a = 0; a < ucount; ++a) s[a] = std::min(std::max(s[a], setup.lower[a]), setup.upper[a]);

    // Negative log posterior (gpyreg __gp_obj_fun); +inf outside the bounds. `scratch` holds the
    // LML's buffers and the prior's gradient: one per thread that evaluates it.
    struct Scratch {
        GpLmlWorkspace lml;
        std::vector<double> prior_grad;
    };
    auto in_bounds = [&](const std::vector<double>& t) {
        for (size_t a = 0; a < ucount; ++a)
            if (!(t[a] >= setup.lower[a] && t[a] <= setup.upper[a])) return false;
        return true;
    };
    auto neg_log_post_in = [&](Scratch& scratch, const std::vector<double>& t, std::vector<double>* grad) -> double {
        if (!in_bounds(t)) {
            if (grad != nullptr) grad->assign(ucount, 0.0);
            return INFINITY;
        }
        const double lml = gp_log_marginal_likelihood(data, t, grad, scratch.lml);
        if (!std::isfinite(lml)) return INFINITY;
        const double lp = gp_log_hyperprior(setup, t, grad != nullptr ? &scratch.prior_grad : nullptr);
        if (grad != nullptr)
            for (size_t a = 0; a < ucount; ++a) (*grad)[a] = -((*grad)[a] + scratch.prior_grad[a]);
        return -(lml + lp);
    };
    Scratch main_scratch;
    auto neg_log_post = [&](const std::vector<double>& t, std::vector<double>* grad) {
        return neg_log_post_in(main_scratch, t, grad);
    };

    // Score the design (or the starts alone) and keep the most promising points. The points are
    // independent, so the run's worker threads share them (util/parallel.hpp); each score depends
    // only on its point, so the scores are the same for any thread count.
    Rows design = starts;
    std::vector<double> widths_default;
    if (init_n > 0) {
        while (static_cast<int>(design.size()) < init_n) design.push_back(design_point(setup, rng));
    }
    std::vector<double> score(design.size());
    const int design_count = static_cast<int>(design.size());
    const int workers = std::max(1, std::min(current_threads(), design_count));
    std::vector<Scratch> worker_scratch(static_cast<size_t>(workers));
    parallel_for(design_count, workers, [&](int j, int worker) {
        const size_t at = static_cast<size_t>(j);
        score[at] = neg_log_post_in(worker_scratch[static_cast<size_t>(worker)], design[at], nullptr);
    });
    std::vector<size_t> order(design.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return score[a] < score[b]; });
    Rows sorted;
    std::vector<double> sorted_score;
    for (size_t j : order) {
        sorted.push_back(design[j]);
        sorted_score.push_back(score[j]);
    }
    if (!std::isfinite(sorted_score[0]))
        throw_error(Code::numeric, "GP training: no hyperparameter vector has a finite log posterior");
    Rows hyp;
    if (init_n > 0) {
        const size_t keep = static_cast<size_t>(std::max(opts_n, 1));
        hyp.assign(sorted.begin(), sorted.begin() + static_cast<long>(std::min(keep, sorted.size())));
        // A low-noise start for the second optimisation: best of the 20% lowest-noise points.
        if (opts_n > 1 && opts_n < init_n && sorted.size() > static_cast<size_t>(opts_n) && hyp.size() > 1) {
            std::vector<size_t> rest(sorted.size() - static_cast<size_t>(opts_n));
            std::iota(rest.begin(), rest.end(), static_cast<size_t>(opts_n));
            const size_t noise = static_cast<size_t>(hyp::log_sn(dim));
            std::stable_sort(rest.begin(), rest.end(), [&](size_t a, size_t b) { return sorted[a][noise] < sorted[b][noise]; });
            const size_t bottom = static_cast<size_t>(std::ceil(0.2 * rest.size()));
            size_t best = rest[0];
            for (size_t j = 1; j < bottom; ++j)
                if (sorted_score[rest[j]] < sorted_score[best]) best = rest[j];
            hyp[1] = sorted[best];
        }
        widths_default = column_sd(design, ucount);
    } else {
        hyp = sorted;
        widths_default.resize(ucount);
        for (size_t a = 0; a < ucount; ++a) widths_default[a] = setup.plausible_upper[a] - setup.plausible_lower[a];
    }
    {
        const std::vector<double> hyp_sd = column_sd(hyp, ucount);
        for (size_t a = 0; a < ucount; ++a) {
            if (widths_default[a] == 0.0 && hyp.size() > 1) widths_default[a] = hyp_sd[a];
            if (widths_default[a] == 0.0) widths_default[a] = std::min(1.0, setup.upper[a] - setup.lower[a]);
        }
    }
    // Strictly inside non-degenerate finite bounds.
    for (auto& h : hyp)
        for (size_t a = 0; a < ucount; ++a) {
            if (setup.lower[a] == setup.upper[a]) continue;
            if (std::isfinite(setup.lower[a])) h[a] = std::max(h[a], std::nextafter(setup.lower[a], INFINITY));
            if (std::isfinite(setup.upper[a])) h[a] = std::min(h[a], std::nextafter(setup.upper[a], -INFINITY));
        }

    // MAP from the best opts_n points.
    MinimizeOptions opt;
    opt.tol = n_samples > 0 ? settings.gp_tol_opt_mcmc : settings.gp_tol_opt;
    const ObjectiveWithGradient objective = [&](const std::vector<double>& t, std::vector<double>& g) {
        return neg_log_post(t, &g);
    };
    std::vector<double> hyp_start = hyp[0];
    double best = neg_log_post(hyp_start, nullptr);
    const size_t n_opts = std::min(static_cast<size_t>(std::max(opts_n, 0)), hyp.size());
    for (size_t i = 0; i < n_opts; ++i) {
        const MinimizeResult res = minimize_bounded(objective, hyp[i], setup.lower, setup.upper, opt);
        if (i == 0 || res.f < best) {
            best = res.f;
            hyp_start = res.x;
        }
    }
    if (!std::isfinite(best))
        throw_error(Code::numeric, "GP training: the hyperparameter optimisation ended at a non-finite log posterior");

    Matrix samples;
    Matrix full_samples;
    if (n_samples == 0) {
        samples = Matrix(1, count);
        std::copy(hyp_start.begin(), hyp_start.end(), samples.row(0));
    } else {
        std::vector<double> slice_widths = widths_default;
        if (!widths.empty())
            for (size_t a = 0; a < ucount; ++a) slice_widths[a] = std::min(widths[a], widths_default[a]);
        SliceSampleOptions so;
        so.n_samples = n_samples * thin;
        so.burn = burn;
        const LogDensity log_density = [&](const std::vector<double>& t) { return -neg_log_post(t, nullptr); };
        full_samples = slice_sample(log_density, hyp_start, slice_widths, setup.lower, setup.upper, so, rng).samples;
        samples = Matrix(n_samples, count);
        for (int s = 0; s < n_samples; ++s)
            std::copy(full_samples.row(s * thin + thin - 1), full_samples.row(s * thin + thin - 1) + count, samples.row(s));
    }

    Gp gp;
    gp.dim = dim;
    gp.data = data;
    if (gp.data.s2.empty()) gp.data.s2.assign(static_cast<size_t>(n), 0.0);
    for (int s = 0; s < samples.rows; ++s)
        gp.samples.push_back(gp_posterior(gp.data, std::vector<double>(samples.row(s), samples.row(s) + count)));

    // Running covariance of the pre-thinning samples (used when weighted_hyp_cov is off).
    if (!full_samples.empty() && full_samples.rows > 1) {
        Rows rows;
        for (int r = 0; r < full_samples.rows; ++r) rows.emplace_back(full_samples.row(r), full_samples.row(r) + count);
        Matrix cov(count, count);
        std::vector<double> mean(ucount, 0.0);
        for (const auto& r : rows)
            for (size_t a = 0; a < ucount; ++a) mean[a] += r[a] / rows.size();
        for (const auto& r : rows)
            for (int a = 0; a < count; ++a)
                for (int b = 0; b < count; ++b)
                    cov(a, b) += (r[static_cast<size_t>(a)] - mean[static_cast<size_t>(a)]) * (r[static_cast<size_t>(b)] - mean[static_cast<size_t>(b)]) / (rows.size() - 1.0);
        if (memory.run_cov.rows != count || settings.hyp_run_weight == 0.0) {
            memory.run_cov = cov;
        } else {
            const double w = std::pow(settings.hyp_run_weight, settings.fun_evals_per_iter);
            for (size_t k = 0; k < cov.data.size(); ++k) memory.run_cov.data[k] = (1.0 - w) * cov.data[k] + w * memory.run_cov.data[k];
        }
    }

    // Record this training and forget what no later training can use.
    memory.records.push_back(GpTrainRecord{samples, NAN});
    ++memory.trainings;
    const long first_kept = memory.trainings - static_cast<long>(memory.records.size());
    const std::vector<double> weights = record_weights(memory, settings, dim);
    size_t drop = 0;
    while (drop + 1 < memory.records.size() && first_kept + static_cast<long>(drop) < first_seed_training(memory.trainings) &&
           (!settings.weighted_hyp_cov || weights[drop] < std::max(kNegligibleWeight, settings.tol_cov_weight)))
        ++drop;
    memory.records.erase(memory.records.begin(), memory.records.begin() + static_cast<long>(drop));
    return gp;
}

double gp_noise_hpd(const Gp& gp) {
    const int n = gp.data.size();
    const int dim = gp.dim;
    if (n == 0 || gp.samples.empty()) throw_error(Code::internal, "gp_noise_hpd: the GP is empty");
    std::vector<int> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int i, int j) {
        return gp.data.y[static_cast<size_t>(i)] > gp.data.y[static_cast<size_t>(j)];
    });
    const size_t n_top = static_cast<size_t>(std::ceil(0.2 * n));
    std::vector<double> sn2(n_top, 0.0);
    for (size_t k = 0; k < n_top; ++k) {
        for (const GpSample& s : gp.samples) sn2[k] += gp_noise_variance(gp.data, gp_sn2(s.theta.data(), dim), order[k]);
        sn2[k] /= static_cast<double>(gp.samples.size());
    }
    std::sort(sn2.begin(), sn2.end());
    const size_t mid = n_top / 2;
    return n_top % 2 == 1 ? sn2[mid] : 0.5 * (sn2[mid - 1] + sn2[mid]);
}

}  // namespace libvbmc
