#include "prior/coordinate_prior.hpp"

#include <array>
#include <cmath>
#include <sstream>

#include "gp/hyperprior.hpp"
#include "util/error.hpp"

namespace libvbmc {

using Kind = CoordinatePrior::Kind;

namespace {

struct KindSpec {
    Kind kind;
    const char* name;
    std::vector<const char*> params;
};

const std::array<KindSpec, 7>& kind_specs() {
    static const std::array<KindSpec, 7> specs{{
        {Kind::gaussian, "gaussian", {"mu", "sigma"}},
        {Kind::student_t, "student_t", {"mu", "sigma", "nu"}},
        {Kind::uniform, "uniform", {"a", "b"}},
        {Kind::smoothbox, "smoothbox", {"a", "b", "sigma"}},
        {Kind::trapezoidal, "trapezoidal", {"a", "u", "v", "b"}},
        {Kind::spline_trapezoidal, "spline_trapezoidal", {"a", "u", "v", "b"}},
        {Kind::lognormal, "lognormal", {"mu", "sigma"}},
    }};
    return specs;
}

HyperPrior hyperprior(PriorKind kind, double mu, double sigma, double df = 3.0, double a = 0.0, double b = 0.0) {
    HyperPrior prior;
    prior.kind = kind;
    prior.mu = mu;
    prior.sigma = sigma;
    prior.df = df;
    prior.a = a;
    prior.b = b;
    return prior;
}

const KindSpec& spec_of(Kind kind) { return kind_specs()[static_cast<size_t>(kind)]; }

std::string number_text(double v) {
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
}

// The trapezoids' density (PyVBMC Trapezoidal, SplineTrapezoidal): plateau on [u, v] at height
// 1 / norm with norm = ((b - a) + (v - u)) / 2, ramps to 0 at a and b; the ramp at fraction z of its
// width is z (linear) or 3 z^2 - 2 z^3 (cubic with zero slope at both ends), each of mean 1/2.
double trapezoid_log_pdf(const std::vector<double>& p, double x, bool spline) {
    const double a = p[0], u = p[1], v = p[2], b = p[3];
    if (!(x >= a && x <= b)) return -INFINITY;
    const double log_height = -std::log(0.5 * ((b - a) + (v - u)));
    double z = 1.0;  // the fraction of the plateau's height, as a ramp's argument
    if (x < u) z = (x - a) / (u - a);
    else if (x > v) z = (b - x) / (b - v);
    if (z >= 1.0) return log_height;
    return log_height + (spline ? 2.0 * std::log(z) + std::log(3.0 - 2.0 * z) : std::log(z));
}

}  // namespace

const char* prior_kind_name(Kind kind) { return spec_of(kind).name; }

std::string prior_parameter_names(Kind kind) {
    std::string names;
    for (const char* name : spec_of(kind).params) names += (names.empty() ? "" : ", ") + std::string(name);
    return names;
}

double CoordinatePrior::log_pdf(double x) const {
    const std::vector<double>& p = params;
    switch (kind) {
        case Kind::gaussian:  // N(mu, sigma^2)
            return hyperprior_log_pdf(hyperprior(PriorKind::gaussian, p[0], p[1]), x, nullptr);
        case Kind::student_t:  // scipy.stats.t(nu, loc = mu, scale = sigma)
            return hyperprior_log_pdf(hyperprior(PriorKind::student_t, p[0], p[1], p[2]), x, nullptr);
        case Kind::uniform:  // PyVBMC UniformBox: 1 / (b - a) on [a, b]
            return x >= p[0] && x <= p[1] ? -std::log(p[1] - p[0]) : -INFINITY;
        case Kind::smoothbox:  // PyVBMC SmoothBox: flat on [a, b], Gaussian tails of SD sigma
            return hyperprior_log_pdf(hyperprior(PriorKind::smoothbox, 0.0, p[2], 0.0, p[0], p[1]), x, nullptr);
        case Kind::trapezoidal: return trapezoid_log_pdf(p, x, false);
        case Kind::spline_trapezoidal: return trapezoid_log_pdf(p, x, true);
        case Kind::lognormal:  // scipy.stats.lognorm(s = sigma, scale = exp(mu)): log x ~ N(mu, sigma^2)
            if (!(x > 0.0)) return -INFINITY;
            return hyperprior_log_pdf(hyperprior(PriorKind::gaussian, p[0], p[1]), std::log(x), nullptr) - std::log(x);
    }
    throw_error(Code::internal, "unknown prior kind");
}

double CoordinatePrior::support_low() const {
    switch (kind) {
        case Kind::uniform:
        case Kind::trapezoidal:
        case Kind::spline_trapezoidal: return params[0];
        case Kind::lognormal: return 0.0;
        default: return -INFINITY;
    }
}

double CoordinatePrior::support_high() const {
    switch (kind) {
        case Kind::uniform:
        case Kind::trapezoidal:
        case Kind::spline_trapezoidal: return params.back();
        default: return INFINITY;
    }
}

namespace {

// The rules a kind's parameters obey; throws Error(arg) with "coordinate c: the <kind> prior's ...".
void check_parameters(int coord, Kind kind, const std::vector<double>& p) {
    const KindSpec& spec = spec_of(kind);
    const std::string who = "coordinate " + std::to_string(coord) + ": the " + spec.name + " prior's ";
    auto value = [&](size_t i) { return std::string(spec.params[i]) + " = " + number_text(p[i]); };
    for (size_t i = 0; i < p.size(); ++i)
        if (!std::isfinite(p[i])) throw_error(Code::arg, who + value(i) + " is not finite");
    auto positive = [&](size_t i) {
        if (!(p[i] > 0.0)) throw_error(Code::arg, who + value(i) + " is not above 0");
    };
    auto below = [&](size_t i, size_t j) {
        if (!(p[i] < p[j])) throw_error(Code::arg, who + value(i) + " is not below " + value(j));
    };
    switch (kind) {
        case Kind::gaussian:
        case Kind::lognormal: positive(1); break;
        case Kind::student_t: positive(1), positive(2); break;
        case Kind::uniform: below(0, 1); break;
        case Kind::smoothbox: below(0, 1), positive(2); break;
        case Kind::trapezoidal:
        case Kind::spline_trapezoidal:
            below(0, 3);
            if (!(p[0] <= p[1] && p[1] <= p[2] && p[2] <= p[3]))
                throw_error(Code::arg, who + value(0) + ", " + value(1) + ", " + value(2) + ", " + value(3) +
                                           " are not in the order a <= u <= v <= b");
            break;
    }
}

}  // namespace

CoordinatePrior make_coordinate_prior(int coord, const std::string& kind, const double* params, int n_params) {
    const KindSpec* spec = nullptr;
    std::string names;
    for (const KindSpec& s : kind_specs()) {
        if (kind == s.name) spec = &s;
        names += (names.empty() ? "" : ", ") + std::string(s.name);
    }
    if (spec == nullptr) throw_error(Code::arg, "kind = \"" + kind + "\" is not a prior kind (" + names + ")");
    const int count = static_cast<int>(spec->params.size());
    if (n_params != count)
        throw_error(Code::arg, "coordinate " + std::to_string(coord) + ": a " + spec->name + " prior takes " +
                                   std::to_string(count) + " parameters (" + prior_parameter_names(spec->kind) +
                                   "), not n_params = " + std::to_string(n_params));
    if (params == nullptr) throw_error(Code::arg, "params is NULL");
    CoordinatePrior prior;
    prior.kind = spec->kind;
    prior.params.assign(params, params + n_params);
    check_parameters(coord, prior.kind, prior.params);
    // A width beyond double precision (b - a = inf), or a scale too small beside it, would make the
    // normaliser overflow and the density -inf everywhere. The log-normal's is finite for valid
    // parameters.
    const double centre = prior.kind == Kind::gaussian || prior.kind == Kind::student_t
                              ? prior.params[0]
                              : 0.5 * prior.params.front() + 0.5 * prior.params.back();
    if (prior.kind != Kind::lognormal && !std::isfinite(prior.log_pdf(centre)))
        throw_error(Code::arg, "coordinate " + std::to_string(coord) + ": the " + spec->name + " prior's log density at " +
                                   number_text(centre) + " is " + number_text(prior.log_pdf(centre)) +
                                   ": its width or scale is beyond double precision");
    return prior;
}

void check_prior_support(int coord, const CoordinatePrior& prior, double lb, double ub) {
    const std::string who = "coordinate " + std::to_string(coord) + ": the " + prior_kind_name(prior.kind) + " prior";
    const std::string bound = "[" + std::to_string(coord) + "] = ";
    if (prior.kind == Kind::lognormal) {
        if (!(lb >= 0.0))
            throw_error(Code::arg, who + " lives on x > 0 but lb" + bound + number_text(lb) + ": it needs lb" +
                                       bound.substr(0, bound.size() - 3) + " >= 0");
        return;
    }
    const double low = prior.support_low(), high = prior.support_high();
    if (std::isinf(low) && std::isinf(high)) return;
    if (lb != low || ub != high)
        throw_error(Code::arg, who + " has the bounded support [a, b] = [" + number_text(low) + ", " + number_text(high) +
                                   "] but the hard bounds are lb" + bound + number_text(lb) + ", ub" + bound +
                                   number_text(ub) +
                                   ": such a prior needs lb = a and ub = b (the target is undefined outside its "
                                   "support, and prior mass outside the bounds would be lost)");
}

void CoordinatePrior::write(Writer& out) const {
    out.i64(static_cast<int64_t>(kind));
    out.doubles(params);
}

CoordinatePrior CoordinatePrior::read(Reader& in, int coord) {
    const int kind = static_cast<int>(in.bounded(0, static_cast<int64_t>(kind_specs().size()) - 1, "prior kind"));
    const std::vector<double> params = in.doubles();
    // The same rules as vbmc_set_prior: a checkpoint cannot smuggle in an invalid prior.
    return make_coordinate_prior(coord, kind_specs()[static_cast<size_t>(kind)].name, params.data(), static_cast<int>(params.size()));
}

}  // namespace libvbmc
