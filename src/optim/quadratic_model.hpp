// A local quadratic model m(z) = c + g^T s + 1/2 s^T H s, s = z - centre, fitted to scattered
// values by weighted least squares. Where the points do not determine every coefficient the fit
// stays closest to a prior Hessian (Powell's least-change updating of NEWUOA, 2006, here as a
// small ridge penalty on ||H - H_prior||_F): a few points give a linear model with the prior's
// curvature, (D+1)(D+2)/2 well-spread points determine the model completely.
#pragma once
#include <vector>

#include "linalg/matrix.hpp"

namespace libvbmc {

struct QuadraticModel {
    std::vector<double> centre;
    double c = 0.0;
    std::vector<double> g;
    Matrix h;

    double value(const double* z) const;
};

// Points z (n x D) with values y[n] and weights w[n] >= 0 (some positive); prior_h is D x D (or
// empty for zero). scale is the typical distance of the points from the centre (the fit is done
// in units of it, for conditioning). Throws Error(numeric) for non-finite input.
QuadraticModel fit_quadratic_model(const Matrix& z, const std::vector<double>& y, const std::vector<double>& w,
                                   const std::vector<double>& centre, double scale, const Matrix& prior_h);

}  // namespace libvbmc
