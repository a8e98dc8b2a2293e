// Quasi-Newton ascent with forward-difference gradients, in ask-tell form (Nocedal & Wright 2006,
// Numerical Optimization: the BFGS update of the inverse Hessian, eq. 6.17; forward differences,
// section 8.1; backtracking to the Armijo condition, algorithm 3.1). It serves the locating
// stage's long climbs along steep, curved ridges, where a quadratic model needs O(D^2) points
// per step and the trust region creeps: its Hessian estimate builds up from one gradient per step.
//
// Each iteration asks for the D points of a gradient (all at once: they can be evaluated in
// parallel), then for one trial point at a time along the quasi-Newton direction. The climb stops
// at the top, when no step along the direction gains anything (the precision of its gradients);
// when it crawls, two accepted steps in a row each gaining less than crawl_gain (a flat ridge or
// the top's neighbourhood, where the trust region's models do better); when a gradient cannot be
// formed (a failed or non-finite value); or when its budget is spent.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "io/serial.hpp"
#include "linalg/matrix.hpp"

namespace libvbmc {

struct GradientClimbSettings {
    // Two accepted steps in a row each gaining less than this: the climb crawls and stops.
    double crawl_gain = 1.0;
    int max_evaluations = 100;  // told values of its own proposals
};

// not_run: a climb never started (no gradients for noisy values); abandoned: a proposal was forgotten.
enum class ClimbStop : uint8_t { running, no_ascent, crawling, no_gradient, abandoned, max_evaluations, not_run };

// What a told point was to the climb: none of its proposals, a gradient's difference point, or a
// step along the quasi-Newton direction.
enum class ClimbPoint { none, difference, step };

// Why a climb stopped, in words for the log.
const char* climb_stop_text(ClimbStop stop);

class GradientClimb {
public:
    GradientClimb() = default;
    // Starts from an evaluated point z[dim] with finite value f.
    GradientClimb(int dim, const GradientClimbSettings& settings, const double* z, double f);

    // The next point to evaluate, or empty while the climb waits for values it asked for (or has
    // stopped).
    std::vector<double> propose();
    // The value of a proposed point (matched bitwise; non-finite for a failed evaluation); values
    // of other points are ignored. Returns which kind of proposal the point was.
    ClimbPoint tell(const double* z, double f);
    // Replace the last proposal by the point the caller will actually evaluate (see
    // TrustRegionSearch::move_last_proposal).
    void move_last_proposal(const double* z);
    // A proposal that will never get a value: the climb stops (it cannot finish its step).
    void forget(const double* z);

    int dim() const { return dim_; }
    ClimbStop stop() const { return stop_; }
    bool running() const { return stop_ == ClimbStop::running; }
    int evaluations() const { return evaluations_; }
    // The covariance of a Gaussian around the climb's point: the BFGS estimate of (-Hessian)^-1
    // (the scaled identity before the first update).
    const Matrix& covariance() const { return inverse_hessian_; }

    // The whole state, for checkpoints; read throws Error(format) on a truncated or inconsistent
    // state (unknown stop or phase, a point or matrix of the wrong dimension).
    void write(Writer& out) const;
    static GradientClimb read(Reader& in);

private:
    enum class Phase : uint8_t { gradient, line };
    void start_gradient();
    void finish_gradient();
    void start_line();
    void accept_trial(const std::vector<double>& trial, double f);
    void update_inverse_hessian(const std::vector<double>& new_gradient);
    void count_evaluation();
    bool is_proposal(const double* z, const double* proposal) const;
    void check_shapes() const;

    int dim_ = 0;
    GradientClimbSettings settings_;
    ClimbStop stop_ = ClimbStop::not_run;
    Phase phase_ = Phase::gradient;
    int evaluations_ = 0;
    double previous_gain_ = INFINITY, last_gain_ = INFINITY;  // of the last two accepted steps
    std::vector<double> centre_;        // the current point
    double centre_value_ = 0.0;
    std::vector<double> gradient_;      // at the centre (empty until formed)
    Matrix inverse_hessian_;            // BFGS estimate of (-Hessian)^-1
    bool hessian_updated_ = false;      // false while it is still the initial scaled identity
    // The previous centre and its gradient, for the BFGS update once the new gradient is in.
    std::vector<double> previous_centre_, previous_gradient_;
    // The gradient's points: centre + step_d e_d, their values (NaN until told), the next to ask.
    Matrix difference_points_;
    std::vector<double> difference_values_;
    int difference_next_ = 0;
    // The line search: direction, its slope g.d, the step factor tried, the trial out, backtracks.
    std::vector<double> direction_;
    double slope_ = 0.0;
    double step_ = 1.0;
    std::vector<double> trial_;
    bool trial_out_ = false;
    int backtracks_ = 0;
};

}  // namespace libvbmc
