// The complete state of a run, for checkpoints. The surrogates are not stored as factors:
// gp_ is refactorised from its hyperparameter samples (deterministic) and search_gp_ replays
// the rank-1 updates of the values told since, so a loaded run continues bitwise.
#include <cstring>

#include "run/run.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

// An iteration record read from a checkpoint refers to the run's evaluations and dimension: its
// training index to evaluations that exist and did not fail, its posterior, transform and GP
// samples to the run's dimension (a record's surrogate is rebuilt from them on demand).
void check_record(const IterationRecord& r, int dim, const EvaluationLog& evals, int64_t position) {
    const std::string which = "iteration record " + std::to_string(position);
    if (r.vp.dim != dim || r.transform.dim() != dim)
        throw_error(Code::format, which + " has a posterior or transform of the wrong dimension");
    for (const std::vector<double>& theta : r.gp_thetas)
        if (static_cast<int>(theta.size()) != hyp::count(dim))
            throw_error(Code::format, which + " has a GP hyperparameter sample of the wrong length");
    for (int i : r.train_index)
        if (i < 0 || i >= evals.size() || evals[i].failed)
            throw_error(Code::format, which + " has the invalid training index " + std::to_string(i));
}

}  // namespace

void Run::write(Writer& out) const {
    out.i64(dim_);
    option_values_.write(out);
    transform_.write(out);
    out.doubles(plb_x_);
    out.doubles(pub_x_);
    out.doubles(given_plb_x_);
    out.doubles(given_pub_x_);
    prior_.write(out);
    out.doubles(plb_z_);
    out.doubles(pub_z_);
    out.doubles(lb_search_);
    out.doubles(ub_search_);
    for (uint64_t word : rng_.state()) out.u64(word);
    evals_.write(out);
    out.u64(design_queue_.size());
    for (const auto& x : design_queue_) out.doubles(x);
    out.u64(pending_.size());
    for (const auto& x : pending_) out.doubles(x);
    out.i64(iteration_);
    out.i64(batch_told_);
    out.boolean(in_initial_design_);
    out.boolean(warmup_);
    out.boolean(finished_);
    out.boolean(converged_);
    out.boolean(recompute_var_post_);
    out.boolean(has_noisy_values_);
    out.i64(stop_sampling_n_);
    out.ints(data_trim_list_);
    out.i64(tells_since_checkpoint_);
    locate_.write(out);
    out.i64(warping_count_);
    out.i64(last_warping_);
    out.i64(last_successful_warping_);
    out.text(carried_action_);
    out.i64(reused_count_);
    out.doubles(start_x_);
    out.boolean(retried_);
    out.ints(gp_train_index_);
    gp_shaping_.write(out);
    out.u64(gp_.samples.size());
    for (const GpSample& sample : gp_.samples) out.doubles(sample.theta);
    gp_memory_.write(out);
    out.boolean(vp_.dim > 0);  // no variational posterior before the first iteration
    if (vp_.dim > 0) vp_.write(out);
    out.u64(history_.size());
    for (const IterationRecord& r : history_) r.write(out);
    out.boolean(has_final_);
    if (has_final_) final_.write(out);
    out.text(termination_message_);
    out.boolean(has_verdict_);
    if (has_verdict_) reliability_.write(out);
}

Run Run::read(Reader& in) {
    Run run;
    run.dim_ = static_cast<int>(in.bounded(1, 64, "dimension"));
    const int dim = run.dim_;
    run.option_values_ = OptionValues::read(in);
    run.settings_ = Settings::resolve(run.option_values_, dim);
    run.transform_ = ParameterTransform::read(in);
    if (run.transform_.dim() != dim) throw_error(Code::format, "the transform's dimension differs from the run's");
    run.plb_x_ = in.doubles();
    run.pub_x_ = in.doubles();
    run.given_plb_x_ = in.doubles();
    run.given_pub_x_ = in.doubles();
    for (const std::vector<double>* box : {&run.plb_x_, &run.pub_x_, &run.given_plb_x_, &run.given_pub_x_})
        if (static_cast<int>(box->size()) != dim) throw_error(Code::format, "the plausible box has the wrong dimension");
    run.prior_ = Prior::read(in, dim);
    run.plb_z_ = in.doubles();
    run.pub_z_ = in.doubles();
    run.lb_search_ = in.doubles();
    run.ub_search_ = in.doubles();
    if (static_cast<int>(run.plb_z_.size()) != dim || static_cast<int>(run.pub_z_.size()) != dim ||
        static_cast<int>(run.lb_search_.size()) != dim || static_cast<int>(run.ub_search_.size()) != dim)
        throw_error(Code::format, "the plausible or search box has the wrong dimension");
    run.lb_z_.assign(static_cast<size_t>(dim), -INFINITY);
    run.ub_z_.assign(static_cast<size_t>(dim), INFINITY);
    std::array<uint64_t, 4> state{};
    for (uint64_t& word : state) word = in.u64();
    run.rng_.set_state(state);
    run.evals_ = EvaluationLog::read(in, dim);
    auto read_points = [&](std::vector<std::vector<double>>& points, const char* what) {
        const int64_t n = in.bounded(0, 1 << 24, what);
        for (int64_t i = 0; i < n; ++i) {
            points.push_back(in.doubles());
            if (static_cast<int>(points.back().size()) != dim)
                throw_error(Code::format, std::string("a point of ") + what + " has the wrong dimension");
        }
    };
    read_points(run.design_queue_, "the initial design");
    read_points(run.pending_, "the pending points");
    run.iteration_ = static_cast<int>(in.bounded(-1, 1 << 30, "iteration"));
    run.batch_told_ = static_cast<int>(in.bounded(0, 1 << 30, "batch count"));
    run.in_initial_design_ = in.boolean();
    run.warmup_ = in.boolean();
    run.finished_ = in.boolean();
    run.converged_ = in.boolean();
    run.recompute_var_post_ = in.boolean();
    run.has_noisy_values_ = in.boolean();
    if (run.has_noisy_values_) run.settings_.apply_noisy_defaults(run.option_values_);
    run.stop_sampling_n_ = static_cast<int>(in.bounded(0, 1 << 30, "stop_sampling"));
    run.data_trim_list_ = in.ints();
    run.tells_since_checkpoint_ = static_cast<int>(in.bounded(0, 1 << 30, "tells since checkpoint"));
    run.locate_ = LocateState::read(in, dim, run.evals_.size());
    run.warping_count_ = static_cast<int>(in.bounded(0, 1 << 30, "warping count"));
    run.last_warping_ = static_cast<int>(in.bounded(kNever, 1 << 30, "last warping"));
    run.last_successful_warping_ = static_cast<int>(in.bounded(kNever, 1 << 30, "last successful warping"));
    run.carried_action_ = in.text();
    run.reused_count_ = static_cast<int>(in.bounded(0, run.evals_.size(), "reused evaluation count"));
    run.start_x_ = in.doubles();
    if (!run.start_x_.empty() &&
        (static_cast<int>(run.start_x_.size()) != dim || !run.transform_.inside_bounds(run.start_x_.data())))
        throw_error(Code::format, "the first posterior's starting point has the wrong dimension or lies outside the bounds");
    run.retried_ = in.boolean();
    run.gp_train_index_ = in.ints();
    run.gp_shaping_ = ValueShaping::read(in);
    for (int i : run.gp_train_index_)
        if (i < 0 || i >= run.evals_.size() || run.evals_[i].failed)
            throw_error(Code::format, "the surrogate's training index " + std::to_string(i) + " is invalid");
    const int64_t n_samples = in.bounded(0, 1 << 20, "GP sample count");
    std::vector<std::vector<double>> thetas;
    for (int64_t i = 0; i < n_samples; ++i) {
        thetas.push_back(in.doubles());
        if (static_cast<int>(thetas.back().size()) != hyp::count(dim))
            throw_error(Code::format, "a GP hyperparameter sample has the wrong length");
    }
    run.gp_memory_ = GpTrainMemory::read(in);
    if (in.boolean()) {
        run.vp_ = VariationalPosterior::read(in);
        if (run.vp_.dim != dim) throw_error(Code::format, "the variational posterior's dimension differs from the run's");
    }
    const int64_t n_history = in.bounded(0, 1 << 24, "history length");
    for (int64_t i = 0; i < n_history; ++i) {
        run.history_.push_back(IterationRecord::read(in));
        check_record(run.history_.back(), dim, run.evals_, i);
    }
    run.has_final_ = in.boolean();
    if (run.has_final_) run.final_ = PosteriorSnapshot::read(in);
    run.termination_message_ = in.text();
    run.has_verdict_ = in.boolean();
    if (run.has_verdict_) run.reliability_ = ReliabilityCheck::read(in);
    if (in.remaining() != 0) throw_error(Code::format, "the checkpoint has trailing bytes");
    if (!run.in_initial_design_) {
        if (thetas.empty()) throw_error(Code::format, "the checkpoint has no surrogate after the initial design");
        run.rebuild_surrogates(thetas);
    }
    return run;
}

// gp_ from its hyperparameters and training index; search_gp_ = gp_ plus the values told after
// the last iteration, replayed in the order they were told.
void Run::rebuild_surrogates(const std::vector<std::vector<double>>& thetas) {
    gp_ = gp_from_samples(evals_.training_data(gp_train_index_, dim_, gp_shaping_), thetas);
    search_gp_ = gp_;
    for (int i = 0; i < evals_.size(); ++i)
        if (evals_[i].iteration == iteration_ + 1) add_to_search_gp(i);
}

}  // namespace libvbmc
