// Coordinate-wise slice sampler with bounds (Neal 2003, section 4; gpyreg SliceSampler):
// each sweep visits the coordinates in random order, places an interval of the current width
// at a random offset around the point (optionally stepping it out), and shrinks it until a
// point inside the slice is drawn. Widths adapt once, at the end of burn-in, to 5 SD of the
// second half of the burn-in samples.
#pragma once
#include <functional>
#include <vector>

#include "linalg/matrix.hpp"
#include "util/rng.hpp"

namespace libvbmc {

using LogDensity = std::function<double(const std::vector<double>&)>;

struct SliceSampleOptions {
    int n_samples = 1;     // samples recorded
    int thin = 1;          // keep one sweep in `thin` after burn-in
    int burn = -1;         // sweeps discarded first; < 0 means round(n_samples / 3)
    bool step_out = false; // gpyreg default when sampling GP hyperparameters
    bool adaptive = true;  // re-set widths from the burn-in samples
};

struct SliceSampleResult {
    Matrix samples;                   // n_samples x D
    std::vector<double> log_density;  // log density at each sample
    long evaluations = 0;             // calls of the log density
};

// Samples from exp(log_density) restricted to [lower, upper] (bounds may be infinite, lower ==
// upper fixes a coordinate), starting at x0, which must be inside the bounds with a finite
// log density. widths: initial interval widths (infinite or absent entries become 10; empty
// vector means (upper - lower) / 2). Throws Error(arg) on invalid input.
SliceSampleResult slice_sample(const LogDensity& log_density, const std::vector<double>& x0,
                               const std::vector<double>& widths, const std::vector<double>& lower,
                               const std::vector<double>& upper, const SliceSampleOptions& options,
                               Rng& rng);

}  // namespace libvbmc
