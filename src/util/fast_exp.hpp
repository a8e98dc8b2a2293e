// exp(x) written so that loops over it vectorise (no calls, no branches): the GP kernel
// evaluates millions of exponentials per acquisition. Range reduction x = k ln2 + r with a
// two-part ln2 (Cody-Waite), |r| <= ln2/2; Taylor polynomial of degree 13 (truncation error
// < 1e-17 relative); 2^k assembled in the exponent bits. Accurate to about 1 ulp for
// -708 <= x <= 709; returns 0 below -708 and exp(709) above 709.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace libvbmc {

inline double exp_fast(double x) {
    constexpr double kLog2e = 1.4426950408889634074;
    constexpr double kLn2Hi = 6.93147180369123816490e-01;
    constexpr double kLn2Lo = 1.90821492927058770002e-10;
    constexpr double kRound = 0x1.8p52;  // adding and subtracting it rounds to an integer
    const double xc = std::min(std::max(x, -708.0), 709.0);
    const double k = (xc * kLog2e + kRound) - kRound;
    const double r = (xc - k * kLn2Hi) - k * kLn2Lo;
    double p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    const double biased = k + 1023.0 + 0x1p52;  // mantissa bits hold k + 1023
    uint64_t bits;
    std::memcpy(&bits, &biased, sizeof bits);
    bits <<= 52;
    double scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return p * scale * static_cast<double>(x >= -708.0);
}

}  // namespace libvbmc
