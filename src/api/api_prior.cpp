// vbmc_set_prior, vbmc_set_prior_fn, vbmc_log_prior and vbmc_evaluations_prior: the prior the run
// adds to the told log likelihoods.
#include "api/handles.hpp"

using namespace libvbmc;

extern "C" {

VBMC_API vbmc_status vbmc_set_prior(vbmc* run, int coord, const char* kind, const double* params, int n_params) {
    return on_run(run, [&](RunObject& handle) {
        require_pointer(kind, "kind");
        handle.run->set_coordinate_prior(coord, kind, params, n_params);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_set_prior_fn(vbmc* run, vbmc_log_prior_fn fn, void* userdata) {
    return on_run(run, [&](RunObject& handle) {
        if (fn == nullptr) throw_error(Code::arg, "fn is NULL");
        handle.run->set_prior_callback([fn, userdata](const double* x) { return fn(x, userdata); });
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_log_prior(const vbmc* run, const double* x, double* log_prior) {
    return on_run(run, [&](RunObject& handle) {
        require_pointer(x, "x");
        require_pointer(log_prior, "log_prior");
        *log_prior = handle.run->log_prior(x);
        return VBMC_OK;
    });
}

}  // extern "C"
