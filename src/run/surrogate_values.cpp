#include "run/surrogate_values.hpp"

#include "util/error.hpp"

namespace libvbmc {

void ValueShaping::write(Writer& out) const {
    out.boolean(noise_shaping);
    out.f64(threshold);
    out.f64(factor);
    out.f64(reference);
    out.f64(mean_dof);
}

ValueShaping ValueShaping::read(Reader& in) {
    ValueShaping s;
    s.noise_shaping = in.boolean();
    s.threshold = in.f64();
    s.factor = in.f64();
    s.reference = in.f64();
    s.mean_dof = in.f64();
    if (!(s.threshold >= 0.0) || !(s.factor >= 0.0) || std::isinf(s.reference) || !(s.mean_dof >= 0.0) ||
        std::isinf(s.mean_dof))
        throw_error(Code::format, "the noise shaping or mean shape of a surrogate's training set is invalid");
    return s;
}

// MATLAB VBMC noiseshaping_vbmc: s2 + (factor * max(0, y_max - y - threshold))^2.
double noise_shaping_variance(double y, double reference, const ValueShaping& s) {
    if (!s.noise_shaping) return 0.0;
    const double beyond = std::max(0.0, reference - y - s.threshold);
    const double extra = s.factor * beyond;
    return std::min(extra * extra, kMaxShapingVariance);
}

SurrogatePoint surrogate_point(double log_joint_z, double sd, double best, const ValueShaping& s) {
    SurrogatePoint p;
    p.y = surrogate_value(log_joint_z, best);
    p.s2 = sd * sd;
    if (s.noise_shaping) p.s2 += noise_shaping_variance(p.y, best, s);
    return p;
}

}  // namespace libvbmc
