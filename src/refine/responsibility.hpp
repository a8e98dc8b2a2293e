// The responsibility of one mixture component for a point, r(j | w) = w_j q_j(w) / q(w), with
// its gradient in w: the factor by which refinement branch j shares the posterior with the
// mixture's other components (refine.hpp).
#pragma once
#include <vector>

#include "linalg/matrix.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

class Responsibility {
public:
    explicit Responsibility(const VariationalPosterior& vp);

    // log r(j | w); grad (dim values, may be null) receives its gradient in w.
    double log_value(int j, const double* w, double* grad) const;

private:
    int dim_, k_;
    Matrix mu_;                    // k x dim component means
    Matrix inv_var_;               // k x dim: 1 / (sigma_j lambda_jd)^2
    std::vector<double> log_norm_; // log w_j - 1/2 sum_d log(2 pi (sigma_j lambda_jd)^2)
    mutable std::vector<double> log_terms_;
};

}  // namespace libvbmc
