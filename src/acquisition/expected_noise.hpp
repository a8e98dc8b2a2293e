// Expected observation noise of an evaluation at a candidate point (MATLAB VBMC
// activesample_vbmc's sn2new, used by acqeig_vbmc, acqviqr_vbmc and acqimiqr_vbmc; PyVBMC
// AbstractAcqFcn._estimate_observation_noise): the told noise variance of the nearest training
// point, with distances scaled by the geometric mean over the samples of the GP length scales,
// plus each hyperparameter sample's own noise variance sn^2.
#pragma once
#include <cstddef>
#include <vector>

#include "gp/gp.hpp"
#include "linalg/matrix.hpp"

namespace libvbmc {

struct ExpectedNoise {
    std::vector<double> told;  // per candidate: s2 of its nearest training point (all 0 when no noise was told)
    std::vector<double> sn2;   // per hyperparameter sample: exp(2 log sn)
    // Noise variance of an evaluation at candidate j under sample si.
    double at(size_t si, size_t j) const { return sn2[si] + told[j]; }
    // Its mean over the samples (MATLAB's mean of sn2new over the samples).
    double mean(size_t j) const;
};

// The expected noise at the rows of xs (transformed space) under gp. When every told variance
// is zero the nearest-point search is skipped.
ExpectedNoise expected_noise(const Gp& gp, const Matrix& xs);

}  // namespace libvbmc
