// The log evidence by importance sampling of the surrogate under the variational posterior:
//   Z = int exp f(z) dz = E_q[exp f(z) / q(z)],
// f the surrogate's posterior mean of the log joint (transformed space, Jacobian included), from
// n draws z_i ~ q, for each hyperparameter sample s:
//   log Z_s = log (1/n) sum_i w_i,  w_i = exp(f_s(z_i)) / q(z_i);
// the estimate is the median of log Z_s over the samples. Unlike the ELBO it is not a bound: the
// weights put back the part of exp f that q covers too thinly (the gap KL(q || exp f / Z)).
// Its uncertainty, as variances of log Z:
//   hyper:     the spread of log Z_s over the hyperparameter samples;
//   latent:    the surrogate's own uncertainty about f at the draws: Var[Z_s] / Z_s^2 to first
//              order in f, u^T C_s u with u_i = w_i / sum_j w_j and C_s the latent posterior
//              covariance at the draws (Bayesian quadrature by linearisation), mean over s;
//   mc:        the importance-sampling error, sum_i u_i^2 - 1/n, mean over s;
//   jackknife: delete-a-group jackknife over the training set (G groups, the first sample's
//              hyperparameters): (G - 1) / G sum_g (log Z_(g) - mean)^2, how much log Z moves
//              when a G-th of the evaluations is left out; the part of the surrogate's error that
//              its own variance does not see.
#pragma once
#include <cstdint>

#include "gp/gp.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

struct EvidenceParts {
    double log_z = 0.0;
    double var_hyper = 0.0;
    double var_latent = 0.0;
    double var_mc = 0.0;
    double var_jackknife = 0.0;
};

// n_draws draws of q from a generator seeded with seed, jackknife_groups >= 2 groups.
EvidenceParts importance_evidence(const VariationalPosterior& vp, const Gp& gp, int n_draws,
                                  uint64_t seed, int jackknife_groups);

struct LogEvidence {
    double log_z = 0.0;
    double log_z_sd = 0.0;
};

// What vbmc_post_log_evidence gives: importance_evidence with the library's settings (2000
// draws, a fixed seed, 10 groups), the SD from all four parts.
LogEvidence log_evidence(const VariationalPosterior& vp, const Gp& gp);

}  // namespace libvbmc
