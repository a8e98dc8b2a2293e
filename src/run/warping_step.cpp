// Input warping by rotoscaling (PyVBMC VBMC.optimize's warping block, warp_input and
// warp_gp_and_vp): every few iterations after warm-up, rotate and rescale the inference space so
// the posterior is whitened, carry the surrogate and the posterior over, refit both, and keep the
// new space only if the ELBO improves.
#include <algorithm>
#include <cmath>

#include "elbo/optimize_vp.hpp"
#include "run/run.hpp"
#include "run/termination.hpp"
#include "warping/input_warp.hpp"

namespace libvbmc {

namespace {
constexpr double kWarpTolSdMultiplier = 2.0;  // PyVBMC warp_tol_sd_multiplier
constexpr double kWarpTolSdBase = 1.0;        // PyVBMC warp_tol_sd_base
constexpr double kWarpCovReg = 0.0;           // PyVBMC warp_cov_reg
constexpr int kPlausibleDraws = 20000;
}  // namespace

bool Run::warping_due() const {
    if (!settings_.warp_rotoscaling || warmup_ || dim_ < 2 || history_.empty()) return false;
    const int next = iteration_ + 1;
    const int delay = settings_.warp_every_iters * std::max(1, warping_count_);
    return next - last_warping_ > delay && vp_.k >= settings_.warp_min_k &&
           history_.back().r_index < settings_.warp_tol_reliability;
}

bool Run::try_rotoscaling() {
    // Everything a rejected warp must restore.
    const ParameterTransform old_transform = transform_;
    const EvaluationLog old_evals = evals_;
    const std::vector<double> old_plb_z = plb_z_, old_pub_z = pub_z_;
    const std::vector<double> old_lb_search = lb_search_, old_ub_search = ub_search_;
    const Gp old_gp = gp_;
    const GpTrainMemory old_memory = gp_memory_;
    const VariationalPosterior old_vp = vp_;
    const std::vector<int> old_train_index = gp_train_index_;
    const ValueShaping old_shaping = gp_shaping_;
    const bool old_recompute = recompute_var_post_;

    std::vector<double> mean;
    Matrix cov;
    vp_moments(vp_, mean, cov);
    const ParameterTransform warped = transform_.rotoscaled(cov, settings_.warp_roto_corr_thresh, kWarpCovReg);

    // Plausible box of the new space: 5%-95% quantiles of uniform draws in the original plausible
    // box, widened by a ninth of their range on each side.
    std::vector<std::vector<double>> coords(static_cast<size_t>(dim_));
    std::vector<double> x(static_cast<size_t>(dim_)), z(static_cast<size_t>(dim_));
    for (int s = 0; s < kPlausibleDraws; ++s) {
        for (int d = 0; d < dim_; ++d) {
            const size_t u = static_cast<size_t>(d);
            x[u] = plb_x_[u] + rng_.uniform() * (pub_x_[u] - plb_x_[u]);
        }
        warped.to_unbounded(x.data(), z.data());
        for (int d = 0; d < dim_; ++d) coords[static_cast<size_t>(d)].push_back(z[static_cast<size_t>(d)]);
    }
    for (int d = 0; d < dim_; ++d) {
        std::vector<double>& c = coords[static_cast<size_t>(d)];
        std::sort(c.begin(), c.end());
        const double lo = c[static_cast<size_t>(0.05 * (c.size() - 1))];
        const double hi = c[static_cast<size_t>(0.95 * (c.size() - 1))];
        plb_z_[static_cast<size_t>(d)] = lo - (hi - lo) / 9.0;
        pub_z_[static_cast<size_t>(d)] = hi + (hi - lo) / 9.0;
    }

    // The search box: the bounding box of the images of uniform draws in the old one.
    Matrix box(1000, dim_), box_new;
    for (int i = 0; i < box.rows; ++i)
        for (int d = 0; d < dim_; ++d) {
            const size_t u = static_cast<size_t>(d);
            box(i, d) = lb_search_[u] + rng_.uniform() * (ub_search_[u] - lb_search_[u]);
        }
    warp_points(transform_, warped, box, box_new);
    for (int d = 0; d < dim_; ++d) {
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < box_new.rows; ++i) {
            lo = std::min(lo, box_new(i, d));
            hi = std::max(hi, box_new(i, d));
        }
        lb_search_[static_cast<size_t>(d)] = lo - (hi - lo) / box_new.rows;
        ub_search_[static_cast<size_t>(d)] = hi + (hi - lo) / box_new.rows;
    }

    // Carry the surrogate's hyperparameters (and their history) and the posterior over.
    for (GpTrainRecord& record : gp_memory_.records)
        for (int r = 0; r < record.samples.rows; ++r) {
            std::vector<double> theta(record.samples.row(r), record.samples.row(r) + record.samples.cols);
            theta = warp_gp_hyperparameters(theta, transform_, warped);
            std::copy(theta.begin(), theta.end(), record.samples.row(r));
        }
    gp_memory_.run_cov = Matrix();
    vp_ = warp_vp(vp_, transform_, warped);
    transform_ = warped;
    evals_.remap(transform_);

    // Refit in the new space and keep it only if the ELBO improves enough.
    recompute_var_post_ = true;
    gp_train_index_ = evals_.training_index();
    gp_shaping_ = value_shaping();
    gp_ = timed(times_.gp_train, [&] {
        return gp_train(evals_.training_data(gp_train_index_, dim_, gp_shaping_), gp_train_settings(), gp_memory_, rng_);
    });
    const VpOptimSettings vs = vp_optim_settings();
    int n_fast = 0, n_slow = 0;
    vp_optim_counts(vs, vp_.k, true, n_fast, n_slow);
    const ElboEstimate fit = timed(times_.vp_optim, [&] { return optimize_vp(vp_, gp_, vs, vp_.k, n_fast, n_slow, rng_); });
    const IterationRecord& before = history_.back();
    const bool improved = fit.elbo >= before.elbo + settings_.warp_tol_improvement &&
                          fit.elbo_sd <= before.elbo_sd * kWarpTolSdMultiplier + kWarpTolSdBase;
    last_warping_ = iteration_ + 1;
    if (!improved) {
        transform_ = old_transform;
        evals_ = old_evals;
        plb_z_ = old_plb_z;
        pub_z_ = old_pub_z;
        lb_search_ = old_lb_search;
        ub_search_ = old_ub_search;
        gp_ = old_gp;
        search_gp_ = old_gp;
        gp_memory_ = old_memory;
        vp_ = old_vp;
        gp_train_index_ = old_train_index;
        gp_shaping_ = old_shaping;
        recompute_var_post_ = old_recompute;
        warping_count_ += 2;
        carried_action_ = "undo rotoscale";
        return false;
    }
    warping_count_ += 1;
    last_successful_warping_ = iteration_ + 1;
    carried_action_ = "rotoscale";
    return true;
}

}  // namespace libvbmc
