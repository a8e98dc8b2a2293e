// The locating stage: when the plausible box is far wider than the posterior's mass (the initial
// design's log-joint values spread over more than option locate_spread), searches climb to the top
// before the surrogate is asked to model it. A search opens, with option locate_climb on and
// exact values, with a limited-memory quasi-Newton climb on finite-difference gradients
// (optim/gradient_climb.hpp), which follows long curved ridges; a derivative-free trust-region
// search with quadratic models (optim/trust_region_search.hpp) takes over near the top (or alone,
// for noisy values) and measures the top's curvature. The searches compare told values, penalties
// included (the penalty rule protects the surrogate, not the search). Their evaluations count
// against the budget and stay in the evaluation log.
//
// After the first search, the design points its top explains least (highest above the top's
// Gaussian tail) are probed for a valley on the segment between them and the top (a hill-valley
// test, Ursem 1999, with a few points inside the segment); the first segment with a valley starts
// a second search from its best point before the valley, so that a mode the first search missed
// is climbed too. A search can still settle on a local top that no design point contradicts (the
// ODE posterior of bench/real, whose prior box splits about evenly between the basins of its
// maximum and of a top 45 below it), so the stage restarts as multistart methods do: while the
// best top has been reached by one search only (or lies far beyond the plausible box, which is
// then no guide to where other modes lie) and the budget leaves room, a new search climbs from a
// point drawn uniformly in the box, modelling only its own points; a search that comes within
// reach of a known top ends there and counts as reaching it, and a later search may spend no more
// than the first did.
//
// Then the plausible box, the transform's centring and the search box are re-centred: the best
// top +- kLocatedBoxSds SDs of its covariance, widened to cover the other tops about as high;
// training points far below the top are dropped as at a false-alarm end of warm-up, and so are the
// climbs' difference points (clusters of D + 1 points 1e-6 apart, which tell the surrogate nothing
// about the posterior's shape and threw its hyperparameters off on a real posterior, arK, seed 2:
// LML error 54.7 with them, 0.025 without).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "acquisition/search_bounds.hpp"
#include "linalg/linalg.hpp"
#include "run/run.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {
constexpr double kLocateInitialRadius = 0.1;   // trust radius, in plausible-box widths
constexpr double kLocatedBoxSds = 2.0;         // half-width of the re-centred plausible box, in SDs
constexpr int kValleyProbes = 3;               // design points probed for a valley towards the top
constexpr int kProbesPerSegment = 3;           // probes along each of their segments
constexpr int kMaxSearches = 4;                // searches of one stage at most
constexpr int kMinSearchBudgetPerDim = 5;      // a restart needs 5 (D + 1) evaluations of budget left
// A restart starts only while the stage has spent at most this share of its budget: the first
// search may need most of the stage to reach a far top; restarts are insurance against local
// tops, bought with budget that VBMC's own exploration also uses (measured on the real
// posteriors: the ODE model's local tops need two or three searches).
constexpr double kRestartShare = 0.5;
// While the best top lies beyond the plausible box, the box says nothing about where the mass is:
// restarts go on, up to kMaxSearchesBeyondBox searches, while the stage has spent at most
// kRestartShareBeyondBox of its budget (measured on bench/real's hmm_drive, whose mode lies 1-2 box
// widths beyond the prior box in four coordinates: LML error < 1 on 3 of 10 seeds with the limits
// above, 5 of 10 with these; bench/RESULTS-real.md).
constexpr int kMaxSearchesBeyondBox = 8;
constexpr double kRestartShareBeyondBox = 0.9;
// A search reaches a known top when its best point is within the tolerance of the top's value and
// within 2 SDs of it (root mean square over the coordinates, the top's covariance).
constexpr double kReachSds = 2.0;
// A climb gaining less than one log-density unit per step three times in a row, with a model that
// promises no more, hands over to the trust region (optim/gradient_climb.hpp; measured on the real
// posteriors: a threshold of max(1, D/2) stopped the regressions' climbs half-way up their ridges).
constexpr double kClimbCrawlGain = 1.0;
}  // namespace

bool Run::locate_due(std::string& reason) const {
    // A warm start that re-uses evaluations: the previous run located the mass (run/warm_start.cpp).
    if (settings_.locate == "off" || locate_.phase != LocateState::Phase::pending || reused_count_ > 0) return false;
    std::vector<double> values;
    for (int i : evals_.training_index()) values.push_back(evals_[i].log_joint_z());
    if (values.size() < 3) return false;
    std::sort(values.begin(), values.end());
    const double spread = values.back() - values[values.size() / 2];
    char text[256];
    std::snprintf(text, sizeof text, "the initial design's log joint spreads over %.3g (maximum minus median)", spread);
    reason = text;
    return settings_.locate == "on" || spread > settings_.locate_spread;
}

// A top within max(1, D/2) of the best value is as good as the surrogate needs (the mass sits
// about D/2 below it); widened by three times the typical noise SD told.
double Run::locate_tolerance() const { return std::max(1.0, 0.5 * dim_) + 3.0 * evals_.typical_noise_sd(); }

// A later search (a restart or one from across a valley) may spend as many evaluations as the
// first needed to reach its top, at least kMinSearchBudgetPerDim (D + 1): one still climbing
// after that is on a lower, longer hill (measured on the real posteriors: a second search of
// low_dim_gauss_mix climbed a ridge 170 below the top for 115 evaluations).
bool Run::search_spent() const {
    return locate_.searches > 1 && locate_.spent - locate_.search_start >= search_evals_allowed();
}

int Run::search_evals_allowed() const {
    return std::max(locate_.first_search_evals, kMinSearchBudgetPerDim * (dim_ + 1));
}

int Run::locate_budget_left() const {
    return static_cast<int>(settings_.locate_max_fraction * settings_.max_fun_evals) - locate_.spent;
}

// With option locate_climb on (the default), a search opens with a gradient climb from its centre
// when the values are exact (finite differences of noisy values point nowhere); the trust region
// takes over when the climb stops (bench/RESULTS-real.md measures both).
void Run::start_search(std::vector<int> members) {
    if (locate_.searches == 1) locate_.first_search_evals = locate_.spent;
    locate_.search_start = locate_.spent;
    const int budget = std::max(1, locate_budget_left());
    const TrustRegionSettings ts{kLocateInitialRadius, 10.0, locate_tolerance(), budget, evals_.typical_noise_sd()};
    locate_.search = TrustRegionSearch(dim_, ts);
    locate_.members = std::move(members);
    locate_.phase = LocateState::Phase::searching;
    locate_.restarted = false;
    ++locate_.searches;
    locate_.climb = GradientClimb();
    const int centre = search_centre();
    if (climbs() && centre >= 0)
        locate_.climb = GradientClimb(dim_, climb_settings(), evals_[centre].z.data(), evals_[centre].log_joint_z());
}

// Whether searches open with a gradient climb: option locate_climb on and exact values.
bool Run::climbs() const { return settings_.locate_climb && evals_.typical_noise_sd() == 0.0; }

// With several points out allowed and workers enough for a Newton design (D + D (D + 1) / 2
// points) in two rounds, the climbs run in Newton mode (optim/gradient_climb.hpp; bench/workers,
// cigar_D6 with 16 workers: a median 10.9 times faster than one worker over seeds 1-15, where
// the L-BFGS climbs gave 6.5-7.9 on seeds 1-5; bench/RESULTS.md, "A parallel Newton climb").
// Not at D < 3, where a gradient is one or two points: cigar_D2 with 16 workers ended with a
// median LML error of 0.0016 against 0.00024, for a speed-up of 8.9 against 6.5. One point at a
// time, the climbs are as before.
GradientClimbSettings Run::climb_settings() const {
    constexpr int kMinNewtonDim = 3;
    const bool newton = dim_ >= kMinNewtonDim && settings_.max_pending > 1 &&
                        2 * settings_.max_pending >= GradientClimb::newton_design_size(dim_);
    return {kClimbCrawlGain, std::max(1, locate_budget_left()), newton};
}

void Run::start_locating(const std::string& reason) {
    locate_.first_evaluation = evals_.size();
    start_search({});
    log_table_header();
    char line[320];
    std::snprintf(line, sizeof line, "Locating the posterior's mass first: %s, more than locate_spread = %g.",
                  reason.c_str(), settings_.locate_spread);
    log(kLogInfo, line);
}

// The point a search climbs from: the best of its members, or of every training point for the
// first search (but the companion's).
int Run::search_centre() const {
    int best = -1;
    const std::vector<int>& companion = locate_.companion_members;  // increasing
    for (int i : locate_.members.empty() ? evals_.training_index() : locate_.members) {
        if (locate_.members.empty() && std::binary_search(companion.begin(), companion.end(), i)) continue;
        if (!evals_[i].failed && evals_[i].in_training && (best < 0 || evals_[i].log_joint_z() > evals_[best].log_joint_z()))
            best = i;
    }
    return best;
}

// The design and the search's own points, but not the climb's difference points (which crowd a
// few points into a tiny ball and leave the quadratic fit without spread), shape the search's
// model; its centre is its own best point. A restart leaves the earlier searches' points out: they
// would pull its model to the top already found, which the restart is there to test.
// With points out, the stage hands out another only while the next is independent of the values
// still out: the D difference points of a climb's gradient, a trial with the D points of its
// speculative gradient, the 4 D points of a star design, the valley probes of every segment, and
// the companion climb's points (run/locate_companion.cpp); a trust-region step goes out alone.
// The points a trust-region search proposes while one is out are model-improvement points in
// random directions, and with them the search stalls: on cigar_D6 with up to 2, 4, 7 or 16
// points out it spent its whole share (200 evaluations) still climbing on each of seeds 1-3,
// against 56-73 evaluations one at a time (bench/RESULTS.md, "Many workers").
bool Run::locate_hands_out_more() const { return search_ready() || companion_ready(); }

// The current search (or its probes) has nothing out, or another point to hand out meanwhile.
bool Run::search_ready() const { return search_points_out() == 0 || search_hands_out_more(); }

bool Run::search_hands_out_more() const {
    if (locate_.phase == LocateState::Phase::probing) return valley_probe_left();
    if (locate_.phase != LocateState::Phase::searching) return false;
    return locate_.climb.running() ? locate_.climb.has_proposal() : locate_.search.has_star_point();
}

// A valley probe not asked yet, or a design point whose segment is still to probe: the probes
// of every segment are independent of each other's values and go out together.
bool Run::valley_probe_left() const {
    if (!locate_.candidates.empty()) return true;
    return std::any_of(locate_.probes.begin(), locate_.probes.end(), [](const LocateProbe& p) {
        return p.evaluation == LocateProbe::kNotAsked && p.candidate >= 0;
    });
}

std::vector<double> Run::next_locate_point() {
    if (!pending_.empty() && !search_ready() && companion_ready()) return next_companion_point();
    if (locate_.phase == LocateState::Phase::probing) return next_valley_probe();
    if (locate_.climb.running()) {
        std::vector<double> x = climb_point(locate_.climb);
        if (!x.empty()) return x;
    }
    const int centre = search_centre();
    Matrix z(0, dim_);
    std::vector<double> y;
    const std::vector<int>& skipped = locate_.difference_points;  // increasing
    const std::vector<int>& own = locate_.members;                // increasing
    for (int i : evals_.training_index()) {
        if (i == centre || std::binary_search(skipped.begin(), skipped.end(), i)) continue;
        if (locate_.restarted && i >= locate_.first_evaluation && !std::binary_search(own.begin(), own.end(), i)) continue;
        z.append_row(evals_[i].z.data(), dim_);
        y.push_back(evals_[i].log_joint_z());
    }
    const int centre_row = z.rows;  // the centre always, though a restart's may lie below the penalty cut
    z.append_row(evals_[centre].z.data(), dim_);
    y.push_back(evals_[centre].log_joint_z());
    std::vector<double> point = locate_.search.propose(z, y, centre_row, rng_);
    if (point.empty()) throw_error(Code::internal, "the locating search proposed no point while running");
    std::vector<double> x = round_trip(point);
    locate_.search.move_last_proposal(point.data());
    return x;
}

// A climb's next proposal as the point x to ask (empty when it has none); its difference points
// are noted as out.
std::vector<double> Run::climb_point(GradientClimb& climb) {
    std::vector<double> point = climb.propose();
    if (point.empty()) return {};
    std::vector<double> x = round_trip(point);
    climb.move_last_proposal(point.data());
    if (climb.last_was_difference()) locate_.differences_out.push_back(x);
    return x;
}

// The point x (original space) to ask for a proposal z, and z replaced by the z a tell of x will
// record.
std::vector<double> Run::round_trip(std::vector<double>& z) const {
    std::vector<double> x(static_cast<size_t>(dim_));
    transform_.to_original(z.data(), x.data());
    transform_.to_unbounded(x.data(), z.data());
    return x;
}

// The next probe to ask: the first not asked yet, or the kProbesPerSegment points of the segment
// from the next candidate to the best top (transformed space, evenly inside it). With nothing
// left to ask (the other probes are out) the stage ends and the answer is empty.
std::vector<double> Run::next_valley_probe() {
    auto next = std::find_if(locate_.probes.begin(), locate_.probes.end(),
                             [](const LocateProbe& p) { return p.evaluation == LocateProbe::kNotAsked; });
    if (next == locate_.probes.end() && !locate_.candidates.empty()) {
        const int candidate = locate_.candidates.front();
        locate_.candidates.erase(locate_.candidates.begin());
        const std::vector<double>& from = evals_[candidate].z;
        const std::vector<double>& to = evals_[best_top().index].z;
        for (int k = 1; k <= kProbesPerSegment; ++k) {
            const double t = static_cast<double>(k) / (kProbesPerSegment + 1);
            std::vector<double> z(static_cast<size_t>(dim_)), x(z);
            for (int d = 0; d < dim_; ++d) z[static_cast<size_t>(d)] = (1.0 - t) * from[static_cast<size_t>(d)] + t * to[static_cast<size_t>(d)];
            transform_.to_original(z.data(), x.data());
            locate_.probes.push_back({candidate, x});
        }
        next = locate_.probes.end() - kProbesPerSegment;
    }
    if (next == locate_.probes.end()) {
        finish_locating();
        return {};
    }
    next->evaluation = LocateProbe::kOut;
    return next->x;
}

const LocatedTop& Run::best_top() const {
    return *std::max_element(locate_.tops.begin(), locate_.tops.end(), [&](const LocatedTop& a, const LocatedTop& b) {
        return evals_[a.index].log_joint_z() < evals_[b.index].log_joint_z();
    });
}

void Run::locate_after_tell(int index) {
    const bool difference = take_difference_out(evals_[index].x.data());
    if (!locate_.active()) {
        if (difference) evals_[index].in_training = false;  // a speculative gradient's, told after the stage
        return;
    }
    const Evaluation& e = evals_[index];
    ++locate_.spent;
    if (difference) locate_.difference_points.push_back(index);
    const auto probe = std::find_if(locate_.probes.begin(), locate_.probes.end(), [&](const LocateProbe& p) {
        return p.evaluation == LocateProbe::kOut && p.x == e.x;
    });
    if (probe != locate_.probes.end() && probe->candidate == LocateProbe::kStale) {
        locate_.probes.erase(probe);
    } else if (probe != locate_.probes.end() && probe->candidate == LocateProbe::kCompanion) {
        locate_.probes.erase(probe);
        start_companion_climb(index);
    } else if (probe != locate_.probes.end() && probe->candidate == LocateProbe::kRestart) {
        locate_.probes.erase(probe);
        if (e.failed) {  // a penalty (far below the top found) is a fine place to climb from
            restart_or_finish();
        } else {
            start_search({index});
            locate_.restarted = true;
        }
    } else if (probe != locate_.probes.end()) {
        probe->evaluation = index;
        judge_segment(probe->candidate);
    } else if (companion_takes(index)) {
        // the companion's point (run/locate_companion.cpp)
    } else if (locate_.phase == LocateState::Phase::searching) {
        const double value = e.failed ? NAN : e.log_joint_z();  // penalties too: the searches only compare values
        tell_climb(e.z.data(), value);
        locate_.search.tell(e.z.data(), value);
        if (!locate_.members.empty()) locate_.members.push_back(index);
        if (locate_.search.stop() != TrustRegionStop::running || reached_top(search_centre()) >= 0 || search_spent()) end_search();
    }
    if (locate_.active() && locate_budget_left() <= 0) finish_locating();
    else if (locate_.active() && locate_.spent % settings_.fun_evals_per_iter == 0) log_locate_row();
}

// Whether x is a climb's difference point out (then no longer out).
bool Run::take_difference_out(const double* x) {
    auto& out = locate_.differences_out;
    const auto it = std::find_if(out.begin(), out.end(), [&](const std::vector<double>& p) { return std::equal(p.begin(), p.end(), x); });
    if (it == out.end()) return false;
    out.erase(it);
    return true;
}

// The climb learns its own points' values; when it stops, the log says why. When it stopped at
// a top and the run may hand out several points, the trust region checks the top at once with a
// star design along the climb's curvature (4 D points that go out together; then its model's own
// star), instead of first taking its own steps one at a time (two flat steps at least, up to
// 2 (D + 1) evaluations), each of which keeps every other worker idle.
void Run::tell_climb(const double* z, double value) {
    const bool was_running = locate_.climb.running();
    locate_.climb.tell(z, value);  // also a stopped climb's speculative points
    if (!was_running || locate_.climb.running()) return;
    char line[320];
    const bool verify_now = locate_.climb.at_top() && settings_.max_pending > 1;
    std::snprintf(line, sizeof line, "The gradient climb stops after %d evaluations, %s: the trust region %s.",
                  locate_.climb.evaluations(), climb_stop_text(locate_.climb.stop()),
                  verify_now ? "checks the top along the climb's curvature" : "climbs on");
    log(kLogInfo, line);
    if (verify_now) {
        const Evaluation& centre = evals_[search_centre()];
        locate_.search.verify(centre.z.data(), centre.log_joint_z(), locate_.climb.covariance(),
                              locate_.climb.hessian_measured());
        if (locate_.searches == 1) start_companion();
    }
}

// The best point of the current search is a known top it reached (counted once more; returns
// false), or a new top with the search's covariance of it: the trust region's, or the climb's
// when the stage ended before the trust region took over.
bool Run::settle_search() {
    const int best = search_centre();
    const int known = reached_top(best);
    if (known >= 0) {
        ++locate_.tops[static_cast<size_t>(known)].reached;
        return false;
    }
    const bool from_climb = !locate_.search.has_model() && locate_.climb.stop() != ClimbStop::not_run;
    locate_.tops.push_back({best, from_climb ? locate_.climb.covariance() : locate_.search.covariance()});
    return true;
}

// The known top the evaluation `point` has reached (see kReachSds), or -1.
int Run::reached_top(int point) const {
    if (point < 0) return -1;
    const Evaluation& e = evals_[point];
    for (size_t k = 0; k < locate_.tops.size(); ++k) {
        const LocatedTop& top = locate_.tops[k];
        const double top_value = evals_[top.index].log_joint_z();
        const double mahalanobis2 = 2.0 * (top_value - gaussian_tail(top, e.z));
        if (std::fabs(e.log_joint_z() - top_value) <= locate_tolerance() && mahalanobis2 <= kReachSds * kReachSds * dim_)
            return static_cast<int>(k);
    }
    return -1;
}

// An abandoned point of the stage: a probe is dropped (the stage ends when it was the last thing
// to wait for), a search forgets its proposal.
void Run::abandon_locate_point(const double* x) {
    const auto probe = std::find_if(locate_.probes.begin(), locate_.probes.end(), [&](const LocateProbe& p) {
        return p.evaluation == LocateProbe::kOut && std::equal(p.x.begin(), p.x.end(), x);
    });
    if (probe != locate_.probes.end() && (probe->candidate == LocateProbe::kStale || probe->candidate == LocateProbe::kCompanion)) {
        locate_.probes.erase(probe);
        return;
    }
    if (probe != locate_.probes.end() && probe->candidate == LocateProbe::kRestart) {
        locate_.probes.erase(probe);
        restart_or_finish();
        return;
    }
    if (probe != locate_.probes.end()) {
        probe->evaluation = LocateProbe::kAbandoned;
        judge_segment(probe->candidate);
        return;
    }
    take_difference_out(x);
    std::vector<double> z(static_cast<size_t>(dim_));
    transform_.to_unbounded(x, z.data());
    locate_.climb.forget(z.data());
    locate_.companion.forget(z.data());
    locate_.search.forget(z.data());
}

// A search has stopped: keep its top, then probe design points for a valley, or finish. The
// candidates are the design points the top explains least: those highest above its Gaussian
// tail, f(top) - 1/2 (z - z_top)^T cov^{-1} (z - z_top), by more than the tolerance.
void Run::end_search() {
    const int best = search_centre();
    const bool new_top = settle_search();
    locate_.phase = LocateState::Phase::probing;
    locate_.candidates.clear();
    if (new_top && locate_.searches == 1) {
        std::vector<std::pair<double, int>> excess;
        for (int i : evals_.training_index()) {
            if (i >= locate_.first_evaluation || i == best) continue;
            const double above = evals_[i].log_joint_z() - gaussian_tail(locate_.tops.back(), evals_[i].z);
            if (above > locate_tolerance()) excess.push_back({above, i});
        }
        std::sort(excess.rbegin(), excess.rend());
        for (size_t k = 0; k < excess.size() && k < static_cast<size_t>(kValleyProbes); ++k)
            locate_.candidates.push_back(excess[k].second);
    }
    if (locate_.candidates.empty()) restart_or_finish();
}

// Multistart: while the best top has been reached by one search only, or lies more than
// kMaxBoxExcess box widths beyond the plausible box (which then is no guide to where other modes
// lie), fewer than kMaxSearches (beyond the box: kMaxSearchesBeyondBox) searches ran and the
// budget leaves room for another, a new search climbs from a point drawn uniformly in the
// plausible box, widened on every side by as much as the top lies beyond it (asked first);
// otherwise the stage ends.
void Run::restart_or_finish() {
    const double excess = top_excess();
    const bool beyond_box = excess > kMaxBoxExcess;
    const int max_searches = beyond_box ? kMaxSearchesBeyondBox : kMaxSearches;
    const bool room = restart_room(beyond_box ? kRestartShareBeyondBox : kRestartShare);
    settle_companion();
    if ((best_top().reached >= 2 && !beyond_box) || locate_.searches >= max_searches || !room) {
        finish_locating();
        return;
    }
    char line[320];
    if (beyond_box)
        std::snprintf(line, sizeof line, "The best top so far (log joint %.6g) lies %.3g box widths beyond the plausible box: "
                      "search %d climbs from a point drawn in the box widened by that much on every side.",
                      evals_[best_top().index].log_joint, excess, locate_.searches + 1);
    else
        std::snprintf(line, sizeof line, "The best top so far (log joint %.6g) was reached by one search only: search %d "
                      "climbs from a point drawn in the plausible box.", evals_[best_top().index].log_joint, locate_.searches + 1);
    log(kLogInfo, line);
    if (beyond_box) retire_companion();  // it started in the box given, which is no guide now
    if (!restart_from_companion()) locate_.probes.push_back({LocateProbe::kRestart, box_draw(excess)});
}

// The budget leaves room for a restart: 5 (D + 1) evaluations, and the stage has spent at most
// `share` of its budget.
bool Run::restart_room(double share) const {
    const double stage_budget = settings_.locate_max_fraction * settings_.max_fun_evals;
    return locate_budget_left() >= kMinSearchBudgetPerDim * (dim_ + 1) && locate_.spent <= share * stage_budget;
}

bool Run::companion_room() const { return restart_room(kRestartShare); }

// A point drawn uniformly in the plausible box widened by `excess` widths on every side
// (transformed space), in the original space.
std::vector<double> Run::box_draw(double excess) {
    std::vector<double> z(static_cast<size_t>(dim_)), x(z);
    for (int d = 0; d < dim_; ++d) {
        const size_t u = static_cast<size_t>(d);
        const double width = pub_z_[u] - plb_z_[u];
        z[u] = plb_z_[u] - excess * width + rng_.uniform() * (1.0 + 2.0 * excess) * width;
    }
    transform_.to_original(z.data(), x.data());
    return x;
}

// How far the best top lies beyond the plausible box (transformed space, widths of the box, in
// the coordinate where it lies furthest; 0 inside it). The stage runs before any re-centring, so
// the box is the one given.
double Run::top_excess() const {
    const std::vector<double>& z = evals_[best_top().index].z;
    double excess = 0.0;
    for (size_t d = 0; d < z.size(); ++d)
        excess = std::max(excess, std::max(plb_z_[d] - z[d], z[d] - pub_z_[d]) / (pub_z_[d] - plb_z_[d]));
    return excess;
}

// f(top) - 1/2 (z - z_top)^T cov^{-1} (z - z_top): the top's value extrapolated as a Gaussian.
double Run::gaussian_tail(const LocatedTop& top, const std::vector<double>& z) const {
    Matrix l;
    cholesky_jitter(top.cov, l);
    std::vector<double> offset(static_cast<size_t>(dim_));
    for (int d = 0; d < dim_; ++d) offset[static_cast<size_t>(d)] = z[static_cast<size_t>(d)] - evals_[top.index].z[static_cast<size_t>(d)];
    triangular_solve(l, false, offset.data());
    double quad = 0.0;
    for (double v : offset) quad += v * v;
    return evals_[top.index].log_joint_z() - 0.5 * quad;
}

// Once every probe of a candidate's segment is in: the values along it, from the candidate through
// the probes to the top, have a valley when one falls more than the tolerance below the highest
// on each side of it (a failed or abandoned probe is left out). The best point before the valley
// then starts the next search; otherwise the stage goes on to the next candidate, or ends.
void Run::judge_segment(int candidate) {
    std::vector<int> points = {candidate};
    for (const LocateProbe& p : locate_.probes) {
        if (p.candidate != candidate) continue;
        if (!p.done()) return;
        if (p.evaluation >= 0 && !evals_[p.evaluation].failed) points.push_back(p.evaluation);
    }
    points.push_back(best_top().index);
    locate_.probes.erase(std::remove_if(locate_.probes.begin(), locate_.probes.end(),
                                        [&](const LocateProbe& p) { return p.candidate == candidate; }),
                         locate_.probes.end());
    if (locate_.phase != LocateState::Phase::probing) return;
    const int start = valley_start(points);
    if (start >= 0) {
        log(kLogInfo, "A valley lies between a design point and the top found: a second search climbs from there.");
        drop_valley_probes();
        locate_.candidates.clear();
        start_search({start});
    } else if (locate_.candidates.empty() && std::none_of(locate_.probes.begin(), locate_.probes.end(),
                                                          [](const LocateProbe& p) { return p.candidate >= 0; })) {
        restart_or_finish();
    }
}

// The other segments' probes are dropped: those not asked yet at once, those out when their
// values come (marked stale: their evaluations are training points, nothing more).
void Run::drop_valley_probes() {
    locate_.probes.erase(std::remove_if(locate_.probes.begin(), locate_.probes.end(),
                                        [](const LocateProbe& p) { return p.candidate >= 0 && p.evaluation != LocateProbe::kOut; }),
                         locate_.probes.end());
    for (LocateProbe& p : locate_.probes)
        if (p.candidate >= 0) p.candidate = LocateProbe::kStale;
}

// The evaluation to climb from when the values along `points` (in segment order) dip by more than
// the tolerance below the highest on both sides: the highest before the deepest such dip; or -1.
int Run::valley_start(const std::vector<int>& points) const {
    const auto value = [&](int k) { return evals_[points[static_cast<size_t>(k)]].log_joint_z(); };
    const int n = static_cast<int>(points.size());
    int deepest = -1;
    double deepest_drop = locate_tolerance();
    for (int k = 1; k + 1 < n; ++k) {
        double left = -INFINITY, right = -INFINITY;
        for (int j = 0; j < k; ++j) left = std::max(left, value(j));
        for (int j = k + 1; j < n; ++j) right = std::max(right, value(j));
        const double drop = std::min(left, right) - value(k);
        if (drop > deepest_drop) {
            deepest_drop = drop;
            deepest = k;
        }
    }
    if (deepest < 0) return -1;
    int best = 0;
    for (int j = 1; j < deepest; ++j)
        if (value(j) > value(best)) best = j;
    return points[static_cast<size_t>(best)];
}

// The stage ends; when the budget ran out while the search that found the best top was still
// climbing (it had neither located a maximum nor reached a known top), that top need not be the
// posterior's, and the log warns.
void Run::finish_locating() {
    bool cut_short = locate_.search.stop() == TrustRegionStop::max_evaluations;
    if (locate_.phase == LocateState::Phase::searching) cut_short = settle_search();
    cut_short = cut_short && best_top().index == locate_.tops.back().index;
    retire_companion();
    locate_.phase = LocateState::Phase::done;
    log_locate_row();
    char line[256];
    std::snprintf(line, sizeof line, "The locating stage ends after %d evaluations, %d search%s and %d top%s: maximum log joint %.6g%s.",
                  locate_.spent, locate_.searches, locate_.searches == 1 ? "" : "es", static_cast<int>(locate_.tops.size()),
                  locate_.tops.size() == 1 ? "" : "s", evals_[best_top().index].log_joint, cut_short ? ", its search still climbing" : "");
    log(cut_short ? kLogWarn : kLogInfo, line);
    recentre_on_tops();
}

// New plausible box: the best top +- kLocatedBoxSds marginal SDs, widened to cover any other top
// within twice the tolerance of it, mapped to the original space coordinate by coordinate (the
// transform has no linear stage yet, and its coordinate maps are increasing). A coordinate whose
// box would be too narrow to represent keeps its old box.
void Run::recentre_on_tops() {
    const Evaluation& best = evals_[best_top().index];
    std::vector<double> low_z(static_cast<size_t>(dim_), INFINITY), high_z(static_cast<size_t>(dim_), -INFINITY);
    for (const LocatedTop& top : locate_.tops) {
        const Evaluation& e = evals_[top.index];
        if (e.log_joint_z() < best.log_joint_z() - 2.0 * locate_tolerance()) continue;
        for (int d = 0; d < dim_; ++d) {
            const size_t u = static_cast<size_t>(d);
            const double reach = kLocatedBoxSds * std::sqrt(std::max(top.cov(d, d), 0.0));
            low_z[u] = std::min(low_z[u], e.z[u] - reach);
            high_z[u] = std::max(high_z[u], e.z[u] + reach);
        }
    }
    std::vector<double> low(static_cast<size_t>(dim_)), high(low);
    transform_.to_original(low_z.data(), low.data());
    transform_.to_original(high_z.data(), high.data());
    const std::vector<double> centre = best.x;
    for (int d = 0; d < dim_; ++d) {
        const size_t u = static_cast<size_t>(d);
        if (!(low[u] < high[u])) {
            low[u] = plb_x_[u];
            high[u] = pub_x_[u];
        }
    }
    try {
        transform_ = transform_.with_plausible_box(low.data(), high.data());
    } catch (const Error& e) {
        log(kLogWarn, std::string("The located box could not be used, the plausible box stays as given: ") + e.what());
        return;
    }
    plb_x_ = low;
    pub_x_ = high;
    transform_.to_unbounded(low.data(), plb_z_.data());
    transform_.to_unbounded(high.data(), pub_z_.data());
    evals_.remap(transform_);
    initial_search_bounds(plb_z_, pub_z_, lb_z_, ub_z_, kActiveSearchBound, lb_search_, ub_search_);
    locate_.located_x = centre;
    const double top = reference_value();
    for (int i : evals_.training_index())
        if (evals_[i].log_joint_z() < top - settings_.warmup_keep_threshold_false_alarm) evals_[i].in_training = false;
    for (int i : locate_.difference_points) evals_[i].in_training = false;
}

void Run::log_locate_row() const {
    double best = -INFINITY;
    for (int i : evals_.training_index()) best = std::max(best, evals_[i].log_joint);
    char how[64];
    if (locate_.climb.running()) std::snprintf(how, sizeof how, "gradient climb");
    else std::snprintf(how, sizeof how, "trust radius %.3g", locate_.search.radius());
    char line[256];
    std::snprintf(line, sizeof line, "%8s %8d %13.3f %12s %14s %6s %12s  locate (maximum log joint; %s)", "-",
                  evals_.size(), best, "", "", "", "", how);
    log(kLogInfo, line);
}

}  // namespace libvbmc
