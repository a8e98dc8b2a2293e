#include "post/marginal.hpp"

#include <cmath>
#include <string>

#include "util/error.hpp"
#include "util/math.hpp"

namespace libvbmc {

Marginal::Marginal(const PosteriorSnapshot& posterior, int coord) : transform_(posterior.transform), coord_(coord) {
    const VariationalPosterior& vp = posterior.vp;
    if (coord < 0 || coord >= vp.dim)
        throw_error(Code::arg, "coord = " + std::to_string(coord) + " is not a coordinate of a " +
                                   std::to_string(vp.dim) + "-dimensional posterior (0 <= coord < " +
                                   std::to_string(vp.dim) + ")");
    const AffineMap map = transform_.warped_from_unbounded();
    for (int j = 0; j < vp.k; ++j) {
        double mean = map.b[static_cast<size_t>(coord)], variance = 0.0;
        for (int i = 0; i < vp.dim; ++i) {
            const double a = map.a(coord, i);
            const double scale = vp.sigma[static_cast<size_t>(j)] * vp.lambda_of(j, i);
            mean += a * vp.mu(j, i);
            variance += a * a * scale * scale;
        }
        log_w_.push_back(std::log(vp.w[static_cast<size_t>(j)]));
        mean_.push_back(mean);
        sd_.push_back(std::sqrt(variance));
    }
}

double Marginal::log_pdf(double x) const {
    if (!transform_.inside_bounds(coord_, x)) return -INFINITY;
    const double y = transform_.to_warped(coord_, x);
    std::vector<double> log_terms(log_w_.size());
    for (size_t j = 0; j < log_w_.size(); ++j) {
        const double u = (y - mean_[j]) / sd_[j];
        log_terms[j] = log_w_[j] - 0.5 * u * u - 0.5 * kLog2Pi - std::log(sd_[j]);
    }
    return log_sum_exp(log_terms.data(), log_terms.size()) - transform_.log_dx_dy(coord_, y);
}

}  // namespace libvbmc
