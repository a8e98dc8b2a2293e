#include "optim/gradient_climb.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "linalg/linalg.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {
// Forward-difference step along coordinate d: kDifferenceStep max(1, |z_d|) (the values are
// exact; the step's truncation error matters only near the top, where the trust region takes over).
constexpr double kDifferenceStep = 1e-6;
// The first direction is kInitialInverseCurvature times the gradient, and no step is longer than
// kMaxStepLength (units of the plausible box): the first steps probe the scale.
constexpr double kInitialInverseCurvature = 1e-4;
constexpr double kMaxStepLength = 1.0;
// An extrapolation along a direction goes at most this many times kMaxStepLength.
constexpr double kMaxExtrapolation = 4.0;
// Curvature pairs kept (L-BFGS): on the real posteriors of bench/real, 5 reached the tops of the
// regressions with very informative data in 190-310 evaluations where full BFGS needed 260-460.
constexpr int kMemory = 5;
// Steps in a row gaining less than crawl_gain before the climb may stop as crawling: on the
// real posteriors two also stopped it in slow stretches of the regressions' ridges.
constexpr int kCrawlSteps = 3;
// After one small step, a model promising less than this share of crawl_gain for the next has
// found the top: the further steps the crawl rule waits for gain as little (bench/workers,
// cigar_D6, seed 3: two more steps gained 0.0019 together over 28 evaluations).
constexpr double kFlatPromiseShare = 0.01;
// Newton mode: the finite-difference step of the Hessian design (kNewtonStep max(1, |z_d|): second
// differences need a longer step than the gradient's), and the smallest eigenvalue of -H kept, as
// a share of the largest (smaller and negative ones are raised to it or mirrored).
constexpr double kNewtonStep = 1e-4;
constexpr double kMinCurvatureShare = 1e-8;
// Newton designs per climb: then it goes on with gradients alone, the last (-H)^-1 updated by BFGS
// with each step. A bowl's top takes two; on curved ridges each further design costs more
// evaluations than the steps it saves, and the real posteriors' locating stages spend their whole
// budget (bench/RESULTS.md, "A parallel Newton climb").
constexpr int kNewtonIterations = 2;

// The BFGS update of an inverse Hessian estimate h (of the function to minimise, -f) by the step
// s and the change y of its gradient (Nocedal & Wright 2006, eq. 6.17); skipped where s.y <=
// 1e-12 |s| |y|, as LbfgsMemory::add, so h stays positive definite.
void bfgs_update(Matrix& h, const std::vector<double>& s, const std::vector<double>& y) {
    const int n = h.rows;
    double sy = 0.0, ss = 0.0, yy = 0.0;
    for (int i = 0; i < n; ++i) sy += s[i] * y[i], ss += s[i] * s[i], yy += y[i] * y[i];
    if (!(sy > 1e-12 * std::sqrt(ss * yy))) return;
    const double rho = 1.0 / sy;
    std::vector<double> hy(static_cast<size_t>(n), 0.0);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) hy[static_cast<size_t>(i)] += h(i, j) * y[static_cast<size_t>(j)];
    double yhy = 0.0;
    for (int i = 0; i < n; ++i) yhy += y[static_cast<size_t>(i)] * hy[static_cast<size_t>(i)];
    // H+ = H - rho (s (Hy)^T + (Hy) s^T) + (rho^2 y^T H y + rho) s s^T
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            h(i, j) += -rho * (s[static_cast<size_t>(i)] * hy[static_cast<size_t>(j)] + hy[static_cast<size_t>(i)] * s[static_cast<size_t>(j)]) +
                       (rho * rho * yhy + rho) * s[static_cast<size_t>(i)] * s[static_cast<size_t>(j)];
}

// m v for a square m.
std::vector<double> times(const Matrix& m, const std::vector<double>& v) {
    std::vector<double> out(v.size(), 0.0);
    for (int i = 0; i < m.rows; ++i)
        for (int j = 0; j < m.cols; ++j) out[static_cast<size_t>(i)] += m(i, j) * v[static_cast<size_t>(j)];
    return out;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double total = 0.0;
    for (size_t i = 0; i < a.size(); ++i) total += a[i] * b[i];
    return total;
}

}  // namespace

const char* climb_stop_text(ClimbStop stop) {
    switch (stop) {
        case ClimbStop::running: return "climbing";
        case ClimbStop::no_ascent: return "no step along its direction gained (the top, to the precision of its gradients)";
        case ClimbStop::crawling: return "three steps in a row gained less than its crawl threshold each, and its model promises no more";
        case ClimbStop::no_gradient: return "a gradient value failed";
        case ClimbStop::abandoned: return "one of its points was abandoned";
        case ClimbStop::max_evaluations: return "its budget is spent";
        case ClimbStop::not_run: return "not run";
        case ClimbStop::flat: return "a step gained less than its crawl threshold, and its model promises less than a hundredth of it for the next";
    }
    return "unknown";
}

GradientClimb::GradientClimb(int dim, const GradientClimbSettings& settings, const double* z, double f)
    : dim_(dim), settings_(settings), stop_(ClimbStop::running), centre_(z, z + dim), centre_value_(f),
      memory_(dim, std::max(kMemory, dim), kInitialInverseCurvature) {
    start_gradient();
}

// Row d: base + h_d e_d, h_d = kDifferenceStep max(1, |base_d|).
Matrix GradientClimb::difference_design(const std::vector<double>& base) const {
    Matrix points(dim_, dim_);
    for (int d = 0; d < dim_; ++d) {
        for (int a = 0; a < dim_; ++a) points(d, a) = base[static_cast<size_t>(a)];
        points(d, d) += kDifferenceStep * std::max(1.0, std::fabs(base[static_cast<size_t>(d)]));
    }
    return points;
}

// Rows 0..D-1: base + h_d e_d; then for d <= e, base + h_d e_d + h_e e_e (2 h_d e_d for d = e),
// h_d = kNewtonStep max(1, |base_d|).
Matrix GradientClimb::newton_design(const std::vector<double>& base) const {
    Matrix points(newton_design_size(dim_), dim_);
    std::vector<double> h(static_cast<size_t>(dim_));
    for (int d = 0; d < dim_; ++d) h[static_cast<size_t>(d)] = kNewtonStep * std::max(1.0, std::fabs(base[static_cast<size_t>(d)]));
    int row = 0;
    for (int d = 0; d < dim_; ++d, ++row) {
        for (int a = 0; a < dim_; ++a) points(row, a) = base[static_cast<size_t>(a)];
        points(row, d) += h[static_cast<size_t>(d)];
    }
    for (int d = 0; d < dim_; ++d)
        for (int e = d; e < dim_; ++e, ++row) {
            for (int a = 0; a < dim_; ++a) points(row, a) = base[static_cast<size_t>(a)];
            points(row, d) += h[static_cast<size_t>(d)];
            points(row, e) += h[static_cast<size_t>(e)];
        }
    return points;
}

void GradientClimb::start_gradient() {
    phase_ = Phase::gradient;
    difference_points_ = newton_active() ? newton_design(centre_) : difference_design(centre_);
    difference_values_.assign(static_cast<size_t>(difference_points_.rows), NAN);
    difference_next_ = 0;
    adopt_speculation();
}

// The speculative gradient around the new centre, if any, becomes the gradient's first points
// (finished at once when all are in); the others are dead, kept until their points are told.
void GradientClimb::adopt_speculation() {
    for (Speculation& s : speculative_) s.dead = true;
    const auto mine = std::find_if(speculative_.begin(), speculative_.end(), [&](const Speculation& s) { return s.base == centre_; });
    if (mine != speculative_.end()) {
        for (int d = 0; d < mine->asked; ++d) {
            std::memcpy(difference_points_.row(d), mine->points.row(d), sizeof(double) * static_cast<size_t>(dim_));
            difference_values_[static_cast<size_t>(d)] = mine->values[static_cast<size_t>(d)];
        }
        difference_next_ = mine->asked;
        speculative_.erase(mine);
    }
    speculative_.erase(std::remove_if(speculative_.begin(), speculative_.end(), [](const Speculation& s) {
                           return std::none_of(s.values.begin(), s.values.begin() + s.asked, [](double v) { return std::isnan(v); });
                       }),
                       speculative_.end());
    if (std::none_of(difference_values_.begin(), difference_values_.end(), [](double v) { return std::isnan(v); }))
        finish_gradient();
}

std::vector<double> GradientClimb::propose() {
    last_was_difference_ = false;
    if (!running()) return {};
    if (phase_ == Phase::gradient) {
        if (difference_next_ >= difference_points_.rows) return {};
        last_was_difference_ = true;
        const double* row = difference_points_.row(difference_next_++);
        return std::vector<double>(row, row + dim_);
    }
    if (trial_out_) return propose_speculative();
    ++line_trials_;
    trial_.assign(static_cast<size_t>(dim_), 0.0);
    for (int a = 0; a < dim_; ++a)
        trial_[static_cast<size_t>(a)] = centre_[static_cast<size_t>(a)] + line_.next_step() * direction_[static_cast<size_t>(a)];
    trial_out_ = true;
    return trial_;
}

// A first trial that rose with its speculative gradient all asked is taken at once: a
// refinement would wait a round of workers for a step whose gradient nobody has asked for, while
// the trial's gradient is already out (bench/workers, cigar_D6, 16 workers).
bool GradientClimb::speculated_on(const std::vector<double>& trial) const {
    return std::any_of(speculative_.begin(), speculative_.end(), [&](const Speculation& sp) {
        return sp.base == trial && sp.asked == dim_;
    });
}

// The next difference point around the trial out (its speculative gradient is the last).
std::vector<double> GradientClimb::propose_speculative() {
    if (speculative_.empty() || speculative_.back().base != trial_)
        speculative_.push_back({trial_, difference_design(trial_), std::vector<double>(static_cast<size_t>(dim_), NAN), 0, false});
    Speculation& s = speculative_.back();
    if (s.asked >= dim_) return {};
    last_was_difference_ = true;
    const double* row = s.points.row(s.asked++);
    return std::vector<double>(row, row + dim_);
}

void GradientClimb::move_last_proposal(const double* z) {
    if (phase_ == Phase::line && trial_out_ && last_was_difference_)
        std::memcpy(speculative_.back().points.row(speculative_.back().asked - 1), z, sizeof(double) * static_cast<size_t>(dim_));
    else if (phase_ == Phase::line && trial_out_) trial_.assign(z, z + dim_);
    else if (phase_ == Phase::gradient && difference_next_ > 0)
        std::memcpy(difference_points_.row(difference_next_ - 1), z, sizeof(double) * static_cast<size_t>(dim_));
}

bool GradientClimb::is_proposal(const double* z, const double* proposal) const {
    return std::memcmp(proposal, z, sizeof(double) * static_cast<size_t>(dim_)) == 0;
}

// A speculative difference point's value (also once the climb has stopped, so that the caller
// knows the point for one); a dead speculation goes once all its values are in.
bool GradientClimb::tell_speculative(const double* z, double f) {
    for (auto s = speculative_.begin(); s != speculative_.end(); ++s) {
        for (int d = 0; d < s->asked; ++d) {
            if (!is_proposal(z, s->points.row(d)) || !std::isnan(s->values[static_cast<size_t>(d)])) continue;
            s->values[static_cast<size_t>(d)] = std::isfinite(f) ? f : INFINITY;
            if (running()) count_evaluation();
            if (s->dead && std::none_of(s->values.begin(), s->values.begin() + s->asked, [](double v) { return std::isnan(v); }))
                speculative_.erase(s);
            return true;
        }
    }
    return false;
}

ClimbPoint GradientClimb::tell(const double* z, double f) {
    if (tell_speculative(z, f)) return ClimbPoint::difference;
    if (!running()) return ClimbPoint::none;
    if (phase_ == Phase::line) {
        if (!trial_out_ || !is_proposal(z, trial_.data())) return ClimbPoint::none;
        trial_out_ = false;
        line_.tell(f);
        if (line_trials_ == 1) first_trial_rose_ = line_.rose();
        if (line_.rose() && f == line_.best_value()) best_trial_ = trial_;
        count_evaluation();
        if (running() && (line_.done() || (first_trial_rose_ && line_trials_ == 1 && speculated_on(trial_)))) finish_line();
        return ClimbPoint::step;
    }
    for (int d = 0; d < difference_next_; ++d) {
        const double* row = difference_points_.row(d);
        if (!is_proposal(z, row) || !std::isnan(difference_values_[static_cast<size_t>(d)]))
            continue;
        difference_values_[static_cast<size_t>(d)] = std::isfinite(f) ? f : INFINITY;  // INFINITY marks a failure
        count_evaluation();
        if (std::none_of(difference_values_.begin(), difference_values_.end(), [](double v) { return std::isnan(v); }))
            finish_gradient();
        return ClimbPoint::difference;
    }
    return ClimbPoint::none;
}

bool GradientClimb::owns(const double* z) const {
    if (phase_ == Phase::line && trial_out_ && is_proposal(z, trial_.data())) return true;
    if (phase_ == Phase::gradient)
        for (int d = 0; d < difference_next_; ++d)
            if (std::isnan(difference_values_[static_cast<size_t>(d)]) && is_proposal(z, difference_points_.row(d))) return true;
    for (const Speculation& sp : speculative_)
        for (int d = 0; d < sp.asked; ++d)
            if (std::isnan(sp.values[static_cast<size_t>(d)]) && is_proposal(z, sp.points.row(d))) return true;
    return false;
}

void GradientClimb::count_evaluation() {
    if (++evaluations_ >= settings_.max_evaluations && running()) stop_ = ClimbStop::max_evaluations;
}

// g_d = (f(c + h_d e_d) - f(c)) / h_d, h_d as actually evaluated; in Newton mode plus
// h_d A_dd / 2 (A = -H of the last design, exact on a quadratic), for the design's own gradient
// and every later one alike: BFGS pairs mix the two, and the bias of the later ones left in
// (0.03 on bench cigar_D6's top at h = 1e-6) swamped the gradient change of a short step and
// wiped the long axis out of the inverse (the located box then a tenth of the posterior's width).
void GradientClimb::finish_gradient() {
    if (!running()) return;
    std::vector<double> gradient(static_cast<size_t>(dim_)), h(gradient);
    for (size_t d = 0; d < gradient.size(); ++d) {
        const double value = difference_values_[d];
        h[d] = difference_points_(static_cast<int>(d), static_cast<int>(d)) - centre_[d];
        if (!std::isfinite(value) || !(h[d] > 0.0)) {
            stop_ = ClimbStop::no_gradient;
            return;
        }
        gradient[d] = (value - centre_value_) / h[d];
    }
    const bool newton = difference_points_.rows > dim_;
    if (newton && !finish_newton(h)) return;
    for (size_t d = 0; d < newton_curvature_.size(); ++d) gradient[d] += 0.5 * h[d] * newton_curvature_[d];
    if (!newton && !previous_centre_.empty()) update_inverse_hessian(gradient);
    gradient_ = std::move(gradient);
    start_line();
}

// Newton mode, steps h: A = -H by second differences, A_de = -(f_de - f_d - f_e + f_c) /
// (h_d h_e), its diagonal kept (newton_curvature_), and the inverse of A with its eigenvalues
// made positive: |lambda|, at least kMinCurvatureShare of the largest. A failed value stops the
// climb (no_gradient).
bool GradientClimb::finish_newton(const std::vector<double>& h) {
    Matrix a(dim_, dim_);
    int row = dim_;
    for (int d = 0; d < dim_; ++d)
        for (int e = d; e < dim_; ++e, ++row) {
            const double f_de = difference_values_[static_cast<size_t>(row)];
            const double f_d = difference_values_[static_cast<size_t>(d)], f_e = difference_values_[static_cast<size_t>(e)];
            a(d, e) = a(e, d) = -(f_de - f_d - f_e + centre_value_) / (h[static_cast<size_t>(d)] * h[static_cast<size_t>(e)]);
        }
    newton_curvature_.assign(static_cast<size_t>(dim_), 0.0);
    for (int d = 0; d < dim_; ++d) newton_curvature_[static_cast<size_t>(d)] = a(d, d);
    std::vector<double> values;
    Matrix vectors;
    const bool finite = std::all_of(a.data.begin(), a.data.end(), [](double v) { return std::isfinite(v); });
    if (finite) symmetric_eigen(a, values, vectors);
    double largest = 0.0;
    for (double v : values) largest = std::max(largest, std::fabs(v));
    if (!finite || !(largest > 0.0) || !std::isfinite(largest)) {
        stop_ = ClimbStop::no_gradient;
        return false;
    }
    ++newton_iterations_;
    newton_inverse_ = Matrix(dim_, dim_);
    for (int k = 0; k < dim_; ++k) {
        const double inverse = 1.0 / std::max(std::fabs(values[static_cast<size_t>(k)]), kMinCurvatureShare * largest);
        for (int d = 0; d < dim_; ++d)
            for (int e = 0; e < dim_; ++e) newton_inverse_(d, e) += vectors(d, k) * inverse * vectors(e, k);
    }
    return true;
}

// The curvature pair of the step just taken: s = c_new - c_old, y = g_old - g_new.
void GradientClimb::update_inverse_hessian(const std::vector<double>& new_gradient) {
    std::vector<double> s(static_cast<size_t>(dim_)), y(s);
    for (size_t a = 0; a < s.size(); ++a) {
        s[a] = centre_[a] - previous_centre_[a];
        y[a] = previous_gradient_[a] - new_gradient[a];
    }
    if (newton_inverse_.rows > 0) bfgs_update(newton_inverse_, s, y);
    else memory_.add(s, y);
}

bool GradientClimb::newton_active() const { return settings_.newton && newton_iterations_ < kNewtonIterations; }

// Direction H g, along the scaled gradient when it does not ascend (stops the climb when neither
// does).
void GradientClimb::set_direction() {
    for (int attempt = 0; attempt < 2; ++attempt) {
        direction_ = newton_inverse_.rows > 0 ? times(newton_inverse_, gradient_) : memory_.apply(gradient_);
        slope_ = dot(direction_, gradient_);
        if (slope_ > 0.0 && std::isfinite(slope_)) return;
        clear_model();
    }
    stop_ = ClimbStop::no_ascent;
}

// A line search along the direction; the full step is capped at kMaxStepLength.
void GradientClimb::start_line() {
    set_direction();
    if (!running()) return;
    // The quasi-Newton model's gain for the full step is g.H g / 2.
    const double promise = 0.5 * slope_;
    if (small_steps_ >= 1 && promise < kFlatPromiseShare * settings_.crawl_gain) {
        stop_ = ClimbStop::flat;
        return;
    }
    if (small_steps_ >= kCrawlSteps && promise < settings_.crawl_gain) {
        stop_ = ClimbStop::crawling;
        return;
    }
    const double length = std::sqrt(dot(direction_, direction_));
    // No step shorter than the difference steps: the gradient says nothing at that scale.
    double min_length = INFINITY;
    for (double c : centre_) min_length = std::min(min_length, kDifferenceStep * std::max(1.0, std::fabs(c)));
    line_ = LineSearch(centre_value_, slope_, std::min(1.0, kMaxStepLength / length), min_length / length,
                       std::max(1.0, kMaxExtrapolation * kMaxStepLength / length));
    best_trial_.clear();
    trial_out_ = false;
    speculate_ = !newton_active() && line_trials_ > 0 && first_trial_rose_;  // the previous line search's
    line_trials_ = 0;
    first_trial_rose_ = false;
    phase_ = Phase::line;
}

// The line search has ended: its best step is taken; when no step rose, the direction is
// retried once along the gradient itself (the BFGS estimate reset), then the climb stops.
void GradientClimb::finish_line() {
    if (line_.rose()) {
        retried_ = false;
        accept_trial(best_trial_, line_.best_value());
    } else if (modelled() && !retried_) {
        retried_ = true;
        clear_model();
        start_line();
    } else {
        stop_ = ClimbStop::no_ascent;
    }
}

// The curvature model goes: the direction is the gradient scaled by the initial inverse curvature.
void GradientClimb::clear_model() {
    memory_.clear();
    newton_inverse_ = Matrix();
}

void GradientClimb::accept_trial(const std::vector<double>& trial, double f) {
    small_steps_ = f - centre_value_ < settings_.crawl_gain ? small_steps_ + 1 : 0;
    previous_centre_ = centre_;
    previous_gradient_ = gradient_;
    centre_ = trial;
    centre_value_ = f;
    if (running()) start_gradient();
}

void GradientClimb::forget(const double* z) {
    if (tell_speculative(z, NAN)) return;  // a missing speculative value fails that gradient only if it is used
    if (!running()) return;
    bool mine = phase_ == Phase::line && trial_out_ && is_proposal(z, trial_.data());
    for (int d = 0; d < difference_next_ && !mine; ++d) {
        const double* row = difference_points_.row(d);
        mine = is_proposal(z, row);
    }
    if (mine) stop_ = ClimbStop::abandoned;
}

void GradientClimb::write(Writer& out) const {
    out.i64(dim_);
    out.f64(settings_.crawl_gain);
    out.i64(settings_.max_evaluations);
    out.boolean(settings_.newton);
    out.u8(static_cast<uint8_t>(stop_));
    if (stop_ == ClimbStop::not_run) return;
    out.u8(static_cast<uint8_t>(phase_));
    out.i64(evaluations_);
    out.i64(small_steps_);
    out.doubles(centre_);
    out.f64(centre_value_);
    out.doubles(gradient_);
    memory_.write(out);
    out.matrix(newton_inverse_);
    out.i64(newton_iterations_);
    out.doubles(newton_curvature_);
    out.doubles(previous_centre_);
    out.doubles(previous_gradient_);
    out.matrix(difference_points_);
    out.doubles(difference_values_);
    out.i64(difference_next_);
    out.doubles(direction_);
    out.f64(slope_);
    line_.write(out);
    out.doubles(trial_);
    out.boolean(trial_out_);
    out.doubles(best_trial_);
    out.boolean(retried_);
    out.i64(line_trials_);
    out.boolean(first_trial_rose_);
    out.boolean(speculate_);
    out.u64(speculative_.size());
    for (const Speculation& sp : speculative_) {
        out.doubles(sp.base);
        out.matrix(sp.points);
        out.doubles(sp.values);
        out.i64(sp.asked);
        out.boolean(sp.dead);
    }
}

GradientClimb GradientClimb::read(Reader& in) {
    GradientClimb c;
    c.dim_ = static_cast<int>(in.bounded(0, 64, "gradient-climb dimension"));
    c.settings_.crawl_gain = in.f64();
    c.settings_.max_evaluations = static_cast<int>(in.bounded(0, 1 << 30, "gradient-climb budget"));
    c.settings_.newton = in.boolean();
    const uint8_t stop = in.u8();
    if (stop > static_cast<uint8_t>(ClimbStop::flat)) throw_error(Code::format, "the gradient climb has an unknown state");
    c.stop_ = static_cast<ClimbStop>(stop);
    if (c.stop_ == ClimbStop::not_run) return c;
    const uint8_t phase = in.u8();
    if (phase > static_cast<uint8_t>(Phase::line)) throw_error(Code::format, "the gradient climb has an unknown phase");
    c.phase_ = static_cast<Phase>(phase);
    c.evaluations_ = static_cast<int>(in.bounded(0, 1 << 30, "gradient-climb evaluations"));
    c.small_steps_ = static_cast<int>(in.bounded(0, 1 << 30, "gradient-climb small steps"));
    c.centre_ = in.doubles();
    c.centre_value_ = in.f64();
    c.gradient_ = in.doubles();
    c.memory_ = LbfgsMemory::read(in);
    c.newton_inverse_ = in.matrix();
    c.newton_iterations_ = static_cast<int>(in.bounded(0, 1 << 30, "gradient-climb Newton iterations"));
    c.newton_curvature_ = in.doubles();
    c.previous_centre_ = in.doubles();
    c.previous_gradient_ = in.doubles();
    c.difference_points_ = in.matrix();
    c.difference_values_ = in.doubles();
    c.difference_next_ = static_cast<int>(in.bounded(0, newton_design_size(c.dim_), "gradient-climb difference position"));
    c.direction_ = in.doubles();
    c.slope_ = in.f64();
    c.line_ = LineSearch::read(in);
    c.trial_ = in.doubles();
    c.trial_out_ = in.boolean();
    c.best_trial_ = in.doubles();
    c.retried_ = in.boolean();
    c.line_trials_ = static_cast<int>(in.bounded(0, 1 << 30, "gradient-climb line trials"));
    c.first_trial_rose_ = in.boolean();
    c.speculate_ = in.boolean();
    const int64_t n_speculative = in.bounded(0, 1 << 20, "speculative gradient count");
    for (int64_t i = 0; i < n_speculative; ++i) {
        Speculation sp;
        sp.base = in.doubles();
        sp.points = in.matrix();
        sp.values = in.doubles();
        sp.asked = static_cast<int>(in.bounded(1, c.dim_, "speculative gradient points asked"));
        sp.dead = in.boolean();
        c.speculative_.push_back(std::move(sp));
    }
    c.check_shapes();
    return c;
}

void GradientClimb::check_shapes() const {
    const size_t d = static_cast<size_t>(dim_);
    auto sized = [&](const std::vector<double>& v) { return v.size() == d; };
    auto sized_or_empty = [&](const std::vector<double>& v) { return v.empty() || v.size() == d; };
    const bool ok = dim_ >= 1 && sized(centre_) && sized_or_empty(gradient_) && sized_or_empty(previous_centre_) &&
                    sized_or_empty(newton_curvature_) &&
                    previous_centre_.size() == previous_gradient_.size() &&
                    (difference_points_.rows == dim_ || (settings_.newton && difference_points_.rows == newton_design_size(dim_))) &&
                    difference_points_.cols == dim_ && static_cast<int>(difference_values_.size()) == difference_points_.rows &&
                    difference_next_ <= difference_points_.rows &&
                    (newton_inverse_.rows == 0 || (newton_inverse_.rows == dim_ && newton_inverse_.cols == dim_)) && sized_or_empty(direction_) &&
                    sized_or_empty(trial_) && (!trial_out_ || sized(trial_)) && sized_or_empty(best_trial_) &&
                    (phase_ != Phase::line || !line_.rose() || sized(best_trial_)) && (phase_ == Phase::gradient || (sized(direction_) && sized(gradient_)));
    const bool speculative_ok = std::all_of(speculative_.begin(), speculative_.end(), [&](const Speculation& sp) {
        return sized(sp.base) && sp.points.rows == dim_ && sp.points.cols == dim_ && sized(sp.values);
    });
    if (!ok || !speculative_ok) throw_error(Code::format, "the gradient climb holds a point or matrix of the wrong dimension");
}

}  // namespace libvbmc
