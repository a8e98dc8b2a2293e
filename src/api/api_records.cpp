// vbmc_history, vbmc_history_posterior, vbmc_history_action, vbmc_evaluations and
// vbmc_evaluations_prior: what the run recorded, for plots and diagnostics.
#include <cmath>
#include <cstring>

#include "api/handles.hpp"

using namespace libvbmc;

namespace {
// The caller sizes its arrays from a stat; a different n is a stale count, not a request.
void require_count(size_t n, size_t count, const char* stat_name) {
    if (n != count)
        throw_error(Code::arg, "n = " + std::to_string(n) + " is not the number of records (" + std::to_string(count) +
                                   ", stat \"" + stat_name + "\")");
}

// A completed iteration's record; throws Error(arg) naming the iteration when it is out of range.
const IterationRecord& completed_iteration(const Run& run, int iteration) {
    const std::vector<IterationRecord>& history = run.history();
    if (iteration < 0 || static_cast<size_t>(iteration) >= history.size())
        throw_error(Code::arg, "iteration = " + std::to_string(iteration) + " is not a completed iteration (0 <= "
                                   "iteration < stat \"iteration\" = " + std::to_string(history.size()) + ")");
    return history[static_cast<size_t>(iteration)];
}
}  // namespace

extern "C" {

VBMC_API vbmc_status vbmc_history(const vbmc* run, const char* name, size_t n, double* values) {
    return on_run(run, [&](RunObject& handle) {
        require_pointer(name, "name");
        const std::vector<IterationRecord>& history = handle.run->history();
        if (history.empty()) history_value(IterationRecord{}, name);  // an unknown name is refused even then
        require_count(n, history.size(), "iteration");
        if (n == 0) return VBMC_OK;
        require_pointer(values, "values");
        for (size_t i = 0; i < n; ++i) values[i] = history_value(history[i], name);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_history_posterior(const vbmc* run, int iteration, vbmc_post** out) {
    return on_run(run, [&](RunObject& handle) {
        require_pointer(out, "out");
        *out = nullptr;
        completed_iteration(*handle.run, iteration);
        auto post = std::make_unique<PostObject>();
        post->posterior = handle.run->history_posterior(iteration);
        post->surrogate = handle.run->history_surrogate(iteration);
        *out = post_table().add(std::move(post));
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_history_action(const vbmc* run, int iteration, char* buf, size_t size) {
    // Every error leaves "" in the buffer, as vbmc_opts_get does; success overwrites it.
    if (buf != nullptr && size > 0) buf[0] = '\0';
    return on_run(run, [&](RunObject& handle) {
        const IterationRecord& record = completed_iteration(*handle.run, iteration);
        copy_text(record.action, buf, size, "the action of iteration " + std::to_string(iteration));
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_evaluations(const vbmc* run, size_t n, double* x, double* log_joint, double* log_joint_sd,
                                      int* in_training) {
    return on_run(run, [&](RunObject& handle) {
        const EvaluationLog& evals = handle.run->evaluations();
        require_count(n, static_cast<size_t>(evals.size()), "func_count");
        const size_t dim = static_cast<size_t>(handle.run->dim());
        if (in_training != nullptr) std::fill(in_training, in_training + n, 0);
        for (size_t i = 0; i < n; ++i) {
            const Evaluation& e = evals[static_cast<int>(i)];
            if (x != nullptr) std::memcpy(x + i * dim, e.x.data(), dim * sizeof(double));
            if (log_joint != nullptr) log_joint[i] = e.log_joint;
            if (log_joint_sd != nullptr) log_joint_sd[i] = e.log_joint_sd;
        }
        if (in_training != nullptr)
            for (int i : evals.training_index()) in_training[static_cast<size_t>(i)] = 1;
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_evaluations_prior(const vbmc* run, size_t n, double* log_likelihood, double* log_prior) {
    return on_run(run, [&](RunObject& handle) {
        if (!handle.run->has_prior())
            throw_error(Code::state, "the run has no prior: the values told are the log joints (vbmc_evaluations)");
        const EvaluationLog& evals = handle.run->evaluations();
        require_count(n, static_cast<size_t>(evals.size()), "func_count");
        for (size_t i = 0; i < n; ++i) {
            const Evaluation& e = evals[static_cast<int>(i)];
            if (log_likelihood != nullptr) log_likelihood[i] = e.log_likelihood;
            if (log_prior != nullptr) log_prior[i] = e.log_prior;
        }
        return VBMC_OK;
    });
}

}  // extern "C"
