// The auxiliary variables of one refinement branch (Havasi et al. 2021, "Sampling the variational
// posterior with local refinement", section 2.2 and appendix A), for a diagonal Gaussian prior
// p0 = N(m0, diag(v)) split geometrically into K additive parts: a_k ~ N(t_k m0, t_k v) with
// t_k = r s_{k-1}^2 for k < K and t_K = s_{K-1}^2, where s_k^2 = (1 - r)^k is the prior
// variance left after k parts (the paper's section 4.1 schedule; r is its ratio 0.7), so that
// a_1 + ... + a_K ~ p0.
//
// Written with the centre c_k = a_1 + ... + a_k + s_k^2 m0 of p0(w | a_1..a_k) = N(c_k, s_k^2 v)
// (c_0 = m0), appendix A's p(a_k | a_1..a_{k-1}, w) becomes
//   p(c_k | c_{k-1}, w) = N((1 - r) c_{k-1} + r w, r (1 - r) s_{k-1}^2 v),
// so a draw of w from the current approximation q(w) = N(nu, diag(rho^2)) followed by one of c_k
// is a draw of the appendix's q(c_k) = N((1 - r) c_{k-1} + r nu, r^2 rho^2 + r (1 - r) s_{k-1}^2 v),
// and its closed form for q conditioned on the new part reads
//   q(w | c_k) = N(m, 1/P),  P = 1/rho^2 + r / (s_k^2 v),
//                m = (nu / rho^2 + (c_k - (1 - r) c_{k-1}) / (s_k^2 v)) / P,
// every operation coordinate-wise.
#pragma once
#include <vector>

#include "util/rng.hpp"

namespace libvbmc {

// A Gaussian with diagonal covariance.
struct DiagGaussian {
    std::vector<double> mean;
    std::vector<double> var;
};

// One step of the chain: the prior variance ratio r, the prior's variances v and the fraction
// s_{k-1}^2 of them left before the step.
struct AuxStep {
    double ratio = 0.7;
    const std::vector<double>* prior_var = nullptr;
    double left_before = 1.0;

    // s_k^2: the fraction left after the step.
    double left_after() const { return (1.0 - ratio) * left_before; }
    // c_k ~ p(c_k | c_{k-1}, w) (D normals of rng); with w a draw of q, c_k is a draw of q(c_k).
    std::vector<double> draw_centre(const std::vector<double>& w, const std::vector<double>& centre_before, Rng& rng) const;
    // q(w | c_k): the current approximation conditioned on the new centre.
    DiagGaussian condition(const DiagGaussian& q, const std::vector<double>& centre_before,
                           const std::vector<double>& centre) const;
};

}  // namespace libvbmc
