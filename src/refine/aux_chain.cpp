// Havasi et al. (2021), appendix A, in the centre form of aux_chain.hpp.
#include "refine/aux_chain.hpp"

#include <cmath>

namespace libvbmc {

std::vector<double> AuxStep::draw_centre(const std::vector<double>& w, const std::vector<double>& centre_before, Rng& rng) const {
    const size_t dim = w.size();
    std::vector<double> centre(dim);
    rng.normals(centre.data(), dim);
    const double r = ratio;
    for (size_t d = 0; d < dim; ++d) {
        const double sd = std::sqrt(r * (1.0 - r) * left_before * (*prior_var)[d]);
        centre[d] = (1.0 - r) * centre_before[d] + r * w[d] + sd * centre[d];
    }
    return centre;
}

DiagGaussian AuxStep::condition(const DiagGaussian& q, const std::vector<double>& centre_before,
                                const std::vector<double>& centre) const {
    const size_t dim = q.mean.size();
    DiagGaussian out{std::vector<double>(dim), std::vector<double>(dim)};
    for (size_t d = 0; d < dim; ++d) {
        const double window_var = left_after() * (*prior_var)[d];
        const double precision = 1.0 / q.var[d] + ratio / window_var;
        out.var[d] = 1.0 / precision;
        out.mean[d] = out.var[d] * (q.mean[d] / q.var[d] + (centre[d] - (1.0 - ratio) * centre_before[d]) / window_var);
    }
    return out;
}

}  // namespace libvbmc
