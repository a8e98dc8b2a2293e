// Version, status names and the per-thread error of handle-less calls.
#include "api/handles.hpp"

#define VBMC_STR2(x) #x
#define VBMC_STR(x) VBMC_STR2(x)

namespace libvbmc {
std::string& global_error() {
    thread_local std::string message;
    return message;
}
}  // namespace libvbmc

extern "C" {

VBMC_API const char* vbmc_version(void) {
    return VBMC_STR(VBMC_VERSION_MAJOR) "." VBMC_STR(VBMC_VERSION_MINOR) "." VBMC_STR(VBMC_VERSION_PATCH);
}

VBMC_API const char* vbmc_status_name(vbmc_status status) {
    switch (static_cast<int>(status)) {
        case VBMC_OK: return "VBMC_OK";
        case VBMC_DONE: return "VBMC_DONE";
        case VBMC_E_ARG: return "VBMC_E_ARG";
        case VBMC_E_STATE: return "VBMC_E_STATE";
        case VBMC_E_OPTION: return "VBMC_E_OPTION";
        case VBMC_E_NOMEM: return "VBMC_E_NOMEM";
        case VBMC_E_NUMERIC: return "VBMC_E_NUMERIC";
        case VBMC_E_IO: return "VBMC_E_IO";
        case VBMC_E_FORMAT: return "VBMC_E_FORMAT";
        case VBMC_E_INTERNAL: return "VBMC_E_INTERNAL";
        default: return "VBMC_UNKNOWN_STATUS";
    }
}

}  // extern "C"
