// exp(x) written so that loops over it vectorise (no calls, no branches, no floating-point
// comparisons, which GCC will not if-convert under -ftrapping-math): the GP kernel evaluates
// millions of exponentials per acquisition. Range reduction x = k ln2 + r with a two-part ln2
// (Cody-Waite), |r| <= ln2/2; Taylor polynomial of degree 13 (truncation error < 1e-17
// relative, evaluated by Estrin's scheme); 2^k assembled in the exponent bits. Accurate to
// 2 ulp for -708 <= x <= 709; returns +0 below -708 (and for -inf), exp(709) above 709 (and
// for +inf), NaN for NaN. The clamps compare the IEEE bit patterns as integers.
// The multiply-adds are explicit fused ones (std::fma): callers are compiled per instruction set
// (util/vector_dispatch.hpp), where they are single instructions; on a CPU without FMA the
// baseline copy calls the library's correctly rounded fma, so every copy gives the same values.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace libvbmc {

inline double exp_fast(double x) {
    constexpr double kLog2e = 1.4426950408889634074;
    constexpr double kLn2Hi = 6.93147180369123816490e-01;
    constexpr double kLn2Lo = 1.90821492927058770002e-10;
    constexpr double kRound = 0x1.8p52;  // adding and subtracting it rounds to an integer
    constexpr int64_t kMinBits = INT64_C(-4573933187176071168);  // bit pattern of -708.0
    constexpr int64_t kMaxBits = INT64_C(4649447645771726848);   // bit pattern of 709.0
    constexpr int64_t kInfBits = INT64_C(0x7FF0000000000000);
    int64_t x_bits;
    std::memcpy(&x_bits, &x, sizeof x_bits);
    // All-ones masks. Negative doubles order like their bit patterns read as signed integers,
    // reversed: x < -708 exactly when the (negative) pattern exceeds that of -708.
    const int64_t below = -static_cast<int64_t>((x_bits > kMinBits) & (x_bits < 0));
    const int64_t above = -static_cast<int64_t>(x_bits > kMaxBits);
    const int64_t nan = -static_cast<int64_t>((x_bits & INT64_MAX) > kInfBits);
    const int64_t clamped_bits = (x_bits & ~below & ~above) | (kMinBits & below) | (kMaxBits & above);
    double xc;
    std::memcpy(&xc, &clamped_bits, sizeof xc);
    const double k = std::fma(xc, kLog2e, kRound) - kRound;
    const double r = std::fma(-k, kLn2Lo, std::fma(-k, kLn2Hi, xc));
    // Estrin's scheme: the same polynomial in four levels of independent products instead of
    // Horner's chain of 13 dependent ones, so consecutive elements overlap in the pipeline.
    const double r2 = r * r;
    const double r4 = r2 * r2;
    const double r8 = r4 * r4;
    const double q0 = 1.0 + r;
    const double q1 = std::fma(r, 1.0 / 6.0, 0.5);
    const double q2 = std::fma(r, 1.0 / 120.0, 1.0 / 24.0);
    const double q3 = std::fma(r, 1.0 / 5040.0, 1.0 / 720.0);
    const double q4 = std::fma(r, 1.0 / 362880.0, 1.0 / 40320.0);
    const double q5 = std::fma(r, 1.0 / 39916800.0, 1.0 / 3628800.0);
    const double q6 = std::fma(r, 1.0 / 6227020800.0, 1.0 / 479001600.0);
    const double s0 = std::fma(r2, q1, q0);
    const double s1 = std::fma(r2, q3, q2);
    const double s2 = std::fma(r2, q5, q4);
    const double p = std::fma(r8, std::fma(r4, q6, s2), std::fma(r4, s1, s0));
    const double biased = k + 1023.0 + 0x1p52;  // mantissa bits hold k + 1023
    uint64_t scale_bits;
    std::memcpy(&scale_bits, &biased, sizeof scale_bits);
    scale_bits <<= 52;
    double scale;
    std::memcpy(&scale, &scale_bits, sizeof scale);
    const double value = p * scale;
    int64_t value_bits;
    std::memcpy(&value_bits, &value, sizeof value_bits);
    value_bits = (value_bits & ~below & ~nan) | (x_bits & nan);
    double out;
    std::memcpy(&out, &value_bits, sizeof out);
    return out;
}

}  // namespace libvbmc
