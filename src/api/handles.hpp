// The structs behind the public opaque handles, and the guard that turns every C++ failure
// into a vbmc_status plus a message (nothing unwinds across the C boundary).
#pragma once
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "options/options.hpp"
#include "run/posterior.hpp"
#include "run/run.hpp"
#include "util/error.hpp"
#include "vbmc/vbmc.h"

struct vbmc_opts {
    uint64_t magic = kMagic;
    libvbmc::OptionValues values;
    std::string error;
    static constexpr uint64_t kMagic = 0x766d62632d6f7074ULL;  // "vmbc-opt"
};

struct vbmc {
    uint64_t magic = kMagic;
    std::unique_ptr<libvbmc::Run> run;
    std::string error;
    std::string result_message;  // vbmc_result_message's text, valid until the next call
    vbmc_log_fn log_fn = nullptr;
    void* log_userdata = nullptr;
    static constexpr uint64_t kMagic = 0x766d62632d72756eULL;  // "vmbc-run"
};

struct vbmc_post {
    uint64_t magic = kMagic;
    libvbmc::PosteriorSnapshot posterior;
    static constexpr uint64_t kMagic = 0x766d62632d706f73ULL;  // "vmbc-pos"
};

namespace libvbmc {

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

// Every call on a run: a NULL or invalid handle has nowhere to store its message, so it goes to
// the thread's handle-less error (vbmc_last_error(NULL)) and the call returns VBMC_E_ARG.
template <typename Body>
vbmc_status on_run(const ::vbmc* run, Body&& body) {
    if (run == nullptr || run->magic != ::vbmc::kMagic) {
        global_error() = run == nullptr ? "run is NULL" : "run is not a valid handle (destroyed or corrupted)";
        return VBMC_E_ARG;
    }
    return guarded(const_cast<::vbmc*>(run)->error, body);
}

// Argument checks that throw Error(arg) with a sentence naming the argument.
template <typename T>
T* require(T* handle, const char* name) {
    if (handle == nullptr) throw_error(Code::arg, std::string(name) + " is NULL");
    if (handle->magic != T::kMagic)
        throw_error(Code::arg, std::string(name) + " is not a valid handle (destroyed or corrupted)");
    return handle;
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

}  // namespace libvbmc
