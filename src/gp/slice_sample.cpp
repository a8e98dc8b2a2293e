#include "gp/slice_sample.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "util/error.hpp"

namespace libvbmc {

SliceSampleResult slice_sample(const LogDensity& log_density, const std::vector<double>& x0,
                               const std::vector<double>& widths, const std::vector<double>& lower,
                               const std::vector<double>& upper, const SliceSampleOptions& options,
                               Rng& rng) {
    const size_t dim = x0.size();
    if (lower.size() != dim || upper.size() != dim || (!widths.empty() && widths.size() != dim))
        throw_error(Code::arg, "slice_sample: bounds and widths must have the length of x0");
    if (options.n_samples < 0 || options.thin < 1)
        throw_error(Code::arg, "slice_sample: n_samples must be >= 0 and thin >= 1");
    const int burn = options.burn >= 0 ? options.burn : static_cast<int>(std::nearbyint(options.n_samples / 3.0));

    // Bounds just outside the support, so that an interval end on the bound is still excluded.
    std::vector<double> lower_out(dim), upper_out(dim), width(dim);
    for (size_t d = 0; d < dim; ++d) {
        if (!(upper[d] >= lower[d])) throw_error(Code::arg, "slice_sample: an upper bound is below its lower bound");
        if (x0[d] < lower[d] || x0[d] > upper[d]) throw_error(Code::arg, "slice_sample: x0 is outside the bounds");
        lower_out[d] = std::nextafter(lower[d], -INFINITY);
        upper_out[d] = std::nextafter(upper[d], INFINITY);
        width[d] = widths.empty() ? 0.5 * (upper[d] - lower[d]) : widths[d];
        if (std::isinf(width[d])) width[d] = 10.0;
        if (lower[d] == upper[d]) width[d] = 1.0;
        if (!(width[d] > 0.0) || !std::isfinite(width[d]))
            throw_error(Code::arg, "slice_sample: widths must be positive and finite");
    }
    const std::vector<double> base_width = widths.empty() ? std::vector<double>() : width;

    SliceSampleResult result;
    auto bounded_log_density = [&](const std::vector<double>& x) -> double {
        for (size_t d = 0; d < dim; ++d)
            if (x[d] < lower[d] || x[d] > upper[d]) return -INFINITY;
        ++result.evaluations;
        const double v = log_density(x);
        return std::isnan(v) ? -INFINITY : v;
    };

    std::vector<double> xx = x0;
    double log_px = bounded_log_density(xx);
    if (!std::isfinite(log_px)) throw_error(Code::arg, "slice_sample: the log density at x0 is not finite");

    const int sweeps = burn + (options.n_samples > 0 ? (options.n_samples - 1) * options.thin + 1 : 0);
    result.samples = Matrix(options.n_samples, static_cast<int>(dim));
    result.log_density.assign(static_cast<size_t>(options.n_samples), 0.0);
    std::vector<double> sum(dim, 0.0), sum_sq(dim, 0.0);
    std::vector<size_t> perm(dim);
    std::iota(perm.begin(), perm.end(), size_t{0});
    std::vector<double> x_left(dim), x_right(dim), x_prime(dim);

    for (int sweep = 0; sweep < sweeps; ++sweep) {
        x_left = xx;
        x_right = xx;
        x_prime = xx;
        for (size_t k = dim; k > 1; --k) std::swap(perm[k - 1], perm[rng.below(k)]);
        for (size_t d : perm) {
            if (lower[d] == upper[d]) continue;
            const double log_level = log_px + std::log(rng.uniform());
            const double offset = rng.uniform();
            x_left[d] = std::max(xx[d] - offset * width[d], lower_out[d]);
            x_right[d] = std::min(xx[d] + (1.0 - offset) * width[d], upper_out[d]);
            if (options.step_out) {
                while (bounded_log_density(x_left) > log_level) x_left[d] -= width[d];
                while (bounded_log_density(x_right) > log_level) x_right[d] += width[d];
            }
            for (;;) {
                x_prime[d] = rng.uniform() * (x_right[d] - x_left[d]) + x_left[d];
                const double log_prime = bounded_log_density(x_prime);
                if (log_prime > log_level) {
                    log_px = log_prime;
                    break;
                }
                if (x_prime[d] > xx[d]) {
                    x_right[d] = x_prime[d];
                } else if (x_prime[d] < xx[d]) {
                    x_left[d] = x_prime[d];
                } else {
                    x_prime[d] = xx[d];  // shrunk onto the current point: keep it
                    break;
                }
            }
            xx[d] = x_prime[d];
            x_left[d] = xx[d];
            x_right[d] = xx[d];
        }
        if (sweep >= burn && (sweep - burn) % options.thin == 0) {
            const int s = (sweep - burn) / options.thin;
            std::copy(xx.begin(), xx.end(), result.samples.row(s));
            result.log_density[static_cast<size_t>(s)] = log_px;
        }
        if (2 * sweep >= burn && sweep < burn) {
            for (size_t d = 0; d < dim; ++d) {
                sum[d] += xx[d];
                sum_sq[d] += xx[d] * xx[d];
            }
            if (sweep == burn - 1 && options.adaptive) {
                const double stored = std::floor(burn / 2.0);
                for (size_t d = 0; d < dim; ++d) {
                    if (lower[d] == upper[d] || stored <= 0.0) continue;
                    const double mean = sum[d] / stored;
                    const double var = std::max(sum_sq[d] / stored - mean * mean, 0.0);
                    double w = std::min(5.0 * std::sqrt(var), upper_out[d] - lower_out[d]);
                    if (!base_width.empty()) w = std::max(w, std::sqrt(w * base_width[d]));
                    if (w > 0.0 && std::isfinite(w)) width[d] = w;
                }
            }
        }
    }
    return result;
}

}  // namespace libvbmc
