// The locating stage's companion (run/locate_step.cpp): with several points out allowed (option
// max_pending > 1), when the first search's climb has stopped at a top and the budget leaves room
// for a restart, a second gradient climb starts from a point drawn in the plausible box and takes
// the workers the first search leaves idle while its star designs and valley probes go out. It is
// the stage's first restart, run early: when the stage would restart, a companion that has
// reached a known top counts as a search that reached it (so no restart is needed), and one
// still climbing, or stopped elsewhere, becomes the restart search, its climb and points out
// included. Waiting for the first search to end left most of 16 workers idle while the restart
// climbed (bench/workers, cigar_D6: the restart took a quarter of the stage's simulated time);
// a companion started with the stage halved the first climb's share of a budget that the real
// posteriors' long climbs need whole (bench/real's arK and arma11 with 16 workers). A companion
// whose start point failed never climbs; the stage's end, or a top found beyond the box (whose
// restarts draw from a wider box), retires it.
#include <algorithm>
#include <cstdio>

#include "run/run.hpp"

namespace libvbmc {

void Run::start_companion() {
    if (settings_.max_pending <= 1 || !climbs() || !companion_room()) return;
    locate_.probes.push_back({LocateProbe::kCompanion, box_draw(0.0)});
    log(kLogInfo, "With several points out allowed, a second climb starts from a point drawn in the plausible box, "
                  "on the workers the first search leaves idle: the first restart, early.");
}

bool Run::companion_ready() const {
    const bool start_left = std::any_of(locate_.probes.begin(), locate_.probes.end(), [](const LocateProbe& p) {
        return p.candidate == LocateProbe::kCompanion && p.evaluation == LocateProbe::kNotAsked;
    });
    return start_left || locate_.companion.has_proposal();
}

std::vector<double> Run::next_companion_point() {
    for (LocateProbe& p : locate_.probes) {
        if (p.candidate != LocateProbe::kCompanion || p.evaluation != LocateProbe::kNotAsked) continue;
        p.evaluation = LocateProbe::kOut;
        return p.x;
    }
    return climb_point(locate_.companion);
}

// The companion's start point is in: it climbs from there (not from a failed value).
void Run::start_companion_climb(int index) {
    const Evaluation& e = evals_[index];
    if (e.failed) return;
    locate_.companion = GradientClimb(dim_, climb_settings(), e.z.data(), e.log_joint_z());
    locate_.companion_members = {index};
}

// The evaluation is one of the companion's proposals: the companion learns its value.
bool Run::companion_takes(int index) {
    const Evaluation& e = evals_[index];
    if (!locate_.companion.owns(e.z.data())) return false;
    locate_.companion.tell(e.z.data(), e.failed ? NAN : e.log_joint_z());
    locate_.companion_members.push_back(index);
    settle_companion();
    return true;
}

// Its best evaluation, or -1.
int Run::companion_centre() const {
    int best = -1;
    for (int i : locate_.companion_members)
        if (!evals_[i].failed && (best < 0 || evals_[i].log_joint_z() > evals_[best].log_joint_z())) best = i;
    return best;
}

// A companion that has reached a known top is a search that reached it: counted, retired.
void Run::settle_companion() {
    const int known = locate_.tops.empty() ? -1 : reached_top(companion_centre());
    if (known < 0) return;
    ++locate_.tops[static_cast<size_t>(known)].reached;
    char line[200];
    std::snprintf(line, sizeof line, "The second climb has reached the top at log joint %.6g.",
                  evals_[locate_.tops[static_cast<size_t>(known)].index].log_joint);
    log(kLogInfo, line);
    retire_companion();
}

// Its points out stay out: their values join the training set (its difference points leave it,
// as locate_.differences_out says).
void Run::retire_companion() {
    locate_.companion = GradientClimb();
    locate_.companion_members.clear();
    for (LocateProbe& p : locate_.probes)
        if (p.candidate == LocateProbe::kCompanion) p.candidate = LocateProbe::kStale;
    locate_.probes.erase(std::remove_if(locate_.probes.begin(), locate_.probes.end(), [](const LocateProbe& p) {
                             return p.candidate == LocateProbe::kStale && p.evaluation == LocateProbe::kNotAsked;
                         }),
                         locate_.probes.end());
}

// The restart is the companion, if there is one: its start point (asked or not) becomes the
// restart point, or its climb and points become the restart search's. A companion that stopped
// at a top of its own hands the top to the trust region's star design along its curvature.
bool Run::restart_from_companion() {
    for (LocateProbe& p : locate_.probes) {
        if (p.candidate != LocateProbe::kCompanion) continue;
        p.candidate = LocateProbe::kRestart;
        return true;
    }
    if (locate_.companion_members.empty()) return false;
    GradientClimb climb = std::move(locate_.companion);
    std::vector<int> members = std::move(locate_.companion_members);
    retire_companion();
    start_search(std::move(members));
    locate_.restarted = true;
    locate_.climb = GradientClimb();
    if (climb.running()) {
        locate_.climb = std::move(climb);
    } else if (climb.at_top()) {
        const Evaluation& centre = evals_[search_centre()];
        locate_.search.verify(centre.z.data(), centre.log_joint_z(), climb.covariance(),
                              climb.hessian_measured());
    }
    return true;
}

// The points out that are the current search's (or its probes'), not the companion's.
int Run::search_points_out() const {
    int count = 0;
    std::vector<double> z(static_cast<size_t>(dim_));
    for (const std::vector<double>& x : pending_) {
        const bool start = std::any_of(locate_.probes.begin(), locate_.probes.end(), [&](const LocateProbe& p) {
            return p.candidate == LocateProbe::kCompanion && p.evaluation == LocateProbe::kOut && p.x == x;
        });
        transform_.to_unbounded(x.data(), z.data());
        if (!start && !locate_.companion.owns(z.data())) ++count;
    }
    return count;
}

}  // namespace libvbmc
