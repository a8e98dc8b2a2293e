// The registry of acquisition functions: one row per kind with its option name, its help
// text, how its values are scored over a batch of candidates and what the candidate search
// may assume of it. The option search_acq_fcn takes its choices and help text from here, and
// the candidate search (candidate_search.hpp) its pruning, so a new acquisition is one row and
// its scorer in acq_registry.cpp.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "acquisition/acq_settings.hpp"
#include "gp/gp.hpp"
#include "linalg/matrix.hpp"
#include "util/rng.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

class VarianceReduction;

// What a value of a moment-defined acquisition depends on at one candidate: the eq. 10
// moments of the surrogate, log q(x), the best observed log joint and the expected noise
// variance of an evaluation there (expected_noise.hpp).
struct AcqMoments {
    double f_bar;
    double var_tot;
    double log_q;
    double y_max;
    double noise_var;
};

// Values at the rows of a candidate matrix (transformed space), to be minimised, +inf where a
// candidate cannot be chosen. Built once per surrogate (one acquire call or shortlist), so
// whatever the acquisition precomputes is shared by the candidate search and CMA-ES.
class AcqScorer {
public:
    virtual ~AcqScorer() = default;
    virtual void evaluate(const Matrix& xs, double* acq) const = 0;
    // ivr's precomputed terms, which give the candidate search its bound; nullptr otherwise.
    virtual const VarianceReduction* variance_reduction() const { return nullptr; }
};

// The lower bound the candidate search prunes with (candidate_search.cpp).
enum class AcqBound {
    none,              // every candidate is scored exactly
    moments,           // from_moments at an upper bound of the variance: a lower bound only if
                       // the value does not increase with the variance (decreases_in_variance)
    variance_reduction // ivr: from an upper bound of the reduction given the covariance with E_q f
};

struct AcqEntry {
    AcqKind kind;
    const char* name;         // value of the option search_acq_fcn
    const char* description;  // its help text
    bool log_valued;          // values on a log scale (the variance regulariser adds, CMA-ES tol_fun 1e-2)
    // Value before the variance regulariser for acquisitions that are functions of the moments
    // at the candidate; nullptr for the others.
    double (*from_moments)(const AcqMoments& m);
    // The value never increases as the variance at the candidate grows, all else fixed.
    bool decreases_in_variance;
    AcqBound bound;
    // The batch scorer for surrogate gp, vp and best observed log joint y_max; rng is drawn from
    // only by acquisitions with random integration points (viqr, imiqr).
    std::unique_ptr<AcqScorer> (*make_scorer)(const Gp& gp, const VariationalPosterior& vp, double y_max,
                                              const AcqSettings& s, Rng& rng);
};

// Every acquisition, in the order of the AcqKind enumerators.
const std::vector<AcqEntry>& acq_registry();
const AcqEntry& acq_entry(AcqKind kind);
// The entry named `name`, nullptr if none is.
const AcqEntry* acq_find(const std::string& name);
// The option's allowed values ("pro|us|...") and its help text, built from the rows.
const char* acq_option_choices();
const char* acq_option_help();

// The bound the candidate search may prune with: the entry's, except that a moments bound
// needs decreases_in_variance (none without it).
AcqBound acq_pruning(const AcqEntry& entry);

// The scorer of s.kind (acq_entry(s.kind).make_scorer).
std::unique_ptr<AcqScorer> make_acq_scorer(const Gp& gp, const VariationalPosterior& vp, double y_max,
                                           const AcqSettings& s, Rng& rng);

}  // namespace libvbmc
