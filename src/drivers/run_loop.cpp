// vbmc_run: the sequential driver. One loop over the public API: evaluate a pending point (left by
// an earlier error, or in a loaded checkpoint) or ask for a new one, evaluate it, tell it.
#include <vector>

#include "api/driver_errors.hpp"

using namespace libvbmc;

extern "C" VBMC_API vbmc_status vbmc_run(vbmc* run, vbmc_log_joint_fn f, void* userdata) {
    const int dim = vbmc_dim(run);
    if (dim == 0) return driver_error(run, VBMC_E_ARG, "run is not a live handle");
    if (f == nullptr) return driver_error(run, VBMC_E_ARG, "f is NULL");
    return driver_guarded(run, [&] {
        std::vector<double> x(static_cast<size_t>(dim));
        for (;;) {
            double pending = 0.0;
            vbmc_status status = vbmc_stat(run, "pending", &pending);
            // With nothing pending, vbmc_ask never answers VBMC_WAIT.
            if (status == VBMC_OK) status = pending > 0 ? vbmc_pending_point(run, 0, x.data()) : vbmc_ask(run, x.data());
            if (status != VBMC_OK) return status;
            double sd = 0.0;
            const double value = f(x.data(), &sd, userdata);
            status = vbmc_tell(run, x.data(), value, sd);
            if (status != VBMC_OK) return status;
        }
    });
}
