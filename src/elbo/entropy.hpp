// Entropy of the mixture variational posterior and its gradient in the packed vp theta
// (PyVBMC entropy/entmc_vbmc.py, entropy/entlb_vbmc.py).
#pragma once
#include <vector>

#include "util/rng.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

// How entropy_mc draws its standard normals: independently from rng, or as a randomly shifted
// Kronecker lattice (util/qmc.hpp), whose estimates vary less from call to call.
enum class EntropyDraws { independent, kronecker };

// Monte Carlo estimate H = -sum_j w_j E_{q_j}[log q(x)] with n_per_component antithetic draws per
// component (rounded up to even) and reparameterised draws x = mu_j + sigma_j lambda_j * eps.
// grad (if not null, resized to theta_size) is the exact derivative of the estimate for the
// draws used, hence unbiased for the entropy gradient.
// The components are summed in fixed groups shared among current_threads() workers when the call
// is long enough (util/parallel.hpp); value and gradient do not depend on the number of workers.
// control_variate (value only, grad must be null): each component's mean of log q is corrected by
// regression on u = (|eps|^2 - D) / 2, which has mean 0 and is -log q_j(x) up to a constant, so most
// of the variance of log q within a component cancels (exact for one component; bias O(1/n)).
// draws: each component's half draws are independent normals or one shifted Kronecker lattice.
double entropy_mc(const VariationalPosterior& vp, int n_per_component, Rng& rng,
                  std::vector<double>* grad, bool control_variate = false,
                  EntropyDraws draws = EntropyDraws::independent);

// Deterministic lower bound H >= -sum_i w_i log sum_j w_j N(mu_i; mu_j, (sigma_i^2+sigma_j^2) Lambda^2)
// (Huber et al. 2008); the exact entropy for a single component.
double entropy_lb(const VariationalPosterior& vp, std::vector<double>* grad);

// Converts d/dw (grad_w, k entries) into d/deta for w = softmax(eta), in place.
void softmax_chain(const std::vector<double>& w, double* grad_w, int k);

}  // namespace libvbmc
