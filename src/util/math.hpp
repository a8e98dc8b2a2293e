// Small numerical helpers shared by all modules.
#pragma once
#include <cmath>
#include <cstddef>

namespace libvbmc {

constexpr double kLog2Pi = 1.8378770664093454835606594728112;

// log(sum_i exp(v[i])) without overflow; -inf for n == 0 or all -inf.
inline double log_sum_exp(const double* v, size_t n) {
    double vmax = -INFINITY;
    for (size_t i = 0; i < n; ++i)
        if (v[i] > vmax) vmax = v[i];
    if (!std::isfinite(vmax)) return vmax;
    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) sum += std::exp(v[i] - vmax);
    return vmax + std::log(sum);
}

}  // namespace libvbmc
