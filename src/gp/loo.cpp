#include "gp/loo.hpp"

#include "linalg/linalg.hpp"

namespace libvbmc {

void gp_leave_one_out(const GpSample& sample, std::vector<double>& residual, std::vector<double>& variance) {
    const Matrix inverse = cholesky_inverse(sample.chol);
    const size_t n = sample.alpha.size();
    residual.resize(n);
    variance.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const double precision = inverse(static_cast<int>(i), static_cast<int>(i));
        residual[i] = sample.alpha[i] / precision;
        variance[i] = 1.0 / precision;
    }
}

}  // namespace libvbmc
