// The run's phase times by statistic name.
#include "run/phase_times.hpp"

namespace libvbmc {

namespace {
// The phase a statistic names after its prefix ("gp_train"), or nullptr.
const Elapsed* phase_named(const PhaseTimes& times, const std::string& phase) {
    if (phase == "gp_train") return &times.gp_train;
    if (phase == "vp_optim") return &times.vp_optim;
    if (phase == "acquisition") return &times.acquisition;
    if (phase == "final_boost") return &times.final_boost;
    if (phase == "locate") return &times.locate;
    if (phase == "total") return &times.total;
    return nullptr;
}
}  // namespace

bool phase_time_stat(const PhaseTimes& times, const std::string& name, double& value) {
    const bool wall = name.rfind("time_", 0) == 0;
    if (!wall && name.rfind("cpu_", 0) != 0) return false;
    const Elapsed* phase = phase_named(times, name.substr(wall ? 5 : 4));
    if (phase == nullptr) return false;
    value = wall ? phase->wall : phase->cpu;
    return true;
}

}  // namespace libvbmc
