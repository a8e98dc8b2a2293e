// Which kernels OpenBLAS runs, and a hint when they are slower than the CPU allows.
#pragma once
#include <string>

namespace libvbmc {

// A sentence for the log when OpenBLAS runs its pre-AVX2 kernels on a CPU with AVX2 and FMA (as
// OpenBLAS 0.3.21 does on CPUs newer than it, falling back to "Prescott"); empty otherwise.
// The GP's Cholesky factorisations then take up to 3.4 times longer (n = 2000; bench/RESULTS.md,
// "Scaling").
std::string blas_kernel_advice();

}  // namespace libvbmc
