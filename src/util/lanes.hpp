// Eight doubles operated on together (a GCC vector extension); each target clone lowers them to
// its own registers (one AVX-512 register, two AVX2 or four SSE2 ones). Lane l of a sum over a
// loop's elements holds the elements l, l + 8, ...; lanes_total combines them in one fixed order,
// so a sum is the same on every CPU.
#pragma once

#include <cstring>

namespace libvbmc {

typedef double Lanes __attribute__((vector_size(64)));
constexpr int kLanes = 8;

__attribute__((always_inline)) inline void load(Lanes& v, const double* p) { std::memcpy(&v, p, sizeof v); }

__attribute__((always_inline)) inline void store(double* p, const Lanes& v) { std::memcpy(p, &v, sizeof v); }

// The elements of a loop of count that whole groups of kLanes cover.
inline int lanes_part(int count) { return count - count % kLanes; }

__attribute__((always_inline)) inline double lanes_total(const Lanes& v) {
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

}  // namespace libvbmc
