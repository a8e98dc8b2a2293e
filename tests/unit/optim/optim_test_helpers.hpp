// Shared by the optim tests (and bench/climbs): random rotations and rotated quadratics with a
// given spectrum, the climbs' targets (a narrow bowl, a regression's ridge) and a host that asks
// a climb for batches of points.
#pragma once
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "linalg/linalg.hpp"
#include "optim/gradient_climb.hpp"
#include "util/rng.hpp"

namespace optim_test {

using libvbmc::ClimbPoint;
using libvbmc::GradientClimb;
using libvbmc::Matrix;
using libvbmc::Rng;

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

using Target = std::function<double(const double*)>;

// A precision matrix of size n whose SDs run log-evenly from `smallest` to `ratio` times it
// along a random rotation.
inline Matrix rotated_precision(int n, double smallest, double ratio, Rng& rng) {
    const Matrix rotation = random_rotation(n, rng);
    std::vector<double> precision;
    for (int i = 0; i < n; ++i) {
        const double sd = smallest * std::pow(ratio, static_cast<double>(i) / std::max(1, n - 1));
        precision.push_back(1.0 / (sd * sd));
    }
    return with_spectrum(rotation, precision);
}

// -1/2 (z - top)^T P (z - top), P^{-1} with SDs from 1e-4 to 1e-2 along a random rotation.
inline Target narrow_bowl(int n, Rng& rng, std::vector<double>& top) {
    const Matrix p = rotated_precision(n, 1e-4, 100.0, rng);
    top.clear();
    for (int i = 0; i < n; ++i) top.push_back(0.8 * rng.uniform() - 0.4);
    return [p, top](const double* z) {
        std::vector<double> d(top.size());
        for (size_t i = 0; i < d.size(); ++i) d[i] = z[i] - top[i];
        return -model_gain(std::vector<double>(d.size(), 0.0), p, d);
    };
}

// The log likelihood of a linear regression with n = 50 points in its coefficients b (D - 1 of
// them, precision SDs 1e-3 to 1e-2 along a random rotation, times the residual scale) and the log
// of its residual SD s: -n s - (r + (b - b*)^T P (b - b*)) e^{-2s} / 2 with r = 50, top at
// (b*, 0) with value -25. Its curvature in b grows as e^{-2s} falls: a curved ridge.
inline Target regression(int n, Rng& rng, std::vector<double>& top) {
    const int k = n - 1;
    const Matrix p = rotated_precision(k, 1e-3, 10.0, rng);
    top.assign(static_cast<size_t>(n), 0.0);
    for (int i = 0; i < k; ++i) top[static_cast<size_t>(i)] = 0.8 * rng.uniform() - 0.4;
    return [p, top, k](const double* z) {
        std::vector<double> d(static_cast<size_t>(k));
        for (int i = 0; i < k; ++i) d[static_cast<size_t>(i)] = z[i] - top[static_cast<size_t>(i)];
        const double squares = 50.0 + 2.0 * model_gain(std::vector<double>(d.size(), 0.0), p, d);
        return -50.0 * z[k] - 0.5 * squares * std::exp(-2.0 * z[k]);
    };
}

using Points = std::vector<std::vector<double>>;

// The next batch of a host with `width` workers: proposals while the climb has one to give.
inline Points ask_batch(GradientClimb& climb, size_t width) {
    Points batch;
    while (batch.size() < width && climb.has_proposal()) batch.push_back(climb.propose());
    return batch;
}

// Tells a batch, last asked first (the trial after its speculative gradient); the points told
// as steps are appended to `steps`.
inline void tell_batch(GradientClimb& climb, const Target& f, const Points& batch, Points& steps) {
    for (auto p = batch.rbegin(); p != batch.rend(); ++p)
        if (climb.tell(p->data(), f(p->data())) == ClimbPoint::step) steps.push_back(*p);
}

// Batches until the climb stops; returns how many.
inline int run_in_batches(GradientClimb& climb, const Target& f, size_t width, Points& steps) {
    int batches = 0;
    for (Points batch = ask_batch(climb, width); !batch.empty(); batch = ask_batch(climb, width), ++batches)
        tell_batch(climb, f, batch, steps);
    return batches;
}

}  // namespace optim_test
