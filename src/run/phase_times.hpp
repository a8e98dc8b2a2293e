// The run's own time by phase, for vbmc_stat: how long its calls took and which phase of the
// algorithm the time went to. Not part of the algorithm's state: never saved in checkpoints, so
// they count from the handle's creation or load, and never read by the algorithm.
#pragma once
#include <string>

#include "util/phase_timer.hpp"

namespace libvbmc {

// Seconds spent inside the run's calls, in total and by phase. The phases never overlap, and
// each lies inside the total.
struct PhaseTimes {
    Elapsed gp_train;     // GP hyperparameter training (each iteration's, and a rotoscaling's refit)
    Elapsed vp_optim;     // optimisation of the variational posterior (each iteration's, a rotoscaling's)
    Elapsed acquisition;  // active sampling: the acquisition search and the search GP's updates at tells
    Elapsed final_boost;  // the final boost of the returned posterior
    Elapsed locate;       // the locating stage: its proposals and its bookkeeping at tells
    Elapsed total;        // everything inside ask, tell, tell_extra and abandon
};

// The statistic "time_<phase>" (wall seconds) or "cpu_<phase>" (CPU seconds) into value, the
// phase one of gp_train, vp_optim, acquisition, final_boost, locate, total. False for any
// other name.
bool phase_time_stat(const PhaseTimes& times, const std::string& name, double& value);

}  // namespace libvbmc
