// Leave-one-out predictions of a GP at its own training points, in closed form (Rasmussen &
// Williams 2006, section 5.4.2, eq. 5.12): with K_y = K + noise and alpha = K_y^{-1} (y - m),
// the prediction of y_i from the other points misses it by alpha_i / [K_y^{-1}]_ii and has
// predictive variance 1 / [K_y^{-1}]_ii (observation noise included).
#pragma once
#include <vector>

#include "gp/gp.hpp"

namespace libvbmc {

// residual[i] = y_i - (LOO mean at x_i), variance[i] = LOO predictive variance, for one sample.
void gp_leave_one_out(const GpSample& sample, std::vector<double>& residual, std::vector<double>& variance);

}  // namespace libvbmc
