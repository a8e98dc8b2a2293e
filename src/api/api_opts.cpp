// vbmc_opts_*: the options object and option introspection.
#include <cmath>

#include "api/handles.hpp"

using namespace libvbmc;

namespace {
const OptionSpec* spec_at(int index) {
    const auto& table = option_table();
    if (index < 0 || index >= static_cast<int>(table.size())) return nullptr;
    return &table[static_cast<size_t>(index)];
}

// Every call on an options object: body(object). A NULL or dead handle returns VBMC_E_ARG with
// the message in vbmc_last_error(NULL) (vbmc_opts_error has a static one).
template <typename Body>
vbmc_status on_opts(const vbmc_opts* opts, Body&& body) {
    OptsObject* object = opts_table().find(opts);
    if (object == nullptr) {
        global_error() = invalid_handle("opts", opts);
        return VBMC_E_ARG;
    }
    return guarded(object->error, [&] { return body(*object); });
}
}  // namespace

extern "C" {

VBMC_API vbmc_status vbmc_opts_create(vbmc_opts** out) {
    return guarded(global_error(), [&] {
        require_pointer(out, "out");
        *out = nullptr;
        *out = opts_table().add(std::make_unique<OptsObject>());
        return VBMC_OK;
    });
}

VBMC_API void vbmc_opts_destroy(vbmc_opts* opts) { opts_table().destroy(opts); }

VBMC_API vbmc_status vbmc_opts_set(vbmc_opts* opts, const char* name, const char* value) {
    return on_opts(opts, [&](OptsObject& object) {
        require_pointer(name, "name");
        require_pointer(value, "value");
        object.values.set_text(name, value);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_opts_set_int(vbmc_opts* opts, const char* name, long long value) {
    return on_opts(opts, [&](OptsObject& object) {
        require_pointer(name, "name");
        object.values.set_integer(name, value);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_opts_set_double(vbmc_opts* opts, const char* name, double value) {
    return on_opts(opts, [&](OptsObject& object) {
        require_pointer(name, "name");
        object.values.set_number(name, value);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_opts_get(const vbmc_opts* opts, const char* name, char* buf, size_t size) {
    // Every error leaves "" in the buffer, as the header promises; success overwrites it.
    if (buf != nullptr && size > 0) buf[0] = '\0';
    return on_opts(opts, [&](OptsObject& object) {
        require_pointer(name, "name");
        require_pointer(buf, "buf");
        copy_text(object.values.get_text(name), buf, size, std::string("the value of ") + name);
        return VBMC_OK;
    });
}

VBMC_API const char* vbmc_opts_error(const vbmc_opts* opts) {
    const OptsObject* object = opts_table().find(opts);
    if (object != nullptr) return object->error.c_str();
    return opts == nullptr ? "opts is NULL" : "opts is not a live handle (never created, or already destroyed)";
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
