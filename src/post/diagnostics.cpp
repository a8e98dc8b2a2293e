#include "post/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "post/divergence.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {

std::string number(double v, int digits = 3) {
    char text[40];
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    return text;
}

// "run 2", "runs 1 and 3", "runs 0, 2 and 4".
std::string run_list(const std::vector<int>& runs) {
    std::string text = runs.size() == 1 ? "run " : "runs ";
    for (size_t i = 0; i < runs.size(); ++i) {
        if (i > 0) text += i + 1 == runs.size() ? " and " : ", ";
        text += std::to_string(runs[i]);
    }
    return text;
}

// The highest ELCBO among the runs that count (the converged ones, or all when none converged);
// a NaN ELBO ranks last.
int best_run(const std::vector<RunFacts>& runs, bool any_converged, double beta_lcb) {
    int best = -1;
    double best_elcbo = -INFINITY;
    for (size_t i = 0; i < runs.size(); ++i) {
        if (any_converged && !runs[i].converged) continue;
        double elcbo = runs[i].posterior->elbo - beta_lcb * runs[i].posterior->elbo_sd;
        if (std::isnan(elcbo)) elcbo = -INFINITY;
        if (best < 0 || elcbo > best_elcbo) {
            best = static_cast<int>(i);
            best_elcbo = elcbo;
        }
    }
    return best;
}

// KL both ways and the largest marginal total variation for every pair (i < j); pair (i, j)
// draws with seed + 2 (i n + j) and seed + 2 (i n + j) + 1.
void compare_pairs(const std::vector<RunFacts>& runs, uint64_t seed, int draws, Diagnosis& d) {
    const size_t n = runs.size();
    d.kl.assign(n * n, 0.0);
    d.skl.assign(n * n, 0.0);
    d.mtv.assign(n * n, 0.0);
    d.mtv_coord.assign(n * n, 0);
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j) {
            const uint64_t pair_seed = seed + 2 * (i * n + j);
            const PosteriorSnapshot &p = *runs[i].posterior, &q = *runs[j].posterior;
            const KlEstimate kl = kl_divergence(p, q, static_cast<size_t>(draws), pair_seed);
            d.kl[i * n + j] = kl.forward;
            d.kl[j * n + i] = kl.reverse;
            d.skl[i * n + j] = d.skl[j * n + i] = 0.5 * (kl.forward + kl.reverse);
            const std::vector<double> mtv = marginal_total_variation(p, q, static_cast<size_t>(draws), pair_seed);
            const auto largest = std::max_element(mtv.begin(), mtv.end());
            d.mtv[i * n + j] = d.mtv[j * n + i] = *largest;
            d.mtv_coord[i * n + j] = d.mtv_coord[j * n + i] = static_cast<int>(largest - mtv.begin());
        }
}

// One criterion: how many runs agree with the best (value below the threshold, the best included),
// a sentence when some do not ("Posterior: 1 of 2 runs agree with the best run (symmetrised KL
// divergence below 1; at least 2 needed): run 1 is at 4.2."), and the failure when too few agree.
struct Criterion {
    const char* name;     // "ELBO", "Posterior", "Marginals"
    const char* rule;     // what is compared, as in "symmetrised KL divergence"
    const char* failure;  // what the runs disagree on, for the verdict
    double threshold;
};

int judge(const Criterion& c, const std::vector<double>& values, const std::vector<std::string>& details, int best,
          int needed, std::vector<std::string>& sentences, std::vector<std::string>& failures) {
    int agree = 0;
    std::string list;
    for (size_t i = 0; i < values.size(); ++i) {
        if (static_cast<int>(i) == best || values[i] < c.threshold) {
            ++agree;
            continue;
        }
        list += (list.empty() ? "" : ", ") + std::string("run ") + std::to_string(i) + " " + details[i];
    }
    if (!list.empty())
        sentences.push_back(std::string(c.name) + ": " + std::to_string(agree) + " of " + std::to_string(values.size()) +
                            " runs agree with the best run (" + c.rule + " below " + number(c.threshold) +
                            "; at least " + std::to_string(needed) + " needed" +
                            (agree >= needed ? ", so this passes" : "") + "): " + list + ".");
    if (agree < needed) failures.push_back(c.failure);
    return agree;
}

// The three criteria against the best run, as MATLAB VBMC's vbmc_diagnostics.
void judge_criteria(const std::vector<RunFacts>& runs, const DiagnosisThresholds& t, Diagnosis& d,
                    std::vector<std::string>& sentences, std::vector<std::string>& failures) {
    const size_t n = runs.size();
    const int needed = std::max(2, static_cast<int>(std::ceil(static_cast<double>(n) / 3.0)));
    const double best_elbo = runs[static_cast<size_t>(d.best)].posterior->elbo;
    std::vector<double> elbo_gap(n), skl(n), mtv(n);
    std::vector<std::string> elbo_detail(n), skl_detail(n), mtv_detail(n);
    for (size_t i = 0; i < n; ++i) {
        const size_t pair = static_cast<size_t>(d.best) * n + i;
        elbo_gap[i] = std::fabs(runs[i].posterior->elbo - best_elbo);
        elbo_gap[i] = std::isnan(elbo_gap[i]) ? INFINITY : elbo_gap[i];
        elbo_detail[i] = "(ELBO " + number(runs[i].posterior->elbo, 6) + ") differs by " + number(elbo_gap[i]);
        skl[i] = d.skl[pair];
        skl_detail[i] = "is at " + number(skl[i]);
        mtv[i] = d.mtv[pair];
        mtv_detail[i] = "is at " + number(mtv[i]) + " (coordinate " + std::to_string(d.mtv_coord[pair]) + ")";
    }
    d.elbo_agree = judge({"ELBO", "|ELBO difference|", "the ELBO", t.elbo}, elbo_gap, elbo_detail, d.best, needed,
                         sentences, failures);
    d.skl_agree = judge({"Posterior", "symmetrised KL divergence", "the posterior (symmetrised KL divergence)", t.skl},
                        skl, skl_detail, d.best, needed, sentences, failures);
    d.mtv_agree = judge({"Marginals", "largest marginal total variation distance", "the marginals (total variation)",
                         t.mtv},
                        mtv, mtv_detail, d.best, needed, sentences, failures);
    if (d.elbo_agree < needed) d.exit_flag = std::min(d.exit_flag, -2);
    if (d.skl_agree < needed || d.mtv_agree < needed) d.exit_flag = std::min(d.exit_flag, -1);
}

}  // namespace

double Diagnosis::max_skl() const {
    double largest = 0.0;
    for (int i = 0; i < runs; ++i) largest = std::max(largest, skl[static_cast<size_t>(best * runs + i)]);
    return largest;
}

double Diagnosis::max_mtv() const {
    double largest = 0.0;
    for (int i = 0; i < runs; ++i) largest = std::max(largest, mtv[static_cast<size_t>(best * runs + i)]);
    return largest;
}

namespace {

void check_runs(const std::vector<RunFacts>& runs) {
    if (runs.size() < 2)
        throw_error(Code::arg, "n = " + std::to_string(runs.size()) + ": the diagnostics compare at least 2 runs");
    for (size_t i = 1; i < runs.size(); ++i)
        if (runs[i].posterior->vp.dim != runs[0].posterior->vp.dim)
            throw_error(Code::arg, "runs[" + std::to_string(i) + "] has dimension " +
                                       std::to_string(runs[i].posterior->vp.dim) + " but runs[0] has dimension " +
                                       std::to_string(runs[0].posterior->vp.dim) + ": runs of one problem share it");
}

// Which runs converged, in a sentence, and the exit flag that follows (0 one, -3 none).
std::string convergence_sentence(const std::vector<RunFacts>& runs, Diagnosis& d) {
    std::vector<int> converged, not_converged;
    for (size_t i = 0; i < runs.size(); ++i) (runs[i].converged ? converged : not_converged).push_back(static_cast<int>(i));
    d.converged_count = static_cast<int>(converged.size());
    const std::string total = std::to_string(runs.size());
    if (converged.empty()) {
        d.exit_flag = -3;
        return "No run converged, so the best is chosen among all " + total + " and should not be trusted.";
    }
    if (converged.size() == 1) {
        d.exit_flag = 0;
        return "Only run " + std::to_string(converged[0]) + " of " + total +
               " converged: agreement needs at least two converged runs; perform more runs.";
    }
    if (not_converged.empty()) return "All " + total + " runs converged.";
    return std::to_string(converged.size()) + " of " + total + " runs converged (" + run_list(not_converged) +
           (not_converged.size() == 1 ? " did not)." : " did not).");
}

double elbo_spread(const std::vector<RunFacts>& runs, bool any_converged) {
    double low = INFINITY, high = -INFINITY;
    for (const RunFacts& run : runs) {
        if (any_converged && !run.converged) continue;
        low = std::fmin(low, run.posterior->elbo);
        high = std::fmax(high, run.posterior->elbo);
    }
    return high - low;
}

// "The runs agree." or "The runs do not agree: too few agree with the best run on A and on B."
// (the convergence sentence that follows says when too few runs converged).
std::string verdict(const Diagnosis& d, const std::vector<std::string>& failures) {
    if (d.agree()) return "The runs agree.";
    std::string text = "The runs do not agree";
    for (size_t i = 0; i < failures.size(); ++i)
        text += (i == 0 ? ": too few agree with the best run on " : i + 1 == failures.size() ? " and on " : ", on ") +
                failures[i];
    return text + ".";
}

}  // namespace

Diagnosis diagnose(const std::vector<RunFacts>& runs, uint64_t seed, const DiagnosisThresholds& thresholds) {
    check_runs(runs);
    Diagnosis d;
    d.runs = static_cast<int>(runs.size());
    const std::string convergence = convergence_sentence(runs, d);
    const bool any_converged = d.converged_count > 0;
    d.best = best_run(runs, any_converged, thresholds.beta_lcb);
    d.elbo_spread = elbo_spread(runs, any_converged);
    compare_pairs(runs, seed, thresholds.draws, d);
    std::vector<std::string> sentences, failures;
    judge_criteria(runs, thresholds, d, sentences, failures);
    const PosteriorSnapshot& best = *runs[static_cast<size_t>(d.best)].posterior;
    d.message = verdict(d, failures) + " " + convergence + " Run " + std::to_string(d.best) +
                " is the best: the highest ELBO - " + number(thresholds.beta_lcb) + " SD among " +
                (any_converged ? "the converged runs" : "all runs") + " (ELBO " + number(best.elbo, 6) + " +- " +
                number(best.elbo_sd, 2) + ").";
    for (const std::string& sentence : sentences) d.message += " " + sentence;
    return d;
}

}  // namespace libvbmc
