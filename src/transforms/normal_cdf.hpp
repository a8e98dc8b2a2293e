// Standard normal CDF and its inverse, accurate in both tails (used by the probit transform).
#pragma once

namespace libvbmc {

// Phi(y) = 0.5 erfc(-y / sqrt(2)); full relative accuracy for y < 0 (no 1 - x cancellation).
double normal_cdf(double y);

// Phi^{-1}(p) for p in (0, 1): PyVBMC's _probit, -sqrt(2) erfcinv(2p). Accurate to a few ulp in
// the lower tail down to the smallest subnormal p; for p > 0.5 prefer -normal_quantile(1 - p)
// with 1 - p computed exactly by the caller. Returns -inf at p = 0, +inf at p = 1; throws
// Error(numeric) for p outside [0, 1] or NaN.
double normal_quantile(double p);

}  // namespace libvbmc
