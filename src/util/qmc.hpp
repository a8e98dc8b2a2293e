// Randomised quasi-Monte Carlo standard normal points, for Monte Carlo estimates whose integrand is
// smooth in the draws (the mixture entropy of elbo/entropy.cpp).
#pragma once
#include <vector>

#include "util/rng.hpp"

namespace libvbmc {

// The additive recurrence (Kronecker sequence) of Roberts (2018), "The unreasonable
// effectiveness of quasirandom sequences": alpha_k = frac(phi_s^-k), k = 1..s, with phi_s the
// positive root of x^(s+1) = x + 1 (the golden ratio for s = 1).
std::vector<double> kronecker_alpha(int s);

// Points of N(0, I_dim): u_i = frac(shift + i alpha) in 2 ceil(dim / 2) dimensions with a uniform
// random shift (Cranley-Patterson rotation, so every point is exactly N(0, I) and estimates stay
// unbiased), mapped pair by pair with Box-Muller. Averages of smooth functions over the n points
// of one draw vary less between draws than over n independent normals. Construct once per
// dimension (alpha is solved for there), then draw as often as needed.
class KroneckerNormals {
public:
    explicit KroneckerNormals(int dim);
    // n points into out (row-major n x dim, caller-owned), with a fresh shift: one rng.uniform()
    // per coordinate of the recurrence.
    void draw(Rng& rng, int n, double* out) const;

private:
    int dim_;
    std::vector<double> alpha_;
};

}  // namespace libvbmc
