#include "gp/surrogate_record.hpp"

#include <cmath>

#include "util/error.hpp"

namespace libvbmc {

void SurrogateRecord::write(Writer& out) const {
    out.matrix(data.x);
    out.doubles(data.y);
    out.doubles(data.s2);
    out.f64(data.mean_dof);
    out.u64(thetas.size());
    for (const std::vector<double>& theta : thetas) out.doubles(theta);
}

namespace {
void require_finite(const std::vector<double>& values, const char* what) {
    for (double v : values)
        if (!std::isfinite(v)) throw_error(Code::format, std::string("the surrogate's ") + what + " holds a non-finite value");
}
}  // namespace

SurrogateRecord SurrogateRecord::read(Reader& in, int dim) {
    SurrogateRecord r;
    r.data.x = in.matrix();
    r.data.y = in.doubles();
    r.data.s2 = in.doubles();
    r.data.mean_dof = in.f64();
    if (!(r.data.mean_dof >= 0.0) || !std::isfinite(r.data.mean_dof))
        throw_error(Code::format, "the surrogate's mean shape (mean_dof) is negative or not finite");
    const int n = r.data.x.rows;
    if (n < 1 || r.data.x.cols != dim || static_cast<int>(r.data.y.size()) != n || static_cast<int>(r.data.s2.size()) != n)
        throw_error(Code::format, "the surrogate's training set is empty or its sizes disagree with the posterior's dimension");
    const int64_t n_samples = in.bounded(1, 1 << 20, "surrogate sample count");
    for (int64_t i = 0; i < n_samples; ++i) {
        r.thetas.push_back(in.doubles());
        if (static_cast<int>(r.thetas.back().size()) != hyp::count(dim))
            throw_error(Code::format, "a surrogate hyperparameter sample has the wrong length");
        require_finite(r.thetas.back(), "hyperparameters");
    }
    require_finite(r.data.x.data, "training inputs");
    require_finite(r.data.y, "training values");
    require_finite(r.data.s2, "noise variances");
    for (double s2 : r.data.s2)
        if (s2 < 0.0) throw_error(Code::format, "the surrogate holds a negative noise variance");
    return r;
}

}  // namespace libvbmc
