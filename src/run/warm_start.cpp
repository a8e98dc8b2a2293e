// A run started from a previous run's posterior (MATLAB VBMC's vbmc(fun, vp, ...), initFromVP):
// the same hard bounds, x0 at the previous posterior's highest-density component mean, the
// plausible box from the previous posterior's 5% and 95% quantiles, and optionally the previous
// training set re-used as told values.
#include <algorithm>
#include <cmath>

#include "run/run.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

// Draws of the previous posterior that set the plausible box, from a fixed seed (MATLAB VBMC
// takes 1e6; the 5% and 95% quantiles of 1e5 draws have a standard error of 0.2% of the mass).
constexpr size_t kBoxDraws = 100000;
constexpr uint64_t kBoxSeed = 0;
constexpr double kBoxQuantile = 0.05;

// The plausible box of a warm start: per coordinate the kBoxQuantile and 1 - kBoxQuantile
// quantiles of the posterior's draws (original space), strictly inside the hard bounds.
void quantile_box(const PosteriorSnapshot& posterior, std::vector<double>& plb, std::vector<double>& pub) {
    const int dim = posterior.vp.dim;
    std::vector<double> draws(kBoxDraws * static_cast<size_t>(dim)), column(kBoxDraws);
    posterior.sample(kBoxDraws, kBoxSeed, draws.data());
    const std::vector<double>& lb = posterior.transform.lb();
    const std::vector<double>& ub = posterior.transform.ub();
    const auto low = static_cast<std::ptrdiff_t>(std::lround(kBoxQuantile * (kBoxDraws - 1)));
    const auto high = static_cast<std::ptrdiff_t>(kBoxDraws - 1) - low;
    plb.resize(static_cast<size_t>(dim));
    pub.resize(static_cast<size_t>(dim));
    for (int d = 0; d < dim; ++d) {
        const size_t u = static_cast<size_t>(d);
        for (size_t i = 0; i < kBoxDraws; ++i) column[i] = draws[i * static_cast<size_t>(dim) + u];
        std::nth_element(column.begin(), column.begin() + low, column.end());
        plb[u] = std::max(column[static_cast<size_t>(low)], std::nextafter(lb[u], INFINITY));
        std::nth_element(column.begin(), column.begin() + high, column.end());
        pub[u] = std::min(column[static_cast<size_t>(high)], std::nextafter(ub[u], -INFINITY));
        if (!(plb[u] < pub[u]))
            throw_error(Code::numeric, "the previous posterior is too narrow in coordinate " + std::to_string(d) +
                                           " to span a plausible box (its 5% and 95% quantiles coincide)");
    }
}

// x0 of a warm start: the component mean where the mixture's density (transformed space) is
// highest, a cheap stand-in for MATLAB VBMC's mode search (vbmc_mode in the transformed space).
std::vector<double> highest_density_mean(const PosteriorSnapshot& posterior) {
    const VariationalPosterior& vp = posterior.vp;
    int best = 0;
    double best_log_q = -INFINITY;
    for (int k = 0; k < vp.k; ++k) {
        const double log_q = vp_log_pdf(vp, vp.mu.row(k));
        if (log_q > best_log_q) {
            best_log_q = log_q;
            best = k;
        }
    }
    std::vector<double> x0(static_cast<size_t>(vp.dim));
    posterior.transform.to_original(vp.mu.row(best), x0.data());
    return x0;
}

}  // namespace

Run Run::warm_start(const Run& previous, const OptionValues& options, bool reuse) {
    if (!previous.has_posterior())
        throw_error(Code::state, "previous has no posterior to start from: " +
                                     std::string(previous.finished_ ? "it finished without one; " + previous.termination_message_
                                                                    : "its first iteration has not completed"));
    const PosteriorSnapshot posterior = previous.posterior();
    std::vector<double> plb, pub;
    quantile_box(posterior, plb, pub);
    const std::vector<double> x0 = highest_density_mean(posterior);
    Run run(previous.dim_, x0.data(), posterior.transform.lb().data(),
            posterior.transform.ub().data(), plb.data(), pub.data(), options);
    run.prior_ = previous.prior_;  // the values told stay of the same kind (a callback too)
    if (reuse) run.reuse_evaluations(previous.evals_, x0);
    return run;
}

// Takes the previous run's training set as told values (in its order, bitwise), keeps only the
// initial-design points still missing (x0 first) and starts the first posterior at x0 (the
// previous run located the posterior's mass, so this one does not locate it again: locate_due).
void Run::reuse_evaluations(const EvaluationLog& previous, const std::vector<double>& x0) {
    for (int i : previous.training_index()) {
        const Evaluation& e = previous[i];
        record_evaluation(e.x.data(), e.log_likelihood, e.log_prior, e.log_joint_sd, true);
    }
    reused_count_ = evals_.size();
    const size_t missing = static_cast<size_t>(std::max(0, settings_.fun_eval_start - reused_count_));
    design_queue_.resize(std::min(design_queue_.size(), missing));
    start_x_ = x0;
}

}  // namespace libvbmc
