// Integrated variance reduction ("ivr"): the expected reduction of the posterior variance of
// E_q[f] (paper eq. 5; the variance the ELBO SD reports) by one more evaluation at x. The paper's
// section 3.3 states the aim of active sampling as minimum variance of the final ELBO estimate;
// choosing the point that most reduces the variance of the integral is the rule of active
// Bayesian quadrature (Osborne et al. 2012, BBQ). Unlike a_pro it weighs a point by the
// variational MASS its uncertainty touches, not by the density at the point, so it goes to broad
// regions far from the training set where the surrogate is unchecked.
//
// For one hyperparameter sample, with A = K + noise and the vp q = sum_k w_k N(mu_k, sigma_k^2 Lambda_k^2):
//   zq(x)  = E_{x'~q}[k(x', x)] = sf^2 sum_k w_k prod_d (ell_d / tau_kd) exp(-1/2 sum_d (mu_kd - x_d)^2 / tau_kd^2),
//            tau_kd^2 = sigma_k^2 lambda_kd^2 + ell_d^2
//   c(x)   = Cov(E_q[f], f(x)) = zq(x) - beta^T k(X, x),   beta = A^{-1} zq(X)
//   reduction(x) = c(x)^2 / (V(x) + sn^2 + s2(x))   (V the latent posterior variance at x, s2(x)
//                  the told noise variance of the training point nearest to x, expected_noise.hpp)
// averaged over the samples; the acquisition value to minimise is -log(mean reduction).
// Bound without V (Cauchy-Schwarz for the posterior covariance): c(x)^2 <= V(x) Var[E_q f], so
//   reduction(x) <= c^2 / (c^2 / Var[E_q f] + sn^2),
//   Var[E_q f] = sum_jk w_j w_k sf^2 prod_d ell_d / t_jkd exp(-1/2 sum_d (mu_jd - mu_kd)^2 / t_jkd^2)
//                - beta^T zq(X),   t_jkd^2 = sigma_j^2 lambda_jd^2 + sigma_k^2 lambda_kd^2 + ell_d^2.
// zq and the prior part of Var[E_q f] are the integrals of bq/kernel_integrals.
#pragma once
#include <vector>

#include "acquisition/acq_settings.hpp"
#include "gp/gp.hpp"
#include "linalg/matrix.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

class VarianceReduction {
public:
    // Precomputes beta and the per-component terms of zq for every sample of gp.
    VarianceReduction(const Gp& gp, const VariationalPosterior& vp);

    // zq(x) at the rows of xs for sample si (out: xs.rows values).
    void prior_covariance(size_t si, const Matrix& xs, double* out) const;
    // The sample's c(x_j) from the columns of kstar = k(X, xs) (n x xs.rows): out_j = zq(x_j) - beta^T k_j.
    void covariance(size_t si, const Matrix& xs, const Matrix& kstar, double* out) const;
    // One sample's reduction c^2 / (V + sigma^2) from its covariance c, latent variance V and the
    // expected noise variance sigma^2 of an evaluation there (expected_noise.hpp: the sample's
    // sn^2 plus the told noise of the nearest training point, MATLAB VBMC acqeig_vbmc). V enters
    // as at least c^2 / Var[E_q f], the least variance Cauchy-Schwarz allows: on an ill-conditioned
    // GP rounding can break that inequality, and the reduction then exceeded the variance it
    // reduces (cigar_D2: 10^5 times reduction_bound) and made the candidate search's pruning drop
    // the best candidate, so that the chosen point depended on the thread count.
    double reduction(size_t si, double cov, double latent_var, double noise_var) const;
    // An upper bound of reduction(si, cov, V, sigma^2) over every V and every sigma^2 >= the
    // sample's sn^2, also in floating point.
    double reduction_bound(size_t si, double cov) const;
    // Var[E_q f] of sample si, the variance one evaluation could remove at most.
    double integral_variance(size_t si) const { return samples_[si].integral_var; }

private:
    struct Sample {
        std::vector<double> beta;      // A^{-1} zq(X)
        std::vector<double> log_norm;  // per component: log(w_k sf^2 prod_d ell_d / tau_kd)
        Matrix inv_tau;                // k x dim: 1 / tau_kd
        double sn2 = 0.0;
        double integral_var = 0.0;     // Var[E_q f]
        double integral_var_slack = 0.0;  // rounding allowance of integral_var (relative to its prior part)
    };
    // Var[E_q f] of sample si with its rounding allowance, never below the allowance.
    double integral_variance_upper(size_t si) const;
    const VariationalPosterior& vp_;
    std::vector<Sample> samples_;
};

// The acquisition value from the per-sample reductions' mean and the mean latent variance:
// -log(reduction), with the variance regulariser of acq_from_moments (+ tol/var - 1 when
// s.variance_regularized and var < tol_gp_var). A zero or NaN reduction gives +inf.
double ivr_from_terms(const AcqSettings& s, double mean_reduction, double mean_latent_var);

// ivr acquisition values at the rows of xs (transformed space), +inf outside the hard limits
// and where the surrogate rules out posterior mass (implausible, with y_max the best observed
// log joint). Each candidate's reduction uses its expected noise (expected_noise.hpp).
void ivr_evaluate(const Gp& gp, const VarianceReduction& terms, const Matrix& xs, double y_max,
                  const AcqSettings& s, double* acq);

}  // namespace libvbmc
