// What rebuilds a surrogate: its training set and hyperparameter samples. The factorisations are
// recomputed by gp_from_samples, so a record is small (N x D inputs, N values and variances, the
// mean's shape, one 3D+3 vector per sample) and a surrogate rebuilt from a saved record is bitwise the one rebuilt
// from the record in memory. Posterior snapshots keep one for refined sampling.
#pragma once
#include <vector>

#include "gp/gp.hpp"
#include "io/serial.hpp"

namespace libvbmc {

struct SurrogateRecord {
    GpData data;
    std::vector<std::vector<double>> thetas;

    Gp build() const { return gp_from_samples(data, thetas); }

    void write(Writer& out) const;
    // Throws Error(format) unless the record holds at least one point and one sample, every
    // size agrees with dim and every value is finite (variances non-negative).
    static SurrogateRecord read(Reader& in, int dim);
};

}  // namespace libvbmc
