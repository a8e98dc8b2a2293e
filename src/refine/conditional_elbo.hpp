// The objective of one refit in refinement branch j (refine.hpp): for q = N(nu, diag(rho^2)),
//   J(q) = E_q[f] + E_q[log r(j | w)] - E_q[log q_j(w)] + E_q[log N(w; c_k, s_k^2 v_j)] + H(q),
// up to a constant: the conditional ELBO L_{|a_1..a_k} of Havasi et al. (2021, section 2.2) for
// the augmented model of refine.hpp, whose likelihood is exp(f) r(j | w) / q_j(w) and whose prior
// given a_1..a_k is N(c_k, s_k^2 v_j) (aux_chain.hpp).
//   E_q[f]            the expected log joint under the surrogate's posterior mean, in closed form
//                     (Bayesian quadrature, elbo/expected_log_joint.hpp), averaged over its
//                     hyperparameter samples;
//   E_q[log r(j | w)] the mixture's log responsibility (refine/responsibility.hpp), the one term
//                     without a closed form, by the degree-3 spherical cubature on the 2D points
//                     nu +- sqrt(D) rho_d e_d with weights 1/(2D) (exact for cubic polynomials;
//                     no random draws);
//   the rest          Gaussian expectations in closed form.
// Parameters: nu and log rho; gradients are exact for this J.
#pragma once
#include <vector>

#include "gp/gp.hpp"
#include "refine/aux_chain.hpp"
#include "refine/responsibility.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

class ConditionalElbo {
public:
    // component: branch j's Gaussian q_j = N(mu_j, diag(v_j)); centre c_k and left = s_k^2 give
    // the window N(c_k, s_k^2 v_j).
    ConditionalElbo(const Gp& gp, const Responsibility& responsibility, int j, const DiagGaussian& component,
                    const std::vector<double>& centre, double left);

    // J at (nu, log rho); when grad is not null it receives dJ/dnu (dim values) then dJ/dlog rho.
    // Throws Error(numeric) if J is not finite.
    double value(const std::vector<double>& nu, const std::vector<double>& log_rho, std::vector<double>* grad) const;
    // The surrogate's posterior SD of E_q[f] (its eq. 10 variance, hyperparameter spread included).
    double log_joint_sd(const std::vector<double>& nu, const std::vector<double>& log_rho) const;

private:
    double responsibility_term(const std::vector<double>& nu, const std::vector<double>& rho, double* grad) const;
    void set_q(const std::vector<double>& nu, const std::vector<double>& log_rho) const;

    const Gp& gp_;
    const Responsibility& responsibility_;
    int j_;
    const DiagGaussian& component_;
    std::vector<double> centre_;
    std::vector<double> window_var_;       // s_k^2 v_j
    mutable VariationalPosterior q_;       // q as a one-component mixture (sigma = 1, lambda = rho)
};

}  // namespace libvbmc
