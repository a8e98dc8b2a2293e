// Seeded pseudo-random generator owned by each run (xoshiro256**, seeded through splitmix64).
// Its whole state is four 64-bit words, so it is saved in checkpoints and restored bitwise.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace libvbmc {

class Rng {
public:
    explicit Rng(uint64_t seed = 0) { reseed(seed); }
    void reseed(uint64_t seed);

    uint64_t next_u64();
    // Uniform on the open interval (0, 1).
    double uniform();
    // Standard normal (Box-Muller; no cached second value, so the state is the four words).
    double normal();
    // n standard normals into out, both values of each Box-Muller pair used (half the work of
    // n calls of normal(); a different stream). Nothing is carried over to the next call.
    void normals(double* out, size_t n);
    // Uniform integer in [0, n).
    uint64_t below(uint64_t n);

    std::array<uint64_t, 4> state() const { return s_; }
    void set_state(const std::array<uint64_t, 4>& s) { s_ = s; }

private:
    std::array<uint64_t, 4> s_{};
};

}  // namespace libvbmc
