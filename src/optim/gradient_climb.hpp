// Quasi-Newton ascent with forward-difference gradients, in ask-tell form (Nocedal & Wright 2006,
// Numerical Optimization: the limited-memory BFGS estimate of the inverse Hessian,
// optim/lbfgs_memory.hpp; forward differences,
// section 8.1; a line maximisation by safeguarded interpolation, optim/line_search.hpp). It serves the locating
// stage's long climbs along steep, curved ridges, where a quadratic model needs O(D^2) points
// per step and the trust region creeps: its Hessian estimate builds up from one gradient per step.
//
// Each iteration asks for the D points of a gradient (all at once: they can be evaluated in
// parallel), then for one trial point at a time along the quasi-Newton direction: backtracking
// until a step rises, then extrapolating or refining while that pays (a long curved ridge needs
// steps far from the quasi-Newton one, and each gradient costs D evaluations). The climb stops
// at the top, when no step along the direction gains anything (the precision of its gradients);
// when it crawls, three accepted steps in a row each gaining less than crawl_gain while its
// model promises less than that for the next (the top's neighbourhood, where the trust region's
// models measure the covariance; a model promising more keeps it going through a slow stretch of
// a curved ridge); when it is flat, one such step and a model promising less than a hundredth of
// crawl_gain for the next (the top: the crawl's further steps gained as little); when a gradient
// cannot be formed (a failed or non-finite value); or when its budget is spent.
//
// With a trial out, a caller with workers to spare may ask for more: the D difference points
// around the trial, a speculative gradient. When the line search accepts that trial, its
// gradient is (partly) in already and the next iteration saves the round a gradient would wait
// for; a first trial that rose, its speculative gradient all asked, is accepted at once, without
// the line search's refinements (each a round of its own, after which the speculation would be
// dead); a speculative gradient of a trial not accepted is spent budget. So only the first trial
// of a line search is speculated on, and only when the previous line search rose at its first
// trial: on the real posteriors' curved ridges, where line searches backtrack, speculating on
// every trial spent the locating stage's budget before the top (bench/real's arK, seed 1, 16
// workers: LML error 18 speculating on every trial, 525 on every trial after a first trial that
// rose, 0.007 with this rule; cigar_D6 is then 5.8 times faster with 16 workers than with one,
// not 8.8-10). Taking rising first trials at once made cigar_D6 6.6 times faster and moved arK,
// seed 1, to 1.7: its stage spends its whole budget and its result follows the path
// (bench/RESULTS.md, "Locating climbs"). A caller that asks one point at a time never sees a
// speculative gradient, and the climb is then as without them.
//
// Newton mode (GradientClimbSettings::newton, for a caller with many workers): the first two
// iterations ask a finite-difference gradient and Hessian, D + D (D + 1) / 2 points that can all
// go out at once, and search along the Newton direction of -H made positive definite (Nocedal &
// Wright, section 3.4, modification by eigenvalues); later iterations ask gradients alone, that
// inverse updated by BFGS (their eq. 6.17) in place of the L-BFGS estimate.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "io/serial.hpp"
#include "linalg/matrix.hpp"
#include "optim/lbfgs_memory.hpp"
#include "optim/line_search.hpp"

namespace libvbmc {

struct GradientClimbSettings {
    // Three accepted steps in a row each gaining less than this, and a quasi-Newton model that
    // promises less than this for the next: the climb crawls and stops.
    double crawl_gain = 1.0;
    int max_evaluations = 100;  // told values of its own proposals
    // Newton mode, for a caller with many workers: the first iterations ask a finite-difference
    // gradient and Hessian (D + D (D + 1) / 2 points that can go out together) and step along
    // the Newton direction of -H made positive definite, without speculative gradients; later
    // ones ask gradients alone and update that inverse by BFGS (bench/RESULTS.md, "A parallel
    // Newton climb").
    bool newton = false;
};

// not_run: a climb never started (no gradients for noisy values); abandoned: a proposal was
// forgotten; flat: after a small step its model promises next to nothing (added last: the
// values are written to checkpoints).
enum class ClimbStop : uint8_t { running, no_ascent, crawling, no_gradient, abandoned, max_evaluations, not_run, flat };

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

    // Points of a Newton-mode design in dimension dim: the gradient's D and the Hessian's D (D + 1) / 2.
    static int newton_design_size(int dim) { return dim + dim * (dim + 1) / 2; }

    int dim() const { return dim_; }
    ClimbStop stop() const { return stop_; }
    bool running() const { return stop_ == ClimbStop::running; }
    // It stopped at a top (as far as its gradients and its model tell).
    bool at_top() const { return stop_ == ClimbStop::crawling || stop_ == ClimbStop::no_ascent || stop_ == ClimbStop::flat; }
    // propose() would return a point: a gradient's difference point not yet asked, or the next
    // trial along the direction with none out.
    bool has_proposal() const {
        if (!running()) return false;
        if (phase_ == Phase::gradient) return difference_next_ < difference_points_.rows;
        if (!trial_out_) return true;
        if (!speculate_ || line_trials_ > 1) return false;
        return speculative_.empty() || speculative_.back().base != trial_ || speculative_.back().asked < dim_;
    }
    // The last proposal was a gradient's difference point (speculative or not).
    bool last_was_difference() const { return last_was_difference_; }
    // z is a proposal of this climb still waiting for its value (also once it has stopped).
    bool owns(const double* z) const;
    int evaluations() const { return evaluations_; }
    // The covariance of a Gaussian around the climb's point: the L-BFGS estimate of
    // (-Hessian)^-1 (the scaled identity before the first pair); in Newton mode the inverse of
    // the last finite-difference -H made positive definite, BFGS-updated since.
    Matrix covariance() const { return newton_inverse_.rows > 0 ? newton_inverse_ : memory_.matrix(); }
    // covariance() comes from a Hessian measured in full (Newton mode), so its eigenvectors are
    // the top's axes; an L-BFGS estimate has seen only the directions the climb stepped along.
    bool hessian_measured() const { return newton_inverse_.rows > 0; }

    // The whole state, for checkpoints; read throws Error(format) on a truncated or inconsistent
    // state (unknown stop or phase, a point or matrix of the wrong dimension).
    void write(Writer& out) const;
    static GradientClimb read(Reader& in);

private:
    enum class Phase : uint8_t { gradient, line };
    // The difference points asked around a trial before its value came: the trial as evaluated,
    // the D points (the first `asked` asked), their values (NaN until told, INFINITY for a
    // failure); dead once the line search has ended without accepting the trial.
    struct Speculation {
        std::vector<double> base;
        Matrix points;
        std::vector<double> values;
        int asked = 0;
        bool dead = false;
    };
    Matrix difference_design(const std::vector<double>& base) const;
    Matrix newton_design(const std::vector<double>& base) const;
    bool finish_newton(const std::vector<double>& h);
    bool modelled() const { return !memory_.empty() || newton_inverse_.rows > 0; }
    bool newton_active() const;
    void clear_model();
    std::vector<double> propose_speculative();
    bool speculated_on(const std::vector<double>& trial) const;
    bool tell_speculative(const double* z, double f);
    void adopt_speculation();
    void start_gradient();
    void finish_gradient();
    void start_line();
    void set_direction();
    void finish_line();
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
    int small_steps_ = 0;  // accepted steps in a row that gained less than crawl_gain
    std::vector<double> centre_;        // the current point
    double centre_value_ = 0.0;
    std::vector<double> gradient_;      // at the centre (empty until formed)
    LbfgsMemory memory_;                // estimate of (-Hessian)^-1
    Matrix newton_inverse_;             // Newton mode: (-H)^-1 made positive definite, then BFGS-updated (0 x 0 until formed)
    int newton_iterations_ = 0;         // Newton designs finished
    std::vector<double> newton_curvature_;  // Newton mode: the diagonal of the last design's -H (empty until formed)
    // The previous centre and its gradient, for the BFGS update once the new gradient is in.
    std::vector<double> previous_centre_, previous_gradient_;
    // The gradient's points: centre + step_d e_d (in Newton mode also the Hessian's, see
    // newton_design), their values (NaN until told), the next to ask.
    Matrix difference_points_;
    std::vector<double> difference_values_;
    int difference_next_ = 0;
    // The line search: direction, its slope g.d, the search along it, the trial point out, the
    // best trial so far (as evaluated), whether the direction was already retried along the gradient.
    std::vector<double> direction_;
    double slope_ = 0.0;
    LineSearch line_;
    std::vector<double> trial_;
    bool trial_out_ = false;
    std::vector<double> best_trial_;
    bool retried_ = false;
    std::vector<Speculation> speculative_;  // the current trial's last
    int line_trials_ = 0;                   // trials asked in the current line search
    bool first_trial_rose_ = false;         // the current line search's first trial rose
    bool speculate_ = false;                // the previous line search's first trial rose
    bool last_was_difference_ = false;      // of the last proposal only (not written)
};

}  // namespace libvbmc
