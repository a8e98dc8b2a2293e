/* Seconds on a clock (CLOCK_MONOTONIC for wall time, CLOCK_PROCESS_CPUTIME_ID for CPU time), for
 * the bench programs' timings. */
#ifndef VBMC_BENCH_CLOCK_H
#define VBMC_BENCH_CLOCK_H

#include <time.h>

static inline double bench_seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
