#include "optim/gradient_climb.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

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
// Armijo sufficient increase, f(c + a d) >= f(c) + kArmijo a g.d, and the backtracking factor.
constexpr double kArmijo = 1e-4;
constexpr double kBacktrack = 0.3;
constexpr int kMaxBacktracks = 12;

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double total = 0.0;
    for (size_t i = 0; i < a.size(); ++i) total += a[i] * b[i];
    return total;
}

Matrix scaled_identity(int dim, double scale) {
    Matrix m = Matrix::identity(dim);
    for (int i = 0; i < dim; ++i) m(i, i) = scale;
    return m;
}
}  // namespace

const char* climb_stop_text(ClimbStop stop) {
    switch (stop) {
        case ClimbStop::running: return "climbing";
        case ClimbStop::no_ascent: return "no step along its direction gained (the top, to the precision of its gradients)";
        case ClimbStop::crawling: return "two steps in a row gained less than its crawl threshold each";
        case ClimbStop::no_gradient: return "a gradient value failed";
        case ClimbStop::abandoned: return "one of its points was abandoned";
        case ClimbStop::max_evaluations: return "its budget is spent";
        case ClimbStop::not_run: return "not run";
    }
    return "unknown";
}

GradientClimb::GradientClimb(int dim, const GradientClimbSettings& settings, const double* z, double f)
    : dim_(dim), settings_(settings), stop_(ClimbStop::running), centre_(z, z + dim), centre_value_(f),
      inverse_hessian_(scaled_identity(dim, kInitialInverseCurvature)) {
    start_gradient();
}

void GradientClimb::start_gradient() {
    phase_ = Phase::gradient;
    difference_points_ = Matrix(dim_, dim_);
    for (int d = 0; d < dim_; ++d) {
        for (int a = 0; a < dim_; ++a) difference_points_(d, a) = centre_[static_cast<size_t>(a)];
        difference_points_(d, d) += kDifferenceStep * std::max(1.0, std::fabs(centre_[static_cast<size_t>(d)]));
    }
    difference_values_.assign(static_cast<size_t>(dim_), NAN);
    difference_next_ = 0;
}

std::vector<double> GradientClimb::propose() {
    if (!running()) return {};
    if (phase_ == Phase::gradient) {
        if (difference_next_ >= dim_) return {};
        const double* row = difference_points_.row(difference_next_++);
        return std::vector<double>(row, row + dim_);
    }
    if (trial_out_) return {};
    trial_.assign(static_cast<size_t>(dim_), 0.0);
    for (int a = 0; a < dim_; ++a)
        trial_[static_cast<size_t>(a)] = centre_[static_cast<size_t>(a)] + step_ * direction_[static_cast<size_t>(a)];
    trial_out_ = true;
    return trial_;
}

void GradientClimb::move_last_proposal(const double* z) {
    if (phase_ == Phase::line && trial_out_) trial_.assign(z, z + dim_);
    else if (phase_ == Phase::gradient && difference_next_ > 0)
        std::memcpy(difference_points_.row(difference_next_ - 1), z, sizeof(double) * static_cast<size_t>(dim_));
}

bool GradientClimb::is_proposal(const double* z, const double* proposal) const {
    return std::memcmp(proposal, z, sizeof(double) * static_cast<size_t>(dim_)) == 0;
}

ClimbPoint GradientClimb::tell(const double* z, double f) {
    if (!running()) return ClimbPoint::none;
    if (phase_ == Phase::line) {
        if (!trial_out_ || !is_proposal(z, trial_.data())) return ClimbPoint::none;
        trial_out_ = false;
        count_evaluation();
        if (std::isfinite(f) && f > centre_value_ && f >= centre_value_ + kArmijo * step_ * slope_) {
            accept_trial(trial_, f);
        } else if (++backtracks_ > kMaxBacktracks) {
            stop_ = ClimbStop::no_ascent;
        } else {
            step_ *= kBacktrack;
        }
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

void GradientClimb::count_evaluation() {
    if (++evaluations_ >= settings_.max_evaluations && running()) stop_ = ClimbStop::max_evaluations;
}

// g_d = (f(c + h_d e_d) - f(c)) / h_d, h_d as actually evaluated.
void GradientClimb::finish_gradient() {
    if (!running()) return;
    std::vector<double> gradient(static_cast<size_t>(dim_));
    for (int d = 0; d < dim_; ++d) {
        const double value = difference_values_[static_cast<size_t>(d)];
        const double h = difference_points_(d, d) - centre_[static_cast<size_t>(d)];
        if (!std::isfinite(value) || !(h > 0.0)) {
            stop_ = ClimbStop::no_gradient;
            return;
        }
        gradient[static_cast<size_t>(d)] = (value - centre_value_) / h;
    }
    if (!previous_centre_.empty()) update_inverse_hessian(gradient);
    gradient_ = std::move(gradient);
    start_line();
}

// BFGS on -f (eq. 6.17): s = c_new - c_old, y = -(g_new - g_old); skipped unless s.y > 0. The
// first update rescales the initial identity to s.y / y.y (eq. 6.20).
void GradientClimb::update_inverse_hessian(const std::vector<double>& new_gradient) {
    std::vector<double> s(static_cast<size_t>(dim_)), y(s);
    for (size_t a = 0; a < s.size(); ++a) {
        s[a] = centre_[a] - previous_centre_[a];
        y[a] = previous_gradient_[a] - new_gradient[a];
    }
    const double sy = dot(s, y);
    if (!(sy > 1e-12 * std::sqrt(dot(s, s) * dot(y, y)))) return;
    if (!hessian_updated_) inverse_hessian_ = scaled_identity(dim_, sy / dot(y, y));
    hessian_updated_ = true;
    std::vector<double> hy(s.size(), 0.0);
    for (int a = 0; a < dim_; ++a)
        for (int b = 0; b < dim_; ++b) hy[static_cast<size_t>(a)] += inverse_hessian_(a, b) * y[static_cast<size_t>(b)];
    const double yhy = dot(y, hy);
    for (int a = 0; a < dim_; ++a)
        for (int b = 0; b < dim_; ++b) {
            const size_t i = static_cast<size_t>(a), j = static_cast<size_t>(b);
            inverse_hessian_(a, b) += (sy + yhy) * s[i] * s[j] / (sy * sy) - (hy[i] * s[j] + s[i] * hy[j]) / sy;
        }
}

// Direction H g (reset to the scaled identity when it does not ascend); the full step is capped
// at kMaxStepLength.
void GradientClimb::start_line() {
    direction_.assign(static_cast<size_t>(dim_), 0.0);
    for (int attempt = 0; attempt < 2; ++attempt) {
        std::fill(direction_.begin(), direction_.end(), 0.0);
        for (int a = 0; a < dim_; ++a)
            for (int b = 0; b < dim_; ++b)
                direction_[static_cast<size_t>(a)] += inverse_hessian_(a, b) * gradient_[static_cast<size_t>(b)];
        slope_ = dot(direction_, gradient_);
        if (slope_ > 0.0 && std::isfinite(slope_)) break;
        inverse_hessian_ = scaled_identity(dim_, kInitialInverseCurvature);
        hessian_updated_ = false;
    }
    if (!(slope_ > 0.0) || !std::isfinite(slope_)) {
        stop_ = ClimbStop::no_ascent;
        return;
    }
    step_ = std::min(1.0, kMaxStepLength / std::sqrt(dot(direction_, direction_)));
    backtracks_ = 0;
    trial_out_ = false;
    phase_ = Phase::line;
}

void GradientClimb::accept_trial(const std::vector<double>& trial, double f) {
    previous_gain_ = last_gain_;
    last_gain_ = f - centre_value_;
    if (std::max(last_gain_, previous_gain_) < settings_.crawl_gain) stop_ = ClimbStop::crawling;
    previous_centre_ = centre_;
    previous_gradient_ = gradient_;
    centre_ = trial;
    centre_value_ = f;
    if (running()) start_gradient();
}

void GradientClimb::forget(const double* z) {
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
    out.u8(static_cast<uint8_t>(stop_));
    if (stop_ == ClimbStop::not_run) return;
    out.u8(static_cast<uint8_t>(phase_));
    out.i64(evaluations_);
    out.f64(previous_gain_);
    out.f64(last_gain_);
    out.doubles(centre_);
    out.f64(centre_value_);
    out.doubles(gradient_);
    out.matrix(inverse_hessian_);
    out.boolean(hessian_updated_);
    out.doubles(previous_centre_);
    out.doubles(previous_gradient_);
    out.matrix(difference_points_);
    out.doubles(difference_values_);
    out.i64(difference_next_);
    out.doubles(direction_);
    out.f64(slope_);
    out.f64(step_);
    out.doubles(trial_);
    out.boolean(trial_out_);
    out.i64(backtracks_);
}

GradientClimb GradientClimb::read(Reader& in) {
    GradientClimb c;
    c.dim_ = static_cast<int>(in.bounded(0, 64, "gradient-climb dimension"));
    c.settings_.crawl_gain = in.f64();
    c.settings_.max_evaluations = static_cast<int>(in.bounded(0, 1 << 30, "gradient-climb budget"));
    const uint8_t stop = in.u8();
    if (stop > static_cast<uint8_t>(ClimbStop::not_run)) throw_error(Code::format, "the gradient climb has an unknown state");
    c.stop_ = static_cast<ClimbStop>(stop);
    if (c.stop_ == ClimbStop::not_run) return c;
    const uint8_t phase = in.u8();
    if (phase > static_cast<uint8_t>(Phase::line)) throw_error(Code::format, "the gradient climb has an unknown phase");
    c.phase_ = static_cast<Phase>(phase);
    c.evaluations_ = static_cast<int>(in.bounded(0, 1 << 30, "gradient-climb evaluations"));
    c.previous_gain_ = in.f64();
    c.last_gain_ = in.f64();
    c.centre_ = in.doubles();
    c.centre_value_ = in.f64();
    c.gradient_ = in.doubles();
    c.inverse_hessian_ = in.matrix();
    c.hessian_updated_ = in.boolean();
    c.previous_centre_ = in.doubles();
    c.previous_gradient_ = in.doubles();
    c.difference_points_ = in.matrix();
    c.difference_values_ = in.doubles();
    c.difference_next_ = static_cast<int>(in.bounded(0, c.dim_, "gradient-climb difference position"));
    c.direction_ = in.doubles();
    c.slope_ = in.f64();
    c.step_ = in.f64();
    c.trial_ = in.doubles();
    c.trial_out_ = in.boolean();
    c.backtracks_ = static_cast<int>(in.bounded(0, kMaxBacktracks + 1, "gradient-climb backtracks"));
    c.check_shapes();
    return c;
}

void GradientClimb::check_shapes() const {
    const size_t d = static_cast<size_t>(dim_);
    auto sized = [&](const std::vector<double>& v) { return v.size() == d; };
    auto sized_or_empty = [&](const std::vector<double>& v) { return v.empty() || v.size() == d; };
    const bool ok = dim_ >= 1 && sized(centre_) && sized_or_empty(gradient_) && inverse_hessian_.rows == dim_ &&
                    inverse_hessian_.cols == dim_ && sized_or_empty(previous_centre_) &&
                    previous_centre_.size() == previous_gradient_.size() && difference_points_.rows == dim_ &&
                    difference_points_.cols == dim_ && sized(difference_values_) && sized_or_empty(direction_) &&
                    sized_or_empty(trial_) && (!trial_out_ || sized(trial_)) && (phase_ == Phase::gradient || (sized(direction_) && sized(gradient_)));
    if (!ok) throw_error(Code::format, "the gradient climb holds a point or matrix of the wrong dimension");
}

}  // namespace libvbmc
