#include "acquisition/expected_noise.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace libvbmc {

double ExpectedNoise::mean(size_t j) const {
    double sum = 0.0;
    for (double v : sn2) sum += v;
    return sum / static_cast<double>(sn2.size()) + told[j];
}

namespace {

// Geometric mean over the samples of each length scale (MATLAB optimState.gplengthscale).
std::vector<double> mean_length_scales(const Gp& gp) {
    std::vector<double> ell(static_cast<size_t>(gp.dim), 0.0);
    for (const GpSample& sample : gp.samples)
        for (int d = 0; d < gp.dim; ++d) ell[d] += sample.theta[hyp::log_ell(d)];
    for (double& v : ell) v = std::exp(v / static_cast<double>(gp.samples.size()));
    return ell;
}

}  // namespace

ExpectedNoise expected_noise(const Gp& gp, const Matrix& xs) {
    ExpectedNoise noise;
    noise.told.assign(static_cast<size_t>(xs.rows), 0.0);
    for (const GpSample& sample : gp.samples) noise.sn2.push_back(std::exp(2.0 * sample.theta[hyp::log_sn(gp.dim)]));
    const std::vector<double>& s2 = gp.data.s2;
    if (std::none_of(s2.begin(), s2.end(), [](double v) { return v > 0.0; })) return noise;
    const std::vector<double> ell = mean_length_scales(gp);
    for (int j = 0; j < xs.rows; ++j) {
        double best = std::numeric_limits<double>::infinity();
        for (int i = 0; i < gp.data.size(); ++i) {
            double dist2 = 0.0;
            for (int d = 0; d < gp.dim; ++d) {
                const double z = (xs(j, d) - gp.data.x(i, d)) / ell[d];
                dist2 += z * z;
            }
            if (dist2 < best) {
                best = dist2;
                noise.told[j] = s2[i];
            }
        }
    }
    return noise;
}

}  // namespace libvbmc
