// What the drivers of src/drivers/ need from the API layer besides the public header: a way to
// leave a sentence in vbmc_last_error(run) for a failure of their own (a bad argument, a thread
// that could not start), as every public call does. Their loops use the public API only.
#pragma once
#include <exception>
#include <new>
#include <string>

#include "vbmc/vbmc.h"

namespace libvbmc {

// Stores message as the run's last error (vbmc_last_error(run); the thread's handle-less error
// when run is not a live handle) and returns status.
vbmc_status driver_error(const vbmc* run, vbmc_status status, const std::string& message);

// Runs body() (returning a vbmc_status) for a driver: a C++ exception becomes VBMC_E_NOMEM or
// VBMC_E_INTERNAL with its text in the run's message, so nothing unwinds into the caller.
template <typename Body>
vbmc_status driver_guarded(const vbmc* run, Body&& body) {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        return driver_error(run, VBMC_E_NOMEM, "out of memory");
    } catch (const std::exception& e) {
        return driver_error(run, VBMC_E_INTERNAL, std::string("internal error: ") + e.what());
    } catch (...) {
        return driver_error(run, VBMC_E_INTERNAL, "internal error: unknown exception");
    }
}

}  // namespace libvbmc
