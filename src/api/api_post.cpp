// vbmc_posterior and vbmc_post_*: posterior snapshots.
#include <cmath>
#include <cstring>

#include "api/handles.hpp"
#include "io/file_format.hpp"

using namespace libvbmc;

namespace {
// Calls on a snapshot: the snapshot has no message slot (it is immutable), so messages go to the
// thread's handle-less error, read with vbmc_last_error(NULL).
template <typename Body>
vbmc_status on_post(const vbmc_post* post, Body&& body) {
    if (post == nullptr || post->magic != vbmc_post::kMagic) {
        global_error() = post == nullptr ? "post is NULL" : "post is not a valid handle";
        return VBMC_E_ARG;
    }
    return guarded(global_error(), body);
}
}  // namespace

extern "C" {

VBMC_API vbmc_status vbmc_posterior(const ::vbmc* run, vbmc_post** out) {
    return on_run(run, [&] {
        require_pointer(out, "out");
        *out = nullptr;
        auto post = std::make_unique<vbmc_post>();
        post->posterior = run->run->posterior();
        *out = post.release();
        return VBMC_OK;
    });
}

VBMC_API void vbmc_post_destroy(vbmc_post* post) {
    if (post == nullptr || post->magic != vbmc_post::kMagic) return;
    post->magic = 0;
    delete post;
}

VBMC_API int vbmc_post_dim(const vbmc_post* post) {
    if (post == nullptr || post->magic != vbmc_post::kMagic) return 0;
    return post->posterior.vp.dim;
}

VBMC_API int vbmc_post_components(const vbmc_post* post) {
    if (post == nullptr || post->magic != vbmc_post::kMagic) return 0;
    return post->posterior.vp.k;
}

VBMC_API vbmc_status vbmc_post_elbo(const vbmc_post* post, double* elbo, double* elbo_sd) {
    return on_post(post, [&] {
        if (elbo) *elbo = post->posterior.elbo;
        if (elbo_sd) *elbo_sd = post->posterior.elbo_sd;
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_sample(const vbmc_post* post, size_t n, uint64_t seed, double* x) {
    return on_post(post, [&] {
        if (n == 0) return VBMC_OK;
        require_pointer(x, "x");
        if (n > (SIZE_MAX / sizeof(double)) / static_cast<size_t>(post->posterior.vp.dim))
            throw_error(Code::arg, "n = " + std::to_string(n) + " draws do not fit in memory");
        post->posterior.sample(n, seed, x);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_log_pdf(const vbmc_post* post, size_t n, const double* x, double* log_pdf) {
    return on_post(post, [&] {
        if (n == 0) return VBMC_OK;
        require_pointer(x, "x");
        require_pointer(log_pdf, "log_pdf");
        const size_t dim = static_cast<size_t>(post->posterior.vp.dim);
        if (n > SIZE_MAX / dim) throw_error(Code::arg, "n = " + std::to_string(n) + " points do not fit in memory");
        for (size_t i = 0; i < n * dim; ++i)
            if (std::isnan(x[i]))
                throw_error(Code::arg, "x[" + std::to_string(i) + "] (point " + std::to_string(i / dim) + ") is NaN");
        for (size_t i = 0; i < n; ++i) log_pdf[i] = post->posterior.log_pdf(x + i * dim);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_moments(const vbmc_post* post, double* mean, double* cov) {
    return on_post(post, [&] {
        require_pointer(mean, "mean");
        std::vector<double> m;
        Matrix c;
        post->posterior.moments(m, c);
        std::memcpy(mean, m.data(), sizeof(double) * m.size());
        if (cov) std::memcpy(cov, c.data.data(), sizeof(double) * c.data.size());
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_save(const vbmc_post* post, const char* path) {
    return on_post(post, [&] {
        require_pointer(path, "path");
        Writer payload;
        post->posterior.write(payload);
        write_container(path, FileKind::posterior, payload.bytes());
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_load(vbmc_post** out, const char* path) {
    return guarded(global_error(), [&] {
        require_pointer(out, "out");
        *out = nullptr;
        require_pointer(path, "path");
        const std::vector<uint8_t> payload = read_container(path, FileKind::posterior);
        Reader in(payload.data(), payload.size());
        auto post = std::make_unique<vbmc_post>();
        post->posterior = read_payload("posterior file", [&] { return PosteriorSnapshot::read(in); });
        if (in.remaining() != 0) throw_error(Code::format, "the posterior file has trailing bytes");
        *out = post.release();
        return VBMC_OK;
    });
}

}  // extern "C"
