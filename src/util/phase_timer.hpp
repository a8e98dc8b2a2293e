// Time spent in a stretch of the library's own work, measured by a scope: wall-clock seconds
// (std::chrono::steady_clock) and CPU seconds of the whole process (CLOCK_PROCESS_CPUTIME_ID).
// The process clock, not the thread's, because the work of a call can run on OpenBLAS's threads
// too; the price is that other threads of the host busy at the same time are counted as well.
// Reading the clocks changes nothing the algorithm sees.
#pragma once
#include <chrono>
#include <ctime>

namespace libvbmc {

// Seconds accumulated by the scopes of one phase: wall clock and process CPU.
struct Elapsed {
    double wall = 0.0;
    double cpu = 0.0;
};

// Adds the time from its construction to its destruction to an Elapsed (also when the scope is
// left by an exception).
class PhaseTimer {
public:
    explicit PhaseTimer(Elapsed& into) : into_(into), wall_start_(std::chrono::steady_clock::now()), cpu_start_(cpu_now()) {}
    ~PhaseTimer() {
        into_.cpu += cpu_now() - cpu_start_;
        into_.wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
    }
    PhaseTimer(const PhaseTimer&) = delete;
    PhaseTimer& operator=(const PhaseTimer&) = delete;

private:
    static double cpu_now() {
        timespec t{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
    }

    Elapsed& into_;
    std::chrono::steady_clock::time_point wall_start_;
    double cpu_start_;
};

// f(), its time added to into.
template <class F>
auto timed(Elapsed& into, F&& f) -> decltype(f()) {
    const PhaseTimer timer(into);
    return f();
}

}  // namespace libvbmc
