// Gauss-Hermite quadrature for expectations under the standard normal.
#pragma once
#include <vector>

namespace libvbmc {

// The n-point rule E_{N(0,1)}[g(t)] ~ sum_j weight[j] g(node[j]), exact for polynomials of
// degree below 2n (the weights sum to one). Nodes are the roots of the Hermite polynomial,
// found by Newton's method on its three-term recurrence (Golub and Welsch's rule without the
// eigenproblem); n >= 1.
struct GaussHermiteRule {
    std::vector<double> node, weight;
};
GaussHermiteRule gauss_hermite_rule(int n);

}  // namespace libvbmc
