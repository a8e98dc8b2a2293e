#include "optim/trust_region_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "linalg/linalg.hpp"
#include "optim/trust_region_step.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

// Powell's radius rule (BOBYQA): after a step of length |s| earning ratio rho of its predicted
// gain, the radius becomes max(radius/2, 2|s|) for rho > kGoodRatio, max(radius/2, |s|) for
// rho > kPoorRatio and |s|/2 otherwise (then only when the model was poised), so it follows the
// steps' own length.
constexpr double kGoodRatio = 0.7;
constexpr double kPoorRatio = 0.1;
// Points within kSupport radii of the centre (and at least the (D+1)(D+2)/2 nearest) shape the
// model; those far below the centre count less, on the scale kDropScale x the median drop.
constexpr double kSupport = 3.0;
constexpr double kDropScale = 3.0;
// A direction is covered when the points within kPoisedReach radii spread along it by at least
// sqrt(kPoisedSpread) radii (sum of squared projections, in radius units).
constexpr double kPoisedReach = 1.5;
constexpr double kPoisedSpread = 0.25;
// Consecutive trust-region steps to the model's own maximum, inside the trust region and
// promising less than gain_tolerance, that call for the star design.
constexpr int kFlatSteps = 2;
// Below this radius (unit: the plausible box) no step changes anything the run could measure.
constexpr double kMinRadius = 1e-12;

int quadratic_coefficients(int dim) { return (dim + 1) * (dim + 2) / 2; }

double distance(const double* a, const double* b, int dim) {
    double total = 0.0;
    for (int j = 0; j < dim; ++j) total += (a[j] - b[j]) * (a[j] - b[j]);
    return std::sqrt(total);
}

int best_index(const std::vector<double>& y) {
    return static_cast<int>(std::max_element(y.begin(), y.end()) - y.begin());
}

bool same_point(const std::vector<double>& a, const double* b) {
    return std::memcmp(a.data(), b, sizeof(double) * a.size()) == 0;
}

}  // namespace

TrustRegionSearch::TrustRegionSearch(int dim, const TrustRegionSettings& settings)
    : dim_(dim), settings_(settings), radius_(settings.initial_radius) {}

// Weighted fit around the centre: biweight (1 - (d/R)^2)^2 within R = max(kSupport radii, the
// distance of the (D+1)(D+2)/2-th nearest point, enough to determine a quadratic), divided by
// 1 + (drop / (kDropScale x median drop))^2 so that points far below the centre (a wall of a
// valley, a region where the target explodes) do not bend the model near the top; the previous
// model's Hessian is the least-change prior.
void TrustRegionSearch::fit_model(const Matrix& z, const std::vector<double>& y, int centre) {
    const int n = z.rows;
    std::vector<double> d(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) d[static_cast<size_t>(i)] = distance(z.row(i), z.row(centre), dim_);
    std::vector<double> sorted = d;
    std::sort(sorted.begin(), sorted.end());
    const size_t neighbours = std::min<size_t>(sorted.size() - 1, static_cast<size_t>(quadratic_coefficients(dim_)));
    const double support = std::max(kSupport * radius_, 1.0001 * sorted[neighbours]);
    std::vector<double> w(static_cast<size_t>(n), 0.0), drops;
    for (int i = 0; i < n; ++i) {
        const double r = d[static_cast<size_t>(i)] / support;
        if (r >= 1.0) continue;
        w[static_cast<size_t>(i)] = (1.0 - r * r) * (1.0 - r * r);
        if (i != centre) drops.push_back(y[static_cast<size_t>(centre)] - y[static_cast<size_t>(i)]);
    }
    if (!drops.empty()) {
        std::nth_element(drops.begin(), drops.begin() + static_cast<std::ptrdiff_t>(drops.size() / 2), drops.end());
        const double drop_scale = kDropScale * drops[drops.size() / 2];
        for (int i = 0; i < n && drop_scale > 0.0; ++i) {
            const double r = (y[static_cast<size_t>(centre)] - y[static_cast<size_t>(i)]) / drop_scale;
            w[static_cast<size_t>(i)] /= 1.0 + r * r;
        }
    }
    const std::vector<double> centre_z(z.row(centre), z.row(centre) + dim_);
    model_ = fit_quadratic_model(z, y, w, centre_z, support, model_.h);
}

// Whether the points near the centre span every direction; if not, the least covered one.
bool TrustRegionSearch::poised_direction(const Matrix& z, int centre, std::vector<double>& weakest) const {
    Matrix scatter(dim_, dim_);
    for (int i = 0; i < z.rows; ++i) {
        if (distance(z.row(i), z.row(centre), dim_) > kPoisedReach * radius_) continue;
        for (int a = 0; a < dim_; ++a)
            for (int b = 0; b < dim_; ++b)
                scatter(a, b) += (z(i, a) - z(centre, a)) * (z(i, b) - z(centre, b)) / (radius_ * radius_);
    }
    std::vector<double> values;
    Matrix vectors;
    symmetric_eigen(scatter, values, vectors);
    weakest.resize(static_cast<size_t>(dim_));
    for (int a = 0; a < dim_; ++a) weakest[static_cast<size_t>(a)] = vectors(a, 0);
    return values[0] >= kPoisedSpread;
}

// The model's SD along an eigenvector of curvature h: 1/sqrt(-h) where it curves down, the trust
// radius where it does not.
double TrustRegionSearch::model_sd(double h) const { return h < 0.0 ? 1.0 / std::sqrt(-h) : radius_; }

// The star design around the centre: +- one model SD along each eigenvector of H (1/sqrt(-h)
// where the model curves down, the trust radius where it does not; more SDs for noisy values,
// see TrustRegionSettings::noise_sd; at most max_radius), then +- one marginal SD along each
// coordinate axis: a model whose eigenvectors mix a steep direction into a shallow one (a curved
// valley) overstates the curvature along all of them, but not along the axis of the shallow one.
void TrustRegionSearch::start_verification(const double* centre, double centre_value) {
    std::vector<double> curvature;
    Matrix vectors;
    symmetric_eigen(model_.h, curvature, vectors);
    for (double& h : curvature) h = model_sd(h);
    start_star(centre, centre_value, curvature, vectors);
}

// The star design along the eigenvectors of a covariance of the top (e.g. a gradient climb's
// estimate), one SD of it along each (the trust radius where it is not positive).
void TrustRegionSearch::verify(const double* centre, double centre_value, const Matrix& covariance, bool axes_measured) {
    std::vector<double> variance;
    Matrix vectors;
    symmetric_eigen(covariance, variance, vectors);
    for (double& v : variance) v = v > 0.0 ? std::sqrt(v) : radius_;
    if (stop_ != TrustRegionStop::running || !proposals_.empty()) return;
    start_star(centre, centre_value, variance, vectors);
    remodel_after_star_ = !axes_measured;
}

// The star design's points: `sds[i]` times unit direction i (columns of `vectors`), then the axes.
void TrustRegionSearch::start_star(const double* centre, double centre_value, const std::vector<double>& sds,
                                   const Matrix& vectors) {
    star_directions_ = Matrix(dim_, 2 * dim_);
    const double steps = std::max(1.0, std::sqrt(7.0 * settings_.noise_sd));
    for (int i = 0; i < dim_; ++i) {
        const double sd = std::min(steps * sds[static_cast<size_t>(i)], settings_.max_radius);
        for (int a = 0; a < dim_; ++a) star_directions_(a, i) = sd * vectors(a, i);
    }
    // Axis d steps the model's marginal SD sqrt(sum_i (direction i)_d^2).
    for (int d = 0; d < dim_; ++d) {
        double marginal = 0.0;
        for (int i = 0; i < dim_; ++i) marginal += star_directions_(d, i) * star_directions_(d, i);
        star_directions_(d, dim_ + d) = std::sqrt(marginal);
    }
    verifying_ = true;
    star_centre_.assign(centre, centre + dim_);
    star_centre_value_ = centre_value;
    star_values_.assign(static_cast<size_t>(4 * dim_), NAN);
    star_next_ = 0;
}

// Point 2i is the centre + direction i, point 2i+1 the centre - direction i.
std::vector<double> TrustRegionSearch::star_point(int index) const {
    std::vector<double> point = star_centre_;
    const double sign = index % 2 == 0 ? 1.0 : -1.0;
    for (int a = 0; a < dim_; ++a) point[static_cast<size_t>(a)] += sign * star_directions_(a, index / 2);
    return point;
}

// Second differences along each star direction (in steps of its length): slope s = (f+ - f-)/2 and
// curvature c = f+ + f- - 2 f0 give the gain s^2 / (2|c|) of that direction's maximum, its offset
// |s|/|c| steps and the variance length^2 / |c| along it. A failed point counts as a wall (no
// gain); a direction that does not curve down has unbounded gain. The eigenvector directions and
// the axes each sum their gains; the larger sum counts. The covariance comes from the eigenvectors.
TrustRegionSearch::StarSummary TrustRegionSearch::summarise_star() const {
    StarSummary sum;
    sum.covariance = Matrix(dim_, dim_);
    double gains[2] = {0.0, 0.0};
    for (int i = 0; i < 2 * dim_; ++i) {
        const double up = star_values_[static_cast<size_t>(2 * i)] - star_centre_value_;
        const double down = star_values_[static_cast<size_t>(2 * i + 1)] - star_centre_value_;
        double length = 0.0;
        for (int a = 0; a < dim_; ++a) length += star_directions_(a, i) * star_directions_(a, i);
        length = std::sqrt(length);
        double variance = length * length;
        if (std::isfinite(up) && std::isfinite(down)) {
            const double slope = 0.5 * (up - down), curvature = up + down;
            if (curvature < 0.0) {
                gains[i / dim_] += slope * slope / (2.0 * -curvature);
                sum.reach = std::max(sum.reach, length * std::fabs(slope) / -curvature);
                variance = length * length / -curvature;
            } else {
                gains[i / dim_] = INFINITY;
                sum.reach = std::max(sum.reach, 2.0 * length);
            }
        }
        if (i >= dim_) continue;
        // Sigma = sum_i variance_i u_i u_i^T over the unit eigenvector directions u_i.
        for (int a = 0; a < dim_; ++a)
            for (int b = 0; b < dim_; ++b)
                sum.covariance(a, b) += variance * star_directions_(a, i) * star_directions_(b, i) / (length * length);
    }
    sum.gain = std::max(gains[0], gains[1]);
    return sum;
}

// After the star design: located when its gains stay below gain_tolerance; otherwise the climb
// resumes with a radius reaching the furthest directional maximum. A star along an estimated
// covariance handed over (verify) that finds the top is followed by the model's own star
// design: the estimate's eigenvectors need not be the top's (a climb's L-BFGS estimate), and
// the covariance the search reports comes from the star's directions, where the model fitted to
// the first star's points aligns them (on bench/workers' cigar_D6 with 16 or 64 workers, a
// located box from an L-BFGS climb's directions alone started VBMC from a surrogate far off).
// Along a measured Hessian's axes the first star is the top's covariance: the model's star,
// from 4D points for D(D+3)/2 + 1 coefficients, turned them and lost cigar_D6's long axis.
void TrustRegionSearch::finish_verification() {
    verifying_ = false;
    const StarSummary sum = summarise_star();
    if (sum.gain < settings_.gain_tolerance && remodel_after_star_) {
        remodel_after_star_ = false;
        flat_steps_ = kFlatSteps;  // the next proposal starts the model's own star design
        return;
    }
    remodel_after_star_ = false;
    if (sum.gain < settings_.gain_tolerance) {
        located_covariance_ = sum.covariance;
        stop_ = TrustRegionStop::located;
        return;
    }
    flat_steps_ = 0;
    best_history_.clear();  // the climb resumes: a fresh window
    radius_ = std::min(std::max(sum.reach, radius_), settings_.max_radius);
}

// A point at distance `length` from the centre in a random direction.
std::vector<double> TrustRegionSearch::random_point(const double* centre, double length, Rng& rng) const {
    std::vector<double> step(static_cast<size_t>(dim_));
    double norm = 0.0;
    for (double& s : step) {
        s = rng.normal();
        norm += s * s;
    }
    std::vector<double> point(centre, centre + dim_);
    for (int a = 0; a < dim_; ++a) point[static_cast<size_t>(a)] += length * step[static_cast<size_t>(a)] / std::sqrt(norm);
    return point;
}

// A model-improvement step points uphill by the model's gradient.
void TrustRegionSearch::uphill(std::vector<double>& step) const {
    double slope = 0.0;
    for (int a = 0; a < dim_; ++a) slope += model_.g[static_cast<size_t>(a)] * step[static_cast<size_t>(a)];
    if (slope < 0.0)
        for (double& s : step) s = -s;
}

std::vector<double> TrustRegionSearch::propose(const Matrix& z, const std::vector<double>& y, Rng& rng) {
    return propose(z, y, best_index(y), rng);
}

std::vector<double> TrustRegionSearch::propose(const Matrix& z, const std::vector<double>& y, int centre, Rng& rng) {
    if (stop_ != TrustRegionStop::running) return {};
    fit_model(z, y, centre);
    std::vector<double> weakest;
    Proposal p;
    p.centre_value = y[static_cast<size_t>(centre)];
    p.poised = poised_direction(z, centre, weakest);
    if (!verifying_ && proposals_.empty() && flat_steps_ >= kFlatSteps) start_verification(z.row(centre), p.centre_value);
    if (verifying_ && star_next_ < 4 * dim_) {
        p.star_index = star_next_++;
        p.z = star_point(p.star_index);
    } else if (verifying_ || !proposals_.empty()) {
        // A model-improvement point while the other proposals are out.
        p.z = random_point(z.row(centre), radius_, rng);
    } else {
        std::vector<double> step(static_cast<size_t>(dim_));
        if (!p.poised && last_step_failed_) {
            // Model improvement along the least covered direction.
            for (int a = 0; a < dim_; ++a) step[static_cast<size_t>(a)] = radius_ * weakest[static_cast<size_t>(a)];
            uphill(step);
            last_step_failed_ = false;
        } else {
            const TrustRegionStep tr = trust_region_step(model_.g, model_.h, radius_);
            step = tr.s;
            p.predicted_gain = tr.predicted_gain;
            p.interior = tr.interior;
        }
        p.z.assign(z.row(centre), z.row(centre) + dim_);
        for (int a = 0; a < dim_; ++a) p.z[static_cast<size_t>(a)] += step[static_cast<size_t>(a)];
    }
    p.step_length = distance(p.z.data(), z.row(centre), dim_);
    proposals_.push_back(p);
    return p.z;
}

// A step to the model's own nearby maximum promising less than gain_tolerance is a flat step: the
// search is at the top, whatever the ratio of two tiny numbers says, and the radius stays.
void TrustRegionSearch::radius_after_step(const Proposal& p, double y) {
    const bool flat = p.interior && p.predicted_gain < settings_.gain_tolerance;
    flat_steps_ = flat ? flat_steps_ + 1 : 0;
    if (flat && std::isfinite(y)) return;
    const double ratio = std::isfinite(y) ? (y - p.centre_value) / p.predicted_gain : -INFINITY;
    if (ratio > kGoodRatio) {
        radius_ = std::min(std::max(0.5 * radius_, 2.0 * p.step_length), settings_.max_radius);
    } else if (ratio > kPoorRatio) {
        radius_ = std::max(0.5 * radius_, p.step_length);
    } else {
        if (p.poised) radius_ = 0.5 * p.step_length;
        last_step_failed_ = true;
    }
}

void TrustRegionSearch::tell(const double* z, double y) {
    auto it = std::find_if(proposals_.begin(), proposals_.end(), [&](const Proposal& p) { return same_point(p.z, z); });
    if (it == proposals_.end()) return;
    const Proposal p = *it;
    proposals_.erase(it);
    ++evaluations_;
    if (p.predicted_gain > 0.0) radius_after_step(p, y);
    record_star_value(p.star_index, y);
    note_progress(std::isfinite(y) ? std::max(y, p.centre_value) : p.centre_value);
    if (radius_ < kMinRadius) stop_ = TrustRegionStop::stalled;
    if (stop_ == TrustRegionStop::running && evaluations_ >= settings_.max_evaluations)
        stop_ = TrustRegionStop::max_evaluations;
}

void TrustRegionSearch::move_last_proposal(const double* z) {
    if (!proposals_.empty()) proposals_.back().z.assign(z, z + dim_);
}

// A search crawling (less than gain_tolerance gained over the last kStallWindow(D) evaluations)
// is at a top as far as the locating stage cares: the star design checks it.
void TrustRegionSearch::note_progress(double best) {
    if (!best_history_.empty()) best = std::max(best, best_history_.back());
    best_history_.push_back(best);
    const size_t window = static_cast<size_t>(2 * (dim_ + 1));
    if (!verifying_ && best_history_.size() > window &&
        best - best_history_[best_history_.size() - 1 - window] < settings_.gain_tolerance)
        flat_steps_ = std::max(flat_steps_, kFlatSteps);
}

void TrustRegionSearch::forget(const double* z) {
    auto it = std::find_if(proposals_.begin(), proposals_.end(), [&](const Proposal& p) { return same_point(p.z, z); });
    if (it == proposals_.end()) return;
    const int star_index = it->star_index;
    proposals_.erase(it);
    record_star_value(star_index, NAN);  // a design point without a value counts as a wall
}

// The value of star point `index` (-1: not one); a failed point counts as a wall (-inf). The
// design is judged once every point has its value.
void TrustRegionSearch::record_star_value(int index, double value) {
    if (!verifying_ || index < 0) return;
    star_values_[static_cast<size_t>(index)] = std::isfinite(value) ? value : -INFINITY;
    if (star_next_ == 4 * dim_ && std::none_of(star_values_.begin(), star_values_.end(), [](double v) { return std::isnan(v); }))
        finish_verification();
}

Matrix TrustRegionSearch::covariance() const {
    if (stop_ == TrustRegionStop::located) return located_covariance_;
    if (!has_model()) {  // radius^2 I
        Matrix cov = Matrix::identity(dim_);
        for (int i = 0; i < dim_; ++i) cov(i, i) = radius_ * radius_;
        return cov;
    }
    std::vector<double> curvature;
    Matrix vectors, cov(dim_, dim_);
    symmetric_eigen(model_.h, curvature, vectors);
    for (int i = 0; i < dim_; ++i) {
        const double sd = std::min(model_sd(curvature[static_cast<size_t>(i)]), settings_.max_radius);
        for (int a = 0; a < dim_; ++a)
            for (int b = 0; b < dim_; ++b) cov(a, b) += sd * sd * vectors(a, i) * vectors(b, i);
    }
    return cov;
}

void TrustRegionSearch::write(Writer& out) const {
    out.i64(dim_);
    out.f64(settings_.initial_radius);
    out.f64(settings_.max_radius);
    out.f64(settings_.gain_tolerance);
    out.i64(settings_.max_evaluations);
    out.f64(settings_.noise_sd);
    out.f64(radius_);
    out.i64(evaluations_);
    out.boolean(last_step_failed_);
    out.i64(flat_steps_);
    out.doubles(best_history_);
    out.u8(static_cast<uint8_t>(stop_));
    out.doubles(model_.centre);
    out.f64(model_.c);
    out.doubles(model_.g);
    out.matrix(model_.h);
    out.u64(proposals_.size());
    for (const Proposal& p : proposals_) {
        out.doubles(p.z);
        out.f64(p.predicted_gain);
        out.f64(p.centre_value);
        out.f64(p.step_length);
        out.boolean(p.poised);
        out.boolean(p.interior);
        out.i64(p.star_index);
    }
    out.boolean(verifying_);
    out.boolean(remodel_after_star_);
    out.doubles(star_centre_);
    out.f64(star_centre_value_);
    out.matrix(star_directions_);
    out.doubles(star_values_);
    out.i64(star_next_);
    out.matrix(located_covariance_);
}

TrustRegionSearch TrustRegionSearch::read(Reader& in) {
    TrustRegionSearch s;
    s.dim_ = static_cast<int>(in.bounded(1, 64, "trust-region dimension"));
    s.settings_.initial_radius = in.f64();
    s.settings_.max_radius = in.f64();
    s.settings_.gain_tolerance = in.f64();
    s.settings_.max_evaluations = static_cast<int>(in.bounded(0, 1 << 30, "trust-region budget"));
    s.settings_.noise_sd = in.f64();
    s.radius_ = in.f64();
    s.evaluations_ = static_cast<int>(in.bounded(0, 1 << 30, "trust-region evaluations"));
    s.last_step_failed_ = in.boolean();
    s.flat_steps_ = static_cast<int>(in.bounded(0, 1 << 30, "trust-region flat steps"));
    s.best_history_ = in.doubles();
    const uint8_t stop = in.u8();
    if (stop > static_cast<uint8_t>(TrustRegionStop::stalled))
        throw_error(Code::format, "the trust-region search has an unknown state");
    s.stop_ = static_cast<TrustRegionStop>(stop);
    s.model_.centre = in.doubles();
    s.model_.c = in.f64();
    s.model_.g = in.doubles();
    s.model_.h = in.matrix();
    const uint64_t n = in.u64();
    if (n > in.remaining()) throw_error(Code::format, "the trust-region proposal count exceeds the file");
    for (uint64_t i = 0; i < n; ++i) {
        Proposal p;
        p.z = in.doubles();
        p.predicted_gain = in.f64();
        p.centre_value = in.f64();
        p.step_length = in.f64();
        p.poised = in.boolean();
        p.interior = in.boolean();
        p.star_index = static_cast<int>(in.bounded(-1, 4 * s.dim_ - 1, "trust-region design index"));
        if (static_cast<int>(p.z.size()) != s.dim_) throw_error(Code::format, "a trust-region proposal has the wrong dimension");
        s.proposals_.push_back(p);
    }
    s.verifying_ = in.boolean();
    s.remodel_after_star_ = in.boolean();
    s.star_centre_ = in.doubles();
    s.star_centre_value_ = in.f64();
    s.star_directions_ = in.matrix();
    s.star_values_ = in.doubles();
    s.star_next_ = static_cast<int>(in.bounded(0, 4 * s.dim_, "trust-region design position"));
    s.located_covariance_ = in.matrix();
    const size_t dim = static_cast<size_t>(s.dim_);
    const bool model_ok = (s.model_.centre.empty() && s.model_.g.empty() && s.model_.h.empty()) ||
                          (s.model_.centre.size() == dim && s.model_.g.size() == dim && s.model_.h.rows == s.dim_ &&
                           s.model_.h.cols == s.dim_);
    const bool star_ok = !s.verifying_ || (s.star_centre_.size() == dim && s.star_directions_.rows == s.dim_ &&
                                          s.star_directions_.cols == 2 * s.dim_ && s.star_values_.size() == 4 * dim);
    const bool located_ok = s.stop_ != TrustRegionStop::located ||
                            (s.located_covariance_.rows == s.dim_ && s.located_covariance_.cols == s.dim_);
    if (!model_ok || !star_ok || !located_ok || !(s.radius_ > 0.0) || !std::isfinite(s.radius_))
        throw_error(Code::format, "the trust-region search holds an invalid model, design or radius");
    return s;
}

}  // namespace libvbmc
