// The VBMC run as a resumable ask-tell state machine (paper Algorithm 1, turned inside out).
//
// Every public call advances the state; nothing held between calls depends on the caller's
// memory, so the whole state can be written to a checkpoint. An iteration collects a batch of
// evaluations (the initial design, then n_active actively sampled points); the tell that
// completes the batch trains the surrogate, optimises the variational posterior, applies the
// warm-up / adaptive-K / termination rules and, at the end, the final boost.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "acquisition/acq_settings.hpp"
#include "bq/bbq.hpp"
#include "gp/gp.hpp"
#include "gp/surrogate_record.hpp"
#include "elbo/vp_optim_settings.hpp"
#include "gp/train.hpp"
#include "options/options.hpp"
#include "prior/prior.hpp"
#include "run/evaluations.hpp"
#include "run/history.hpp"
#include "run/locate_state.hpp"
#include "run/phase_times.hpp"
#include "run/posterior.hpp"
#include "run/reliability.hpp"
#include "transforms/parameter_transform.hpp"
#include "util/rng.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

// Log levels, as VBMC_LOG_* of the public header.
constexpr int kLogError = 0;
constexpr int kLogWarn = 1;
constexpr int kLogInfo = 2;

using LogSink = std::function<void(int level, const std::string& line)>;

// What an ask hands out: a point, nothing because the run has finished, or nothing until a
// pending point is told or abandoned.
enum class AskResult { point, done, wait };

class Run {
public:
    Run(int dim, const double* x0, const double* lb, const double* ub, const double* plb,
        const double* pub, const OptionValues& options);
    // A new run from previous's posterior (run/warm_start.cpp; vbmc_create_warm): its hard bounds,
    // x0 and plausible box from that posterior and, with reuse, its training set as told values.
    // Throws Error(state) when previous has no posterior.
    static Run warm_start(const Run& previous, const OptionValues& options, bool reuse);

    int dim() const { return dim_; }
    // Fills x (original space) when it returns AskResult::point.
    AskResult ask(double* x);
    void tell(const double* x, double log_joint, double log_joint_sd);
    void tell_extra(const double* x, double log_joint, double log_joint_sd);
    void abandon(const double* x);
    int pending_count() const { return static_cast<int>(pending_.size()); }
    const std::vector<double>& pending_point(int i) const { return pending_[static_cast<size_t>(i)]; }
    // Scalar facts by name; throws Error(arg) for an unknown name.
    double stat(const std::string& name) const;
    bool finished() const { return finished_; }
    // Why the run stopped and, if its result is unreliable, why ("" before it has finished).
    std::string result_message() const;
    // Counts a tell towards option checkpoint_every; true when a checkpoint is due now.
    bool checkpoint_due();
    bool has_posterior() const { return !history_.empty(); }
    PosteriorSnapshot posterior() const;
    // One record per completed iteration, oldest first (vbmc_history).
    const std::vector<IterationRecord>& history() const { return history_; }
    // Every evaluation told, in the order told (vbmc_evaluations).
    const EvaluationLog& evaluations() const { return evals_; }
    // The surrogate posterior() was fitted to (what refined sampling needs); call after posterior().
    SurrogateRecord posterior_surrogate() const;
    // Completed iteration i's posterior as posterior() gave it then, and the surrogate it was fitted
    // to (vbmc_history_posterior); 0 <= i < history().size().
    PosteriorSnapshot history_posterior(int i) const;
    SurrogateRecord history_surrogate(int i) const;
    // BBQ's log evidence and its SD (bq/bbq.hpp) from the posterior's surrogate training set and
    // vp; NaN before there is a posterior and when BBQ's linearised mean of Z is not positive.
    BbqResult bbq_of_posterior() const;
    void set_log_sink(LogSink sink) { log_ = std::move(sink); }
    // The prior added to the values told (run/run_prior.cpp): given before the first tell, then
    // the values told are log likelihoods. Throws Error(state) after a tell (except a callback lost
    // with a checkpoint) or when per-coordinate priors and a callback would mix; Error(arg) for an
    // invalid coordinate, kind, parameter or support.
    void set_coordinate_prior(int coord, const std::string& kind, const double* params, int n_params);
    void set_prior_callback(Prior::Callback callback);
    // The log prior density at x; throws Error(state) without a usable prior.
    double log_prior(const double* x) const;
    bool has_prior() const { return prior_.given(); }
    const Settings& settings() const { return settings_; }
    // Noisy mode (paper section 3.9; PyVBMC uncertainty_handling_level > 0): on when option
    // specify_target_noise or uncertainty_handling is set or a tell has given an SD > 0.
    bool noisy_mode() const {
        return settings_.specify_target_noise || settings_.uncertainty_handling || has_noisy_values_;
    }

    void write(Writer& out) const;
    static Run read(Reader& in);

private:
    Run() = default;
    AskResult wait_for_tell() const;
    void validate_point(const double* x, const char* what) const;
    // Throws Error(arg) naming what[d] if a coordinate of x lies more than kMaxBoxWidths
    // plausible-box widths from the box in the transformed space.
    void require_near_plausible_box(const double* x, const char* what) const;
    void record_evaluation(const double* x, double told, double log_prior, double log_joint_sd, bool extra);
    // The log prior a tell of value `told` at x adds (0 without a prior); throws before anything is recorded.
    double told_log_prior(const double* x, double told) const;
    // Throws Error(state) once a value has been told, naming `call`.
    void require_no_tells(const char* call) const;
    // A warm start's re-used evaluations (run/warm_start.cpp).
    void reuse_evaluations(const EvaluationLog& previous, const std::vector<double>& x0);
    // Evaluations told to this run, counted against its budget (the reused ones of a warm start are not).
    int spent() const { return evals_.size() - reused_count_; }
    // max_fun_evals, plus retry_max_fun_evals once the run has retried.
    int budget() const { return settings_.max_fun_evals + (retried_ ? settings_.retry_max_fun_evals : 0); }
    bool budget_spent() const { return spent() >= budget(); }
    void add_to_search_gp(int i);
    // How told values become the surrogate's targets now (run/surrogate_values.hpp).
    ValueShaping value_shaping() const;
    // The run's best value, which every rule measured from "the best" uses (the acquisitions'
    // y_max, trimming, the search box, noise shaping): the largest transformed log joint told
    // for an exact target; in noisy mode the largest posterior mean of the search surrogate at
    // its training points (the largest noisy value is biased upwards by a few SDs), or the
    // largest value told before there is a surrogate.
    double reference_value() const;
    // PyVBMC uncertainty_handling_level: 2 noise SDs told, 1 noise of unknown level, 0 exact.
    int uncertainty_handling_level() const;
    bool batch_complete() const;
    void after_tell();
    bool close_initial_design();
    void close_batch();
    void end_iteration();
    bool termination_due(IterationRecord& now, std::vector<std::string>& actions);
    bool retry_due() const;
    void start_retry(std::vector<std::string>& actions);
    void train_surrogate(IterationRecord& record);
    void end_warmup(std::vector<std::string>& actions);
    // A past iteration's surrogate: its training set (mapped by its transform) and hyperparameters.
    SurrogateRecord surrogate_record_of(const IterationRecord& record) const;
    Gp surrogate_of(const IterationRecord& record) const { return surrogate_record_of(record).build(); }
    void finish();
    bool warping_due() const;
    bool try_rotoscaling();
    GpTrainSettings gp_train_settings() const;
    VpOptimSettings vp_optim_settings() const;
    AcqSettings acq_settings(int point_in_batch) const;
    void draw_initial_design(const double* x0);
    std::vector<double> uniform_in_plausible_box();
    std::vector<double> next_active_point();
    const Matrix& shortlist_for(const AcqSettings& s);
    void log(int level, const std::string& line) const;
    void log_summary(const std::string& line) const;  // the closing lines, shown by display "final" too
    void log_evidence_summary(const Gp& gp) const;
    void log_table_header() const;
    void log_iteration_row(const IterationRecord& r, const Gp& gp) const;
    int find_pending(const double* x) const;
    void rebuild_surrogates(const std::vector<std::vector<double>>& thetas);
    // The locating stage (run/locate_step.cpp).
    bool locate_due(std::string& reason) const;
    double locate_tolerance() const;
    int locate_budget_left() const;
    bool search_spent() const;
    int search_evals_allowed() const;
    double top_excess() const;
    void start_locating(const std::string& reason);
    void start_search(std::vector<int> members);
    int search_centre() const;
    std::vector<double> next_locate_point();
    bool locate_hands_out_more() const;
    bool search_ready() const;
    bool search_hands_out_more() const;
    bool valley_probe_left() const;
    void drop_valley_probes();
    bool climbs() const;
    GradientClimbSettings climb_settings() const;
    std::vector<double> climb_point(GradientClimb& climb);
    std::vector<double> box_draw(double excess);
    bool restart_room(double share) const;
    bool companion_room() const;
    // The locating stage's companion climb (run/locate_companion.cpp).
    void start_companion();
    bool companion_ready() const;
    std::vector<double> next_companion_point();
    void start_companion_climb(int index);
    bool companion_takes(int index);
    int companion_centre() const;
    void settle_companion();
    void retire_companion();
    bool restart_from_companion();
    int search_points_out() const;
    std::vector<double> round_trip(std::vector<double>& z) const;
    void tell_climb(const double* z, double value);
    bool take_difference_out(const double* x);
    std::vector<double> next_valley_probe();
    const LocatedTop& best_top() const;
    void locate_after_tell(int index);
    void abandon_locate_point(const double* x);
    bool settle_search();
    int reached_top(int point) const;
    void end_search();
    void restart_or_finish();
    double gaussian_tail(const LocatedTop& top, const std::vector<double>& z) const;
    void judge_segment(int candidate);
    int valley_start(const std::vector<int>& points) const;
    void finish_locating();
    void recentre_on_tops();
    void log_locate_row() const;
    // The reliability checks of a result, with the run's own still-climbing check (run/iteration.cpp).
    ReliabilityCheck check_result(const Gp& gp, const VariationalPosterior& vp, double elbo_sd) const;
    // The final boost of the chosen posterior into final_, undone if it makes the result unreliable.
    ReliabilityCheck boost_final(const IterationRecord& chosen, const Gp& gp);
    double box_excess(const VariationalPosterior& vp) const;

    // Fixed at creation.
    int dim_ = 0;
    OptionValues option_values_;
    Settings settings_;
    ParameterTransform transform_;
    std::vector<double> plb_z_, pub_z_;  // plausible box in the transformed space
    std::vector<double> lb_z_, ub_z_;    // hard bounds in the transformed space (infinite)
    std::vector<double> plb_x_, pub_x_;  // plausible box (original space; the locating stage re-centres it)
    std::vector<double> given_plb_x_, given_pub_x_;  // the plausible box as the user gave it
    Prior prior_;                        // set before the first tell (a callback is not saved)

    // Evolving state (all written to checkpoints).
    Rng rng_;
    EvaluationLog evals_;
    std::vector<std::vector<double>> design_queue_;  // initial-design points not yet asked
    std::vector<std::vector<double>> pending_;       // asked, not yet told (original space)
    std::vector<double> lb_search_, ub_search_;      // expanding box of the acquisition search
    int iteration_ = -1;            // index of the last completed iteration
    int batch_told_ = 0;            // evaluations told towards the current batch
    bool in_initial_design_ = true;
    bool warmup_ = true;
    bool finished_ = false;
    bool converged_ = false;
    bool recompute_var_post_ = true;
    bool has_noisy_values_ = false;  // some told value came with log_joint_sd > 0
    int stop_sampling_n_ = 0;       // training-set size at which GP sampling stopped (0: sampling)
    std::vector<int> data_trim_list_;
    int tells_since_checkpoint_ = 0;
    LocateState locate_;
    int warping_count_ = 0;              // rotoscalings attempted (an undone one counts twice)
    int last_warping_ = kNever;          // iteration of the last attempt
    int last_successful_warping_ = kNever;
    std::string carried_action_;         // logged with the next iteration's row
    int reused_count_ = 0;               // the first evaluations of the log, re-used from a warm start's previous run
    std::vector<double> start_x_;        // where the first posterior starts (original space); empty: evaluation 0
    bool retried_ = false;               // the run went on with retry_max_fun_evals more evaluations
    static constexpr int kNever = -1000000;
    std::vector<int> gp_train_index_;  // evaluations forming gp_'s training set
    Gp gp_;                          // surrogate of the last iteration
    ValueShaping gp_shaping_;        // how gp_'s training targets were formed
    Gp search_gp_;                   // gp_ plus the values told since (rank-1 updates)
    GpTrainMemory gp_memory_;
    VariationalPosterior vp_;
    std::vector<IterationRecord> history_;
    bool has_final_ = false;
    PosteriorSnapshot final_;        // the returned (boosted) posterior, once finished_
    std::string termination_message_;
    bool has_verdict_ = false;       // reliability_ holds the verdict on the returned posterior
    ReliabilityCheck reliability_;

    // The iterations' shortlists of asks with max_pending > 1 (acquisition/shortlist.hpp). Not
    // saved: drawn again from the same stream after a load.
    struct Shortlist {
        int iteration;
        AcqKind kind;
        Matrix points;
    };
    std::vector<Shortlist> shortlists_;
    LogSink log_;                    // not saved
    PhaseTimes times_;               // not saved: counts from creation or load; kept when an iteration rolls back
};

}  // namespace libvbmc
