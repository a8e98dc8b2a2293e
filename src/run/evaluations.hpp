// The run's record of every evaluation it was told: nothing a user told is ever dropped.
// Failed evaluations (non-finite values) stay in the record but never reach the surrogate;
// points trimmed at the end of warm-up stay in the record with in_training = false.
#pragma once
#include <algorithm>
#include <vector>

#include "gp/gp.hpp"
#include "io/serial.hpp"
#include "run/surrogate_values.hpp"
#include "transforms/parameter_transform.hpp"

namespace libvbmc {

// A finite told value far below the rest is a penalty (what a target returns where the model is
// impossible: -1e300, -DBL_MAX, -1e10), not data: it stays in the record but, like a failed
// evaluation, never reaches the surrogate. Sorted by their distance below the best, the first value
// below the top kPenaltyMinAbove that lies more than kPenaltyMinGap below the best and more than
// kPenaltyJump times further below than the value above it starts the penalties; it and every value
// under it are penalties. Genuine log joints spread evenly over orders of magnitude never jump so.
constexpr int kPenaltyMinAbove = 3;
constexpr double kPenaltyMinGap = 1e5;
constexpr double kPenaltyJump = 1e3;
// The value below which the given finite values are penalties (-inf if none are).
double penalty_cut(std::vector<double> values);
// Largest log joint and noise SD a tell accepts.
constexpr double kMaxTold = 1e150;

struct Evaluation {
    std::vector<double> x;  // original space, bitwise as told
    std::vector<double> z;  // transformed space
    double log_joint = 0.0;     // original space: as told, or with a prior log_likelihood + log_prior
    double log_likelihood = 0.0;  // the value as told (the log joint itself when the run has no prior)
    double log_prior = 0.0;       // the prior's log density at x (0 when the run has none)
    double log_joint_sd = 0.0;  // noise SD as told
    double log_jacobian = 0.0;  // log |dx/dz| at z
    bool failed = false;        // non-finite log_joint
    bool extra = false;         // told with vbmc_tell_extra
    bool in_training = true;    // false once trimmed
    int iteration = 0;          // iteration during which it was told

    // The target of the surrogate: the log joint in the transformed space.
    double log_joint_z() const { return log_joint + log_jacobian; }
    void write(Writer& out) const;
    static Evaluation read(Reader& in, int dim);
};

class EvaluationLog {
public:
    void add(Evaluation e) { evals_.push_back(std::move(e)); }
    int size() const { return static_cast<int>(evals_.size()); }
    const Evaluation& operator[](int i) const { return evals_[static_cast<size_t>(i)]; }
    Evaluation& operator[](int i) { return evals_[static_cast<size_t>(i)]; }
    int failed_count() const;
    // Finite values below the penalty cut of the training points (see kPenaltyJump).
    int penalty_count() const;
    // Indices of the evaluations that form the surrogate's training set: neither failed, nor
    // trimmed, nor penalties.
    std::vector<int> training_index() const;
    // Whether evaluation i, judged among evaluations 0..i as when it was told (and in checkpoint
    // replay), is data: neither failed nor a penalty.
    bool is_data_when_told(int i) const;
    // The target evaluation i brings to the search surrogate when it is told (at the tell and in
    // checkpoint replay alike): y = NaN unless it is data then, else surrogate_point against the
    // shaping's reference or, if that is NaN, the best of evaluations 0..i.
    SurrogatePoint told_surrogate_point(int i, const ValueShaping& shaping) const;
    // Training data of those evaluations (transformed space; surrogate_point against the shaping's
    // reference or, if that is NaN, the best among them): the builder behind every training set.
    GpData training_data(const std::vector<int>& index, int dim, const ValueShaping& shaping = {}) const;
    // The same points mapped by another transform (for surrogates of earlier iterations).
    GpData training_data(const std::vector<int>& index, const ParameterTransform& transform,
                         const ValueShaping& shaping = {}) const;
    // Recompute every z and log-Jacobian after the transform changed.
    void remap(const ParameterTransform& transform);
    // Largest finite transformed log joint among the training points (-inf if none).
    double max_training_value() const;
    // Median noise SD told for the training points (0 if none, or for an exact target).
    double typical_noise_sd() const;

    void write(Writer& out) const;
    static EvaluationLog read(Reader& in, int dim);

private:
    // The penalty cut among the finite, kept values of evaluations 0..count-1.
    double penalty_cut_of_first(int count) const;
    // Finite and not trimmed: the values among which penalties are judged.
    bool is_finite_and_kept(const Evaluation& e) const { return !e.failed && e.in_training; }

    std::vector<Evaluation> evals_;
};

}  // namespace libvbmc
