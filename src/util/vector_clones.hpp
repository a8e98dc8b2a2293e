// Function multiversioning for the vectorised loops: an AVX-512 clone, an AVX2 clone and the
// baseline, chosen at load time for the CPU. The engine is compiled with -ffp-contract=off, so
// the clones perform the same floating-point operations and give bitwise the same values.
#pragma once

#if defined(__SANITIZE_THREAD__)
// ThreadSanitizer instruments the clones' resolvers, which the loader runs before it is set up,
// so a ThreadSanitizer build has the baseline only.
#define VBMC_VECTOR_CLONES
#else
#define VBMC_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
