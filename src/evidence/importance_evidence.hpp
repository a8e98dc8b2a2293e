// The log evidence by importance sampling of the surrogate under the variational posterior:
//   Z = int exp f(z) dz = E_q[exp f(z) / q(z)],
// f the surrogate's log joint (transformed space, Jacobian included), from n draws z_i ~ q. Unlike
// the ELBO it is not a bound: the weights put back the part of exp f that q covers too thinly (the
// gap KL(q || exp f / Z)). For each hyperparameter sample s, with m_s its posterior mean,
//   log Z_s = log mean_{i<=n} exp(m_s(z_i) - log q(z_i)),
// and the estimate is the median of log Z_s over the samples.
// The surrogate is unsure of f, and Z is not linear in f: averaged over the surrogate's posterior
// functions f_sk (drawn jointly at the first m draws), log Z moves to
//   log Z_sk = log Z_s + [log mean_{i<=m} exp(f_sk(z_i) - log q(z_i)) - log mean_{i<=m} exp(m_s(z_i) - log q(z_i))]
// (the bracket, taken on the same draws with and without the function's deviation, is free of
// their Monte Carlo error). Where nearby values of f vary independently with latent variance v, the
// shift is +v/2 (E exp(eps) = exp(v/2)). The surrogate's variance away from its data is no
// guide to the sign of its error there: over the benchmark it is too small on lumpy at D >= 6
// (the truth is above log Z_s by about the shift) and too large in student-t tails and along
// cigar's long axis (the truth is at log Z_s). So the shift enters the SD, not the estimate.
// The uncertainty, as variances of log Z:
//   surrogate: half the 16-84% range of the pooled log Z_sk, squared (the hyperparameter samples'
//              spread included);
//   shift:     (median of the pooled log Z_sk - the estimate)^2;
//   mc:        the importance-sampling error, sum_i u_i^2 - 1/n with u_i the normalised weights
//              of m_s, mean over s;
//   jackknife: delete-a-group jackknife over the training set (G groups, the first sample's
//              hyperparameters): (G - 1) / G sum_g (log Z_(g) - mean)^2, how much log Z moves
//              when a G-th of the evaluations is left out.
#pragma once
#include <cstdint>

#include "gp/gp.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

struct EvidenceParts {
    double log_z = 0.0;
    double var_surrogate = 0.0;
    double var_shift = 0.0;
    double var_mc = 0.0;
    double var_jackknife = 0.0;
};

struct EvidenceSettings {
    int draws = 2000;           // n draws of q
    int function_draws = 400;   // m <= n draws at which posterior functions are drawn
    int functions = 200;        // posterior functions over all hyperparameter samples
    int jackknife_groups = 10;  // G >= 2
};

// The parts from draws of a generator seeded with seed. Throws Error(arg) for settings below their
// minimums or a surrogate without samples, Error(numeric) when a latent covariance has a NaN.
EvidenceParts importance_evidence(const VariationalPosterior& vp, const Gp& gp, const EvidenceSettings& settings,
                                  uint64_t seed);

struct LogEvidence {
    double log_z = 0.0;
    double log_z_sd = 0.0;
};

// What vbmc_post_log_evidence gives: importance_evidence with the default settings and a fixed
// seed, the SD from all four parts.
LogEvidence log_evidence(const VariationalPosterior& vp, const Gp& gp);

}  // namespace libvbmc
