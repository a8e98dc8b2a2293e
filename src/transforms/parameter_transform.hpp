// Map between the user's original parameter space and the unbounded, standardised space the
// engine works in (PyVBMC ParameterTransformer, without rotation/whitening).
//
// Per coordinate, with hard bounds lb < ub (either may be infinite) and width w = ub - lb:
//   unbounded          y = x
//   lower bound only   y = log(x - lb)                      (PyVBMC leaves these linear; see below)
//   upper bound only   y = -log(ub - x)
//   both bounds        y = probit(t) or logit(t), t = (x - lb) / w    (PyVBMC bounded_transform)
// then z = (y - mu) / delta with mu, delta the midpoint and width of the plausible box [plb, pub]
// in y, so the plausible box maps to [-0.5, 0.5] in every coordinate. If plb or pub sits exactly on
// a finite hard bound (its y is infinite), that coordinate keeps mu = 0, delta = 1, as in PyVBMC.
//
// One-sided bounds use a log map (as MATLAB VBMC's warpvars) rather than PyVBMC's identity, so the
// engine can never propose a point outside a one-sided hard bound.
//
// Optional linear stage (PyVBMC rotoscaling, ParameterTransformer R_mat and scale): with
// u = (y - mu) / delta, z = diag(1 / scale) R^T u, R orthogonal (row-vector form: z = (u R) / scale).
// Without it R = I and scale = 1. Either way y = mu + diag(delta) R diag(scale) z: y is affine in z,
// and two transforms with the same coordinate-wise map differ by an affine map of z.
#pragma once
#include <vector>

#include "io/serial.hpp"
#include "linalg/matrix.hpp"

namespace libvbmc {

// v = a z + b.
struct AffineMap {
    Matrix a;
    std::vector<double> b;
};

class ParameterTransform {
public:
    enum class Bounded { probit, logit };

    ParameterTransform() = default;
    // Requires lb <= plb < pub <= ub, plb and pub finite, lb < +inf, ub > -inf; throws Error(arg)
    // otherwise. All arrays have `dim` entries.
    ParameterTransform(int dim, const double* lb, const double* ub, const double* plb, const double* pub,
                       Bounded kind);

    int dim() const { return static_cast<int>(lb_.size()); }
    // The hard bounds (infinite where there is none).
    const std::vector<double>& lb() const { return lb_; }
    const std::vector<double>& ub() const { return ub_; }
    // The same hard bounds and bounded kind centred on another plausible box (no linear stage);
    // throws Error(arg) as the constructor does.
    ParameterTransform with_plausible_box(const double* plb, const double* pub) const;
    Bounded bounded_kind() const { return kind_; }

    // x (original, inside [lb, ub]) -> z (unbounded). Points on or within rounding of a finite bound
    // map to a large finite z (|y| <= ~745), never to +-inf. Throws Error(arg) for NaN or x outside [lb, ub].
    void to_unbounded(const double* x, double* z) const;
    // z -> x, clamped to [nextafter(lb, +inf), nextafter(ub, -inf)] (so +-DBL_MAX for infinite
    // bounds). Throws Error(numeric) for NaN z.
    void to_original(const double* z, double* x) const;
    // log |det dx/dz| at z: sum over coordinates of log |dx_i/dy_i| plus log_abs_det_linear_stage().
    // Add it to the log density in original space to obtain the log density in z space.
    double log_abs_det_jacobian(const double* z) const;
    // log |det dy/dz| = sum log delta + sum log scale (R is orthogonal), a constant.
    double log_abs_det_linear_stage() const;
    // Gradient of log_abs_det_jacobian in z, into grad[dim] (sum over coordinates of
    // d log |dx_i/dy_i| / dy_i times dy_i/dz, y = mu + A z as in warped_from_unbounded).
    void log_abs_det_jacobian_gradient(const double* z, double* grad) const;
    // lb < x < ub in every coordinate (false for NaN).
    bool inside_bounds(const double* x) const;
    // lb_i < x < ub_i for coordinate i alone (false for NaN).
    bool inside_bounds(int i, double x) const { return x > lb_[i] && x < ub_[i]; }
    // Coordinate i's warping alone, before centring and the linear stage: y_i of x_i (x_i inside
    // [lb_i, ub_i]), and log |dx_i/dy_i| at y_i. With warped_from_unbounded they give the
    // marginals of a density of z in the original space.
    double to_warped(int i, double x) const;
    double log_dx_dy(int i, double y) const;
    // True when every coordinate is unbounded (rotation or not), so x = A z + b exactly.
    bool is_affine() const;
    // x = a z + b; throws Error(arg) unless is_affine().
    AffineMap original_from_unbounded() const;
    // The linear stage and its inverse: y = a z + b and z = a y + b, y the coordinate-wise warped x.
    AffineMap warped_from_unbounded() const;
    AffineMap unbounded_from_warped() const;
    // Same hard bounds and, if any coordinate is two-sided, the same bounded kind: the two
    // transforms then differ only in their linear stage.
    bool same_coordinate_map(const ParameterTransform& other) const;

    // PyVBMC warp_input, rotoscaling branch: the whitening transform for a variational posterior
    // with covariance vp_cov_z in this transform's z space. The covariance is mapped to y space,
    // off-diagonal entries with |correlation| <= corr_thresh are zeroed (no masking when
    // corr_thresh <= 0; the diagonal is never masked), it is shrunk towards its diagonal by
    // cov_reg clamped to [0, 1], and decomposed C = U diag(s) U^T (s descending, det U = +1).
    // The result has R = U, scale = sqrt(s + DBL_EPSILON), mu = 0, delta = 1, so the posterior has
    // unit diagonal covariance in its z space. Throws Error(arg) for a wrong size, Error(numeric)
    // for non-finite covariance entries.
    ParameterTransform rotoscaled(const Matrix& vp_cov_z, double corr_thresh, double cov_reg) const;
    bool has_rotoscaling() const { return !scale_.empty(); }
    const Matrix& rotation() const { return rotation_; }       // empty without rotoscaling
    const std::vector<double>& scale() const { return scale_; }  // empty without rotoscaling

    // Without rotoscaling the bytes are those of the format before rotoscaling existed; with it
    // the kind byte carries flag 0x80 and R, scale follow.
    void write(Writer& out) const;
    static ParameterTransform read(Reader& in);

private:
    enum class Coordinate : int { unbounded, lower, upper, bounded };
    double from_warped(int i, double y) const;  // y -> x (before clamping)
    double d_log_dx_dy(int i, double y) const;  // derivative of log_dx_dy in y
    void classify_coordinates();
    // y = mu + delta * u with u = R diag(scale) z (u = z without rotoscaling), into y[dim];
    // throws Error(numeric) naming the coordinate if z holds a NaN.
    void warped_point(const double* z, double* y) const;

    Bounded kind_ = Bounded::probit;
    std::vector<double> lb_, ub_;
    std::vector<double> mu_, delta_;
    Matrix rotation_;            // dim x dim orthogonal, or empty
    std::vector<double> scale_;  // dim positive, or empty (together with rotation_)
    std::vector<Coordinate> coordinate_;
};

}  // namespace libvbmc
