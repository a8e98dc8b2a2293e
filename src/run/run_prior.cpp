// The prior of a run: given before the first tell, it turns the values told into log likelihoods
// and the run adds the log prior to form the log joint its surrogate models.
#include <cmath>
#include <sstream>

#include "run/run.hpp"
#include "util/error.hpp"

namespace libvbmc {

void Run::require_no_tells(const char* call) const {
    if (evals_.size() == 0) return;
    throw_error(Code::state, std::string(call) + ": a prior must be given before the first value is told, and this run has been told " +
                                 std::to_string(evals_.size()) + (evals_.size() == 1 ? " value" : " values") + " (vbmc_set_prior_fn may set the callback again only on "
                                 "a run loaded from a checkpoint saved with one)");
}

void Run::set_coordinate_prior(int coord, const std::string& kind, const double* params, int n_params) {
    require_no_tells("vbmc_set_prior");
    prior_.require_source_allowed(Prior::Source::coordinates);
    if (coord < 0 || coord >= dim_)
        throw_error(Code::arg, "coord = " + std::to_string(coord) + " is outside [0, " + std::to_string(dim_) + ")");
    const CoordinatePrior prior = make_coordinate_prior(coord, kind, params, n_params);
    const size_t d = static_cast<size_t>(coord);
    check_prior_support(coord, prior, transform_.lb()[d], transform_.ub()[d]);
    prior_.set_coordinate(coord, prior);
}

void Run::set_prior_callback(Prior::Callback callback) {
    if (!prior_.callback_missing()) require_no_tells("vbmc_set_prior_fn");
    prior_.set_callback(std::move(callback));
}

double Run::log_prior(const double* x) const {
    if (!prior_.given()) throw_error(Code::state, "the run has no prior: the values told are log joints");
    validate_point(x, "x");
    prior_.require_ready();
    return prior_.log_density(x);
}

double Run::told_log_prior(const double* x, double told) const {
    if (!prior_.given()) return 0.0;
    prior_.require_ready();
    const double log_prior = prior_.log_density(x);
    if (std::isfinite(told) && std::isfinite(log_prior) && told + log_prior > kMaxTold) {
        std::ostringstream s;
        s.precision(17);
        s << "log_likelihood + log_prior = " << told << " + " << log_prior
          << " is above 1e150, more than the surrogate can represent";
        throw_error(Code::arg, s.str());
    }
    return log_prior;
}

}  // namespace libvbmc
