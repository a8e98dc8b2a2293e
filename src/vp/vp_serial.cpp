// Checkpoint serialisation of the variational posterior.
#include "util/error.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

void VariationalPosterior::write(Writer& out) const {
    out.i64(dim);
    out.i64(k);
    out.doubles(w);
    out.matrix(mu);
    out.doubles(sigma);
    out.boolean(component_scales);
    out.doubles(lambda);
    out.boolean(optimize_weights);
}

VariationalPosterior VariationalPosterior::read(Reader& in) {
    VariationalPosterior vp;
    vp.dim = static_cast<int>(in.bounded(1, 1 << 20, "variational posterior dimension"));
    vp.k = static_cast<int>(in.bounded(1, 1 << 20, "number of mixture components"));
    vp.w = in.doubles();
    vp.mu = in.matrix();
    vp.sigma = in.doubles();
    vp.component_scales = in.boolean();
    vp.lambda = in.doubles();
    vp.optimize_weights = in.boolean();
    if (static_cast<int>(vp.w.size()) != vp.k || vp.mu.rows != vp.k || vp.mu.cols != vp.dim ||
        static_cast<int>(vp.sigma.size()) != vp.k || vp.lambda.size() != static_cast<size_t>(vp.lambda_rows()) * vp.dim)
        throw_error(Code::format, "Variational posterior record has inconsistent sizes.");
    return vp;
}

}  // namespace libvbmc
