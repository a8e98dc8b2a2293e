// How a told value becomes a training target of the surrogate: its value (far-low values floored)
// and its own noise variance (the told SD squared plus noise shaping); and the shape of the prior
// mean the training set is fitted with. The one rule behind every GP training set of the run:
// training, the search-GP update after each tell and checkpoint replay
// (EvaluationLog::training_data, EvaluationLog::told_surrogate_point).
#pragma once
#include <algorithm>
#include <cmath>

#include "io/serial.hpp"

namespace libvbmc {

// Told values further than this below the reference reach the surrogate as reference -
// kSurrogateFloorGap. The density there is zero in double precision either way, and spreads like
// that of -1e300 (a common penalty value) overflow the surrogate's empirical priors.
constexpr double kSurrogateFloorGap = 1e6;
// Largest extra variance noise shaping adds: MATLAB VBMC's noiseshaping_vbmc caps the shaped
// variances at 1e10 times the smallest, which for exact values is TolGPNoise^2 = 1e-5.
constexpr double kMaxShapingVariance = 1e10 * 1e-5;

// Noise shaping (MATLAB VBMC noiseshaping_vbmc; PyVBMC's options noise_shaping,
// noise_shaping_threshold, noise_shaping_factor, which PyVBMC declares but never applies).
struct ValueShaping {
    bool noise_shaping = false;  // add noise to values far below the reference
    double threshold = 0.0;      // noise_shaping_threshold: distance below the reference where it starts
    double factor = 0.05;        // noise_shaping_factor: added SD per unit beyond the threshold
    // The run's best value (Run::reference_value). NaN: the largest value among the points
    // themselves (the training set, or the values told up to the point told).
    double reference = NAN;
    double mean_dof = 0.0;  // gp_mean_dof when the set was built: GpData::mean_dof

    void write(Writer& out) const;
    static ValueShaping read(Reader& in);
};

struct SurrogatePoint {
    double y = 0.0;   // target value
    double s2 = 0.0;  // the point's own noise variance (the GP adds its sn2, gp_noise_variance)
};

inline double surrogate_value(double log_joint_z, double best) {
    return std::max(log_joint_z, best - kSurrogateFloorGap);
}

// Extra variance of a value y under noise shaping (noiseshaping_vbmc):
// (factor * max(0, reference - y - threshold))^2, capped at kMaxShapingVariance; 0 when off.
double noise_shaping_variance(double y, double reference, const ValueShaping& s);

// The target of a value told with noise SD sd, given the best value `best` (the reference, or
// the largest of the points when the reference is NaN): floored value and own variance sd^2 plus
// the shaping variance of the floored value.
SurrogatePoint surrogate_point(double log_joint_z, double sd, double best, const ValueShaping& s);

}  // namespace libvbmc
