// libFuzzer target: option parsing. The input is a list of "name=value" lines; each is set as
// text, and (when the value parses as a number) with the typed setters; every option is read
// back; then a run is created with the options (dimension from the input's length), which must
// either succeed or fail with a status, never crash.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "vbmc/vbmc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    vbmc_opts* opts = nullptr;
    if (vbmc_opts_create(&opts) != VBMC_OK) __builtin_trap();
    const std::string text(reinterpret_cast<const char*>(data), size);
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        const size_t eq = line.find('=');
        const std::string name = line.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : line.substr(eq + 1);
        const vbmc_status status = vbmc_opts_set(opts, name.c_str(), value.c_str());
        if (status != VBMC_OK && status != VBMC_E_OPTION) __builtin_trap();
        char* parse_end = nullptr;
        const double number = std::strtod(value.c_str(), &parse_end);
        if (parse_end != value.c_str()) {
            vbmc_opts_set_double(opts, name.c_str(), number);
            if (std::isfinite(number))
                vbmc_opts_set_int(opts, name.c_str(), static_cast<long long>(std::fmax(-9e18, std::fmin(9e18, number))));
        }
        vbmc_opts_error(opts);
    }
    char buf[256];
    for (int i = 0; i < vbmc_opts_count(); ++i)
        if (vbmc_opts_get(opts, vbmc_opts_name(i), buf, sizeof buf) != VBMC_OK) __builtin_trap();
    const int dim = 1 + static_cast<int>(size % 4);
    std::vector<double> plb(static_cast<size_t>(dim), -1.0), pub(static_cast<size_t>(dim), 1.0), x(static_cast<size_t>(dim));
    vbmc* run = nullptr;
    const vbmc_status status = vbmc_create(&run, dim, nullptr, nullptr, nullptr, plb.data(), pub.data(), opts);
    if (status == VBMC_OK) {
        if (vbmc_ask(run, x.data()) != VBMC_OK) __builtin_trap();
        vbmc_destroy(run);
    } else if (run != nullptr || (status != VBMC_E_OPTION && status != VBMC_E_ARG)) {
        __builtin_trap();
    }
    vbmc_opts_destroy(opts);
    return 0;
}
