// Variational posterior (paper section 3.1, eq. 6): a mixture of K Gaussians with a shared
// diagonal scale, q(x) = sum_k w_k N(x; mu_k, sigma_k^2 diag(lambda^2)), or, with component
// scales, a diagonal scale per component, q(x) = sum_k w_k N(x; mu_k, sigma_k^2 diag(lambda_k^2)).
// Lives in the transformed space of the run.
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
    bool component_scales = false;  // one lambda row per component instead of one shared row
    std::vector<double> lambda; // per-coordinate scales: dim shared, or k x dim row-major
    bool optimize_weights = false;  // false during warm-up (equal weights)

    int lambda_rows() const { return component_scales ? k : 1; }
    // Position of lambda_{j,d} (component j's scale of coordinate d) in lambda.
    int lambda_index(int j, int d) const { return (component_scales ? j * dim : 0) + d; }
    double lambda_of(int j, int d) const { return lambda[static_cast<size_t>(lambda_index(j, d))]; }

    // Packed parameters for optimisation, in this order:
    //   mu (k*dim, row-major), log sigma (k), log lambda (lambda_rows()*dim), and when
    //   optimize_weights, eta (k) with w = softmax(eta).
    int sigma_offset() const { return k * dim; }
    int lambda_offset() const { return k * dim + k; }
    int eta_offset() const { return lambda_offset() + lambda_rows() * dim; }
    int theta_size() const;
    std::vector<double> get_theta() const;
    void set_theta(const std::vector<double>& theta);  // also renormalises w when present

    // Checkpoint round trip (bitwise).
    void write(Writer& out) const;
    static VariationalPosterior read(Reader& in);
};

// log q(x) at one point.
double vp_log_pdf(const VariationalPosterior& vp, const double* x);
// log q(x) and its gradient in x, into grad[dim].
double vp_log_pdf_gradient(const VariationalPosterior& vp, const double* x, double* grad);

// n draws into out (n x dim); if component != nullptr it receives each draw's component.
void vp_sample(const VariationalPosterior& vp, int n, Rng& rng, Matrix& out,
               std::vector<int>* component = nullptr);

// Per component k the variances (sigma_k lambda_kd)^2 of its coordinates, k x dim.
Matrix vp_component_variances(const VariationalPosterior& vp);

// Mean (dim) and covariance (dim x dim) of the mixture.
void vp_moments(const VariationalPosterior& vp, std::vector<double>& mean, Matrix& cov);

// Symmetrised KL between Gaussians with the moments of a and b ("kl_gauss" in PyVBMC):
// returns {KL(a||b), KL(b||a)}.
std::pair<double, double> vp_kl_gauss(const VariationalPosterior& a, const VariationalPosterior& b);

// The same density with a diagonal scale per component (each a copy of the shared one).
VariationalPosterior vp_with_component_scales(const VariationalPosterior& vp);

// Remove component j, renormalising the weights.
VariationalPosterior vp_without_component(const VariationalPosterior& vp, int j);

// The same density with k_new >= vp.k components: component j % vp.k is copied, each component's
// weight shared equally among it and its copies.
VariationalPosterior vp_split_components(const VariationalPosterior& vp, int k_new);

}  // namespace libvbmc
