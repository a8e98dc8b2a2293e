// compare_climbs: rounds of workers and evaluations that the locating stage's gradient climb
// (src/optim/gradient_climb.cpp) needs in its L-BFGS mode and in its Newton mode, asked for
// batches of `width` points as a host with that many workers asks, to climb the optim unit tests'
// targets: a narrow bowl approached from 10^3-10^4 SDs and a regression's curved ridge
// (tests/unit/optim/optim_test_helpers.hpp), on the same random instances. The locating stage
// runs Newton mode when the workers can take its design in two rounds (run/locate_step.cpp);
// bench/RESULTS.md, "A parallel Newton climb", holds the numbers.
//
//   compare_climbs --dim D --target bowl|ridge --instances K --width W
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "optim_test_helpers.hpp"

using namespace libvbmc;
using namespace optim_test;

namespace {

constexpr double kCrawlGain = 1.0;

struct Climbed {
    int rounds = 0, evaluations = 0;
    double best = 0.0;
};

Climbed climb_in_batches(const Target& f, const std::vector<double>& start, int width, bool newton) {
    const double value = f(start.data());
    GradientClimb climb(static_cast<int>(start.size()), GradientClimbSettings{kCrawlGain, 100000, newton}, start.data(), value);
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
        const Climbed c = climb_in_batches(f, start, width, false), nt = climb_in_batches(f, start, width, true);
        newton_lower += nt.best < c.best - kCrawlGain;
        climb_lower += c.best < nt.best - kCrawlGain;
        total_climb.rounds += c.rounds, total_climb.evaluations += c.evaluations;
        total_newton.rounds += nt.rounds, total_newton.evaluations += nt.evaluations;
        std::printf("instance %2d  start %10.4g | L-BFGS mode: top %10.4g, %4d evaluations, %3d rounds | "
                    "Newton mode: top %10.4g, %4d evaluations, %3d rounds\n",
                    instance, f(start.data()), c.best, c.evaluations, c.rounds, nt.best, nt.evaluations, nt.rounds);
    }
    std::printf("D = %d, %s, %d workers, %d instances: L-BFGS mode %.1f rounds and %.1f evaluations per "
                "instance, Newton mode %.1f and %.1f; ends more than 1 below the other: L-BFGS %d, Newton %d\n",
                dim, target.c_str(), width, instances, static_cast<double>(total_climb.rounds) / instances,
                static_cast<double>(total_climb.evaluations) / instances, static_cast<double>(total_newton.rounds) / instances,
                static_cast<double>(total_newton.evaluations) / instances, climb_lower, newton_lower);
    return 0;
}
