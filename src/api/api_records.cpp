// vbmc_history, vbmc_evaluations and vbmc_evaluations_prior: what the run recorded, for plots and diagnostics.
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
