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
#pragma once
#include <vector>

#include "io/serial.hpp"

namespace libvbmc {

class ParameterTransform {
public:
    enum class Bounded { probit, logit };

    ParameterTransform() = default;
    // Requires lb <= plb < pub <= ub, plb and pub finite, lb < +inf, ub > -inf; throws Error(arg)
    // otherwise. All arrays have `dim` entries.
    ParameterTransform(int dim, const double* lb, const double* ub, const double* plb, const double* pub,
                       Bounded kind);

    int dim() const { return static_cast<int>(lb_.size()); }
    Bounded bounded_kind() const { return kind_; }

    // x (original, inside [lb, ub]) -> z (unbounded). Points on or within rounding of a finite bound
    // map to a large finite z (|y| <= ~745), never to +-inf. Throws Error(arg) for NaN or x outside [lb, ub].
    void to_unbounded(const double* x, double* z) const;
    // z -> x, clamped to [nextafter(lb, +inf), nextafter(ub, -inf)] (so +-DBL_MAX for infinite
    // bounds). Throws Error(numeric) for NaN z.
    void to_original(const double* z, double* x) const;
    // log |det dx/dz| at z: sum over coordinates of log |dx_i/dz_i| (the map is diagonal). Add it to
    // the log density in original space to obtain the log density in z space.
    double log_abs_det_jacobian(const double* z) const;
    // lb < x < ub in every coordinate (false for NaN).
    bool inside_bounds(const double* x) const;
    // True when every coordinate is unbounded, so x = mu + delta * z is affine in each coordinate.
    bool is_affine() const;

    void write(Writer& out) const;
    static ParameterTransform read(Reader& in);

private:
    enum class Coordinate : int { unbounded, lower, upper, bounded };
    double to_warped(int i, double x) const;    // x -> y (before centring)
    double from_warped(int i, double y) const;  // y -> x (before clamping)
    double log_dx_dy(int i, double y) const;
    void classify_coordinates();

    Bounded kind_ = Bounded::probit;
    std::vector<double> lb_, ub_;
    std::vector<double> mu_, delta_;
    std::vector<Coordinate> coordinate_;
};

}  // namespace libvbmc
