// The drivers' access to a run's error message (api/driver_errors.hpp).
#include "api/driver_errors.hpp"

#include "api/handles.hpp"

namespace libvbmc {

vbmc_status driver_error(const vbmc* run, vbmc_status status, const std::string& message) {
    RunObject* object = run_table().find(run);
    if (object == nullptr) {
        global_error() = invalid_handle("run", run);
        return VBMC_E_ARG;
    }
    object->error = message;
    return status;
}

}  // namespace libvbmc
