// vbmc_posterior and vbmc_post_*: posterior snapshots.
#include <cmath>
#include <cstring>

#include "api/handles.hpp"
#include "bq/bbq.hpp"
#include "evidence/importance_evidence.hpp"
#include "io/file_format.hpp"
#include "post/divergence.hpp"
#include "post/marginal.hpp"
#include "post/mode.hpp"

using namespace libvbmc;

namespace {
// Calls on a snapshot: the snapshot has no message slot (it is immutable), so messages go to the
// thread's handle-less error, read with vbmc_last_error(NULL).
template <typename Body>
vbmc_status on_post(const vbmc_post* post, Body&& body) {
    const PostObject* object = post_table().find(post);
    if (object == nullptr) {
        global_error() = invalid_handle("post", post);
        return VBMC_E_ARG;
    }
    return guarded(global_error(), [&] { return body(object->posterior); });
}

// The same for calls comparing two snapshots p and q of the same dimension.
template <typename Body>
vbmc_status on_post_pair(const vbmc_post* p, const vbmc_post* q, Body&& body) {
    const PostObject* first = post_table().find(p);
    const PostObject* second = post_table().find(q);
    if (first == nullptr || second == nullptr) {
        global_error() = first == nullptr ? invalid_handle("p", p) : invalid_handle("q", q);
        return VBMC_E_ARG;
    }
    return guarded(global_error(), [&] { return body(first->posterior, second->posterior); });
}

// The same for calls that need the whole object (surrogate, refinement settings).
template <typename Object, typename Body>
vbmc_status on_post_object(Object* post, Body&& body) {
    PostObject* object = post_table().find(post);
    if (object == nullptr) {
        global_error() = invalid_handle("post", post);
        return VBMC_E_ARG;
    }
    return guarded(global_error(), [&] { return body(*object); });
}

void require_room(size_t n, int dim, const char* what) {
    if (n > (SIZE_MAX / sizeof(double)) / static_cast<size_t>(dim))
        throw_error(Code::arg, "n = " + std::to_string(n) + " " + what + " do not fit in memory");
}

// The posterior file's payload: the snapshot, its surrogate, the refinement settings.
void write_post(const PostObject& post, Writer& out) {
    post.posterior.write(out);
    post.surrogate.write(out);
    post.refine.write(out);
}

std::unique_ptr<PostObject> read_post(Reader& in) {
    auto post = std::make_unique<PostObject>();
    post->posterior = PosteriorSnapshot::read(in);
    post->surrogate = SurrogateRecord::read(in, post->posterior.vp.dim);
    post->refine = RefineSettings::read(in);
    return post;
}
}  // namespace

extern "C" {

VBMC_API vbmc_status vbmc_posterior(const ::vbmc* run, vbmc_post** out) {
    return on_run(run, [&](RunObject& handle) {
        require_pointer(out, "out");
        *out = nullptr;
        auto post = std::make_unique<PostObject>();
        post->posterior = handle.run->posterior();
        post->surrogate = handle.run->posterior_surrogate();
        *out = post_table().add(std::move(post));
        return VBMC_OK;
    });
}

VBMC_API void vbmc_post_destroy(vbmc_post* post) { post_table().destroy(post); }

VBMC_API int vbmc_post_dim(const vbmc_post* post) {
    const PostObject* object = post_table().find(post);
    return object ? object->posterior.vp.dim : 0;
}

VBMC_API int vbmc_post_components(const vbmc_post* post) {
    const PostObject* object = post_table().find(post);
    return object ? object->posterior.vp.k : 0;
}

VBMC_API vbmc_status vbmc_post_elbo(const vbmc_post* post, double* elbo, double* elbo_sd) {
    return on_post(post, [&](const PosteriorSnapshot& posterior) {
        if (elbo) *elbo = posterior.elbo;
        if (elbo_sd) *elbo_sd = posterior.elbo_sd;
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_log_evidence(const vbmc_post* post, double* log_z, double* log_z_sd) {
    return on_post_object(post, [&](const PostObject& object) {
        const LogEvidence evidence = log_evidence(object.posterior.vp, object.surrogate.build());
        if (log_z) *log_z = evidence.log_z;
        if (log_z_sd) *log_z_sd = evidence.log_z_sd;
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_log_evidence_bbq(const vbmc_post* post, double* log_z, double* log_z_sd) {
    return on_post_object(post, [&](const PostObject& object) {
        const BbqResult bbq = bbq_log_evidence(object.surrogate.data, object.posterior.vp);
        if (log_z) *log_z = bbq.log_z;
        if (log_z_sd) *log_z_sd = bbq.log_z_sd;
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_sample(const vbmc_post* post, size_t n, uint64_t seed, double* x) {
    return on_post(post, [&](const PosteriorSnapshot& posterior) {
        if (n == 0) return VBMC_OK;
        require_pointer(x, "x");
        require_room(n, posterior.vp.dim, "draws");
        posterior.sample(n, seed, x);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_sample_components(const vbmc_post* post, size_t n, uint64_t seed, double* x,
                                                 int* component) {
    return on_post(post, [&](const PosteriorSnapshot& posterior) {
        if (n == 0) return VBMC_OK;
        require_pointer(x, "x");
        require_pointer(component, "component");
        if (n > (SIZE_MAX / sizeof(double)) / static_cast<size_t>(posterior.vp.dim))
            throw_error(Code::arg, "n = " + std::to_string(n) + " draws do not fit in memory");
        posterior.sample(n, seed, x, component);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_log_pdf(const vbmc_post* post, size_t n, const double* x, double* log_pdf) {
    return on_post(post, [&](const PosteriorSnapshot& posterior) {
        if (n == 0) return VBMC_OK;
        require_pointer(x, "x");
        require_pointer(log_pdf, "log_pdf");
        const size_t dim = static_cast<size_t>(posterior.vp.dim);
        if (n > SIZE_MAX / dim) throw_error(Code::arg, "n = " + std::to_string(n) + " points do not fit in memory");
        for (size_t i = 0; i < n * dim; ++i)
            if (std::isnan(x[i]))
                throw_error(Code::arg, "x[" + std::to_string(i) + "] (point " + std::to_string(i / dim) + ") is NaN");
        for (size_t i = 0; i < n; ++i) log_pdf[i] = posterior.log_pdf(x + i * dim);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_moments(const vbmc_post* post, double* mean, double* cov) {
    return on_post(post, [&](const PosteriorSnapshot& posterior) {
        require_pointer(mean, "mean");
        std::vector<double> m;
        Matrix c;
        posterior.moments(m, c);
        std::memcpy(mean, m.data(), sizeof(double) * m.size());
        if (cov) std::memcpy(cov, c.data.data(), sizeof(double) * c.data.size());
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_mode(const vbmc_post* post, double* x) {
    return on_post(post, [&](const PosteriorSnapshot& posterior) {
        require_pointer(x, "x");
        const std::vector<double> mode = posterior_mode(posterior);
        std::memcpy(x, mode.data(), sizeof(double) * mode.size());
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_marginal_pdf(const vbmc_post* post, int coord, size_t n, const double* values,
                                            double* pdf) {
    return on_post(post, [&](const PosteriorSnapshot& posterior) {
        const Marginal marginal(posterior, coord);
        if (n == 0) return VBMC_OK;
        require_pointer(values, "values");
        require_pointer(pdf, "pdf");
        for (size_t i = 0; i < n; ++i)
            if (std::isnan(values[i])) throw_error(Code::arg, "values[" + std::to_string(i) + "] is NaN");
        for (size_t i = 0; i < n; ++i) pdf[i] = std::exp(marginal.log_pdf(values[i]));
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_kl(const vbmc_post* p, const vbmc_post* q, size_t n, uint64_t seed, double kl[2],
                                  double* kl_sd) {
    return on_post_pair(p, q, [&](const PosteriorSnapshot& first, const PosteriorSnapshot& second) {
        require_pointer(kl, "kl");
        require_room(n, first.vp.dim, "draws");
        const KlEstimate estimate = kl_divergence(first, second, n, seed);
        kl[0] = estimate.forward;
        kl[1] = estimate.reverse;
        if (kl_sd) {
            kl_sd[0] = estimate.forward_sd;
            kl_sd[1] = estimate.reverse_sd;
        }
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_mtv(const vbmc_post* p, const vbmc_post* q, size_t n, uint64_t seed, double* mtv,
                                   double* mean_mtv) {
    return on_post_pair(p, q, [&](const PosteriorSnapshot& first, const PosteriorSnapshot& second) {
        require_room(n, first.vp.dim, "draws");
        const std::vector<double> values = marginal_total_variation(first, second, n, seed);
        if (mtv) std::memcpy(mtv, values.data(), sizeof(double) * values.size());
        if (mean_mtv) {
            double total = 0.0;
            for (double v : values) total += v;
            *mean_mtv = total / static_cast<double>(values.size());
        }
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_sample_refined(const vbmc_post* post, size_t n, uint64_t seed, double* x) {
    return on_post_object(post, [&](const PostObject& object) {
        if (n == 0) return VBMC_OK;
        require_pointer(x, "x");
        require_room(n, object.posterior.vp.dim, "draws");
        refined_sample(object.posterior.vp, object.posterior.transform, object.surrogate, object.refine, n, seed, x, nullptr);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_refined_elbo(const vbmc_post* post, size_t n, uint64_t seed, double* elbo, double* elbo_sd) {
    return on_post_object(post, [&](const PostObject& object) {
        if (n < 2) throw_error(Code::arg, "n = " + std::to_string(n) + " draws cannot estimate the auxiliary ELBO and its SD; at least 2 are needed");
        std::vector<double> gains;
        refined_sample(object.posterior.vp, object.posterior.transform, object.surrogate, object.refine, n, seed, nullptr, &gains);
        // ELBO_aux = ELBO(q) + E[gain] (refine/refine.hpp); the SD adds the mean gain's standard error.
        double mean = 0.0, spread = 0.0;
        for (double g : gains) mean += g;
        mean /= static_cast<double>(n);
        for (double g : gains) spread += (g - mean) * (g - mean);
        const double mean_var = spread / static_cast<double>(n - 1) / static_cast<double>(n);
        if (elbo) *elbo = object.posterior.elbo + mean;
        if (elbo_sd) *elbo_sd = std::sqrt(object.posterior.elbo_sd * object.posterior.elbo_sd + mean_var);
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_set_refinement(vbmc_post* post, int aux_count, double variance_ratio) {
    return on_post_object(post, [&](PostObject& object) {
        const RefineSettings settings{aux_count, variance_ratio};
        settings.validate();
        object.refine = settings;
        return VBMC_OK;
    });
}

VBMC_API vbmc_status vbmc_post_save(const vbmc_post* post, const char* path) {
    return on_post_object(post, [&](const PostObject& object) {
        require_pointer(path, "path");
        Writer payload;
        write_post(object, payload);
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
        std::unique_ptr<PostObject> post = read_payload("posterior file", [&] { return read_post(in); });
        if (in.remaining() != 0) throw_error(Code::format, "the posterior file has trailing bytes");
        *out = post_table().add(std::move(post));
        return VBMC_OK;
    });
}

}  // extern "C"
