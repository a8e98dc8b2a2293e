// A posterior snapshot in the user's original space: the variational mixture (transformed
// space) together with the parameter transform and the ELBO it came with.
// Densities include the transform's Jacobian: log p_x(x) = log q_z(z(x)) - log |dx/dz|.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "io/serial.hpp"
#include "transforms/parameter_transform.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

struct PosteriorSnapshot {
    VariationalPosterior vp;
    ParameterTransform transform;
    double elbo = NAN;
    double elbo_sd = NAN;

    // n draws into x (n x dim, row-major), reproducible for a given seed; when component is not
    // null, component[i] receives the mixture component draw i came from (the draws are the same).
    void sample(size_t n, uint64_t seed, double* x, int* component = nullptr) const;
    // log density at one point of the original space (-inf outside the hard bounds).
    double log_pdf(const double* x) const;
    // Mean and covariance in the original space: exact when the transform is affine in every
    // coordinate, else from 100000 draws of a fixed seed.
    void moments(std::vector<double>& mean, Matrix& cov) const;

    void write(Writer& out) const;
    static PosteriorSnapshot read(Reader& in);
};

}  // namespace libvbmc
