// Fast search over the candidate set of active sampling (PyVBMC active_sample: argmin of the
// acquisition over the search points), computed exactly but without solving against the GP
// factor for candidates that provably cannot win.
#pragma once
#include <vector>

#include "acquisition/acq_settings.hpp"
#include "acquisition/acq_registry.hpp"
#include "gp/gp.hpp"
#include "linalg/matrix.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

struct BestCandidate {
    int index = -1;     // row of the candidates with the smallest acquisition value
    double value = 0.0; // that value, as acq_evaluate computes it
};

// The `capacity` candidates with the lowest values seen so far (the first index on ties).
class TopCandidates {
public:
    explicit TopCandidates(size_t capacity) : capacity_(capacity) {}
    bool full() const { return kept_.size() >= capacity_; }
    // The value a candidate must not exceed to be kept, once full.
    double threshold() const { return kept_.front().value; }
    void consider(double value, int index);
    // The kept candidates, best first.
    std::vector<BestCandidate> sorted() const;

private:
    size_t capacity_;
    std::vector<BestCandidate> kept_;  // a heap, the worst kept at the front
};

// Blocks of candidates in order. Per block and hyperparameter sample the cross-covariance with
// the training set is formed once; it gives the exact means and, since the posterior variance
// is at most the variance given the single most informative training point,
// sf^2 - max_i k_i(x)^2 / A_ii (A = the factorised K + noise), a lower bound of each
// candidate's acquisition when the registry says it is a function of the moments that decreases
// in the variance (acq_pruning; the means, their spread across samples, q(x) and the expected
// noise are exact). The block's candidates are then scored exactly
// from the same cross-covariance in increasing order of their bounds until the next bound
// exceeds the best value so far. The result equals the argmin
// of acq_evaluate over all rows (first index on ties), up to rounding in the last bits.
// For ivr the bound comes from the scorer's precomputed terms (AcqScorer::variance_reduction);
// acquisitions without a bound are scored by `scorer` (make_acq_scorer for s.kind) block by block.
BestCandidate best_candidate(const Gp& gp, const VariationalPosterior& vp, const Matrix& candidates,
                             double y_max, const AcqSettings& s, const AcqScorer& scorer);

// The `count` best candidates, best first, by the same search (a candidate is scored exactly
// unless its bound exceeds the count-th best value so far); best_candidate is its first.
std::vector<BestCandidate> best_candidates(const Gp& gp, const VariationalPosterior& vp, const Matrix& candidates,
                                           double y_max, const AcqSettings& s, const AcqScorer& scorer,
                                           int count);

}  // namespace libvbmc
