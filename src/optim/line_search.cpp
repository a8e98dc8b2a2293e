#include "optim/line_search.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "util/error.hpp"

namespace libvbmc {

namespace {
constexpr double kShrinkLow = 0.1, kShrinkHigh = 0.5;  // a backtrack's step, as a fraction of the last
constexpr double kGrowLow = 1.5, kGrowHigh = 4.0;      // an extrapolation's, as a multiple of the largest
constexpr double kMargin = 0.1;                        // an interior refinement keeps this far inside its bracket
constexpr double kMinRelativeRise = 0.1;               // of the gain so far, for refining to go on
constexpr double kSameStep = 0.1;                      // a refinement this close (relative) to the best is skipped
constexpr double kArmijo = 1e-4;                       // a step rises when phi(t) >= f0 + kArmijo t phi'(0) (and > f0)

// The vertex of the parabola through three points with a < b < c, or NaN where it does not curve down.
double parabola_top(double a, double fa, double b, double fb, double c, double fc) {
    const double curvature = ((fc - fb) / (c - b) - (fb - fa) / (b - a)) / (c - a);
    if (!(curvature < 0.0)) return NAN;
    const double slope_ab = (fb - fa) / (b - a);  // at (a + b) / 2
    return 0.5 * (a + b) - slope_ab / (2.0 * curvature);
}
}  // namespace

LineSearch::LineSearch(double f0, double slope, double first_step, double min_step, double max_step)
    : f0_(f0), slope_(slope), min_step_(min_step), max_step_(max_step), next_(first_step), done_(false) {
    if (!(slope > 0.0) || !(first_step > 0.0) || !(min_step >= 0.0) || !(max_step >= first_step) || !std::isfinite(f0))
        throw_error(Code::internal, "a line search needs an ascent slope, a positive first step and a finite start");
}

void LineSearch::tell(double value) {
    if (done_) return;
    const double v = std::isfinite(value) ? value : -INFINITY;
    const double previous_best = rose() ? best_value() : f0_;
    const bool had_risen = rose();
    steps_.push_back(next_);
    values_.push_back(v);
    const bool sufficient = v > f0_ && v >= f0_ + kArmijo * next_ * slope_;
    if (sufficient && v > previous_best) best_ = static_cast<int>(steps_.size()) - 1;
    if (!rose()) {
        next_ = backtrack();
        done_ = static_cast<int>(steps_.size()) > kMaxBacktracks || next_ < min_step_;
        return;
    }
    const bool stalled = had_risen && (v <= previous_best || v - previous_best < kMinRelativeRise * (previous_best - f0_));
    if (stalled || refinements_ >= kMaxRefinements) {
        done_ = true;
        return;
    }
    const double step = refine();
    done_ = !std::isfinite(step) || std::fabs(step - best_step()) <= kSameStep * best_step();
    if (!done_) {
        next_ = step;
        ++refinements_;
    }
}

// Maximiser of the quadratic through phi(0), phi'(0) and the last value, kept in [0.1, 0.5] of
// the last step; a tenth of it after a failure.
double LineSearch::backtrack() const {
    const double t = steps_.back(), f = values_.back();
    if (!std::isfinite(f)) return kShrinkLow * t;
    const double curvature = (f - f0_ - slope_ * t) / (t * t);
    const double top = curvature < 0.0 ? -slope_ / (2.0 * curvature) : kShrinkHigh * t;
    return std::clamp(top, kShrinkLow * t, kShrinkHigh * t);
}

// The next refinement: the vertex of the quadratic around the best step (with t = 0 among the
// points); NaN when there is nothing left to try.
double LineSearch::refine() const {
    std::vector<double> t = {0.0}, f = {f0_};
    std::vector<size_t> order(steps_.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return steps_[a] < steps_[b]; });
    for (size_t k : order) {
        t.push_back(steps_[k]);
        f.push_back(values_[k]);
    }
    const size_t j = static_cast<size_t>(std::max_element(f.begin(), f.end()) - f.begin());
    if (j + 1 == t.size()) {  // the best is the longest step: extrapolate
        const double tl = t[j];
        if (tl >= max_step_) return NAN;
        double top = kGrowHigh * tl;  // where the quadratic does not curve down
        if (j == 1) {
            const double curvature = (f[1] - f0_ - slope_ * tl) / (tl * tl);
            if (curvature < 0.0) top = -slope_ / (2.0 * curvature);
        } else {
            const double vertex = parabola_top(t[j - 2], f[j - 2], t[j - 1], f[j - 1], tl, f[j]);
            if (std::isfinite(vertex)) top = vertex;
        }
        if (top <= (1.0 + kSameStep) * tl) return NAN;  // the top is reached
        return std::min(std::clamp(top, kGrowLow * tl, kGrowHigh * tl), max_step_);
    }
    const double left = t[j - 1], right = t[j + 1], width = right - left;
    double top = std::isfinite(f[j + 1]) ? parabola_top(left, f[j - 1], t[j], f[j], right, f[j + 1]) : NAN;
    if (!std::isfinite(top)) top = 0.5 * (t[j] + right);
    return std::clamp(top, left + kMargin * width, right - kMargin * width);
}

void LineSearch::write(Writer& out) const {
    out.f64(f0_);
    out.f64(slope_);
    out.f64(min_step_);
    out.f64(max_step_);
    out.doubles(steps_);
    out.doubles(values_);
    out.i64(best_);
    out.i64(refinements_);
    out.f64(next_);
    out.boolean(done_);
}

LineSearch LineSearch::read(Reader& in) {
    LineSearch s;
    s.f0_ = in.f64();
    s.slope_ = in.f64();
    s.min_step_ = in.f64();
    s.max_step_ = in.f64();
    s.steps_ = in.doubles();
    s.values_ = in.doubles();
    s.best_ = static_cast<int>(in.bounded(-1, static_cast<int64_t>(s.steps_.size()) - 1, "line-search best step"));
    s.refinements_ = static_cast<int>(in.bounded(0, kMaxRefinements, "line-search refinements"));
    s.next_ = in.f64();
    s.done_ = in.boolean();
    if (s.steps_.size() != s.values_.size() || static_cast<int>(s.steps_.size()) > kMaxBacktracks + kMaxRefinements + 1)
        throw_error(Code::format, "a line search holds an inconsistent list of steps");
    return s;
}

}  // namespace libvbmc
