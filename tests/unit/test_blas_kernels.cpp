// blas_kernel_advice against the kernel set OpenBLAS was told to run: meson runs this test with
// OPENBLAS_CORETYPE=Prescott (OpenBLAS's fallback on CPUs it does not know) and =Haswell.
#include "linalg/blas_kernels.hpp"

#include <cblas.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "test_util.h"
#include "util/vector_dispatch.hpp"

using namespace libvbmc;

static void test_advice_follows_the_kernels(void**) {
    const char* forced = std::getenv("OPENBLAS_CORETYPE");
    assert_non_null(forced);
    assert_string_equal(openblas_get_corename(), forced);
    const std::string advice = blas_kernel_advice();
    if (std::strcmp(forced, "Prescott") == 0 && cpu_supports(VectorIsa::avx2_fma)) {
        assert_true(advice.find("runs its Prescott kernels") != std::string::npos);
        const char* better = cpu_supports(VectorIsa::avx512) ? "OPENBLAS_CORETYPE=SkylakeX" : "OPENBLAS_CORETYPE=Haswell";
        assert_true(advice.find(better) != std::string::npos);
    } else {
        assert_true(advice.empty());  // AVX2 kernels, or a CPU for which Prescott is right
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_advice_follows_the_kernels)};
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
