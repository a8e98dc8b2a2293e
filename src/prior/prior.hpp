// The prior a run adds to the values told (vbmc_set_prior, vbmc_set_prior_fn): none (the values
// told are log joints), one ready-made prior per coordinate (independent: the log density is the
// sum of theirs), or a callback. A callback cannot be saved: a checkpoint records that the run had
// one, and the loaded run needs it set again before its next tell.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "io/serial.hpp"
#include "prior/coordinate_prior.hpp"

namespace libvbmc {

// Largest log prior density a callback may return (as the largest value a tell accepts).
constexpr double kMaxLogPrior = 1e150;

class Prior {
public:
    using Callback = std::function<double(const double* x)>;
    enum class Source : int { none, coordinates, callback };

    Prior() = default;
    explicit Prior(int dim) : dim_(dim), coordinates_(static_cast<size_t>(dim)), given_(static_cast<size_t>(dim), false) {}

    Source source() const { return source_; }
    bool given() const { return source_ != Source::none; }
    // A callback prior whose function was lost with a checkpoint.
    bool callback_missing() const { return source_ == Source::callback && !callback_; }
    // Throws Error(state) if the prior is of the other source (per-coordinate priors and a callback exclude each other).
    void require_source_allowed(Source wanted) const;
    // Throws Error(state) if the run has a callback prior.
    void set_coordinate(int coord, const CoordinatePrior& prior);
    // Throws Error(state) if the run has per-coordinate priors.
    void set_callback(Callback callback);
    // Throws Error(state) naming what is missing when log_density cannot be evaluated: the first
    // coordinate without a prior, or a callback lost with a checkpoint.
    void require_ready() const;
    // log p(x) (call require_ready first): the sum of the coordinates' log densities, or the
    // callback's value. Throws Error(arg) if the callback returns NaN, +inf or more than kMaxLogPrior.
    double log_density(const double* x) const;
    // One line for the log: "gaussian on x[0], uniform on x[1]" or "a callback".
    std::string describe() const;

    void write(Writer& out) const;
    static Prior read(Reader& in, int dim);

private:
    int dim_ = 0;
    Source source_ = Source::none;
    std::vector<CoordinatePrior> coordinates_;
    std::vector<bool> given_;  // coordinates_[d] was set
    Callback callback_;        // not saved
};

}  // namespace libvbmc
