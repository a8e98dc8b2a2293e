// Internal error type: every failure inside the engine is an Error carrying the public status
// code it maps to and a sentence for vbmc_last_error. The C API layer catches it.
#pragma once
#include <stdexcept>
#include <string>

namespace libvbmc {

enum class Code : int {
    arg = -1,
    state = -2,
    option = -3,
    nomem = -4,
    numeric = -5,
    io = -6,
    format = -7,
    internal = -8,
};

class Error : public std::runtime_error {
public:
    Error(Code code, const std::string& message) : std::runtime_error(message), code_(code) {}
    Code code() const { return code_; }

private:
    Code code_;
};

[[noreturn]] inline void throw_error(Code code, const std::string& message) { throw Error(code, message); }

}  // namespace libvbmc
