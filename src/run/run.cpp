// Run creation, the ask / tell / abandon calls and scalar statistics.
#include "run/run.hpp"

#include <cmath>
#include <cstring>
#include <sstream>

#include "acquisition/search_bounds.hpp"
#include "evidence/importance_evidence.hpp"
#include "run/termination.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

std::string number_text(double v) {
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
}

// How far from the plausible box's centre, in box widths (|z|, the transformed space), a point the
// user gives (x0, tell_extra) may lie. The surrogate squares such distances: a run whose x0 lies
// 1.7e154 widths out fails at every ask, one at 1.7e153 widths completes; 1e150 leaves room for
// sums over coordinates and length scales below 1.
constexpr double kMaxBoxWidths = 1e150;

}  // namespace

Run::Run(int dim, const double* x0, const double* lb, const double* ub, const double* plb,
         const double* pub, const OptionValues& options)
    : dim_(dim), option_values_(options), settings_(Settings::resolve(options, dim)), prior_(dim) {
    if (settings_.fun_eval_start > settings_.max_fun_evals)
        throw_error(Code::option, "option fun_eval_start = " + std::to_string(settings_.fun_eval_start) +
                                      " exceeds max_fun_evals = " + std::to_string(settings_.max_fun_evals));
    const auto kind = settings_.bounded_transform == "logit" ? ParameterTransform::Bounded::logit
                                                              : ParameterTransform::Bounded::probit;
    // NULL bounds mean unbounded.
    const std::vector<double> lower = lb ? std::vector<double>(lb, lb + dim) : std::vector<double>(static_cast<size_t>(dim), -INFINITY);
    const std::vector<double> upper = ub ? std::vector<double>(ub, ub + dim) : std::vector<double>(static_cast<size_t>(dim), INFINITY);
    transform_ = ParameterTransform(dim, lower.data(), upper.data(), plb, pub, kind);
    plb_x_.assign(plb, plb + dim);
    pub_x_.assign(pub, pub + dim);
    given_plb_x_ = plb_x_;
    given_pub_x_ = pub_x_;
    plb_z_.resize(static_cast<size_t>(dim));
    pub_z_.resize(static_cast<size_t>(dim));
    transform_.to_unbounded(plb, plb_z_.data());
    transform_.to_unbounded(pub, pub_z_.data());
    lb_z_.assign(static_cast<size_t>(dim), -INFINITY);
    ub_z_.assign(static_cast<size_t>(dim), INFINITY);
    initial_search_bounds(plb_z_, pub_z_, lb_z_, ub_z_, kActiveSearchBound, lb_search_, ub_search_);
    if (x0 != nullptr) require_near_plausible_box(x0, "x0");
    rng_.reseed(settings_.seed);
    warmup_ = settings_.warmup;
    draw_initial_design(x0);
}

// A point drawn uniformly in the transformed plausible box, in the original space.
std::vector<double> Run::uniform_in_plausible_box() {
    std::vector<double> z(static_cast<size_t>(dim_)), x(static_cast<size_t>(dim_));
    for (int d = 0; d < dim_; ++d) {
        const size_t u = static_cast<size_t>(d);
        z[u] = plb_z_[u] + rng_.uniform() * (pub_z_[u] - plb_z_[u]);
    }
    transform_.to_original(z.data(), x.data());
    return x;
}

// Initial design (paper section 3.5): x0 (by default the centre of the plausible box, as PyVBMC),
// then draws uniform in the transformed plausible box.
void Run::draw_initial_design(const double* x0) {
    std::vector<double> start(static_cast<size_t>(dim_));
    for (int d = 0; d < dim_; ++d) {
        const size_t u = static_cast<size_t>(d);
        start[u] = x0 != nullptr ? x0[d] : 0.5 * (plb_x_[u] + pub_x_[u]);
    }
    design_queue_.push_back(start);
    for (int i = 1; i < settings_.fun_eval_start; ++i) design_queue_.push_back(uniform_in_plausible_box());
}

int Run::find_pending(const double* x) const {
    for (size_t i = 0; i < pending_.size(); ++i)
        if (std::memcmp(pending_[i].data(), x, sizeof(double) * static_cast<size_t>(dim_)) == 0)
            return static_cast<int>(i);
    return -1;
}

void Run::require_near_plausible_box(const double* x, const char* what) const {
    std::vector<double> z(static_cast<size_t>(dim_));
    transform_.to_unbounded(x, z.data());
    for (int d = 0; d < dim_; ++d)
        if (!(std::fabs(z[static_cast<size_t>(d)]) <= kMaxBoxWidths))
            throw_error(Code::arg, std::string(what) + "[" + std::to_string(d) + "] = " + number_text(x[d]) +
                                       " lies more than 1e150 plausible-box widths from the box (in the "
                                       "transformed space), too far for the surrogate");
}

void Run::validate_point(const double* x, const char* what) const {
    for (int d = 0; d < dim_; ++d)
        if (!std::isfinite(x[d]))
            throw_error(Code::arg, std::string(what) + "[" + std::to_string(d) + "] = " + number_text(x[d]) +
                                       " is not finite");
}

// Every point the run may hand out now is pending (max_pending, the budget, an initial design
// or a locating step all out): the caller tells one first. Never with nothing pending, which
// would leave the caller waiting for ever.
AskResult Run::wait_for_tell() const {
    if (pending_.empty()) throw_error(Code::internal, "ask has no point to hand out and none is pending");
    return AskResult::wait;
}

AskResult Run::ask(double* x) {
    const PhaseTimer timer(times_.total);
    if (batch_complete()) close_batch();
    if (finished_) return AskResult::done;
    if (static_cast<int>(pending_.size()) >= settings_.max_pending) return wait_for_tell();
    // Never hand out a point the budget cannot take: its evaluation would be refused.
    if (spent() + static_cast<int>(pending_.size()) >= budget()) return wait_for_tell();
    std::vector<double> point;
    // The locating stage's point is empty when the stage has just ended.
    if (locate_.active() && !pending_.empty() && !locate_hands_out_more()) return wait_for_tell();
    if (locate_.active()) point = timed(times_.locate, [&] { return next_locate_point(); });
    if (point.empty() && in_initial_design_) {
        if (design_queue_.empty()) return wait_for_tell();
        point = design_queue_.front();
        design_queue_.erase(design_queue_.begin());
    } else if (point.empty()) {
        point = timed(times_.acquisition, [&] { return next_active_point(); });
    }
    pending_.push_back(point);
    std::memcpy(x, point.data(), sizeof(double) * static_cast<size_t>(dim_));
    return AskResult::point;
}

void Run::record_evaluation(const double* x, double told, double log_prior, double log_joint_sd, bool extra) {
    Evaluation e;
    e.x.assign(x, x + dim_);
    e.z.resize(static_cast<size_t>(dim_));
    transform_.to_unbounded(x, e.z.data());
    e.log_jacobian = transform_.log_abs_det_jacobian(e.z.data());
    e.log_likelihood = told;
    e.log_prior = log_prior;
    e.log_joint = prior_.given() ? told + log_prior : told;
    e.log_joint_sd = log_joint_sd;
    e.failed = !std::isfinite(e.log_joint);  // a failed evaluation, or outside the prior's support
    e.extra = extra;
    e.iteration = iteration_ + 1;
    if (log_joint_sd > 0.0 && !has_noisy_values_) {
        has_noisy_values_ = true;
        settings_.apply_noisy_defaults(option_values_);  // noisy mode from now on
    }
    const double below_best = e.failed ? NAN : reference_value() - e.log_joint_z();
    expand_search_bounds(e.z.data(), below_best, settings_.warmup_keep_threshold, lb_z_, ub_z_, lb_search_, ub_search_);
    evals_.add(std::move(e));
    if (!in_initial_design_ && !finished_) timed(times_.acquisition, [&] { add_to_search_gp(evals_.size() - 1); });
}

ValueShaping Run::value_shaping() const {
    ValueShaping s;
    s.noise_shaping = settings_.noise_shaping < 0 ? noisy_mode() : settings_.noise_shaping == 1;
    s.threshold = settings_.noise_shaping_threshold;
    s.factor = settings_.noise_shaping_factor;
    if (noisy_mode()) s.reference = reference_value();  // exact: the largest value itself (NaN)
    s.mean_dof = settings_.gp_mean_dof;
    return s;
}

double Run::reference_value() const {
    if (!noisy_mode() || search_gp_.samples.empty() || search_gp_.data.size() == 0) return evals_.max_training_value();
    return gp_max_training_mean(search_gp_);
}

int Run::uncertainty_handling_level() const {
    if (settings_.specify_target_noise || has_noisy_values_) return 2;
    return settings_.uncertainty_handling ? 1 : 0;
}

// The search surrogate's rank-1 update by evaluation i, at the tell and in checkpoint replay alike.
void Run::add_to_search_gp(int i) {
    const SurrogatePoint point = evals_.told_surrogate_point(i, value_shaping());
    if (std::isnan(point.y)) return;
    gp_add_point(search_gp_, evals_[i].z.data(), point.y, point.s2);
}

// Squares of values above kMaxTold (1e150, as the messages say) overflow; far-low values are
// penalties or floored instead (training_index, surrogate_point).
static void check_value(double log_joint, double log_joint_sd) {
    if (!std::isfinite(log_joint_sd) || log_joint_sd < 0.0 || log_joint_sd > kMaxTold)
        throw_error(Code::arg,
                    "log_joint_sd = " + number_text(log_joint_sd) + " must be finite, >= 0 and at most 1e150");
    if (std::isfinite(log_joint) && log_joint > kMaxTold)
        throw_error(Code::arg, "log_joint = " + number_text(log_joint) +
                                   " is above 1e150, more than the surrogate can represent (tell NaN for a "
                                   "failed evaluation)");
}

void Run::tell(const double* x, double log_joint, double log_joint_sd) {
    const PhaseTimer timer(times_.total);
    validate_point(x, "x");
    check_value(log_joint, log_joint_sd);
    const int index = find_pending(x);
    if (index < 0)
        throw_error(Code::state, "x is not a pending point (it was never asked, was already told, or differs "
                                 "bitwise from the asked point)");
    const double log_prior = told_log_prior(x, log_joint);
    record_evaluation(x, log_joint, log_prior, log_joint_sd, false);
    pending_.erase(pending_.begin() + index);
    if (locate_.active() || !locate_.differences_out.empty()) timed(times_.locate, [&] { locate_after_tell(evals_.size() - 1); });
    // A point still pending when the run finished: its value is kept in the history, the final
    // posterior stays as it is.
    if (finished_) return;
    ++batch_told_;
    after_tell();
}

void Run::tell_extra(const double* x, double log_joint, double log_joint_sd) {
    const PhaseTimer timer(times_.total);
    validate_point(x, "x");
    check_value(log_joint, log_joint_sd);
    if (!transform_.inside_bounds(x))
        throw_error(Code::arg, "x lies outside the hard bounds (lb, ub)");
    require_near_plausible_box(x, "x");
    if (finished_) throw_error(Code::state, "the run has finished");
    const double log_prior = told_log_prior(x, log_joint);
    record_evaluation(x, log_joint, log_prior, log_joint_sd, true);
    after_tell();
}

void Run::abandon(const double* x) {
    const PhaseTimer timer(times_.total);
    validate_point(x, "x");
    const int index = find_pending(x);
    if (index < 0) throw_error(Code::state, "x is not a pending point");
    if (locate_.active()) {
        abandon_locate_point(x);
    } else if (!take_difference_out(x) && in_initial_design_) {
        design_queue_.insert(design_queue_.begin(), pending_[static_cast<size_t>(index)]);
    }
    pending_.erase(pending_.begin() + index);
}

// True when the told values complete the current batch (or spend the budget) and the iteration
// they call for has not run yet.
bool Run::batch_complete() const {
    if (finished_) return false;
    if (locate_.active()) return budget_spent();
    if (in_initial_design_) return (design_queue_.empty() && pending_.empty()) || budget_spent();
    return batch_told_ >= settings_.fun_evals_per_iter || budget_spent();
}

// After a told value: close the batch when it is complete. A failed iteration leaves the run as
// it was before it (the told values kept) and is retried, with its error, by the next ask.
void Run::after_tell() {
    if (!batch_complete()) return;
    try {
        close_batch();
    } catch (const Error& e) {
        log(kLogWarn, std::string("The iteration failed and is retried at the next ask: ") + e.what());
    }
}

// The end of the initial design: more points while fewer than 3 values are finite, the end of a
// run with none, the locating stage when it is due (or the end of one the budget cut short).
// Returns true when the first iteration should run now.
bool Run::close_initial_design() {
    const int finite = static_cast<int>(evals_.training_index().size());
    if (finite < 3 && !budget_spent()) {
        for (int i = 0; i < settings_.fun_evals_per_iter; ++i) design_queue_.push_back(uniform_in_plausible_box());
        log(kLogWarn, "fewer than 3 finite values in the initial design; drawing more points");
        return false;
    }
    if (finite < 1) {
        finished_ = true;
        termination_message_ = "the budget max_fun_evals = " + std::to_string(settings_.max_fun_evals) +
                               " was spent without a single finite log-joint value";
        log(kLogWarn, termination_message_);
        return false;
    }
    if (locate_.active()) finish_locating();
    std::string reason;
    if (!budget_spent() && locate_due(reason)) {
        start_locating(reason);
        return false;
    }
    return true;
}

void Run::close_batch() {
    if (in_initial_design_ && !close_initial_design()) return;
    Run before = *this;
    try {
        end_iteration();
    } catch (...) {
        const PhaseTimes spent = times_;  // the failed iteration's time was spent all the same
        *this = std::move(before);
        times_ = spent;
        throw;
    }
}

bool Run::checkpoint_due() {
    if (settings_.checkpoint_file.empty()) return false;
    if (++tells_since_checkpoint_ < settings_.checkpoint_every) return false;
    tells_since_checkpoint_ = 0;
    return true;
}

double Run::stat(const std::string& name) const {
    const IterationRecord* last = history_.empty() ? nullptr : &history_.back();
    if (name == "iteration") return iteration_ + 1;
    if (name == "func_count") return evals_.size();
    if (name == "reused_count") return reused_count_;
    if (name == "failed_count") return evals_.failed_count();
    if (name == "penalty_count") return evals_.penalty_count();
    if (name == "train_count") return static_cast<double>(evals_.training_index().size());
    if (name == "elbo") return has_final_ ? final_.elbo : last ? last->elbo : NAN;
    if (name == "elbo_sd") return has_final_ ? final_.elbo_sd : last ? last->elbo_sd : NAN;
    if (name == "components") return has_final_ ? final_.vp.k : last ? last->vp.k : 0;
    if (name == "converged") return converged_ ? 1 : 0;
    if (name == "warmup") return warmup_ ? 1 : 0;
    if (name == "finished") return finished_ ? 1 : 0;
    if (name == "pending") return static_cast<double>(pending_.size());
    if (name == "stable_count") {
        int count = 0;
        for (auto it = history_.rbegin(); it != history_.rend() && it->stable; ++it) ++count;
        return count;
    }
    if (name == "gp_samples") return last ? last->n_gp_samples : 0;
    if (name == "r_index") return last ? last->r_index : INFINITY;
    if (name == "dim") return dim_;
    if (name == "max_fun_evals") return budget();
    if (name == "retried") return retried_ ? 1 : 0;
    if (name == "reliable") return has_verdict_ ? (reliability_.reliable() ? 1 : 0) : NAN;
    if (name == "loo_error") return has_verdict_ ? reliability_.loo_error : NAN;
    if (name == "mass_above_data") return has_verdict_ ? reliability_.mass_above_data : NAN;
    if (name == "mass_unexplored") return has_verdict_ ? reliability_.mass_unexplored : NAN;
    if (name == "best_value_gap") return has_verdict_ ? reliability_.best_value_gap : NAN;
    if (name == "box_excess") return has_verdict_ ? reliability_.box_excess : NAN;
    if (name == "locating") return locate_.active() ? 1 : 0;
    if (name == "locate_evals") return locate_.spent;
    if (name == "noisy") return noisy_mode() ? 1 : 0;
    if (name == "log_z" || name == "log_z_sd") {
        if (!has_posterior()) return NAN;
        const PosteriorSnapshot snapshot = posterior();
        const LogEvidence evidence = log_evidence(snapshot.vp, posterior_surrogate().build());
        return name == "log_z" ? evidence.log_z : evidence.log_z_sd;
    }
    if (name == "log_z_bbq") return bbq_of_posterior().log_z;
    if (name == "log_z_bbq_sd") return bbq_of_posterior().log_z_sd;
    if (name == "has_prior") return prior_.given() ? 1 : 0;
    double seconds = 0.0;
    if (phase_time_stat(times_, name, seconds)) return seconds;
    throw_error(Code::arg, "unknown statistic \"" + name + "\"");
}

BbqResult Run::bbq_of_posterior() const {
    if (!has_posterior()) return {NAN, NAN};
    const PosteriorSnapshot snapshot = posterior();
    return bbq_log_evidence(posterior_surrogate().data, snapshot.vp);
}

std::string Run::result_message() const {
    if (!finished_) return "";
    std::string message = "Inference terminated: " + termination_message_ + ".";
    if (has_verdict_ && !reliability_.reliable()) message += " The result is unreliable: " + reliability_.summary() + ".";
    else if (has_final_ && !converged_) message += " The returned solution may not have converged.";
    if (!has_posterior()) message += " There is no posterior.";
    return message;
}

PosteriorSnapshot Run::posterior() const {
    if (!has_posterior())
        throw_error(Code::state, finished_ ? "no posterior: the run has finished; " + termination_message_
                                           : "no posterior yet: the first iteration has not completed");
    if (has_final_) return final_;
    PosteriorSnapshot p;
    p.vp = vp_;
    p.transform = transform_;
    p.elbo = history_.back().elbo;
    p.elbo_sd = history_.back().elbo_sd;
    return p;
}

// finish() boosted the returned posterior against the last iteration's surrogate (gp_) or, when
// it returns an earlier iteration's solution, against that iteration's; a posterior taken during
// the run is the last iteration's, fitted to gp_.
SurrogateRecord Run::posterior_surrogate() const {
    if (has_final_) {
        const int best = best_iteration(history_, settings_);
        if (best != static_cast<int>(history_.size()) - 1) {
            return surrogate_record_of(history_[static_cast<size_t>(best)]);
        }
    }
    SurrogateRecord record{gp_.data, {}};
    for (const GpSample& sample : gp_.samples) record.thetas.push_back(sample.theta);
    return record;
}

PosteriorSnapshot Run::history_posterior(int i) const {
    const IterationRecord& record = history_.at(static_cast<size_t>(i));
    PosteriorSnapshot p;
    p.vp = record.vp;
    p.transform = record.transform;
    p.elbo = record.elbo;
    p.elbo_sd = record.elbo_sd;
    return p;
}

SurrogateRecord Run::history_surrogate(int i) const { return surrogate_record_of(history_.at(static_cast<size_t>(i))); }

}  // namespace libvbmc
