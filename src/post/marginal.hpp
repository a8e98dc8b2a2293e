// The exact marginal density of one coordinate of a posterior snapshot in the original space.
// The linear stage of the transform, y = mu + A z (transforms/parameter_transform.hpp, with or
// without rotoscaling), maps component j of the mixture, N(m_j, diag(s_j^2)) in z, to a Gaussian
// in y whose coordinate d is N((mu + A m_j)_d, sum_i A_di^2 s_ji^2). The coordinate-wise warping
// x_d -> y_d then gives p(x_d) = sum_j w_j N(y_d(x_d); ...) / |dx_d / dy_d|, and 0 outside the
// hard bounds.
#pragma once
#include <vector>

#include "run/posterior.hpp"

namespace libvbmc {

class Marginal {
public:
    // Throws Error(arg) unless 0 <= coord < the snapshot's dimension. Keeps a reference to the
    // snapshot's transform: the snapshot must outlive the marginal.
    Marginal(const PosteriorSnapshot& posterior, int coord);
    // log p(x_d) at x (-inf outside the open interval of the hard bounds or for NaN).
    double log_pdf(double x) const;

private:
    const ParameterTransform& transform_;
    int coord_;
    std::vector<double> log_w_, mean_, sd_;  // each component's weight and Gaussian in y_d
};

}  // namespace libvbmc
