// Gaussian-process surrogate of the log joint (paper section 3.2, eq. 7):
// squared-exponential ARD kernel, Gaussian observation noise, negative-quadratic mean or its
// heavy-tailed variant (gp/mean_function.hpp).
//
// Hyperparameter vector theta (length 3D+3), the layout of gpyreg's GP:
//   theta[0 .. D)        log ell_d     input length scales of the kernel
//   theta[D]             log sf        output scale, k(x,x') = sf^2 exp(-1/2 sum_d (x_d-x'_d)^2/ell_d^2)
//   theta[D+1]           log sn        observation noise SD (added to each point's own variance s2_i)
//   theta[D+2]           m0            maximum of the mean function
//   theta[D+3 .. 2D+3)   xm_d          location of the maximum
//   theta[2D+3 .. 3D+3)  log omega_d   length scales of the mean, m(x) = m0 - 1/2 sum_d ((x_d-xm_d)/omega_d)^2
//                                      (or m0 + sum_d rho(z_d) with heavy tails: GpData::mean_dof)
#pragma once
#include <cmath>
#include <cstddef>
#include <vector>

#include "gp/mean_function.hpp"
#include "linalg/matrix.hpp"
#include "util/vector_dispatch.hpp"

namespace libvbmc {

namespace hyp {
inline int count(int dim) { return 3 * dim + 3; }
inline int log_ell(int d) { return d; }
inline int log_sf(int dim) { return dim; }
inline int log_sn(int dim) { return dim + 1; }
inline int m0(int dim) { return dim + 2; }
inline int xm(int dim, int d) { return dim + 3 + d; }
inline int log_omega(int dim, int d) { return 2 * dim + 3 + d; }
}  // namespace hyp

// Training set of the surrogate, in the transformed (unbounded, standardised) space, and the
// shape of the prior mean it is fitted with.
struct GpData {
    Matrix x;                // n x D
    std::vector<double> y;   // n log-joint values
    std::vector<double> s2;  // n user-supplied noise variances (0 for exact evaluations)
    double mean_dof = 0.0;   // the mean's tails (gp/mean_function.hpp): 0 quadratic, nu > 0 heavy
    int size() const { return x.rows; }
};

// The GP posterior under one hyperparameter vector: K + diag(sn^2 + s2_i) = L L^T.
struct GpSample {
    std::vector<double> theta;
    Matrix chol;                 // n x n lower Cholesky factor (jitter included if any was needed)
    std::vector<double> alpha;   // (K + N)^{-1} (y - m(X))
};

// A surrogate: training data and equally weighted hyperparameter samples (eq. 10).
struct Gp {
    int dim = 0;
    GpData data;
    std::vector<GpSample> samples;
};

// The GP's own noise variance sn^2 = exp(2 theta[log_sn]) (the hyperparameter; paper eq. 7).
inline double gp_sn2(const double* theta, int dim) { return std::exp(2.0 * theta[hyp::log_sn(dim)]); }

// Total observation noise variance of training point i, the diagonal N of K + N: the GP's sn2
// plus the point's own variance s2_i (told SD^2 plus any noise shaping; run/surrogate_values.hpp).
// The one place noise variances are assembled (posterior, marginal likelihood, rank-1 update,
// noise estimate).
inline double gp_noise_variance(const GpData& data, double sn2, int i) {
    return sn2 + (data.s2.empty() ? 0.0 : data.s2[static_cast<size_t>(i)]);
}

// Kernel k(x1, x2) for hyperparameters theta (the mean m(x) is gp/mean_function.hpp's gp_mean).
double gp_kernel(const double* x1, const double* x2, const double* theta, int dim);

// Cross-covariance matrix k(x_i, xs_j), x.rows x xs.rows; the second form writes it into k,
// reusing k's storage.
Matrix gp_cross_kernel(const Matrix& x, const Matrix& xs, const double* theta, int dim);
void gp_cross_kernel(const Matrix& x, const Matrix& xs, const double* theta, int dim, Matrix& k);

// One row of an SE kernel matrix for inputs already divided by the length scales:
// out[j] = exp(log_sf2 - 1/2 sum_d (a_d - b[d * stride + j])^2), j < m, with the second set of
// points stored coordinate-major (row d of b holds coordinate d, row length stride >= m).
// Vectorised (exp_fast) by the copy for this CPU; every copy gives bitwise the same values, and so
// does any block of the row (each entry is the same sequence of operations wherever it falls).
void gp_kernel_row(const double* a, const double* b_by_dim, int stride, int dim, int m, double log_sf2,
                   double* out);
// The same with the copy for isa (which the CPU must support): for the tests.
void gp_kernel_row_on(VectorIsa isa, const double* a, const double* b_by_dim, int stride, int dim, int m,
                      double log_sf2, double* out);

// Strict lower triangle (j < i) of the SE kernel matrix of the rows of z (inputs already divided
// by the length scales), written into k (n x n, resized if needed); the rest of k is untouched.
void gp_kernel_lower(const Matrix& z, double log_sf2, Matrix& k);

// Factorise the posterior for theta. Throws Error(numeric) if the covariance cannot be factorised.
GpSample gp_posterior(const GpData& data, const std::vector<double>& theta);

// A surrogate on `data` with the given hyperparameter samples (each factorised by gp_posterior).
Gp gp_from_samples(GpData data, const std::vector<std::vector<double>>& thetas);

// Latent variance of one sample (output scale sf2) at m points from their cross-covariance
// kstar = k(X, xs) (n x m), which is overwritten by L^{-1} kstar. f_var receives m values.
void gp_latent_variance(const GpSample& sample, double sf2, Matrix& kstar, double* f_var);

// Eq. 10 over ns samples at m points: means and vars are ns x m (row si = sample si);
// f_mean, f_var receive m values.
void gp_average_samples(size_t ns, size_t m, const double* means, const double* vars, double* f_mean,
                        double* f_var);

// Latent posterior mean and variance (no observation noise) at the rows of xs, one sample.
void gp_predict_sample(const GpData& data, const GpSample& sample, const Matrix& xs,
                       double* f_mean, double* f_var);

// Predictions averaged over the samples (eq. 10): mean of means; mean of variances plus the
// sample variance of the means. f_mean, f_var are resized to xs.rows.
void gp_predict(const Gp& gp, const Matrix& xs, std::vector<double>& f_mean,
                std::vector<double>& f_var);

// Largest posterior latent mean (averaged over the samples, eq. 10) at the training inputs: a
// best value robust to noise in the training values.
double gp_max_training_mean(const Gp& gp);

// Log marginal likelihood log p(y | X, theta) and, if grad != nullptr, its gradient in theta
// (resized to 3D+3). Returns -inf if the covariance cannot be factorised.
double gp_log_marginal_likelihood(const GpData& data, const std::vector<double>& theta,
                                  std::vector<double>* grad);

// The least conditional variance, relative to k(x, x) plus the point's noise, that a new point may
// have for the Cholesky factor to be extended instead of refactorised (gp_add_point, gp_add_points).
constexpr double kMinRelativeConditionalVariance = 1e-12;

// Add one observation to the surrogate and update every sample's factor by a rank-1 extension
// of the Cholesky factor (hyperparameters unchanged).
void gp_add_point(Gp& gp, const double* x, double y, double s2);

}  // namespace libvbmc
