/* A small deterministic generator for the benchmark programs (xoshiro256** seeded through
 * splitmix64): the starting points and the importance-sampling check depend only on the seed. */
#ifndef VBMC_BENCH_RNG_H
#define VBMC_BENCH_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct bench_rng {
    uint64_t state[4];
    double spare_normal; /* the second draw of the last Box-Muller pair */
    int has_spare;
} bench_rng;

static inline uint64_t bench_splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline void bench_rng_seed(bench_rng *rng, uint64_t seed) {
    for (int i = 0; i < 4; ++i) rng->state[i] = bench_splitmix64(&seed);
    rng->spare_normal = 0.0;
    rng->has_spare = 0;
}

static inline uint64_t bench_rng_next(bench_rng *rng) {
    uint64_t *s = rng->state;
    const uint64_t x = s[1] * 5;
    const uint64_t result = ((x << 7) | (x >> 57)) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* Uniform in the open interval (0, 1). */
static inline double bench_rng_uniform(bench_rng *rng) {
    return ((double)(bench_rng_next(rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Standard normal by Box-Muller, using both draws of each pair. */
static inline double bench_rng_normal(bench_rng *rng) {
    if (rng->has_spare) {
        rng->has_spare = 0;
        return rng->spare_normal;
    }
    const double radius = sqrt(-2.0 * log(bench_rng_uniform(rng)));
    const double angle = 6.283185307179586476925286766559 * bench_rng_uniform(rng);
    rng->spare_normal = radius * sin(angle);
    rng->has_spare = 1;
    return radius * cos(angle);
}

#endif
