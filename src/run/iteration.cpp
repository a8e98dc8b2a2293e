// One VBMC iteration, run by the tell that completes a batch (paper Algorithm 1, lines 11-20):
// train the surrogate, choose K, optimise the variational posterior, then apply the
// termination and warm-up rules. Also the next active point (line 9) and the final boost.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "acquisition/acq_registry.hpp"
#include "acquisition/active_sample.hpp"
#include "acquisition/shortlist.hpp"
#include "elbo/optimize_vp.hpp"
#include "elbo/update_k.hpp"
#include "elbo/vp_candidates.hpp"
#include "run/run.hpp"
#include "run/termination.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {
std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
    return out;
}
}  // namespace

GpTrainSettings Run::gp_train_settings() const {
    GpTrainSettings s;
    s.ns_gp_max = settings_.ns_gp_max;
    s.ns_gp_max_warmup = settings_.ns_gp_max_warmup;
    s.stable_gp_sampling = settings_.stable_gp_sampling;
    s.fun_evals_per_iter = settings_.fun_evals_per_iter;
    s.fun_eval_start = settings_.fun_eval_start;
    s.max_fun_evals = settings_.max_fun_evals;
    s.tol_skl = settings_.tol_skl;
    s.hyperprior.tol_sd = settings_.tol_sd;
    s.hyperprior.uncertainty_handling_level = uncertainty_handling_level();
    s.hyperprior.noise_size = settings_.noise_size;
    s.plausible_lower = plb_z_;
    s.plausible_upper = pub_z_;
    s.warmup = warmup_;
    s.stop_sampling = stop_sampling_n_ > 0;
    s.recompute_var_post = recompute_var_post_;
    s.vp_components = vp_.k;
    s.previous_r_index = history_.empty() ? INFINITY : history_.back().r_index;
    return s;
}

VpOptimSettings Run::vp_optim_settings() const {
    VpOptimSettings s = vp_optim_defaults(dim_);
    s.elbo_starts = settings_.elbo_starts;
    s.tol_improvement = settings_.tol_improvement;
    s.elcbo_impro_weight = settings_.elcbo_impro_weight;
    s.tol_stable_count = settings_.tol_stable_count;
    s.fun_evals_per_iter = settings_.fun_evals_per_iter;
    s.min_final_components = settings_.min_final_components;
    s.boost_component_scales = settings_.component_scales != "none";
    s.warmup = warmup_;
    return s;
}

// Option search_acq_fcn lists the acquisition functions used in turn: point j of an
// iteration's batch uses item j modulo the list's length.
AcqSettings Run::acq_settings(int point_in_batch) const {
    AcqSettings s;
    const std::vector<std::string> kinds = split_text(settings_.search_acq_fcn, ',');
    const std::string& kind = kinds[static_cast<size_t>(point_in_batch) % kinds.size()];
    s.kind = acq_find(kind)->kind;  // the option admits registry names only
    s.ns_search = settings_.ns_search;
    s.search_max_fun_evals = settings_.search_max_fun_evals;
    s.lb_search = lb_search_;
    s.ub_search = ub_search_;
    s.plausible_drop = settings_.warmup_keep_threshold;
    if (noisy_mode()) s.y_max = reference_value();  // exact: the largest training value (NaN)
    return s;
}

// Paper section 3.3: the next point maximises the acquisition function under the surrogate
// updated with every value told since the last iteration; pending points count as observed
// at their predicted mean so parallel asks spread out. With max_pending > 1 the candidates are
// the iteration's shortlist and a few fresh draws (acquisition/shortlist.hpp).
std::vector<double> Run::next_active_point() {
    Matrix avoid(0, dim_);
    for (const auto& x : pending_) {
        std::vector<double> z(static_cast<size_t>(dim_));
        transform_.to_unbounded(x.data(), z.data());
        avoid.append_row(z.data(), dim_);
    }
    const int point_in_batch = batch_told_ + static_cast<int>(pending_.size());
    AcqSettings s = acq_settings(point_in_batch);
    std::vector<double> z;
    if (settings_.max_pending > 1) {
        const Matrix& shortlist = shortlist_for(s);
        s.ns_search = shortlist.rows + shortlist_fresh_count(s);
        s.cache_frac = static_cast<double>(shortlist.rows) / s.ns_search;
        z = acquire(search_gp_, vp_, avoid, shortlist, s, rng_).x;
    } else {
        z = acquire_point(search_gp_, vp_, avoid, s, rng_);
    }
    std::vector<double> x(static_cast<size_t>(dim_));
    transform_.to_original(z.data(), x.data());
    return x;
}

// The iteration's shortlist for the acquisition function of s, drawn from a stream of its own
// (the seed, the iteration and the function), so that it never depends on when it is first
// needed and a loaded run draws the same one.
const Matrix& Run::shortlist_for(const AcqSettings& s) {
    for (const Shortlist& kept : shortlists_)
        if (kept.iteration == iteration_ && kept.kind == s.kind) return kept.points;
    shortlists_.erase(std::remove_if(shortlists_.begin(), shortlists_.end(),
                                     [&](const Shortlist& kept) { return kept.iteration != iteration_; }),
                      shortlists_.end());
    const uint64_t stream = static_cast<uint64_t>(settings_.seed) * 0x9E3779B97F4A7C15ull +
                            static_cast<uint64_t>(iteration_ + 1) * 0xBF58476D1CE4E5B9ull +
                            static_cast<uint64_t>(s.kind);
    Rng rng(stream);
    shortlists_.push_back({iteration_, s.kind, acquisition_shortlist(gp_, vp_, s, rng)});
    return shortlists_.back().points;
}

void Run::train_surrogate(IterationRecord& record) {
    gp_train_index_ = evals_.training_index();
    gp_shaping_ = value_shaping();
    record.value_shaping = gp_shaping_;
    const GpData data = evals_.training_data(gp_train_index_, dim_, gp_shaping_);
    if (stop_sampling_n_ == 0 && data.size() >= settings_.stable_gp_sampling) {
        stop_sampling_n_ = data.size();
        record.action += record.action.empty() ? "switch to GP opt" : ", switch to GP opt";
    }
    gp_ = gp_train(data, gp_train_settings(), gp_memory_, rng_);
    record.n_train = data.size();
    record.n_gp_samples = static_cast<int>(gp_.samples.size());
    record.sn2_hpd = gp_noise_hpd(gp_);
    record.train_index = gp_train_index_;
    for (const GpSample& sample : gp_.samples) record.gp_thetas.push_back(sample.theta);
}

// Largest lower confidence bound of the surrogate at the training points (PyVBMC lcb_max).
static double surrogate_lcb_max(const Gp& gp, double beta) {
    std::vector<double> mean, var;
    gp_predict(gp, gp.data.x, mean, var);
    double best = -INFINITY;
    for (size_t i = 0; i < mean.size(); ++i) best = std::max(best, mean[i] - beta * std::sqrt(var[i]));
    return best;
}

void Run::end_iteration() {
    ++iteration_;
    IterationRecord record;
    record.iteration = iteration_;
    record.warmup = warmup_;
    std::vector<std::string> actions;
    if (iteration_ == 0 && warmup_) actions.push_back("start warm-up");
    if (!carried_action_.empty()) actions.push_back(carried_action_);
    carried_action_.clear();
    timed(times_.gp_train, [&] { train_surrogate(record); });
    search_gp_ = gp_;  // the reference value (noisy mode) from the new surrogate on
    if (!record.action.empty()) actions.push_back(record.action);

    // Variational optimisation (paper 3.2, 3.6).
    const VariationalPosterior vp_old = vp_;
    if (iteration_ == 0) {
        // PyVBMC starts the posterior at x0; after a locating stage, at the located top; a warm
        // start that re-uses evaluations, at its x0 (evaluation 0 is the previous run's).
        std::vector<double> start = evals_[0].z;
        if (!start_x_.empty()) transform_.to_unbounded(start_x_.data(), start.data());
        if (!locate_.located_x.empty()) transform_.to_unbounded(locate_.located_x.data(), start.data());
        vp_ = vp_initial(dim_, 2, start.data(), rng_);
        if (settings_.component_scales == "all") vp_ = vp_with_component_scales(vp_);
    }
    const VpOptimSettings vs = vp_optim_settings();
    std::vector<IterationSummary> summaries;
    for (const IterationRecord& r : history_) summaries.push_back({r.elbo, r.elbo_sd, r.r_index, r.warmup, r.pruned});
    const int k_new = update_k(vp_.k, record.n_train, warmup_, iteration_, recompute_var_post_, summaries, vs);
    int n_fast = 0, n_slow = 0;
    vp_optim_counts(vs, vp_.k, recompute_var_post_, n_fast, n_slow);
    recompute_var_post_ = false;
    const ElboEstimate fit =
        timed(times_.vp_optim, [&] { return optimize_vp(vp_, gp_, vs, k_new, n_fast, n_slow, rng_, &record.pruned); });
    record.elbo = fit.elbo;
    record.elbo_sd = fit.elbo_sd;
    record.gp_sample_var = fit.var_ss;
    const auto kl = vp_kl_gauss(vp_, vp_old.k > 0 ? vp_old : vp_);
    record.skl = std::max(0.0, 0.5 * (kl.first + kl.second));
    gp_memory_.set_last_skl(record.skl);
    record.lcb_max = surrogate_lcb_max(gp_, settings_.elcbo_impro_weight);
    record.func_count = evals_.size();
    record.vp = vp_;
    record.transform = transform_;
    history_.push_back(record);

    IterationRecord& now = history_.back();
    const bool finish_now = termination_due(now, actions);

    // End of warm-up (paper 3.5).
    if (warmup_ && iteration_ > 0 &&
        warmup_should_end(history_, settings_, data_trim_list_, record.n_train, evals_.size())) {
        end_warmup(actions);
    }
    now.action = join(actions);
    log_iteration_row(now, gp_);

    search_gp_ = gp_;
    batch_told_ = 0;
    in_initial_design_ = false;
    if (finish_now) {
        finish();
        return;
    }
    // An accepted rotoscaling is followed by an iteration without new points (PyVBMC skips
    // active sampling after warping).
    if (warping_due() && try_rotoscaling()) end_iteration();
}

// Termination (paper 3.7) after the current iteration (`now`, the last record): whether the run
// finishes now; adds the iteration's termination actions ("stable", "retry", ...).
bool Run::termination_due(IterationRecord& now, std::vector<std::string>& actions) {
    std::tie(now.r_index, now.elcbo_impro) = reliability_index(history_, settings_);
    bool finish_now = false, stopped_stable = false;
    if (budget_spent()) {
        finish_now = true;
        termination_message_ = "reached the maximum number of function evaluations (max_fun_evals)";
    }
    if (iteration_ + 1 >= settings_.max_iter) {
        finish_now = true;
        termination_message_ = "reached the maximum number of iterations (max_iter)";
    }
    now.stable = is_stable(history_, settings_);
    if (stop_sampling_n_ == 0 && !warmup_ && gp_sampling_settled(history_, settings_)) {
        stop_sampling_n_ = now.n_train;
        actions.push_back("switch to GP opt");
    }
    const bool settled = settled_after_warping(iteration_, last_successful_warping_, settings_);
    if (now.stable) actions.push_back("stable");
    // min_fun_evals and min_iter delay only this stop: the budget and max_iter are hard limits
    // (no point beyond max_fun_evals is ever asked, so a run held open there could not go on).
    const bool too_early = spent() < settings_.min_fun_evals || iteration_ < settings_.min_iter;
    if (now.stable && settled && !too_early) {
        // Stable is not enough: the surrogate must hold where the posterior puts its mass.
        const ReliabilityCheck check = check_result(gp_, vp_, now.elbo_sd);
        if (check.reliable()) {
            finish_now = stopped_stable = true;
            termination_message_ = "the variational solution was stable for tol_stable_count evaluations";
        } else {
            actions.push_back("stable but unreliable");
        }
    }
    if (finish_now && !stopped_stable && retry_due()) {
        start_retry(actions);
        finish_now = false;
    }
    return finish_now;
}

// Option retry_max_fun_evals (MATLAB VBMC's RetryMaxFunEvals): a run that spent its budget without
// stopping as stable and reliable, and could go on (max_iter not reached), goes on once with that
// many more evaluations. MATLAB starts a new run from the best iteration's posterior with fewer
// evaluations for its initial design; going on from where the run stopped keeps every evaluation
// and the surrogate.
bool Run::retry_due() const {
    return !retried_ && settings_.retry_max_fun_evals > 0 && budget_spent() && iteration_ + 1 < settings_.max_iter;
}

void Run::start_retry(std::vector<std::string>& actions) {
    retried_ = true;
    termination_message_.clear();
    actions.push_back("retry");
    log(kLogWarn, "The run has not converged within max_fun_evals = " + std::to_string(settings_.max_fun_evals) +
                      " evaluations: retrying with retry_max_fun_evals = " +
                      std::to_string(settings_.retry_max_fun_evals) + " more (once).");
}

// The surrogate's checks (run/reliability.hpp), and the run's own: the best told log joint may not
// have risen by more than the locating tolerance, max(1, D/2) + 3 noise SDs, over the last
// tol_stable_count evaluations (a run still climbing has not found the top of the posterior,
// wherever its surrogate settled); and the posterior may lie at most kMaxBoxExcess plausible-box
// widths beyond the box the user gave (see box_excess).
ReliabilityCheck Run::check_result(const Gp& gp, const VariationalPosterior& vp, double elbo_sd) const {
    ReliabilityCheck check = check_reliability(gp, vp, elbo_sd, evals_.typical_noise_sd());
    check.box_excess = box_excess(vp);
    if (check.box_excess > kMaxBoxExcess) {
        char line[320];
        std::snprintf(line, sizeof line, "the posterior lies %.3g plausible-box widths beyond the box given (more than "
                      "%.3g): the box does not bracket the mass, and the searches that start in it may have missed "
                      "other modes beyond it", check.box_excess, kMaxBoxExcess);
        check.problems.push_back(line);
    }
    std::vector<double> told;
    for (int i = 0; i < evals_.size(); ++i) told.push_back(evals_[i].failed ? NAN : evals_[i].log_joint);
    const double rise = best_value_rise(told, settings_.tol_stable_count);
    if (rise > locate_tolerance()) {
        char line[256];
        std::snprintf(line, sizeof line, "the best log joint told rose by %.3g over the last %d evaluations (more than "
                      "%.3g): the run was still climbing", rise, settings_.tol_stable_count, locate_tolerance());
        check.problems.push_back(line);
    }
    return check;
}

// How far q's mean lies beyond the plausible box the user gave, in widths of that box, in the
// coordinate where it lies furthest (0 inside it), measured in the transformed space of that box
// (hard bounds mapped, no linear stage). The locating stage and VBMC's exploration start from
// that box: where the mass lies far beyond it, nothing searched the region around the mass for
// other modes (bench/real's hmm_drive: its prior box holds no start that climbs to the main mode,
// three widths beyond it, and a secondary mode two widths beyond it looks like a clean result).
double Run::box_excess(const VariationalPosterior& vp) const {
    std::vector<double> mean_z(static_cast<size_t>(dim_), 0.0), mean_x(mean_z), z(mean_z), low(mean_z), high(mean_z);
    for (int k = 0; k < vp.k; ++k)
        for (int d = 0; d < dim_; ++d) mean_z[static_cast<size_t>(d)] += vp.w[static_cast<size_t>(k)] * vp.mu(k, d);
    transform_.to_original(mean_z.data(), mean_x.data());
    const ParameterTransform given = transform_.with_plausible_box(given_plb_x_.data(), given_pub_x_.data());
    given.to_unbounded(mean_x.data(), z.data());
    given.to_unbounded(given_plb_x_.data(), low.data());
    given.to_unbounded(given_pub_x_.data(), high.data());
    double excess = 0.0;
    for (size_t d = 0; d < z.size(); ++d)
        excess = std::max(excess, std::max(low[d] - z[d], z[d] - high[d]) / (high[d] - low[d]));
    return excess;
}

// PyVBMC _setup_vbmc_after_warmup: accept the end of warm-up (or, on a false alarm, only trim)
// and drop training points far below the best value; the surrogate is refitted on what is kept.
void Run::end_warmup(std::vector<std::string>& actions) {
    double threshold;
    if (history_.back().r_index < settings_.stop_warmup_reliability || !data_trim_list_.empty()) {
        warmup_ = false;
        actions.push_back("end warm-up");
        threshold = settings_.warmup_keep_threshold * (static_cast<double>(data_trim_list_.size()) + 1);
        vp_.optimize_weights = true;
    } else {
        threshold = settings_.warmup_keep_threshold_false_alarm * (static_cast<double>(data_trim_list_.size()) + 1);
        data_trim_list_.push_back(static_cast<int>(evals_.training_index().size()));
        actions.push_back("trim data");
    }
    const std::vector<int> index = evals_.training_index();
    // Exact target: values as told, from the largest told; noisy: transformed values, from the
    // reference value (the surrogate's largest mean at the training points).
    const bool noisy = noisy_mode();
    auto value = [&](int i) { return noisy ? evals_[i].log_joint_z() : evals_[i].log_joint; };
    double y_max = noisy ? reference_value() : -INFINITY;
    if (!noisy)
        for (int i : index) y_max = std::max(y_max, value(i));
    std::vector<int> order = index;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return value(a) > value(b); });
    const int keep_min = dim_ + 1;
    for (size_t r = 0; r < order.size(); ++r) {
        Evaluation& e = evals_[order[r]];
        if (static_cast<int>(r) >= keep_min && y_max - value(order[r]) >= threshold) e.in_training = false;
    }
    recompute_var_post_ = true;
    // Refit every hyperparameter sample on the kept points (PyVBMC reupdate_gp).
    gp_train_index_ = evals_.training_index();
    std::vector<std::vector<double>> thetas;
    for (const GpSample& sample : gp_.samples) thetas.push_back(sample.theta);
    gp_ = gp_from_samples(evals_.training_data(gp_train_index_, dim_, gp_shaping_), thetas);
}

SurrogateRecord Run::surrogate_record_of(const IterationRecord& record) const {
    return {evals_.training_data(record.train_index, record.transform, record.value_shaping), record.gp_thetas};
}

// The final boost of the chosen iteration's posterior (final_boost), kept unless it makes the result
// unreliable (prefer_unboosted; lumpy_D2 seed 1: the boost stretched components where the
// surrogate is unexplored, 10.2% of q's mass, ELBO SD 0.0016 -> 0.23, gsKL 1.08). Returns the
// verdict on the posterior kept.
ReliabilityCheck Run::boost_final(const IterationRecord& chosen, const Gp& gp) {
    VpOptimSettings vs = vp_optim_settings();
    vs.warmup = false;
    final_.vp.optimize_weights = true;
    const ElboEstimate boosted = timed(times_.final_boost, [&] { return vp_final_boost(final_.vp, gp, vs, rng_); });
    final_.elbo = boosted.elbo;
    final_.elbo_sd = boosted.elbo_sd;
    const ReliabilityCheck boosted_check = check_result(gp, final_.vp, final_.elbo_sd);
    ReliabilityCheck verdict;
    if (prefer_unboosted(boosted_check, [&] { return check_result(gp, chosen.vp, chosen.elbo_sd); }, verdict)) {
        log(kLogInfo, "The final boost made the result unreliable (" + boosted_check.summary() +
                          "); the unboosted posterior is returned.");
        final_.vp = chosen.vp;
        final_.elbo = chosen.elbo;
        final_.elbo_sd = chosen.elbo_sd;
    }
    IterationRecord row = chosen;
    row.vp = final_.vp;
    row.elbo = final_.elbo;
    row.elbo_sd = final_.elbo_sd;
    row.func_count = evals_.size();
    row.action = "finalize";
    log_iteration_row(row, gp);
    return verdict;
}

// End of the run: pick the returned iteration (PyVBMC determine_best_vp), refit it with more
// components and entropy samples (final_boost) and re-estimate its ELBO precisely.
void Run::finish() {
    finished_ = true;
    const int best = best_iteration(history_, settings_);
    const IterationRecord& chosen = history_[static_cast<size_t>(best)];
    converged_ = chosen.stable;
    final_.transform = chosen.transform;
    final_.vp = chosen.vp;
    final_.elbo = chosen.elbo;
    final_.elbo_sd = chosen.elbo_sd;
    const Gp gp = best == static_cast<int>(history_.size()) - 1 ? gp_ : surrogate_of(chosen);
    reliability_ = settings_.do_final_boost ? boost_final(chosen, gp) : check_result(gp, final_.vp, final_.elbo_sd);
    has_final_ = true;
    has_verdict_ = true;
    converged_ = converged_ && reliability_.reliable();
    char line[256];
    std::snprintf(line, sizeof line, "Inference terminated: %s.", termination_message_.c_str());
    log_summary(line);
    std::snprintf(line, sizeof line, "Estimated ELBO: %.3f +/- %.3f.", final_.elbo, final_.elbo_sd);
    log_summary(line);
    log_evidence_summary(gp);
    if (!reliability_.reliable())
        log(kLogWarn, "Caution: the result is unreliable: " + reliability_.summary() + ".");
    else if (!converged_)
        log(kLogWarn, "Caution: the returned variational solution may not have converged.");
}

}  // namespace libvbmc
