// The objects behind the public opaque handles, and the guard that turns every C++ failure
// into a vbmc_status plus a message (nothing unwinds across the C boundary).
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "api/handle_table.hpp"
#include "gp/surrogate_record.hpp"
#include "options/options.hpp"
#include "post/diagnostics.hpp"
#include "refine/refine.hpp"
#include "run/posterior.hpp"
#include "run/run.hpp"
#include "util/error.hpp"
#include "util/parallel.hpp"
#include "vbmc/vbmc.h"

namespace libvbmc {

// What the public handles stand for (the handles themselves are ids: handle_table.hpp).
struct OptsObject {
    OptionValues values;
    std::string error;
};

struct RunObject {
    std::unique_ptr<Run> run;
    std::string error;
    std::string result_message;  // vbmc_result_message's text, valid until the next call
    vbmc_log_fn log_fn = nullptr;
    void* log_userdata = nullptr;
};

struct PostObject {
    PosteriorSnapshot posterior;
    SurrogateRecord surrogate;  // what the posterior was fitted to, for refined sampling
    RefineSettings refine;      // vbmc_post_set_refinement's values
};

struct DiagObject {
    Diagnosis diagnosis;
};

HandleTable<vbmc_opts, OptsObject>& opts_table();
HandleTable<vbmc, RunObject>& run_table();
HandleTable<vbmc_post, PostObject>& post_table();
HandleTable<vbmc_diag, DiagObject>& diag_table();

// The message of a call given a NULL or dead handle.
inline std::string invalid_handle(const char* name, const void* handle) {
    return handle == nullptr ? std::string(name) + " is NULL"
                             : std::string(name) + " is not a live handle (never created, or already destroyed)";
}

// The message of the last failed create / load / post_load on this thread.
std::string& global_error();

// Runs body(); on failure stores the message in `error` and returns the status.
template <typename Body>
vbmc_status guarded(std::string& error, Body&& body) {
    error.clear();
    try {
        return body();
    } catch (const Error& e) {
        error = e.what();
        return static_cast<vbmc_status>(static_cast<int>(e.code()));
    } catch (const std::bad_alloc&) {
        error = "out of memory";
        return VBMC_E_NOMEM;
    } catch (const std::exception& e) {
        error = std::string("internal error: ") + e.what();
        return VBMC_E_INTERNAL;
    } catch (...) {
        error = "internal error: unknown exception";
        return VBMC_E_INTERNAL;
    }
}

// Every call on a run: body(object). A NULL or dead handle has nowhere to store its message, so it
// goes to the thread's handle-less error (vbmc_last_error(NULL)) and the call returns VBMC_E_ARG.
template <typename Body>
vbmc_status on_run(const ::vbmc* run, Body&& body) {
    RunObject* object = run_table().find(run);
    if (object == nullptr) {
        global_error() = invalid_handle("run", run);
        return VBMC_E_ARG;
    }
    return guarded(object->error, [&] {
        const ThreadScope threads(object->run->settings().num_threads);
        return body(*object);
    });
}

// Reads a file's payload with read(): any failure other than memory is the file's fault, so it
// becomes Error(format) (a checksum-valid payload whose content is inconsistent).
template <typename Read>
auto read_payload(const char* what, Read&& read) -> decltype(read()) {
    try {
        return read();
    } catch (const Error& e) {
        if (e.code() == Code::format) throw;
        throw_error(Code::format, std::string("the ") + what + " is invalid: " + e.what());
    } catch (const std::length_error& e) {
        throw_error(Code::format, std::string("the ") + what + " is invalid: " + e.what());
    }
}

inline void require_pointer(const void* p, const char* name) {
    if (p == nullptr) throw_error(Code::arg, std::string(name) + " is NULL");
}

// Copies text with its NUL into buf[size]; throws Error(arg) when it does not fit, naming `what`
// ("the value of seed"). The caller has already set buf to "" for the error paths.
inline void copy_text(const std::string& text, char* buf, size_t size, const std::string& what) {
    require_pointer(buf, "buf");
    if (size < text.size() + 1)
        throw_error(Code::arg, "buf has " + std::to_string(size) + " bytes; " + what + " needs " +
                                   std::to_string(text.size() + 1));
    std::memcpy(buf, text.c_str(), text.size() + 1);
}

}  // namespace libvbmc
