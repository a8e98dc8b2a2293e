// What the locating stage (run/locate_step.cpp) remembers between calls: the searches run and the
// tops they found (with how many searches reached each), the design points still to probe for a
// valley towards the best top, and the probes out (valley probes and restart points). Written to checkpoints as it stands.
#pragma once
#include <cstdint>
#include <vector>

#include "io/serial.hpp"
#include "linalg/matrix.hpp"
#include "optim/gradient_climb.hpp"
#include "optim/trust_region_search.hpp"

namespace libvbmc {

// A top found by a search: the evaluation there and the search's covariance of it (transformed
// space of the locating stage).
struct LocatedTop {
    int index = 0;
    Matrix cov;
    int reached = 1;  // searches that reached it
};

// A probe: a point on the segment from a design point (candidate) to the best top, tested for a
// valley, a restart point (candidate kRestart) a new search will climb from, a probe of a
// segment dropped while it was out (kStale), or the companion's start point (kCompanion); the
// point (original space) and what became of it.
struct LocateProbe {
    static constexpr int kNotAsked = -3, kOut = -2, kAbandoned = -1;
    static constexpr int kRestart = -1, kStale = -2, kCompanion = -3;
    int candidate = 0;
    std::vector<double> x;
    int evaluation = kNotAsked;  // the evaluation told for it, or one of the states above
    bool done() const { return evaluation >= 0 || evaluation == kAbandoned; }
};

struct LocateState {
    enum class Phase : uint8_t { pending, searching, probing, done };
    Phase phase = Phase::pending;
    int first_evaluation = 0;          // evaluations told before the stage began (the design)
    GradientClimb climb;               // the current search's opening climb (not run for noisy values)
    TrustRegionSearch search;          // the current search's trust region, once the climb has stopped
    std::vector<int> difference_points;  // evaluations the climbs spent on gradients, increasing
    // The climbs' difference points handed out and not told yet (original space): told, they
    // join difference_points, or leave the training set when the stage has ended meanwhile.
    std::vector<std::vector<double>> differences_out;
    std::vector<int> members;          // evaluations the current search climbs from (empty: all)
    int searches = 0;                  // searches started
    int first_search_evals = 0;        // evaluations the first search spent (set when the second starts)
    int search_start = 0;              // `spent` when the current search started
    bool restarted = false;            // the current search climbs from a restart point
    std::vector<LocatedTop> tops;
    std::vector<int> candidates;       // design points still to probe, best first
    std::vector<LocateProbe> probes;   // probes of the candidates under test, in segment order
    // With several points out allowed, the companion: a climb from a point drawn in the plausible
    // box, on the workers the current search leaves idle, which becomes the first restart
    // (run/locate_companion.cpp); its evaluations, increasing.
    GradientClimb companion;
    std::vector<int> companion_members;
    int spent = 0;                     // evaluations the stage asked for and got told
    std::vector<double> located_x;     // the centre chosen at the end (original space), or empty

    bool active() const { return phase == Phase::searching || phase == Phase::probing; }
    void write(Writer& out) const;
    // Checks every evaluation index against n_evaluations.
    static LocateState read(Reader& in, int dim, int n_evaluations);
};

}  // namespace libvbmc
