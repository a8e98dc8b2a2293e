// The mode of a posterior snapshot in the original space: the highest point of its density there,
// log p_x(x) = log q(z) - log |det dx/dz| (run/posterior.hpp), the Jacobian included. The mode
// is not invariant under the transform: it is not the image of the mode of q in z.
#pragma once
#include <vector>

#include "run/posterior.hpp"

namespace libvbmc {

// Maximises log p_x(x(z)) over the unbounded z (x(z) is a bijection onto the open box of the hard
// bounds, so the maximiser maps to the mode of p_x) by BFGS with the analytic gradient, from each
// component mean and from the highest of 1000 draws of a fixed seed; returns the best end point in
// the original space (dim values). Deterministic. Where the density grows without bound towards a
// hard bound, the point returned lies within rounding of that bound.
std::vector<double> posterior_mode(const PosteriorSnapshot& posterior);

}  // namespace libvbmc
