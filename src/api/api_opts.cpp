// vbmc_opts_*: the options object and option introspection.
#include <cmath>
#include <cstring>

#include "api/handles.hpp"

using namespace libvbmc;

namespace {
const OptionSpec* spec_at(int index) {
    const auto& table = option_table();
    if (index < 0 || index >= static_cast<int>(table.size())) return nullptr;
    return &table[static_cast<size_t>(index)];
}
}  // namespace

extern "C" {

VBMC_API vbmc_status vbmc_opts_create(vbmc_opts** out) {
    return guarded(global_error(), [&] {
        require_pointer(out, "out");
        *out = nullptr;
        *out = new vbmc_opts();
        return VBMC_OK;
    });
}

VBMC_API void vbmc_opts_destroy(vbmc_opts* opts) {
    if (opts == nullptr || opts->magic != vbmc_opts::kMagic) return;
    opts->magic = 0;
    delete opts;
}

VBMC_API vbmc_status vbmc_opts_set(vbmc_opts* opts, const char* name, const char* value) {
    if (opts == nullptr || opts->magic != vbmc_opts::kMagic) return VBMC_E_ARG;
    return guarded(opts->error, [&] {
        require_pointer(name, "name");
        require_pointer(value, "value");
        opts->values.set_text(name, value);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_opts_set_int(vbmc_opts* opts, const char* name, long long value) {
    if (opts == nullptr || opts->magic != vbmc_opts::kMagic) return VBMC_E_ARG;
    return guarded(opts->error, [&] {
        require_pointer(name, "name");
        opts->values.set_integer(name, value);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_opts_set_double(vbmc_opts* opts, const char* name, double value) {
    if (opts == nullptr || opts->magic != vbmc_opts::kMagic) return VBMC_E_ARG;
    return guarded(opts->error, [&] {
        require_pointer(name, "name");
        opts->values.set_number(name, value);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_opts_get(const vbmc_opts* opts, const char* name, char* buf, size_t size) {
    // Every error leaves "" in the buffer, as the header promises; success overwrites it.
    if (buf != nullptr && size > 0) buf[0] = '\0';
    if (opts == nullptr || opts->magic != vbmc_opts::kMagic) return VBMC_E_ARG;
    return guarded(const_cast<vbmc_opts*>(opts)->error, [&] {
        require_pointer(name, "name");
        require_pointer(buf, "buf");
        const std::string text = opts->values.get_text(name);
        if (size < text.size() + 1)
            throw_error(Code::arg, "buf has " + std::to_string(size) + " bytes; the value of " + name + " needs " +
                                       std::to_string(text.size() + 1));
        std::memcpy(buf, text.c_str(), text.size() + 1);
        return VBMC_OK;
    });
}

VBMC_API const char* vbmc_opts_error(const vbmc_opts* opts) {
    if (opts == nullptr) return "opts is NULL";
    if (opts->magic != vbmc_opts::kMagic) return "opts is not a valid handle";
    return opts->error.c_str();
}

VBMC_API int vbmc_opts_count(void) { return static_cast<int>(option_table().size()); }

VBMC_API const char* vbmc_opts_name(int index) {
    const OptionSpec* s = spec_at(index);
    return s ? s->name : nullptr;
}

VBMC_API const char* vbmc_opts_type(int index) {
    const OptionSpec* s = spec_at(index);
    return s ? option_type_name(s->type) : nullptr;
}

VBMC_API const char* vbmc_opts_default(int index) {
    const OptionSpec* s = spec_at(index);
    return s ? s->default_text : nullptr;
}

VBMC_API const char* vbmc_opts_help(int index) {
    const OptionSpec* s = spec_at(index);
    return s ? s->help : nullptr;
}

}  // extern "C"
