// Version, status names, the per-thread error of handle-less calls and the tables of live handles.
#include <atomic>

#include "api/handles.hpp"

#define VBMC_STR2(x) #x
#define VBMC_STR(x) VBMC_STR2(x)

namespace libvbmc {
std::string& global_error() {
    thread_local std::string message;
    return message;
}

uintptr_t next_handle_id() {
    static std::atomic<uintptr_t> last{0};
    return last.fetch_add(16) + 16;
}

// The tables are never destroyed, so a handle destroyed by another exit-time destructor is still
// looked up safely.
HandleTable<vbmc_opts, OptsObject>& opts_table() {
    static auto* table = new HandleTable<vbmc_opts, OptsObject>();
    return *table;
}

HandleTable<vbmc, RunObject>& run_table() {
    static auto* table = new HandleTable<vbmc, RunObject>();
    return *table;
}

HandleTable<vbmc_post, PostObject>& post_table() {
    static auto* table = new HandleTable<vbmc_post, PostObject>();
    return *table;
}

HandleTable<vbmc_diag, DiagObject>& diag_table() {
    static auto* table = new HandleTable<vbmc_diag, DiagObject>();
    return *table;
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
        case VBMC_WAIT: return "VBMC_WAIT";
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
