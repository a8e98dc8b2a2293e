// The iteration table (PyVBMC's display = "iter"): one row per iteration through the logger.
#include <cmath>
#include <cstdio>

#include "evidence/importance_evidence.hpp"
#include "linalg/blas_kernels.hpp"
#include "run/run.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {
// Option display (PyVBMC's levels): "off" nothing; "notify" warnings only (such as a run that did
// not converge); "final" warnings and the closing summary; "iter" also the iteration table.
bool shows(const std::string& display, int level, bool summary = false) {
    if (display == "off") return false;
    if (level <= kLogWarn || display == "iter") return true;
    return summary && display == "final";
}
}  // namespace

void Run::log_table_header() const {
    const std::string blas_advice = blas_kernel_advice();
    if (!blas_advice.empty()) log(kLogInfo, blas_advice);
    if (prior_.given())
        log(kLogInfo, "The values told are log likelihoods; the run adds the log prior (" + prior_.describe() +
                          ") to form the log joint.");
    log(kLogInfo, " Iteration  f-count    Mean[ELBO]    Std[ELBO]    log Z(est)  Std[log Z]    sKL-iter[q]   K[q]  Convergence  Action");
}

// One row; log Z(est) is vbmc_post_log_evidence of the row's posterior and surrogate, computed only
// for the table (its own fixed seed: the run does not change with the display), NaN when it fails.
void Run::log_iteration_row(const IterationRecord& r, const Gp& gp) const {
    if (!log_ || !shows(settings_.display, kLogInfo)) return;
    if (r.iteration == 0 && locate_.phase == LocateState::Phase::pending) log_table_header();
    LogEvidence evidence{std::nan(""), std::nan("")};
    try {
        evidence = log_evidence(r.vp, gp);
    } catch (const Error&) {  // the row shows nan; the closing summary says why if it fails there too
    }
    char line[256];
    std::snprintf(line, sizeof line, "%8d %8d %13.3f %12.3f %13.3f %11.3f %14.3g %6d %12.3g  %s", r.iteration, r.func_count,
                  r.elbo, r.elbo_sd, evidence.log_z, evidence.log_z_sd, r.skl, r.vp.k, r.r_index, r.action.c_str());
    log(kLogInfo, line);
}

void Run::log(int level, const std::string& line) const {
    if (log_ && shows(settings_.display, level)) log_(level, line);
}

void Run::log_summary(const std::string& line) const {
    if (log_ && shows(settings_.display, kLogInfo, true)) log_(kLogInfo, line);
}

// The closing line on the log evidence (vbmc_post_log_evidence of the returned posterior); only
// this line depends on it, so a surrogate that cannot be factorised again costs the line, not the run.
void Run::log_evidence_summary(const Gp& gp) const {
    if (!log_ || !shows(settings_.display, kLogInfo, true)) return;
    char line[256];
    try {
        const LogEvidence evidence = log_evidence(final_.vp, gp);
        std::snprintf(line, sizeof line, "Estimated log evidence: %.3f +/- %.3f (importance sampling of the surrogate, not a bound).",
                      evidence.log_z, evidence.log_z_sd);
    } catch (const Error& e) {
        std::snprintf(line, sizeof line, "No log evidence estimate: %s.", e.what());
    }
    log_summary(line);
}

}  // namespace libvbmc
