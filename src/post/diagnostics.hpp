// Convergence diagnostics across several runs of the same problem (MATLAB VBMC vbmc_diagnostics):
// whether the runs agree, which is best, and in sentences what is wrong when they do not.
//
// The best run has the highest ELCBO = ELBO - 3 ELBO SD among the converged runs (among all when
// none converged). A run agrees with it on
//   the ELBO       when |ELBO - ELBO_best| < 1,
//   the posterior  when the symmetrised KL divergence 0.5 (KL(p||q) + KL(q||p)) < 1,
//   the marginals  when the largest marginal total variation distance over the coordinates < 0.2
// (the best run agrees with itself). Each criterion passes when at least max(2, ceil(n / 3)) runs agree.
// The runs agree when at least two converged and every criterion passes. Exit flags as MATLAB's:
// 1 passed; 0 only one run converged; -1 too few agree on the posterior or the marginals; -2 too
// few agree on the ELBO; -3 no run converged (the lowest applicable flag is reported).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "run/posterior.hpp"

namespace libvbmc {

// What the diagnostics need from one run.
struct RunFacts {
    bool converged = false;
    const PosteriorSnapshot* posterior = nullptr;  // its returned posterior (ELBO and SD inside)
};

struct DiagnosisThresholds {
    double beta_lcb = 3.0;
    double elbo = 1.0;
    double skl = 1.0;
    double mtv = 0.2;
    int draws = 10000;  // per posterior and pair, for the KL divergences and MTVs
};

struct Diagnosis {
    int runs = 0;
    int best = 0;
    int converged_count = 0;
    int exit_flag = 1;
    int elbo_agree = 0, skl_agree = 0, mtv_agree = 0;  // runs agreeing with the best on each
    double elbo_spread = 0.0;  // largest minus smallest ELBO over the converged runs (all if none)
    // n x n, row-major: kl(i, j) = KL(run i || run j); skl symmetric; mtv(i, j) the largest
    // marginal total variation over the coordinates, mtv_coord(i, j) the coordinate it is at.
    std::vector<double> kl, skl, mtv;
    std::vector<int> mtv_coord;
    std::string message;

    bool agree() const { return exit_flag == 1; }
    // Largest symmetrised KL / largest max-MTV between the best run and any other.
    double max_skl() const;
    double max_mtv() const;
};

// Throws Error(arg) for fewer than 2 runs or posteriors of different dimensions.
Diagnosis diagnose(const std::vector<RunFacts>& runs, uint64_t seed, const DiagnosisThresholds& thresholds = {});

}  // namespace libvbmc
