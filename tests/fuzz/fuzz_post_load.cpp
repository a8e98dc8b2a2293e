// libFuzzer target: vbmc_post_load on arbitrary bytes (first byte even: the file as given; odd:
// a posterior payload wrapped in a valid container). A snapshot that loads must answer every call
// (refined draws only for inputs below 16 KB: their surrogate's factorisation grows as its cube).
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "io/file_format.hpp"
#include "vbmc/vbmc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string path = std::string(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + std::string("/vbmc_fuzz_post_") + std::to_string(static_cast<long>(getpid()));
    if (data[0] & 1) {
        libvbmc::write_container(path, libvbmc::FileKind::posterior, std::vector<uint8_t>(data + 1, data + size));
    } else {
        FILE* f = std::fopen(path.c_str(), "wb");
        if (f == nullptr) __builtin_trap();
        if (size > 1 && std::fwrite(data + 1, 1, size - 1, f) != size - 1) __builtin_trap();
        std::fclose(f);
    }
    vbmc_post* post = nullptr;
    const vbmc_status status = vbmc_post_load(&post, path.c_str());
    if (status != VBMC_OK) {
        if (post != nullptr || status != VBMC_E_FORMAT) __builtin_trap();
        return 0;
    }
    const size_t dim = static_cast<size_t>(vbmc_post_dim(post));
    std::vector<double> draws(8 * dim), log_pdf(8), mean(dim), cov(dim * dim);
    double elbo, elbo_sd;
    if (vbmc_post_elbo(post, &elbo, &elbo_sd) != VBMC_OK) __builtin_trap();
    vbmc_post_sample(post, 8, 3, draws.data());
    vbmc_post_log_pdf(post, 8, draws.data(), log_pdf.data());
    if (data[0] & 2) vbmc_post_moments(post, mean.data(), cov.data());  // 1e5 draws when bounded: slow
    if (size < (1 << 14)) {
        vbmc_post_set_refinement(post, 1 + data[size - 1] % 4, 0.3 + 0.1 * (data[size / 2] % 7));
        vbmc_post_sample_refined(post, 2, 5, draws.data());
        vbmc_post_refined_elbo(post, 2, 5, &elbo, &elbo_sd);
    }
    if (vbmc_post_save(post, path.c_str()) != VBMC_OK) __builtin_trap();
    vbmc_post_destroy(post);
    std::remove(path.c_str());
    return 0;
}
