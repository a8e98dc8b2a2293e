// Kernels that use fused multiply-adds (std::fma, e.g. through exp_fast) are compiled three
// times from one always-inline body: for AVX-512, for AVX2 with FMA, and for the baseline, where
// std::fma is the C library's correctly rounded function. The copy for the CPU is chosen once per
// process (best_vector_isa); tests run each copy the CPU supports. target_clones
// (util/vector_clones.hpp) cannot express "AVX2 and FMA" in one clone, and an AVX2 clone without
// FMA would turn each std::fma into a library call.
// The engine is compiled with -ffp-contract=off, so no copy fuses anything that is not written
// as std::fma, and all three give bitwise the same values.
#pragma once

#define VBMC_KERNEL_BODY __attribute__((always_inline)) inline
#define VBMC_TARGET_AVX512 __attribute__((target("avx512f")))
#define VBMC_TARGET_AVX2_FMA __attribute__((target("avx2,fma")))

namespace libvbmc {

enum class VectorIsa { avx512, avx2_fma, baseline };

// Whether this CPU (and its operating system) can run the copy compiled for isa.
inline bool cpu_supports(VectorIsa isa) {
    __builtin_cpu_init();
    switch (isa) {
        case VectorIsa::avx512: return __builtin_cpu_supports("avx512f");
        case VectorIsa::avx2_fma: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        case VectorIsa::baseline: return true;
    }
    return false;
}

// The fastest copy this CPU can run.
inline VectorIsa best_vector_isa() {
    static const VectorIsa best = cpu_supports(VectorIsa::avx512)   ? VectorIsa::avx512
                                  : cpu_supports(VectorIsa::avx2_fma) ? VectorIsa::avx2_fma
                                                                      : VectorIsa::baseline;
    return best;
}

// The one of a kernel's three copies compiled for isa.
template <typename Fn>
Fn select_kernel(VectorIsa isa, Fn avx512, Fn avx2_fma, Fn baseline) {
    switch (isa) {
        case VectorIsa::avx512: return avx512;
        case VectorIsa::avx2_fma: return avx2_fma;
        case VectorIsa::baseline: return baseline;
    }
    return baseline;
}

}  // namespace libvbmc
