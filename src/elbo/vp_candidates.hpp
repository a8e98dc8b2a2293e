// Starting points of the variational optimisation: the run's initial posterior and the random
// candidate posteriors ranked by the sieve (PyVBMC VariationalPosterior.__init__ and
// variational_optimization._vb_init).
#pragma once
#include <vector>

#include "linalg/matrix.hpp"
#include "util/rng.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

// Initial posterior of a run: k components at x0 (transformed space) with 1e-6 jitter on the
// means, sigma = 1e-3, lambda = 1, equal weights, weights fixed (warm-up).
VariationalPosterior vp_initial(int dim, int k, const double* x0, Rng& rng);

// The high-posterior-density training set: the round(frac * n) points with the largest y
// (PyVBMC stats.get_hpd), sorted by decreasing y.
void hpd_points(const Matrix& x, const std::vector<double>& y, double frac, Matrix& x_hpd,
                std::vector<double>& y_hpd);

enum class CandidateType : int {
    previous = 1,  // the current posterior (first verbatim, then jittered; new components spawned near old ones)
    hpd = 2,       // means at the best HPD points
    random = 3,    // means at random HPD points
};

// count candidates with k_new components derived from vp (PyVBMC _vb_init); x_hpd sorted
// by decreasing density (hpd_points).
std::vector<VariationalPosterior> vp_candidates(const VariationalPosterior& vp, CandidateType type,
                                                int count, int k_new, const Matrix& x_hpd, Rng& rng);

// Rescale lambda to unit root-mean-square and sigma inversely (same distribution), as PyVBMC's
// set_parameters does after every update.
void vp_normalize_scales(VariationalPosterior& vp);

}  // namespace libvbmc
