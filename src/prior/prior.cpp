#include "prior/prior.hpp"

#include <cmath>
#include <sstream>

#include "util/error.hpp"

namespace libvbmc {

namespace {
const char* const kNotBoth = "a prior is either per coordinate (vbmc_set_prior) or a callback (vbmc_set_prior_fn), not both";
}

void Prior::require_source_allowed(Source wanted) const {
    if (wanted == Source::coordinates && source_ == Source::callback)
        throw_error(Code::state, std::string("the run has a prior callback: ") + kNotBoth);
    if (wanted == Source::callback && source_ == Source::coordinates)
        throw_error(Code::state, std::string("the run has per-coordinate priors: ") + kNotBoth);
}

void Prior::set_coordinate(int coord, const CoordinatePrior& prior) {
    require_source_allowed(Source::coordinates);
    source_ = Source::coordinates;
    coordinates_[static_cast<size_t>(coord)] = prior;
    given_[static_cast<size_t>(coord)] = true;
}

void Prior::set_callback(Callback callback) {
    require_source_allowed(Source::callback);
    source_ = Source::callback;
    callback_ = std::move(callback);
}

void Prior::require_ready() const {
    if (callback_missing())
        throw_error(Code::state, "the run was saved with a prior callback, which a checkpoint cannot hold: call "
                                 "vbmc_set_prior_fn again after vbmc_load");
    if (source_ != Source::coordinates) return;
    for (int d = 0; d < dim_; ++d)
        if (!given_[static_cast<size_t>(d)])
            throw_error(Code::state, "coordinate " + std::to_string(d) +
                                         " has no prior: with per-coordinate priors every coordinate needs one "
                                         "(vbmc_set_prior) before a value is told");
}

double Prior::log_density(const double* x) const {
    if (source_ == Source::coordinates) {
        double total = 0.0;
        for (int d = 0; d < dim_; ++d) total += coordinates_[static_cast<size_t>(d)].log_pdf(x[d]);
        return total;
    }
    if (source_ == Source::none) return 0.0;
    const double value = callback_(x);
    if (std::isnan(value) || value > kMaxLogPrior) {
        std::ostringstream s;
        s.precision(17);
        s << "the log prior callback returned " << value
          << ": a log prior density is finite (at most 1e150) or -INFINITY outside its support";
        throw_error(Code::arg, s.str());
    }
    return value;
}

std::string Prior::describe() const {
    if (source_ == Source::callback) return "a callback";
    std::string text;
    for (int d = 0; d < dim_; ++d)
        text += (d > 0 ? ", " : "") + std::string(given_[static_cast<size_t>(d)] ? prior_kind_name(coordinates_[static_cast<size_t>(d)].kind) : "none") +
                " on x[" + std::to_string(d) + "]";
    return text;
}

void Prior::write(Writer& out) const {
    out.i64(static_cast<int64_t>(source_));
    if (source_ != Source::coordinates) return;
    for (int d = 0; d < dim_; ++d) {
        out.boolean(given_[static_cast<size_t>(d)]);
        if (given_[static_cast<size_t>(d)]) coordinates_[static_cast<size_t>(d)].write(out);
    }
}

Prior Prior::read(Reader& in, int dim) {
    Prior prior(dim);
    prior.source_ = static_cast<Source>(in.bounded(0, 2, "prior source"));
    if (prior.source_ != Source::coordinates) return prior;
    for (int d = 0; d < dim; ++d) {
        prior.given_[static_cast<size_t>(d)] = in.boolean();
        if (prior.given_[static_cast<size_t>(d)]) prior.coordinates_[static_cast<size_t>(d)] = CoordinatePrior::read(in, d);
    }
    return prior;
}

}  // namespace libvbmc
