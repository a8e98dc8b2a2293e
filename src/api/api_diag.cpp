// vbmc_diagnose and vbmc_diag_*: diagnostics of several runs (post/diagnostics.hpp).
#include <cstring>
#include <functional>
#include <map>

#include "api/handles.hpp"

using namespace libvbmc;

namespace {

// Calls on diagnostics: like snapshots, they have no message slot; messages go to the thread's
// handle-less error.
template <typename Body>
vbmc_status on_diag(const vbmc_diag* diag, Body&& body) {
    const DiagObject* object = diag_table().find(diag);
    if (object == nullptr) {
        global_error() = invalid_handle("diag", diag);
        return VBMC_E_ARG;
    }
    return guarded(global_error(), [&] { return body(object->diagnosis); });
}

// The posterior and convergence of runs[i]; errors name the index.
RunFacts run_facts(const ::vbmc* handle, int i, PosteriorSnapshot& posterior) {
    const std::string name = "runs[" + std::to_string(i) + "]";
    RunObject* object = run_table().find(handle);
    if (object == nullptr) throw_error(Code::arg, invalid_handle(name.c_str(), handle));
    if (!object->run->has_posterior()) {
        try {
            object->run->posterior();  // throws Error(state) with the reason
        } catch (const Error& e) {
            throw_error(e.code(), name + " has " + e.what());
        }
    }
    posterior = object->run->posterior();
    return RunFacts{object->run->stat("converged") == 1.0, &posterior};
}

const std::map<std::string, std::function<double(const Diagnosis&)>>& diag_stats() {
    static const DiagnosisThresholds t;
    static const std::map<std::string, std::function<double(const Diagnosis&)>> stats = {
        {"agree", [](const Diagnosis& d) { return d.agree() ? 1.0 : 0.0; }},
        {"best", [](const Diagnosis& d) { return d.best; }},
        {"runs", [](const Diagnosis& d) { return d.runs; }},
        {"converged_count", [](const Diagnosis& d) { return d.converged_count; }},
        {"exit_flag", [](const Diagnosis& d) { return d.exit_flag; }},
        {"elbo_spread", [](const Diagnosis& d) { return d.elbo_spread; }},
        {"max_skl", [](const Diagnosis& d) { return d.max_skl(); }},
        {"max_mtv", [](const Diagnosis& d) { return d.max_mtv(); }},
        {"elbo_agree_count", [](const Diagnosis& d) { return d.elbo_agree; }},
        {"skl_agree_count", [](const Diagnosis& d) { return d.skl_agree; }},
        {"mtv_agree_count", [](const Diagnosis& d) { return d.mtv_agree; }},
        {"beta_lcb", [](const Diagnosis&) { return t.beta_lcb; }},
        {"elbo_threshold", [](const Diagnosis&) { return t.elbo; }},
        {"skl_threshold", [](const Diagnosis&) { return t.skl; }},
        {"mtv_threshold", [](const Diagnosis&) { return t.mtv; }},
    };
    return stats;
}

}  // namespace

extern "C" {

VBMC_API vbmc_status vbmc_diagnose(const ::vbmc* const* runs, int n, uint64_t seed, vbmc_diag** out) {
    return guarded(global_error(), [&] {
        require_pointer(out, "out");
        *out = nullptr;
        require_pointer(runs, "runs");
        if (n < 2) throw_error(Code::arg, "n = " + std::to_string(n) + ": the diagnostics compare at least 2 runs");
        std::vector<PosteriorSnapshot> posteriors(static_cast<size_t>(n));
        std::vector<RunFacts> facts;
        for (int i = 0; i < n; ++i) facts.push_back(run_facts(runs[i], i, posteriors[static_cast<size_t>(i)]));
        auto object = std::make_unique<DiagObject>();
        object->diagnosis = diagnose(facts, seed);
        *out = diag_table().add(std::move(object));
        return VBMC_OK;
    });
}

VBMC_API void vbmc_diag_destroy(vbmc_diag* diag) { diag_table().destroy(diag); }

VBMC_API vbmc_status vbmc_diag_stat(const vbmc_diag* diag, const char* name, double* value) {
    return on_diag(diag, [&](const Diagnosis& d) {
        require_pointer(name, "name");
        require_pointer(value, "value");
        const auto it = diag_stats().find(name);
        if (it == diag_stats().end()) {
            std::string known;
            for (const auto& entry : diag_stats()) known += (known.empty() ? "" : ", ") + entry.first;
            throw_error(Code::arg, "unknown diagnostics stat \"" + std::string(name) + "\" (known: " + known + ")");
        }
        *value = it->second(d);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_diag_pairwise(const vbmc_diag* diag, const char* name, size_t n, double* values) {
    return on_diag(diag, [&](const Diagnosis& d) {
        require_pointer(name, "name");
        require_pointer(values, "values");
        const std::vector<double>* matrix = std::strcmp(name, "skl") == 0  ? &d.skl
                                            : std::strcmp(name, "kl") == 0 ? &d.kl
                                            : std::strcmp(name, "mtv") == 0 ? &d.mtv
                                                                            : nullptr;
        if (matrix == nullptr)
            throw_error(Code::arg, "unknown pairwise diagnostics \"" + std::string(name) + "\" (known: kl, mtv, skl)");
        if (n != static_cast<size_t>(d.runs))
            throw_error(Code::arg, "n = " + std::to_string(n) + " is not the number of runs diagnosed, " + std::to_string(d.runs));
        std::memcpy(values, matrix->data(), sizeof(double) * matrix->size());
        return VBMC_OK;
    });
}

VBMC_API const char* vbmc_diag_message(const vbmc_diag* diag) {
    const DiagObject* object = diag_table().find(diag);
    return object ? object->diagnosis.message.c_str() : "";
}

}  // extern "C"
