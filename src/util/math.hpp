// Small numerical helpers shared by all modules.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

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

// The median of v (not empty): the middle value, the upper of the two middle ones for an even count.
inline double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

}  // namespace libvbmc
