// Variational posterior (paper section 3.1, eq. 6): a mixture of K Gaussians with a shared
// diagonal scale, q(x) = sum_k w_k N(x; mu_k, sigma_k^2 diag(lambda^2)). Lives in the
// transformed space of the run.
#pragma once
#include <vector>

#include "io/serial.hpp"
#include "linalg/matrix.hpp"
#include "util/rng.hpp"

namespace libvbmc {

struct VariationalPosterior {
    int dim = 0;
    int k = 0;                  // number of components
    std::vector<double> w;      // k weights, sum to 1
    Matrix mu;                  // k x dim component means
    std::vector<double> sigma;  // k component scales
    std::vector<double> lambda; // dim shared per-coordinate scales
    bool optimize_weights = false;  // false during warm-up (equal weights)

    // Packed parameters for optimisation, in this order:
    //   mu (k*dim, row-major), log sigma (k), log lambda (dim), and when optimize_weights,
    //   eta (k) with w = softmax(eta).
    int theta_size() const;
    std::vector<double> get_theta() const;
    void set_theta(const std::vector<double>& theta);  // also renormalises w when present

    // Checkpoint round trip (bitwise).
    void write(Writer& out) const;
    static VariationalPosterior read(Reader& in);
};

// log q(x) at one point.
double vp_log_pdf(const VariationalPosterior& vp, const double* x);

// n draws into out (n x dim); if component != nullptr it receives each draw's component.
void vp_sample(const VariationalPosterior& vp, int n, Rng& rng, Matrix& out,
               std::vector<int>* component = nullptr);

// Mean (dim) and covariance (dim x dim) of the mixture.
void vp_moments(const VariationalPosterior& vp, std::vector<double>& mean, Matrix& cov);

// Symmetrised KL between Gaussians with the moments of a and b ("kl_gauss" in PyVBMC):
// returns {KL(a||b), KL(b||a)}.
std::pair<double, double> vp_kl_gauss(const VariationalPosterior& a, const VariationalPosterior& b);

// The same density with k_new >= vp.k components: component j % vp.k is copied, each component's
// weight shared equally among it and its copies.
VariationalPosterior vp_split_components(const VariationalPosterior& vp, int k_new);

}  // namespace libvbmc
