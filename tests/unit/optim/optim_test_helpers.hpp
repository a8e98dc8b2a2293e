// Shared by the optim tests: random rotations and rotated quadratics with a given spectrum.
#pragma once
#include <cmath>
#include <vector>

#include "linalg/linalg.hpp"
#include "util/rng.hpp"

namespace optim_test {

using libvbmc::Matrix;

// Eigenvectors of a random symmetric matrix: a random orthogonal matrix.
inline Matrix random_rotation(int n, libvbmc::Rng& rng) {
    Matrix a(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) a(i, j) = a(j, i) = rng.normal();
    std::vector<double> values;
    Matrix vectors;
    libvbmc::symmetric_eigen(a, values, vectors);
    return vectors;
}

// R diag(values) R^T.
inline Matrix with_spectrum(const Matrix& rotation, const std::vector<double>& values) {
    const int n = rotation.rows;
    Matrix m(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < n; ++k) m(i, j) += rotation(i, k) * values[static_cast<size_t>(k)] * rotation(j, k);
    return m;
}

// g^T s + 1/2 s^T H s.
inline double model_gain(const std::vector<double>& g, const Matrix& h, const std::vector<double>& s) {
    double gain = 0.0;
    for (size_t i = 0; i < s.size(); ++i) {
        gain += g[i] * s[i];
        for (size_t j = 0; j < s.size(); ++j) gain += 0.5 * s[i] * h(static_cast<int>(i), static_cast<int>(j)) * s[j];
    }
    return gain;
}

inline double norm(const std::vector<double>& v) {
    double total = 0.0;
    for (double x : v) total += x * x;
    return std::sqrt(total);
}

}  // namespace optim_test
