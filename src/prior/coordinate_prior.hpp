// The ready-made prior of one coordinate (vbmc_set_prior): PyVBMC's box-shaped priors
// (pyvbmc/priors: UniformBox, Trapezoidal, SplineTrapezoidal, SmoothBox) and the Gaussian,
// Student-t and log-normal densities of scipy.stats (norm, t, lognorm with s = sigma, scale = e^mu).
// The Gaussian, Student-t and smooth-box densities are the GP hyperpriors' (gp/hyperprior.hpp).
#pragma once
#include <string>
#include <vector>

#include "io/serial.hpp"

namespace libvbmc {

struct CoordinatePrior {
    enum class Kind : int { gaussian, student_t, uniform, smoothbox, trapezoidal, spline_trapezoidal, lognormal };
    Kind kind = Kind::gaussian;
    std::vector<double> params;  // in the order of prior_parameter_names(kind)

    // log p(x), normalised over the real line; -inf outside the support.
    double log_pdf(double x) const;
    // The support's ends (-inf / +inf for an unbounded side); the density is 0 outside [low, high].
    double support_low() const;
    double support_high() const;

    void write(Writer& out) const;
    static CoordinatePrior read(Reader& in, int coord);
};

// "gaussian", "student_t", ... as vbmc_set_prior spells them.
const char* prior_kind_name(CoordinatePrior::Kind kind);
// The parameters' names, comma-separated ("mu, sigma").
std::string prior_parameter_names(CoordinatePrior::Kind kind);

// The prior of coordinate coord from vbmc_set_prior's arguments: the kind's name parsed, the
// parameter count and values checked (finite; sigma, nu > 0; a < b; a <= u <= v <= b; widths that
// do not overflow). Throws Error(arg) with a sentence naming the coordinate, the value and the rule.
CoordinatePrior make_coordinate_prior(int coord, const std::string& kind, const double* params, int n_params);

// The run's hard bounds lb < ub of coordinate coord against the prior's support: a prior with
// bounded support [a, b] (uniform, trapezoids) needs lb = a and ub = b (the target is undefined
// outside the support, and prior mass outside the bounds would be lost); a log-normal needs lb >= 0.
// Throws Error(arg) naming the coordinate, the values and the rule.
void check_prior_support(int coord, const CoordinatePrior& prior, double lb, double ub);

}  // namespace libvbmc
