#include "acquisition/acq_registry.hpp"

#include <cmath>
#include <limits>

#include "acquisition/acq_fcn.hpp"
#include "acquisition/bbq_variance.hpp"
#include "acquisition/interquantile.hpp"
#include "acquisition/variance_reduction.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

// log V, -inf at V = 0.
double log_variance(double var_tot) {
    return var_tot > 0.0 ? std::log(var_tot) : -std::numeric_limits<double>::infinity();
}

// AcqFcn of PyVBMC, a_pro of the paper's eq. 9 negated: -V(x) exp(f(x) - y_max) q(x).
double pro_linear(const AcqMoments& m) {
    return m.var_tot > 0.0 ? -std::exp(log_variance(m.var_tot) + m.f_bar - m.y_max + m.log_q) : 0.0;
}

// AcqFcnVanilla: -V(x) q(x)^2.
double vanilla(const AcqMoments& m) {
    return m.var_tot > 0.0 ? -std::exp(log_variance(m.var_tot) + 2.0 * m.log_q) : 0.0;
}

// AcqFcnLog: -log a_pro = -(log V(x) + f(x) - y_max + log q(x)).
double pro_log(const AcqMoments& m) { return -(log_variance(m.var_tot) + m.f_bar - m.y_max + m.log_q); }

// AcqFcnNoisy (the reviewed paper's a_npro, section 3.10.1): a_pro times the share of the
// variance an evaluation with noise sigma^2 removes, 1 - sigma^2 / (V + sigma^2):
// -V(x)^2 / (V(x) + sigma^2(x)) exp(f(x) - y_max) q(x). Decreases in V: d/dV V^2/(V+s) > 0.
double pro_noisy(const AcqMoments& m) {
    if (!(m.var_tot > 0.0)) return 0.0;
    const double log_share = log_variance(m.var_tot) - std::log(m.var_tot + m.noise_var);
    return -std::exp(log_variance(m.var_tot) + log_share + m.f_bar - m.y_max + m.log_q);
}

// Moment-defined kinds: gp_predict over the batch and acq_from_moments (acq_evaluate).
class MomentScorer : public AcqScorer {
public:
    MomentScorer(const Gp& gp, const VariationalPosterior& vp, double y_max, const AcqSettings& s)
        : gp_(gp), vp_(vp), y_max_(y_max), s_(s) {}
    void evaluate(const Matrix& xs, double* acq) const override { acq_evaluate(gp_, vp_, xs, y_max_, s_, acq); }

private:
    const Gp& gp_;
    const VariationalPosterior& vp_;
    double y_max_;
    AcqSettings s_;
};

class IvrScorer : public AcqScorer {
public:
    IvrScorer(const Gp& gp, const VariationalPosterior& vp, double y_max, const AcqSettings& s)
        : gp_(gp), terms_(gp, vp), y_max_(y_max), s_(s) {}
    void evaluate(const Matrix& xs, double* acq) const override { ivr_evaluate(gp_, terms_, xs, y_max_, s_, acq); }
    const VarianceReduction* variance_reduction() const override { return &terms_; }

private:
    const Gp& gp_;
    VarianceReduction terms_;
    double y_max_;
    AcqSettings s_;
};

class InterquantileScorer : public AcqScorer {
public:
    InterquantileScorer(const Gp& gp, const VariationalPosterior& vp, double y_max, const AcqSettings& s, Rng& rng)
        : terms_(gp, vp, y_max, s, rng) {}
    void evaluate(const Matrix& xs, double* acq) const override { terms_.evaluate(xs, acq); }

private:
    InterquantileRange terms_;
};

class BbqScorer : public AcqScorer {
public:
    BbqScorer(const Gp& gp, const VariationalPosterior& vp, double y_max, const AcqSettings& s, uint64_t seed)
        : terms_(gp, vp, y_max, s, seed) {}
    void evaluate(const Matrix& xs, double* acq) const override { terms_.evaluate(xs, acq); }

private:
    BbqVariance terms_;
};

std::unique_ptr<AcqScorer> make_moment_scorer(const Gp& gp, const VariationalPosterior& vp, double y_max,
                                              const AcqSettings& s, Rng&) {
    return std::make_unique<MomentScorer>(gp, vp, y_max, s);
}

std::unique_ptr<AcqScorer> make_ivr_scorer(const Gp& gp, const VariationalPosterior& vp, double y_max,
                                           const AcqSettings& s, Rng&) {
    return std::make_unique<IvrScorer>(gp, vp, y_max, s);
}

std::unique_ptr<AcqScorer> make_interquantile_scorer(const Gp& gp, const VariationalPosterior& vp, double y_max,
                                                     const AcqSettings& s, Rng& rng) {
    return std::make_unique<InterquantileScorer>(gp, vp, y_max, s, rng);
}

// Where BBQ's linearised mean of the evidence is not positive (heavy tails: the l-GP's mean
// swings negative), it has no variance to reduce; ivr, the integral's own variance reduction,
// chooses the point instead.
std::unique_ptr<AcqScorer> make_bbq_scorer(const Gp& gp, const VariationalPosterior& vp, double y_max,
                                           const AcqSettings& s, Rng& rng) {
    const uint64_t seed = rng.next_u64();
    try {
        return std::make_unique<BbqScorer>(gp, vp, y_max, s, seed);
    } catch (const Error& e) {
        if (e.code() != Code::numeric) throw;
        return make_ivr_scorer(gp, vp, y_max, s, rng);
    }
}

// One row per AcqKind, in the enumerators' order. A function-local static: the option table
// (options.cpp) reads it while it is itself being initialised.
const std::vector<AcqEntry>& registry_rows() {
    static const std::vector<AcqEntry> rows = {
    {AcqKind::pro, "pro_linear", "pro_linear (prospective uncertainty sampling, PyVBMC AcqFcn)", false, pro_linear,
     true, AcqBound::moments, make_moment_scorer},
    {AcqKind::us, "us", "us (vanilla uncertainty sampling)", false, vanilla, true, AcqBound::moments,
     make_moment_scorer},
    {AcqKind::log, "pro", "pro (prospective uncertainty sampling, log form: PyVBMC AcqFcnLog)", true, pro_log, true,
     AcqBound::moments, make_moment_scorer},
    {AcqKind::ivr, "ivr", "ivr (integrated variance reduction of the ELBO, with the noise expected at the point)",
     true, nullptr, false, AcqBound::variance_reduction, make_ivr_scorer},
    {AcqKind::npro, "npro", "npro (prospective uncertainty sampling for noisy targets, PyVBMC AcqFcnNoisy)", false,
     pro_noisy, true, AcqBound::moments, make_moment_scorer},
    {AcqKind::viqr, "viqr", "viqr (variational interquantile range, PyVBMC AcqFcnVIQR)", true, nullptr, false,
     AcqBound::none, make_interquantile_scorer},
    {AcqKind::imiqr, "imiqr", "imiqr (integrated median interquantile range, PyVBMC AcqFcnIMIQR)", true, nullptr,
     false, AcqBound::none, make_interquantile_scorer},
    {AcqKind::bbq, "bbq", "bbq (expected variance of the evidence after the point, BBQ's active sampling: Osborne et al. 2012)",
     true, nullptr, false, AcqBound::none, make_bbq_scorer},
    };
    return rows;
}

std::string joined_names() {
    std::string out;
    for (const AcqEntry& e : registry_rows()) out += (out.empty() ? "" : "|") + std::string(e.name);
    return out;
}

std::string help_text() {
    const std::vector<AcqEntry>& rows = registry_rows();
    std::string out = "Acquisition function(s): ";
    for (size_t i = 0; i < rows.size(); ++i)
        out += std::string(i == 0 ? "" : i + 1 == rows.size() ? " or " : ", ") + rows[i].description;
    return out + "; a comma-separated list is used in turn, one function per point of an iteration; default ivr, viqr in noisy mode";
}

}  // namespace

const std::vector<AcqEntry>& acq_registry() { return registry_rows(); }

const AcqEntry& acq_entry(AcqKind kind) {
    for (const AcqEntry& e : registry_rows())
        if (e.kind == kind) return e;
    throw_error(Code::internal, "acq_entry: an acquisition kind without a registry row");
}

const AcqEntry* acq_find(const std::string& name) {
    for (const AcqEntry& e : registry_rows())
        if (name == e.name) return &e;
    return nullptr;
}

const char* acq_option_choices() {
    static const std::string choices = joined_names();
    return choices.c_str();
}

const char* acq_option_help() {
    static const std::string help = help_text();
    return help.c_str();
}

AcqBound acq_pruning(const AcqEntry& entry) {
    if (entry.bound == AcqBound::moments && !(entry.decreases_in_variance && entry.from_moments != nullptr))
        return AcqBound::none;
    return entry.bound;
}

std::unique_ptr<AcqScorer> make_acq_scorer(const Gp& gp, const VariationalPosterior& vp, double y_max,
                                           const AcqSettings& s, Rng& rng) {
    return acq_entry(s.kind).make_scorer(gp, vp, y_max, s, rng);
}

}  // namespace libvbmc
