// Whether a run's result can be trusted: checks of the surrogate where the variational posterior
// puts its mass, made before a stable run may stop as converged and again on the returned
// posterior. A result that fails them is reported as unreliable, with the reasons, never as
// converged (issue "never report a wrong answer as converged").
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "gp/gp.hpp"
#include "io/serial.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

// The largest ELBO SD of a result the library stands behind.
constexpr double kMaxReliableElboSd = 1.0;
// The furthest q's mean may lie beyond the plausible box given, in widths of the box.
constexpr double kMaxBoxExcess = 1.0;

struct ReliabilityCheck {
    double loo_error = 0.0;        // median |leave-one-out error| of the surrogate at the high-density points
    double mass_above_data = 0.0;  // q's mass where the surrogate's mean exceeds its best training mean by a margin
    double mass_unexplored = 0.0;  // q's mass where the surrogate is about as uncertain as its prior
    double best_value_gap = 0.0;   // best training mean minus the highest surrogate mean over q's draws
    double elbo_sd = 0.0;
    double box_excess = 0.0;       // q's mean beyond the plausible box given, in box widths (set by the run)
    std::vector<std::string> problems;  // one sentence per failed check

    bool reliable() const { return problems.empty(); }
    // The problems joined into one sentence ("" when reliable).
    std::string summary() const;
    void write(Writer& out) const;
    static ReliabilityCheck read(Reader& in);
};

// Checks the surrogate gp (transformed space) against the posterior vp fitted to it, whose ELBO
// has SD elbo_sd; noise_sd is the typical noise SD told (0 for an exact target). Deterministic.
ReliabilityCheck check_reliability(const Gp& gp, const VariationalPosterior& vp, double elbo_sd, double noise_sd);

// After the final boost: whether the unboosted posterior is returned instead of the boosted one,
// which `boosted` checked. It is when that check refuses the boosted posterior and
// check_unboosted (called only then) accepts the unboosted one: a boost must not turn a result
// the library stands behind into one it does not. verdict receives the check of the posterior
// returned.
bool prefer_unboosted(const ReliabilityCheck& boosted, const std::function<ReliabilityCheck()>& check_unboosted,
                      ReliabilityCheck& verdict);

// How far the best of the told log joints (in told order; NaN for a failed evaluation) rose over
// the last `window` of them: max of all minus max of those before; 0 when none before is finite
// (no earlier best to compare with).
double best_value_rise(const std::vector<double>& told_values, int window);

}  // namespace libvbmc
