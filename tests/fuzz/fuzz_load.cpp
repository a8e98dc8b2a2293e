// libFuzzer target: vbmc_load on arbitrary bytes. The first byte chooses how the rest is used:
// even = the whole file as given; odd = a checkpoint payload, wrapped in a valid container
// (magic, version, length, CRC-32) so that mutations reach the payload reader past the checksum.
// A run that loads must answer every call and save again.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "io/file_format.hpp"
#include "vbmc/vbmc.h"

namespace {
// On tmpfs when there is one: the library syncs every file it writes.
std::string scratch_path(const char* kind) {
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(dir) + "/vbmc_fuzz_" + kind + "_" + std::to_string(static_cast<long>(getpid()));
}

void write_file(const std::string& path, const uint8_t* data, size_t size) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) __builtin_trap();
    if (size > 0 && std::fwrite(data, 1, size, f) != size) __builtin_trap();
    std::fclose(f);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string path = scratch_path("load");
    if (data[0] & 1) {
        libvbmc::write_container(path, libvbmc::FileKind::checkpoint, std::vector<uint8_t>(data + 1, data + size));
    } else {
        write_file(path, data + 1, size - 1);
    }
    vbmc* run = nullptr;
    const vbmc_status status = vbmc_load(&run, path.c_str());
    if (status != VBMC_OK) {
        if (run != nullptr || status != VBMC_E_FORMAT) __builtin_trap();
        return 0;
    }
    const int dim = vbmc_dim(run);
    std::vector<double> x(static_cast<size_t>(dim));
    double value;
    for (const char* name : {"iteration", "func_count", "failed_count", "pending", "elbo", "finished"})
        if (vbmc_stat(run, name, &value) != VBMC_OK) __builtin_trap();
    if (vbmc_stat(run, "pending", &value) == VBMC_OK && value > 0) vbmc_pending_point(run, 0, x.data());
    vbmc_post* post = nullptr;
    if (vbmc_posterior(run, &post) == VBMC_OK) {
        double mean[VBMC_MAX_DIM];
        vbmc_post_moments(post, mean, nullptr);
        vbmc_post_sample(post, 4, 1, std::vector<double>(4 * static_cast<size_t>(dim)).data());
        vbmc_post_destroy(post);
    }
    if (vbmc_save(run, path.c_str()) != VBMC_OK) __builtin_trap();
    vbmc_destroy(run);
    std::remove(path.c_str());
    return 0;
}
