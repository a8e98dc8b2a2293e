// compare_climbs: rounds of workers and evaluations that the locating stage's gradient climb
// (src/optim/gradient_climb.cpp, asked for batches of `width` points as a host with that many
// workers asks) and a prototype parallel Newton climb need to climb the unit tests' targets: a
// narrow bowl approached from 10^3-10^4 SDs and a regression's curved ridge
// (tests/unit/optim/optim_test_helpers.hpp), on the same random instances. An experiment for
// issue 22 (bench/RESULTS.md, "A parallel Newton climb"), not a library feature.
//
// The prototype, per iteration at centre c: a finite-difference gradient and Hessian from the
// D + D(D+1)/2 points c + h e_i and c + h e_i + h e_j (i <= j), h = 1e-4 max(1, |c_i|), the
// gradient's forward differences corrected by -h H_ii / 2 (exact on a quadratic), asked
// `width` at a time; then one round of up to min(width, 10) steps t d along the Newton direction
// d = A^-1 g of A = -H with its eigenvalues made positive (|lambda|, at least 1e-8 of the largest)
// and |d| capped at 1, t in 1, 2, 4, 1/2, 1/4, ... (|t d| <= 4); the best step that rises is
// the next centre. It stops when no step rises, or when a step gained less than 1 and the
// model promised less than 1 (the gradient climb's crawl threshold).
//
//   compare_climbs --dim D --target bowl|ridge --instances K --width W
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "linalg/linalg.hpp"
#include "optim_test_helpers.hpp"

using namespace libvbmc;
using namespace optim_test;

namespace {

constexpr double kDifferenceStep = 1e-4;
constexpr int kLineSteps = 10;
constexpr double kMaxDirection = 1.0, kMaxStep = 4.0, kCrawlGain = 1.0;

struct Climbed {
    int rounds = 0, evaluations = 0;
    double best = 0.0;
};

int rounds_for(int points, int width) { return (points + width - 1) / width; }

// The Newton direction A^-1 g of A = -H made positive definite, and the model's gain g^T d / 2.
std::vector<double> newton_direction(const Matrix& a, const std::vector<double>& g, double& promise) {
    const int n = a.rows;
    std::vector<double> values;
    Matrix vectors;
    symmetric_eigen(a, values, vectors);
    double largest = 0.0;
    for (double v : values) largest = std::max(largest, std::fabs(v));
    std::vector<double> d(static_cast<size_t>(n), 0.0);
    promise = 0.0;
    for (int k = 0; k < n; ++k) {
        const double lambda = largest > 0.0 ? std::max(std::fabs(values[static_cast<size_t>(k)]), 1e-8 * largest) : 1.0;
        double projection = 0.0;
        for (int i = 0; i < n; ++i) projection += vectors(i, k) * g[static_cast<size_t>(i)];
        promise += 0.5 * projection * projection / lambda;
        for (int i = 0; i < n; ++i) d[static_cast<size_t>(i)] += vectors(i, k) * projection / lambda;
    }
    return d;
}

Climbed newton_climb(const Target& f, std::vector<double> c, int width) {
    const int n = static_cast<int>(c.size());
    Climbed out;
    double fc = f(c.data());
    out.best = fc;
    for (int iteration = 0; iteration < 1000; ++iteration) {
        std::vector<double> h(static_cast<size_t>(n)), f1(h);
        for (int i = 0; i < n; ++i) h[static_cast<size_t>(i)] = kDifferenceStep * std::max(1.0, std::fabs(c[static_cast<size_t>(i)]));
        Matrix f2(n, n), a(n, n);
        for (int i = 0; i < n; ++i) {
            std::vector<double> p = c;
            p[static_cast<size_t>(i)] += h[static_cast<size_t>(i)];
            f1[static_cast<size_t>(i)] = f(p.data());
            for (int j = i; j < n; ++j) {
                std::vector<double> q = p;
                q[static_cast<size_t>(j)] += h[static_cast<size_t>(j)];
                f2(i, j) = f2(j, i) = f(q.data());
            }
        }
        const int design = n + n * (n + 1) / 2;
        out.evaluations += design;
        out.rounds += rounds_for(design, width);
        std::vector<double> g(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                a(i, j) = -(f2(i, j) - f1[static_cast<size_t>(i)] - f1[static_cast<size_t>(j)] + fc) / (h[static_cast<size_t>(i)] * h[static_cast<size_t>(j)]);
        for (int i = 0; i < n; ++i)
            g[static_cast<size_t>(i)] = (f1[static_cast<size_t>(i)] - fc) / h[static_cast<size_t>(i)] + 0.5 * h[static_cast<size_t>(i)] * a(i, i);
        double promise = 0.0;
        const std::vector<double> d = newton_direction(a, g, promise);
        const double length = norm(d);
        if (!(length > 0.0) || !std::isfinite(length)) break;
        const double first = std::min(1.0, kMaxDirection / length);
        const int steps = std::min(width, kLineSteps);
        out.evaluations += steps;
        out.rounds += 1;
        double best = fc;
        std::vector<double> best_point;
        for (int k = 0; k < steps; ++k) {
            const double t = first * std::pow(2.0, k < 3 ? k : 2 - k);  // 1, 2, 4, 1/2, 1/4, ...
            if (t * length > kMaxStep) continue;
            std::vector<double> p = c;
            for (int i = 0; i < n; ++i) p[static_cast<size_t>(i)] += t * d[static_cast<size_t>(i)];
            const double value = f(p.data());
            if (std::isfinite(value) && value > best) best = value, best_point = p;
        }
        if (best_point.empty()) break;
        const double gain = best - fc;
        c = best_point;
        fc = best;
        out.best = fc;
        if (gain < kCrawlGain && promise < kCrawlGain) break;
    }
    return out;
}

Climbed gradient_climb(const Target& f, const std::vector<double>& start, int width) {
    const double value = f(start.data());
    GradientClimb climb(static_cast<int>(start.size()), GradientClimbSettings{kCrawlGain, 100000}, start.data(), value);
    Points steps;
    Climbed out;
    out.rounds = run_in_batches(climb, f, static_cast<size_t>(width), steps);
    out.evaluations = climb.evaluations();
    out.best = value;
    for (const std::vector<double>& p : steps) out.best = std::max(out.best, f(p.data()));
    return out;
}

int usage() {
    std::fprintf(stderr, "usage: compare_climbs --dim D --target bowl|ridge --instances K --width W\n");
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    int dim = 6, instances = 20, width = 16;
    std::string target = "bowl";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--dim")) dim = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--target")) target = argv[i + 1];
        else if (!std::strcmp(argv[i], "--instances")) instances = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--width")) width = std::atoi(argv[i + 1]);
        else return usage();
    }
    if (argc % 2 == 0 || dim < 2 || instances < 1 || width < 1 || (target != "bowl" && target != "ridge")) return usage();
    const int kind = target == "bowl" ? 0 : 1;
    Climbed total_climb, total_newton;
    int newton_lower = 0, climb_lower = 0;
    for (int instance = 1; instance <= instances; ++instance) {
        Rng rng(static_cast<uint64_t>(1000 * instance + dim + 10 * kind));
        std::vector<double> top;
        const Target f = kind == 0 ? narrow_bowl(dim, rng, top) : regression(dim, rng, top);
        std::vector<double> start(static_cast<size_t>(dim), 0.0);
        start.back() = kind == 0 ? 0.0 : 1.0;
        const Climbed c = gradient_climb(f, start, width), nt = newton_climb(f, start, width);
        newton_lower += nt.best < c.best - kCrawlGain;
        climb_lower += c.best < nt.best - kCrawlGain;
        total_climb.rounds += c.rounds, total_climb.evaluations += c.evaluations;
        total_newton.rounds += nt.rounds, total_newton.evaluations += nt.evaluations;
        std::printf("instance %2d  start %10.4g | gradient climb: top %10.4g, %4d evaluations, %3d rounds | "
                    "Newton: top %10.4g, %4d evaluations, %3d rounds\n",
                    instance, f(start.data()), c.best, c.evaluations, c.rounds, nt.best, nt.evaluations, nt.rounds);
    }
    std::printf("D = %d, %s, %d workers, %d instances: gradient climb %.1f rounds and %.1f evaluations per "
                "instance, Newton %.1f and %.1f; ends more than 1 below the other: climb %d, Newton %d\n",
                dim, target.c_str(), width, instances, static_cast<double>(total_climb.rounds) / instances,
                static_cast<double>(total_climb.evaluations) / instances, static_cast<double>(total_newton.rounds) / instances,
                static_cast<double>(total_newton.evaluations) / instances, climb_lower, newton_lower);
    return 0;
}
