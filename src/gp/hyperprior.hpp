// Bounds, plausible box, starting point and priors of the GP hyperparameters, set empirically
// from the current training set as PyVBMC does (gaussian_process_train._gp_hyp, with the
// recommended bounds of gpyreg GP.get_recommended_bounds / get_bounds_info), and the log prior
// with its gradient (gpyreg GP.__compute_log_priors).
#pragma once
#include <cmath>
#include <vector>

#include "gp/gp.hpp"

namespace libvbmc {

// One-dimensional hyperprior. `uniform` is flat (its support is given by the bounds).
enum class PriorKind { uniform, gaussian, student_t, smoothbox, smoothbox_student_t };

struct HyperPrior {
    PriorKind kind = PriorKind::uniform;
    double mu = 0.0;     // location (gaussian, student_t)
    double sigma = 1.0;  // scale (all but uniform)
    double df = 3.0;     // degrees of freedom (student_t, smoothbox_student_t)
    double a = 0.0;      // flat region [a, b] (smoothbox kinds)
    double b = 0.0;
};

// Log density of the prior at x (normalised over the real line, as gpyreg) and, if dlogp is not
// null, its derivative. Uniform gives 0.
double hyperprior_log_pdf(const HyperPrior& prior, double x, double* dlogp);
// Cumulative distribution function (uniform: not defined, returns NaN).
double hyperprior_cdf(const HyperPrior& prior, double x);
// Inverse of the CDF restricted to [lo, hi] (bisection on hyperprior_cdf), p in (0, 1).
double hyperprior_quantile(const HyperPrior& prior, double p, double lo, double hi);

// PyVBMC options that shape the empirical priors (names and defaults as in PyVBMC).
struct GpHyperpriorSettings {
    double hpd_frac = 0.8;                        // fraction of top points forming the HPD set
    double tol_gp_noise = std::sqrt(1e-5);        // floor of the GP noise SD
    double noise_size = 0.0;                      // prior noise SD; <= 0 means unset ([])
    // PyVBMC uncertainty_handling_level: 0 exact target, 1 noise of unknown level (the GP infers
    // it: a wide noise prior), 2 noise SDs told with the values (they are the point's s2).
    int uncertainty_handling_level = 0;
    bool gp_quadratic_mean_bound = true;          // cap m0 at max(hpd y) + delta_y
    double tol_sd = 0.1;                          // minimum delta_y of that cap
    double gp_length_prior_mean = 0.0;            // in plausible units; <= 0 means sqrt(D/6)
    double gp_length_prior_std = 0.5 * std::log(1e3);
};

// Everything the trainer needs about the hyperparameter space (vectors of length 3D+3).
struct GpHyperSetup {
    std::vector<double> lower, upper;                      // hard bounds (may be infinite)
    std::vector<double> plausible_lower, plausible_upper;  // finite box for starting points
    std::vector<double> x0;                                // default starting point
    std::vector<HyperPrior> priors;
};

// Bounds, plausible box, x0 and priors from the training set. plausible_lb / plausible_ub are
// the plausible bounds of the problem in the transformed space (length D).
GpHyperSetup gp_hyper_setup(const GpData& data, const std::vector<double>& plausible_lb,
                            const std::vector<double>& plausible_ub,
                            const GpHyperpriorSettings& settings);

// Sum of the log priors at theta and, if grad is not null, the gradient (resized to 3D+3).
double gp_log_hyperprior(const GpHyperSetup& setup, const std::vector<double>& theta,
                         std::vector<double>* grad);

}  // namespace libvbmc
