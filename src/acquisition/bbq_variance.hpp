// BBQ's active sampling (Osborne et al. 2012, section 5, eq. 13): choose the x_a that minimises the
// expected variance of the evidence after evaluating there, i.e. maximises E[m(Z | l_a)^2] over
// the unknown value at x_a. With the BBQ model of the run's training set (bq/bbq.hpp: l~ = exp(f -
// log p - M) under a zero-mean GP, m0 = m(Z~) its linearised mean), an evaluation l_a at x_a moves
// the mean by the GP's rank-one update,
//   m(Z~ | l_a) = m0 + beta_a (l_a - mu_a),   beta_a = int C_l(x, x_a) p(x) dx / (C_l(x_a, x_a) + s_a^2),
// mu_a the l-GP's mean at x_a and s_a^2 the noise of l there. As in the paper, the value is not
// linearised: log l_a ~ N(f_bar - log p(x_a) - M, V) from the surrogate (eq. 10, its hyperparameter
// samples' spread included, the paper's marginalisation of the input scales), so with
// E l_a = exp(mean + V/2) and E l_a^2 = exp(2 mean + 2 V) (footnote 4):
//   gain_a = E[m(Z~ | l_a)^2] - m0^2 = 2 m0 beta_a (E l_a - mu_a) + beta_a^2 (E l_a^2 - 2 mu_a E l_a + mu_a^2).
// The acquisition is -log gain_a (gain floored at DBL_MIN), to be minimised: large where the
// surrogate's log joint is high (exploitation) or unsure (exploration), and where the l-GP's
// covariance with the integral is large; +inf outside the hard limits and where the surrogate
// sees no posterior mass (implausible, as for ivr); the variance regulariser of acq_fcn.hpp on V.
#pragma once
#include <vector>

#include "acquisition/acq_settings.hpp"
#include "bq/bbq.hpp"
#include "gp/gp.hpp"
#include "linalg/matrix.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

// What gain_a is made of at one candidate.
struct BbqGainTerms {
    double f_bar = 0.0, var = 0.0;  // the surrogate's eq. 10 moments of the log joint
    double log_l = 0.0;             // f_bar - log p(x_a) - M
    double mu = 0.0;                // the l-GP's mean
    double beta = 0.0;              // the mean of Z~'s change per unit of l_a - mu
};

class BbqVariance {
public:
    // The BBQ model of gp's training set under the measure of vp; seed draws its Delta candidates;
    // y_max the best observed log joint (implausible). Throws Error(numeric) when the model's mean
    // of Z~ is not positive.
    BbqVariance(const Gp& gp, const VariationalPosterior& vp, double y_max, const AcqSettings& s, uint64_t seed);
    void evaluate(const Matrix& xs, double* acq) const;
    // The terms at the rows of xs, and log gain_a from them (floored at log DBL_MIN; where E l_a^2
    // overflows, from its term alone, which then dominates).
    std::vector<BbqGainTerms> terms(const Matrix& xs) const;
    double log_gain(const BbqGainTerms& t) const;
    const BbqModel& model() const { return model_; }
    double mean_z() const { return mean_z_; }

private:
    const Gp& gp_;
    AcqSettings s_;
    double y_max_;
    BbqModel model_;
    double mean_z_ = 0.0;                 // m0
    std::vector<double> kernel_mean_w_;   // K_l^{-1} int k_l(X, x) p(x) dx
    std::vector<double> tau2_inv_;        // 1 / (lambda_d + ell_d^2) of the kernel mean of p
    double kernel_mean_log_norm_ = 0.0;
};

}  // namespace libvbmc
