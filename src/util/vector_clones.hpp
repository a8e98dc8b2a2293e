// Function multiversioning for the vectorised loops: an AVX-512 clone, an AVX2 clone and the
// baseline, chosen at load time for the CPU. The engine is compiled with -ffp-contract=off, so
// the clones perform the same floating-point operations and give bitwise the same values.
#pragma once

#define VBMC_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
