// Doubly Bayesian quadrature of the evidence (BBQ*; Osborne et al. 2012, "Active Learning of Model
// Evidence Using Bayesian Quadrature", sections 3-4), from a training set alone (no evaluations).
//
// Our integral is Z = int exp(f(x)) dx over the transformed space (f = log joint + log Jacobian,
// the surrogate's training targets). The paper integrates l(x) p(x) dx against a Gaussian p; we use
// the importance re-weighting it names (section 2): p = N(nu, diag(lambda)) with the variational
// posterior's mean and marginal variances, each standard deviation doubled (bbq_measure), and
// l = exp(f) / p, scaled by its largest training value: l~ = exp(f - log p - M) <= 1, Z = e^M <l~>.
// As in the paper's footnote 1 the log-GP models g = log(l~ + 1), so that its zero prior mean
// means l~ = 0 away from the data; the linearisation (5) becomes l ~= l0 + (1 + l0)(g - g0) with
// l0 = m_l (the GP on l~) and g0 = log(1 + l0) (l0 clipped at 0). Then, eq. 7 and 10-12:
//   m(Z~)  = int m_l p + int (1 + m_l) m_Delta p,
//   V(Z~)  = int int (1 + m_l(x)) (1 + m_l(x')) [C_g(x, x') + dm_g(x)/dw C_w dm_g(x')/dw] p(x) p(x') dx dx',
// where Delta = m_g - g0 is modelled by a third zero-mean GP on candidate points (the training
// points, where Delta = 0, and 10 D points on the ellipses of l's length scales around training
// points chosen at random), with l's length scales and its output scale by maximum likelihood.
// (1 + m_l) p is a Gaussian mixture with signed weights (each k_l(x, x_i) p(x) is a scaled
// Gaussian), so every term is a kernel-mean or kernel-pair integral of bq/kernel_integrals.
// w are the log input scales of g's GP, C_w their Laplace variances (zero_mean_gp.hpp).
// log Z = M + log m(Z~) and its SD by the delta method, sqrt(V) / m(Z~).
#pragma once
#include <cstdint>
#include <vector>

#include "bq/zero_mean_gp.hpp"
#include "gp/gp.hpp"
#include "linalg/matrix.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

// The Gaussian p = N(mean, diag(var)) of the importance re-weighting.
struct BbqMeasure {
    std::vector<double> mean, var;
};

// The variational posterior's mean and marginal variances, variances times 4.
BbqMeasure bbq_measure(const VariationalPosterior& vp);

// log p(x).
double bbq_log_measure(const BbqMeasure& p, const double* x);

// A Gaussian mixture with diagonal covariances and weights of any sign.
struct DiagMixture {
    std::vector<double> w;
    Matrix mu, s2;  // k x dim
};

// The three GPs of BBQ on one training set.
struct BbqModel {
    BbqMeasure p;
    double log_scale = 0.0;  // M: log l~ = f - log p - M
    ZeroMeanGp l;            // GP on l~
    ZeroMeanGp g;            // GP on log(l~ + 1), with the Laplace variances of its log length scales
    ZeroMeanGp delta;        // GP on Delta at the candidates (empty data when Delta is zero at all of them)
    DiagMixture weight;      // (1 + m_l) p
};

// Fits the GPs to data (y = f at the rows of x, s2 their noise variances); seed draws the candidates.
// Throws Error(arg) for fewer than two points or a measure of the wrong dimension.
BbqModel bbq_model(const GpData& data, const BbqMeasure& p, uint64_t seed);

// The terms of the scaled evidence Z~.
struct BbqMoments {
    double mean_l = 0.0;         // int m_l p
    double correction = 0.0;     // int (1 + m_l) m_Delta p
    double variance = 0.0;       // int int (1 + m_l)(1 + m_l') C_g p p  (eq. 10)
    double marginal_var = 0.0;   // the input-scale marginalisation term of eq. 12
};
BbqMoments bbq_moments(const BbqModel& model);

struct BbqResult {
    double log_z = 0.0;
    double log_z_sd = 0.0;
};

// log Z and its SD; throws Error(numeric) when the mean of Z~ is not positive (the linearised
// model does not guarantee it, paper footnote 6).
BbqResult bbq_estimate(const GpData& data, const BbqMeasure& p, uint64_t seed);

// BBQ's log evidence of a posterior and the training set of its surrogate (vbmc_stat "log_z_bbq",
// vbmc_post_log_evidence_bbq): bbq_estimate with bbq_measure(vp) and a fixed candidate seed, so
// two reads agree; NaN for both when the mean of Z~ is not positive.
BbqResult bbq_log_evidence(const GpData& data, const VariationalPosterior& vp);

}  // namespace libvbmc
