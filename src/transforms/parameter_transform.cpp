#include "transforms/parameter_transform.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

#include "linalg/linalg.hpp"
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

// Scratch space for one point: on the stack up to 64 coordinates (the API's VBMC_MAX_DIM), on the
// heap beyond, so the transform keeps no state between calls.
class PointScratch {
public:
    explicit PointScratch(int n) {
        if (n > kStackDim) heap_.resize(static_cast<size_t>(n));
    }
    double* data() { return heap_.empty() ? stack_ : heap_.data(); }

private:
    static constexpr int kStackDim = 64;
    double stack_[kStackDim];
    std::vector<double> heap_;
};

// Flag in the serialised kind byte: a rotation and scale follow the centring.
constexpr uint8_t kRotoscalingFlag = 0x80;

// Sign of det(a) by Gaussian elimination with partial pivoting (0 for a singular matrix).
double determinant_sign(Matrix a) {
    const int n = a.rows;
    double sign = 1.0;
    for (int c = 0; c < n; ++c) {
        int pivot = c;
        for (int r = c + 1; r < n; ++r)
            if (std::fabs(a(r, c)) > std::fabs(a(pivot, c))) pivot = r;
        if (a(pivot, c) == 0.0) return 0.0;
        if (pivot != c) {
            for (int j = 0; j < n; ++j) std::swap(a(c, j), a(pivot, j));
            sign = -sign;
        }
        if (a(c, c) < 0.0) sign = -sign;
        for (int r = c + 1; r < n; ++r) {
            const double factor = a(r, c) / a(c, c);
            for (int j = c; j < n; ++j) a(r, j) -= factor * a(c, j);
        }
    }
    return sign;
}

// A stored rotation must be orthogonal (|det| = 1 is what the Jacobian assumes) and the scales
// finite and positive.
bool valid_rotoscaling(const Matrix& rotation, const std::vector<double>& scale, size_t dim) {
    const int n = static_cast<int>(dim);
    if (rotation.rows != n || rotation.cols != n || scale.size() != dim) return false;
    for (double s : scale)
        if (!(s > 0.0) || !std::isfinite(s)) return false;
    for (double v : rotation.data)
        if (!std::isfinite(v)) return false;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double dot = 0.0;
            for (int k = 0; k < n; ++k) dot += rotation(k, i) * rotation(k, j);
            if (std::fabs(dot - (i == j ? 1.0 : 0.0)) > 1e-10) return false;
        }
    return true;
}

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

ParameterTransform ParameterTransform::with_plausible_box(const double* plb, const double* pub) const {
    return ParameterTransform(dim(), lb_.data(), ub_.data(), plb, pub, kind_);
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

// d/dy of log_dx_dy: 0, 1, -1 (0 where x is clamped), -y (probit) or -tanh(y / 2) (logit).
double ParameterTransform::d_log_dx_dy(int i, double y) const {
    switch (coordinate_[i]) {
        case Coordinate::unbounded: return 0.0;
        case Coordinate::lower: return y > kLogDblMax ? 0.0 : 1.0;
        case Coordinate::upper: return -y > kLogDblMax ? 0.0 : -1.0;
        case Coordinate::bounded: break;
    }
    return kind_ == Bounded::logit ? -std::tanh(0.5 * y) : -y;
}

void ParameterTransform::warped_point(const double* z, double* y) const {
    const int n = dim();
    for (int i = 0; i < n; ++i)
        if (std::isnan(z[i])) throw_error(Code::numeric, coordinate_name(i) + " of the unbounded point is NaN");
    for (int i = 0; i < n; ++i) {
        double centred = z[i];
        if (has_rotoscaling()) {
            const double* rotation_row = rotation_.row(i);
            centred = 0.0;
            for (int j = 0; j < n; ++j) centred += rotation_row[j] * scale_[j] * z[j];
        }
        y[i] = centred * delta_[i] + mu_[i];
    }
}

// Forward map (PyVBMC ParameterTransformer.__call__): y, then u = (y - mu) / delta, then
// z = diag(1 / scale) R^T u. x and z may alias.
void ParameterTransform::to_unbounded(const double* x, double* z) const {
    const int n = dim();
    PointScratch scratch(n);
    double* centred = scratch.data();
    for (int i = 0; i < n; ++i) {
        if (!(x[i] >= lb_[i] && x[i] <= ub_[i]))
            throw_error(Code::arg, coordinate_name(i) + " of the point is NaN or outside its hard bounds");
        centred[i] = (to_warped(i, x[i]) - mu_[i]) / delta_[i];
    }
    if (!has_rotoscaling()) {
        for (int i = 0; i < n; ++i) z[i] = centred[i];
        return;
    }
    for (int j = 0; j < n; ++j) z[j] = 0.0;
    for (int i = 0; i < n; ++i) {
        const double* rotation_row = rotation_.row(i);
        for (int j = 0; j < n; ++j) z[j] += centred[i] * rotation_row[j];
    }
    for (int j = 0; j < n; ++j) z[j] /= scale_[j];
}

// Inverse map (PyVBMC ParameterTransformer.inverse). z and x may alias.
void ParameterTransform::to_original(const double* z, double* x) const {
    const int n = dim();
    PointScratch scratch(n);
    double* warped = scratch.data();
    warped_point(z, warped);
    for (int i = 0; i < n; ++i) {
        const double value = from_warped(i, warped[i]);
        x[i] = std::fmin(std::fmax(value, std::nextafter(lb_[i], INFINITY)), std::nextafter(ub_[i], -INFINITY));
    }
}

// PyVBMC ParameterTransformer.log_abs_det_jacobian: the coordinate-wise terms at y plus the
// constant of the linear stage. Each term is finite or -inf, so the sum never becomes NaN.
double ParameterTransform::log_abs_det_jacobian(const double* z) const {
    const int n = dim();
    PointScratch scratch(n);
    double* warped = scratch.data();
    warped_point(z, warped);
    double total = 0.0;
    for (int i = 0; i < n; ++i) total += log_dx_dy(i, warped[i]) + std::log(delta_[i]);
    for (double s : scale_) total += std::log(s);
    return total;
}

// Chain rule through y = mu + A z, A_ij = delta_i R_ij scale_j (A = diag(delta) without rotoscaling).
void ParameterTransform::log_abs_det_jacobian_gradient(const double* z, double* grad) const {
    const int n = dim();
    PointScratch scratch(n);
    double* warped = scratch.data();
    warped_point(z, warped);
    for (int j = 0; j < n; ++j) grad[j] = 0.0;
    for (int i = 0; i < n; ++i) {
        const double dy = d_log_dx_dy(i, warped[i]) * delta_[i];
        if (!has_rotoscaling()) {
            grad[i] = dy;
            continue;
        }
        const double* rotation_row = rotation_.row(i);
        for (int j = 0; j < n; ++j) grad[j] += dy * rotation_row[j] * scale_[j];
    }
}

double ParameterTransform::log_abs_det_linear_stage() const {
    double total = 0.0;
    for (double d : delta_) total += std::log(d);
    for (double s : scale_) total += std::log(s);
    return total;
}

bool ParameterTransform::inside_bounds(const double* x) const {
    for (int i = 0; i < dim(); ++i)
        if (!(x[i] > lb_[i] && x[i] < ub_[i])) return false;
    return true;
}

void ParameterTransform::write(Writer& out) const {
    out.u8(static_cast<uint8_t>(static_cast<uint8_t>(kind_) | (has_rotoscaling() ? kRotoscalingFlag : 0)));
    out.doubles(lb_);
    out.doubles(ub_);
    out.doubles(mu_);
    out.doubles(delta_);
    if (has_rotoscaling()) {
        out.matrix(rotation_);
        out.doubles(scale_);
    }
}

ParameterTransform ParameterTransform::read(Reader& in) {
    ParameterTransform result;
    const uint8_t kind_byte = in.u8();
    const bool rotoscaling = (kind_byte & kRotoscalingFlag) != 0;
    const uint8_t kind = static_cast<uint8_t>(kind_byte & ~kRotoscalingFlag);
    if (kind > static_cast<uint8_t>(Bounded::logit))
        throw_error(Code::format, "the parameter transform names an unknown bounded transform");
    result.kind_ = static_cast<Bounded>(kind);
    result.lb_ = in.doubles();
    result.ub_ = in.doubles();
    result.mu_ = in.doubles();
    result.delta_ = in.doubles();
    if (rotoscaling) {
        result.rotation_ = in.matrix();
        result.scale_ = in.doubles();
    }
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
    if (rotoscaling && !valid_rotoscaling(result.rotation_, result.scale_, dim))
        throw_error(Code::format, "the parameter transform holds an invalid rotation or scale");
    result.classify_coordinates();
    return result;
}

bool ParameterTransform::is_affine() const {
    for (Coordinate c : coordinate_)
        if (c != Coordinate::unbounded) return false;
    return true;
}

AffineMap ParameterTransform::original_from_unbounded() const {
    if (!is_affine()) throw_error(Code::arg, "the parameter transform is not affine: some coordinates are bounded");
    return warped_from_unbounded();  // y = x for unbounded coordinates
}

// y = mu + diag(delta) R diag(scale) z.
AffineMap ParameterTransform::warped_from_unbounded() const {
    const int n = dim();
    AffineMap map{Matrix(n, n), mu_};
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const double rotation = has_rotoscaling() ? rotation_(i, j) * scale_[j] : (i == j ? 1.0 : 0.0);
            map.a(i, j) = delta_[i] * rotation;
        }
    return map;
}

// z = diag(1 / scale) R^T diag(1 / delta) (y - mu).
AffineMap ParameterTransform::unbounded_from_warped() const {
    const int n = dim();
    AffineMap map{Matrix(n, n), std::vector<double>(static_cast<size_t>(n), 0.0)};
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const double rotation = has_rotoscaling() ? rotation_(i, j) / scale_[j] : (i == j ? 1.0 : 0.0);
            map.a(j, i) = rotation / delta_[i];
        }
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) map.b[j] -= map.a(j, i) * mu_[i];
    return map;
}

bool ParameterTransform::same_coordinate_map(const ParameterTransform& other) const {
    if (lb_ != other.lb_ || ub_ != other.ub_) return false;
    for (Coordinate c : coordinate_)
        if (c == Coordinate::bounded) return kind_ == other.kind_;
    return true;
}

// PyVBMC warp_input, rotoscaling branch (see the header).
ParameterTransform ParameterTransform::rotoscaled(const Matrix& vp_cov_z, double corr_thresh, double cov_reg) const {
    const int n = dim();
    if (vp_cov_z.rows != n || vp_cov_z.cols != n)
        throw_error(Code::arg, "the covariance for rotoscaling does not match the transform's dimension");
    if (std::isnan(corr_thresh) || std::isnan(cov_reg))
        throw_error(Code::arg, "the rotoscaling correlation threshold and regularisation must not be NaN");
    for (double v : vp_cov_z.data)
        if (!std::isfinite(v)) throw_error(Code::numeric, "the covariance for rotoscaling has a non-finite entry");
    // Covariance in y space: L cov L^T with y = mu + L z.
    const AffineMap linear = warped_from_unbounded();
    Matrix half, cov_y;
    gemm(false, false, 1.0, linear.a, vp_cov_z, 0.0, half);
    gemm(false, true, 1.0, half, linear.a, 0.0, cov_y);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j) cov_y(i, j) = cov_y(j, i) = 0.5 * (cov_y(i, j) + cov_y(j, i));
    if (corr_thresh > 0.0) {
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                if (i != j && std::fabs(cov_y(i, j)) <= corr_thresh * std::sqrt(cov_y(i, i) * cov_y(j, j)))
                    cov_y(i, j) = 0.0;
    }
    const double weight = std::fmin(1.0, std::fmax(0.0, cov_reg));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (i != j) cov_y(i, j) *= 1.0 - weight;
    // SVD of a symmetric positive semi-definite matrix = eigendecomposition with |eigenvalues|,
    // ordered descending as numpy's svd.
    std::vector<double> eigenvalues;
    Matrix eigenvectors;
    symmetric_eigen(cov_y, eigenvalues, eigenvectors);
    ParameterTransform result = *this;
    result.rotation_ = Matrix(n, n);
    result.scale_.assign(static_cast<size_t>(n), 0.0);
    std::vector<int> order(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return std::fabs(eigenvalues[a]) > std::fabs(eigenvalues[b]); });
    for (int k = 0; k < n; ++k) {
        const int source = order[k];
        for (int i = 0; i < n; ++i) result.rotation_(i, k) = eigenvectors(i, source);
        result.scale_[k] = std::sqrt(std::fabs(eigenvalues[source]) + DBL_EPSILON);
    }
    if (determinant_sign(result.rotation_) < 0.0)
        for (int i = 0; i < n; ++i) result.rotation_(i, 0) = -result.rotation_(i, 0);
    result.mu_.assign(static_cast<size_t>(n), 0.0);
    result.delta_.assign(static_cast<size_t>(n), 1.0);
    return result;
}

}  // namespace libvbmc
