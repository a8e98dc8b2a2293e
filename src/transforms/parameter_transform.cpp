#include "transforms/parameter_transform.hpp"

#include <cfloat>
#include <cmath>
#include <string>

#include "transforms/normal_cdf.hpp"
#include "util/error.hpp"
#include "util/math.hpp"

namespace libvbmc {

namespace {

// Smallest positive double: distances to a bound are floored here so that a point on (or within
// rounding of) a bound maps to a large finite value instead of -inf (PyVBMC _to_unit_interval nudge).
constexpr double kTiniest = 4.9406564584124654e-324;
// log(DBL_MAX): beyond it exp(y) overflows and to_original saturates at the clamp.
constexpr double kLogDblMax = 709.78271289338397;

std::string coordinate_name(int i) { return "coordinate " + std::to_string(i); }

}  // namespace

ParameterTransform::ParameterTransform(int dim, const double* lb, const double* ub, const double* plb,
                                       const double* pub, Bounded kind)
    : kind_(kind) {
    if (dim < 1) throw_error(Code::arg, "the parameter transform needs at least one dimension");
    lb_.assign(lb, lb + dim);
    ub_.assign(ub, ub + dim);
    for (int i = 0; i < dim; ++i) {
        if (std::isnan(lb[i]) || std::isnan(ub[i]) || lb[i] == INFINITY || ub[i] == -INFINITY)
            throw_error(Code::arg, coordinate_name(i) + " has a NaN or wrongly signed infinite hard bound");
        if (!std::isfinite(plb[i]) || !std::isfinite(pub[i]))
            throw_error(Code::arg, coordinate_name(i) + " needs finite plausible bounds");
        if (!(lb[i] <= plb[i] && plb[i] < pub[i] && pub[i] <= ub[i]))
            throw_error(Code::arg, coordinate_name(i) + " violates lb <= plb < pub <= ub");
        if (std::isfinite(lb[i]) && std::isfinite(ub[i]) && !std::isfinite(ub[i] - lb[i]))
            throw_error(Code::arg, coordinate_name(i) + " has hard bounds too far apart to represent their width");
    }
    classify_coordinates();
    // PyVBMC centring: the plausible box, warped, becomes [-0.5, 0.5].
    mu_.assign(dim, 0.0);
    delta_.assign(dim, 1.0);
    for (int i = 0; i < dim; ++i) {
        const bool box_touches_bound = (std::isfinite(lb[i]) && plb[i] == lb[i]) || (std::isfinite(ub[i]) && pub[i] == ub[i]);
        if (box_touches_bound) continue;
        const double y_low = to_warped(i, plb[i]);
        const double y_high = to_warped(i, pub[i]);
        mu_[i] = 0.5 * y_low + 0.5 * y_high;
        delta_[i] = y_high - y_low;
        if (!(delta_[i] > 0.0 && std::isfinite(delta_[i]) && std::isfinite(mu_[i])))
            throw_error(Code::arg, coordinate_name(i) + " has a plausible box too narrow or too wide to standardise");
    }
}

void ParameterTransform::classify_coordinates() {
    coordinate_.resize(lb_.size());
    for (size_t i = 0; i < lb_.size(); ++i) {
        const bool has_lower = std::isfinite(lb_[i]);
        const bool has_upper = std::isfinite(ub_[i]);
        coordinate_[i] = has_lower && has_upper ? Coordinate::bounded
                         : has_lower            ? Coordinate::lower
                         : has_upper            ? Coordinate::upper
                                                : Coordinate::unbounded;
    }
}

// Warping before centring. Two-sided coordinates compute the distance to whichever bound is nearer
// directly from x (t = (x - lb)/w or s = (ub - x)/w), so neither tail suffers 1 - t cancellation.
double ParameterTransform::to_warped(int i, double x) const {
    switch (coordinate_[i]) {
        case Coordinate::unbounded: return x;
        case Coordinate::lower: return std::log(std::fmax(x - lb_[i], kTiniest));
        case Coordinate::upper: return -std::log(std::fmax(ub_[i] - x, kTiniest));
        case Coordinate::bounded: break;
    }
    const double width = ub_[i] - lb_[i];
    const double t = std::fmax((x - lb_[i]) / width, kTiniest);
    const double s = std::fmax((ub_[i] - x) / width, kTiniest);
    if (kind_ == Bounded::logit) return std::log(t) - std::log(s);
    return t <= s ? normal_quantile(t) : -normal_quantile(s);
}

double ParameterTransform::from_warped(int i, double y) const {
    switch (coordinate_[i]) {
        case Coordinate::unbounded: return y;
        case Coordinate::lower: return lb_[i] + std::exp(y);
        case Coordinate::upper: return ub_[i] - std::exp(-y);
        case Coordinate::bounded: break;
    }
    const double width = ub_[i] - lb_[i];
    // Mass beyond |y| on the side of the nearer bound.
    double tail;
    if (kind_ == Bounded::logit) {
        const double e = std::exp(-std::fabs(y));
        tail = e / (1.0 + e);
    } else {
        tail = normal_cdf(-std::fabs(y));
    }
    return y <= 0.0 ? lb_[i] + width * tail : ub_[i] - width * tail;
}

// d x / d y of the warping: exp(y), exp(-y), w phi(y) (probit) or w t (1 - t) (logit). Where exp
// overflows, x is clamped to a constant, so the derivative is 0 (log -inf) rather than +inf.
double ParameterTransform::log_dx_dy(int i, double y) const {
    switch (coordinate_[i]) {
        case Coordinate::unbounded: return 0.0;
        case Coordinate::lower: return y > kLogDblMax ? -INFINITY : y;
        case Coordinate::upper: return -y > kLogDblMax ? -INFINITY : -y;
        case Coordinate::bounded: break;
    }
    const double log_width = std::log(ub_[i] - lb_[i]);
    if (kind_ == Bounded::logit) {
        const double a = std::fabs(y);
        return log_width - a - 2.0 * std::log1p(std::exp(-a));
    }
    return log_width - 0.5 * kLog2Pi - 0.5 * y * y;
}

void ParameterTransform::to_unbounded(const double* x, double* z) const {
    for (int i = 0; i < dim(); ++i) {
        if (!(x[i] >= lb_[i] && x[i] <= ub_[i]))
            throw_error(Code::arg, coordinate_name(i) + " of the point is NaN or outside its hard bounds");
        z[i] = (to_warped(i, x[i]) - mu_[i]) / delta_[i];
    }
}

void ParameterTransform::to_original(const double* z, double* x) const {
    for (int i = 0; i < dim(); ++i) {
        if (std::isnan(z[i])) throw_error(Code::numeric, coordinate_name(i) + " of the unbounded point is NaN");
        const double value = from_warped(i, z[i] * delta_[i] + mu_[i]);
        x[i] = std::fmin(std::fmax(value, std::nextafter(lb_[i], INFINITY)), std::nextafter(ub_[i], -INFINITY));
    }
}

// Each term is finite or -inf, so the sum never becomes NaN.
double ParameterTransform::log_abs_det_jacobian(const double* z) const {
    double total = 0.0;
    for (int i = 0; i < dim(); ++i) {
        if (std::isnan(z[i])) throw_error(Code::numeric, coordinate_name(i) + " of the unbounded point is NaN");
        total += log_dx_dy(i, z[i] * delta_[i] + mu_[i]) + std::log(delta_[i]);
    }
    return total;
}

bool ParameterTransform::inside_bounds(const double* x) const {
    for (int i = 0; i < dim(); ++i)
        if (!(x[i] > lb_[i] && x[i] < ub_[i])) return false;
    return true;
}

void ParameterTransform::write(Writer& out) const {
    out.u8(static_cast<uint8_t>(kind_));
    out.doubles(lb_);
    out.doubles(ub_);
    out.doubles(mu_);
    out.doubles(delta_);
}

ParameterTransform ParameterTransform::read(Reader& in) {
    ParameterTransform result;
    const uint8_t kind = in.u8();
    if (kind > static_cast<uint8_t>(Bounded::logit))
        throw_error(Code::format, "the parameter transform names an unknown bounded transform");
    result.kind_ = static_cast<Bounded>(kind);
    result.lb_ = in.doubles();
    result.ub_ = in.doubles();
    result.mu_ = in.doubles();
    result.delta_ = in.doubles();
    const size_t dim = result.lb_.size();
    if (dim == 0 || result.ub_.size() != dim || result.mu_.size() != dim || result.delta_.size() != dim)
        throw_error(Code::format, "the parameter transform has inconsistent dimensions");
    for (size_t i = 0; i < dim; ++i) {
        const double lb = result.lb_[i], ub = result.ub_[i];
        const bool bounds_ok = !std::isnan(lb) && !std::isnan(ub) && lb < ub && lb != INFINITY && ub != -INFINITY &&
                               (!std::isfinite(lb) || !std::isfinite(ub) || std::isfinite(ub - lb));
        if (!bounds_ok || !std::isfinite(result.mu_[i]) || !(result.delta_[i] > 0.0) ||
            !std::isfinite(result.delta_[i]))
            throw_error(Code::format, "the parameter transform holds invalid bounds or scales");
    }
    result.classify_coordinates();
    return result;
}

bool ParameterTransform::is_affine() const {
    for (Coordinate c : coordinate_)
        if (c != Coordinate::unbounded) return false;
    return true;
}

}  // namespace libvbmc
