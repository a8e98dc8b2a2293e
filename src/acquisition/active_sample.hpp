// Choice of the next point to evaluate by active sampling (paper section 3.3; PyVBMC
// active_sample, one pass of its loop): minimise the acquisition function over a fast
// candidate set (search_points, best_candidate), then refine the best candidate with CMA-ES
// (search_optimizer = "cmaes"); the refined point replaces it only if its value is lower.
#pragma once
#include <memory>
#include <vector>

#include "acquisition/acq_settings.hpp"
#include "gp/gp.hpp"
#include "linalg/matrix.hpp"
#include "util/rng.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

struct AcqResult {
    std::vector<double> x;  // chosen point, transformed space
    double value = 0.0;     // its acquisition value (lower is better)
    int cache_index = -1;   // row of start_cache it was taken from, or -1
};

// Next point to evaluate. avoid_points: points already in the training set or pending (asked,
// not yet told); rows not already in gp.data.x are added to a copy of the GP at their
// predicted mean (kriging believer) with their expected noise (expected_noise.hpp), so the
// variance, and with it the acquisition and the variance regulariser, treats them as observed
// as noisily as they will be. Acquisitions with integration points (viqr, imiqr) draw them from
// rng after the candidates. start_cache: user-provided points not yet
// evaluated (may be empty). y_max is the largest training value of gp.
AcqResult acquire(const Gp& gp, const VariationalPosterior& vp, const Matrix& avoid_points,
                  const Matrix& start_cache, const AcqSettings& s, Rng& rng);

// The GP with every avoid point not yet in it added at its predicted mean (kriging believer)
// and the noise an evaluation there is expected to carry: the told noise of the nearest
// training point (expected_noise.hpp; the GP adds its own sn^2). nullptr if every avoid point is
// already in it.
std::unique_ptr<Gp> gp_with_pending(const Gp& gp, const Matrix& avoid_points);

// acquire() without a start cache, returning only the point.
std::vector<double> acquire_point(const Gp& gp, const VariationalPosterior& vp, const Matrix& avoid_points,
                                  const AcqSettings& s, Rng& rng);

}  // namespace libvbmc
