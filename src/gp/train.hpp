// Training of the GP surrogate's hyperparameters, following PyVBMC train_gp,
// _get_gp_training_options, _get_hyp_cov and gpyreg GP.fit: empirical-Bayes priors and bounds
// (hyperprior.hpp), a random space-filling design scored by the log posterior, a quasi-Newton
// MAP from the best few points (optimize.hpp), then slice sampling of the hyperparameter
// posterior (slice_sample.hpp) with widths from a weighted covariance of past samples.
#pragma once
#include <cmath>
#include <vector>

#include "gp/gp.hpp"
#include "gp/hyperprior.hpp"
#include "io/serial.hpp"
#include "linalg/matrix.hpp"
#include "util/rng.hpp"

namespace libvbmc {

// Tunables carry PyVBMC's option names and defaults; those whose PyVBMC default depends on D
// use 0 to mean "PyVBMC's formula" (given in the comment). The fields after `hyperprior` are
// the run's state, set before every call.
struct GpTrainSettings {
    // samples = round(ns_gp_max / sqrt(N)) ... (PyVBMC: 80; at 50, 16 problems x 20 seeds had
    // lower LML error in 171 of 320 runs and lower gsKL in 170, medians moving both ways, for 0.84
    // times the library's CPU per evaluation: bench/RESULTS.md, "Fewer GP hyperparameter samples")
    double ns_gp_max = 50.0;
    double ns_gp_max_warmup = 8.0;        // ... at most this during warm-up
    double ns_gp_max_main = INFINITY;     // ... and this afterwards
    double stable_gp_sampling = 0.0;      // N beyond which sampling stops; 0: 200 + 10 D
    double stable_gp_vp_k = INFINITY;     // VP components beyond which sampling stops
    int stable_gp_samples = 0;            // samples once stable (0 = MAP only)
    int gp_sample_thin = 5;               // slice-sampling thinning
    int gp_train_n_init = 1024;           // design size at the start of the run
    int gp_train_n_init_final = 64;       // design size at max_fun_evals
    double gp_tol_opt = 1e-5;             // optimiser tolerance for a MAP-only fit
    double gp_tol_opt_mcmc = 1e-2;        // optimiser tolerance before sampling
    double gp_sample_widths = 5.0;        // multiplier of past posterior SDs as slice widths
    double hyp_run_weight = 0.9;          // per-evaluation weight of past samples
    bool weighted_hyp_cov = true;         // weighted covariance over past iterations
    double tol_cov_weight = 0.0;          // minimum weight of a past iteration
    double gp_retrain_threshold = 1.0;    // below this r_index, no fresh design
    int fun_evals_per_iter = 5;
    double fun_eval_start = 0.0;          // 0: max(D, 10)
    double max_fun_evals = 0.0;           // 0: 50 (2 + D)
    double tol_skl = 0.0;                 // 0: 0.01 sqrt(D)
    GpHyperpriorSettings hyperprior;

    // Run state.
    std::vector<double> plausible_lower, plausible_upper;  // transformed plausible bounds (D)
    bool warmup = true;               // optim_state warmup
    bool stop_sampling = false;       // the run has switched to MAP-only (stable_gp_samples)
    bool recompute_var_post = true;   // optim_state recompute_var_post
    double n_eff = 0.0;               // effective evaluations; 0: number of training points
    int vp_components = 0;            // current number of VP components
    double previous_r_index = INFINITY;  // reliability index of the previous iteration
};

// What one training leaves for the next ones (PyVBMC keeps it in iteration_history): the
// hyperparameter samples of past iterations (starting points and slice widths) and the sKL of
// each iteration (weights of the covariance). Old records are dropped once they can no longer
// matter. write/read round-trip bitwise.
struct GpTrainRecord {
    Matrix samples;    // thinned samples (or the MAP), one row each
    double skl = NAN;  // sKL of the iteration that trained them; NaN until set_last_skl
};

struct GpTrainMemory {
    long trainings = 0;                  // gp_train calls so far (PyVBMC's iteration index)
    std::vector<GpTrainRecord> records;  // the most recent records, oldest first
    Matrix run_cov;                      // running covariance (weighted_hyp_cov = false)

    // Record the sKL of the iteration whose GP was trained last.
    void set_last_skl(double skl);
    void write(Writer& w) const;
    static GpTrainMemory read(Reader& r);
};

// Number of hyperparameter samples for n training points (0 = MAP), PyVBMC _gp_hyp.
int gp_train_sample_count(const GpTrainSettings& settings, int n_points, int dim);

// Number of random hyperparameter starts of a fresh design (PyVBMC _get_gp_training_options):
// gp_train_n_init at fun_eval_start, falling along a cubic to gp_train_n_init_final once the
// budget (at most 1000) is spent; never below 9.
int gp_train_design_size(const GpTrainSettings& settings, int n_points, int dim);

// Train the surrogate on `data` (transformed space) and update `memory`. Deterministic given
// the Rng. Throws Error(numeric) if no hyperparameter vector gives a finite log posterior.
Gp gp_train(const GpData& data, const GpTrainSettings& settings, GpTrainMemory& memory, Rng& rng);

// GP noise variance at high posterior density (PyVBMC _estimate_noise): median over the top
// 20% training points of the sample-averaged sn^2 + s2_i.
double gp_noise_hpd(const Gp& gp);

}  // namespace libvbmc
