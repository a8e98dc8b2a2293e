// vbmc_create ... vbmc_load: the run handle.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "api/handles.hpp"
#include "io/file_format.hpp"

using namespace libvbmc;

namespace {

std::string num(double v) {
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
}

std::string at(const char* name, int d) { return std::string(name) + "[" + std::to_string(d) + "]"; }

// Bounds and starting point rules of vbmc_create: finite plausible box, lb < plb < pub < ub,
// lb < x0 < ub, nothing NaN.
void check_bounds(int dim, const double* x0, const double* lb, const double* ub, const double* plb,
                  const double* pub) {
    if (dim < 1 || dim > VBMC_MAX_DIM)
        throw_error(Code::arg, "dim = " + std::to_string(dim) + " is outside [1, " + std::to_string(VBMC_MAX_DIM) + "]");
    require_pointer(plb, "plb");
    require_pointer(pub, "pub");
    for (int d = 0; d < dim; ++d) {
        const double lo = lb ? lb[d] : -INFINITY;
        const double hi = ub ? ub[d] : INFINITY;
        if (std::isnan(lo) || lo == INFINITY) throw_error(Code::arg, at("lb", d) + " = " + num(lo) + " is not a valid lower bound");
        if (std::isnan(hi) || hi == -INFINITY) throw_error(Code::arg, at("ub", d) + " = " + num(hi) + " is not a valid upper bound");
        if (!std::isfinite(plb[d])) throw_error(Code::arg, at("plb", d) + " = " + num(plb[d]) + " is not finite");
        if (!std::isfinite(pub[d])) throw_error(Code::arg, at("pub", d) + " = " + num(pub[d]) + " is not finite");
        if (!(lo < hi)) throw_error(Code::arg, at("lb", d) + " = " + num(lo) + " is not below " + at("ub", d) + " = " + num(hi));
        if (!(plb[d] < pub[d])) throw_error(Code::arg, at("plb", d) + " = " + num(plb[d]) + " is not below " + at("pub", d) + " = " + num(pub[d]));
        if (!(lo < plb[d])) throw_error(Code::arg, at("lb", d) + " = " + num(lo) + " is not below " + at("plb", d) + " = " + num(plb[d]));
        if (!(pub[d] < hi)) throw_error(Code::arg, at("pub", d) + " = " + num(pub[d]) + " is not below " + at("ub", d) + " = " + num(hi));
        if (x0 != nullptr) {
            if (!std::isfinite(x0[d])) throw_error(Code::arg, at("x0", d) + " = " + num(x0[d]) + " is not finite");
            if (!(lo < x0[d] && x0[d] < hi))
                throw_error(Code::arg, at("x0", d) + " = " + num(x0[d]) + " is not strictly inside (" + num(lo) + ", " + num(hi) + ")");
        }
    }
}

// The values of an options handle (defaults for NULL).
OptionValues option_values_of(const vbmc_opts* opts) {
    if (opts == nullptr) return OptionValues();
    const OptsObject* options = opts_table().find(opts);
    if (options == nullptr) throw_error(Code::arg, invalid_handle("opts", opts));
    return options->values;
}

void default_logger(void*, int, const char* line) { std::fprintf(stderr, "%s\n", line); }

void connect_logger(RunObject* handle) {
    handle->run->set_log_sink([handle](int level, const std::string& line) {
        vbmc_log_fn fn = handle->log_fn ? handle->log_fn : default_logger;
        fn(handle->log_userdata, level, line.c_str());
    });
}

void autosave(Run& run) {
    if (!run.checkpoint_due()) return;
    Writer payload;
    run.write(payload);
    try {
        write_container(run.settings().checkpoint_file, FileKind::checkpoint, payload.bytes());
    } catch (const Error& e) {
        throw_error(Code::io, std::string("the value was recorded, but the automatic checkpoint failed: ") + e.what());
    }
}

}  // namespace

extern "C" {

VBMC_API vbmc_status vbmc_create(vbmc** out, int dim, const double* x0, const double* lb, const double* ub,
                                 const double* plb, const double* pub, const vbmc_opts* opts) {
    return guarded(global_error(), [&] {
        require_pointer(out, "out");
        *out = nullptr;
        check_bounds(dim, x0, lb, ub, plb, pub);
        const OptionValues values = option_values_of(opts);
        auto handle = std::make_unique<RunObject>();
        handle->run = std::make_unique<Run>(dim, x0, lb, ub, plb, pub, values);
        connect_logger(handle.get());
        *out = run_table().add(std::move(handle));
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_create_warm(vbmc** out, const vbmc* previous, const vbmc_opts* opts, int reuse_evaluations) {
    return guarded(global_error(), [&] {
        require_pointer(out, "out");
        *out = nullptr;
        const RunObject* before = run_table().find(previous);
        if (before == nullptr) throw_error(Code::arg, invalid_handle("previous", previous));
        if (reuse_evaluations != 0 && reuse_evaluations != 1)
            throw_error(Code::arg, "reuse_evaluations = " + std::to_string(reuse_evaluations) + " is neither 0 nor 1");
        const OptionValues values = option_values_of(opts);
        auto handle = std::make_unique<RunObject>();
        handle->run = std::make_unique<Run>(Run::warm_start(*before->run, values, reuse_evaluations == 1));
        connect_logger(handle.get());
        *out = run_table().add(std::move(handle));
        return VBMC_OK;
    });
}

VBMC_API void vbmc_destroy(vbmc* run) { run_table().destroy(run); }

VBMC_API const char* vbmc_last_error(const vbmc* run) {
    if (run == nullptr) return global_error().c_str();
    const RunObject* handle = run_table().find(run);
    if (handle != nullptr) return handle->error.c_str();
    global_error() = invalid_handle("run", run);
    return global_error().c_str();
}

VBMC_API const char* vbmc_result_message(const vbmc* run) {
    RunObject* handle = run_table().find(run);
    if (handle == nullptr) return "";
    try {
        handle->result_message = handle->run->result_message();
    } catch (...) {
        handle->result_message.clear();
    }
    return handle->result_message.c_str();
}

VBMC_API int vbmc_dim(const vbmc* run) {
    const RunObject* handle = run_table().find(run);
    return handle ? handle->run->dim() : 0;
}

VBMC_API vbmc_status vbmc_ask(vbmc* run, double* x) {
    return on_run(run, [&](RunObject& handle) {
        require_pointer(x, "x");
        switch (handle.run->ask(x)) {
            case AskResult::point: return VBMC_OK;
            case AskResult::done: return VBMC_DONE;
            case AskResult::wait: return VBMC_WAIT;
        }
        throw_error(Code::internal, "vbmc_ask: unknown answer of the run");
    });
}

VBMC_API vbmc_status vbmc_tell(vbmc* run, const double* x, double log_joint, double log_joint_sd) {
    return on_run(run, [&](RunObject& handle) {
        require_pointer(x, "x");
        handle.run->tell(x, log_joint, log_joint_sd);
        autosave(*handle.run);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_tell_extra(vbmc* run, const double* x, double log_joint, double log_joint_sd) {
    return on_run(run, [&](RunObject& handle) {
        require_pointer(x, "x");
        handle.run->tell_extra(x, log_joint, log_joint_sd);
        autosave(*handle.run);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_abandon(vbmc* run, const double* x) {
    return on_run(run, [&](RunObject& handle) {
        require_pointer(x, "x");
        handle.run->abandon(x);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_pending_point(const vbmc* run, int i, double* x) {
    return on_run(run, [&](RunObject& handle) {
        require_pointer(x, "x");
        const int n = handle.run->pending_count();
        if (i < 0 || i >= n)
            throw_error(Code::arg, "i = " + std::to_string(i) + " is outside [0, " + std::to_string(n) + ") pending points");
        const auto& point = handle.run->pending_point(i);
        std::memcpy(x, point.data(), sizeof(double) * point.size());
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_stat(const vbmc* run, const char* name, double* value) {
    return on_run(run, [&](RunObject& handle) {
        require_pointer(name, "name");
        require_pointer(value, "value");
        *value = handle.run->stat(name);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_set_logger(vbmc* run, vbmc_log_fn fn, void* userdata) {
    return on_run(run, [&](RunObject& handle) {
        handle.log_fn = fn;
        handle.log_userdata = userdata;
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_save(const vbmc* run, const char* path) {
    return on_run(run, [&](RunObject& handle) {
        require_pointer(path, "path");
        Writer payload;
        handle.run->write(payload);
        write_container(path, FileKind::checkpoint, payload.bytes());
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_load(vbmc** out, const char* path) {
    return guarded(global_error(), [&] {
        require_pointer(out, "out");
        *out = nullptr;
        require_pointer(path, "path");
        const std::vector<uint8_t> payload = read_container(path, FileKind::checkpoint);
        Reader in(payload.data(), payload.size());
        auto handle = std::make_unique<RunObject>();
        handle->run = std::make_unique<Run>(read_payload("checkpoint", [&] { return Run::read(in); }));
        connect_logger(handle.get());
        *out = run_table().add(std::move(handle));
        return VBMC_OK;
    });
}

}  // extern "C"
