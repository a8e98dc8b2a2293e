#include "gp/hyperprior.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "util/error.hpp"

namespace libvbmc {

namespace {

// log Gamma(x) by the reentrant lgamma_r: std::lgamma writes the global signgam, a data race when
// several runs train their GPs at once.
double log_gamma(double x) {
    int sign = 0;
    return ::lgamma_r(x, &sign);
}

constexpr double kLogSqrt2Pi = 0.91893853320467274178032973640562;
constexpr double kPi = 3.14159265358979323846264338327950;
constexpr double kBoundsTol = 1e-6;  // gpyreg's `tol` in get_bounds_info

// Regularised incomplete beta I_x(a, b) by Lentz's continued fraction (Numerical Recipes 6.4).
double incomplete_beta_fraction(double a, double b, double x) {
    const double tiny = 1e-300;
    double c = 1.0;
    double d = 1.0 - (a + b) * x / (a + 1.0);
    if (std::fabs(d) < tiny) d = tiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 300; ++m) {
        const double m2 = 2.0 * m;
        double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        for (int step = 0; step < 2; ++step) {
            d = 1.0 + num * d;
            if (std::fabs(d) < tiny) d = tiny;
            c = 1.0 + num / c;
            if (std::fabs(c) < tiny) c = tiny;
            d = 1.0 / d;
            const double delta = d * c;
            h *= delta;
            if (step == 1 && std::fabs(delta - 1.0) < 1e-15) return h;
            num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        }
    }
    return h;
}

// x_complement = 1 - x is passed separately so that x close to 1 keeps full precision.
double regularized_incomplete_beta(double a, double b, double x, double x_complement) {
    if (x <= 0.0) return 0.0;
    if (x_complement <= 0.0) return 1.0;
    const double log_front = log_gamma(a + b) - log_gamma(a) - log_gamma(b) + a * std::log(x) + b * std::log(x_complement);
    if (x < (a + 1.0) / (a + b + 2.0)) return std::exp(log_front) * incomplete_beta_fraction(a, b, x) / a;
    return 1.0 - std::exp(log_front) * incomplete_beta_fraction(b, a, x_complement) / b;
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// CDF of the standard Student's t with df degrees of freedom: closed forms for df = 1 (Cauchy)
// and df = 3, F(t) = 1/2 + (atan(t/sqrt 3) + sqrt(3) t / (3 + t^2)) / pi (the design of GP
// starts evaluates it for every hyperparameter); the regularised incomplete beta otherwise.
double student_t_cdf(double t, double df) {
    if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
    if (df == 1.0) return 0.5 + std::atan(t) / kPi;
    if (df == 3.0) {
        const double sqrt3 = std::sqrt(3.0);
        return 0.5 + (std::atan(t / sqrt3) + sqrt3 * t / (3.0 + t * t)) / kPi;
    }
    const double tail = 0.5 * regularized_incomplete_beta(0.5 * df, 0.5, df / (df + t * t), t * t / (df + t * t));
    return t > 0 ? 1.0 - tail : tail;
}

// log of the Student's t normalising constant Gamma((v+1)/2) / (Gamma(v/2) sqrt(v pi)).
double student_t_log_norm(double df) {
    return log_gamma(0.5 * (df + 1.0)) - log_gamma(0.5 * df) - 0.5 * std::log(kPi * df);
}

// Numpy-style quantile (linear interpolation between order statistics).
double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

double sample_sd(const std::vector<double>& v) {
    const double n = static_cast<double>(v.size());
    if (v.size() < 2) return 1.0;
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
    double ss = 0.0;
    for (double x : v) ss += (x - mean) * (x - mean);
    return std::sqrt(ss / (n - 1.0));
}

// A range used inside a logarithm; zero ranges (all points equal) fall back to 1.
double positive_range(double lo, double hi) { return hi > lo ? hi - lo : 1.0; }

// Summary statistics of a set of points used by gpyreg's get_bounds_info.
struct DataStats {
    std::vector<double> width;     // per-dimension range of X
    double global_width = 1.0;     // max(X) - min(X) over all entries
    double global_min = 0.0, global_max = 0.0;
    double global_median = 0.0;
    double global_sd = 1.0;        // SD of all entries of X (ddof = 1)
    double y_min = 0.0, y_max = 1.0, height = 1.0;
    double y_sd = 1.0, y_median = 0.0, y_q90 = 0.0;
};

DataStats data_stats(const GpData& data, const std::vector<int>& rows) {
    const int dim = data.x.cols;
    DataStats s;
    s.width.assign(static_cast<size_t>(dim), 1.0);
    std::vector<double> all, ys;
    for (int r : rows) {
        for (int d = 0; d < dim; ++d) all.push_back(data.x(r, d));
        ys.push_back(data.y[static_cast<size_t>(r)]);
    }
    for (int d = 0; d < dim; ++d) {
        double lo = INFINITY, hi = -INFINITY;
        for (int r : rows) {
            lo = std::min(lo, data.x(r, d));
            hi = std::max(hi, data.x(r, d));
        }
        s.width[static_cast<size_t>(d)] = positive_range(lo, hi);
    }
    s.global_min = *std::min_element(all.begin(), all.end());
    s.global_max = *std::max_element(all.begin(), all.end());
    s.global_width = positive_range(s.global_min, s.global_max);
    s.global_median = quantile(all, 0.5);
    s.global_sd = sample_sd(all);
    if (!(s.global_sd > 0.0)) s.global_sd = 1.0;
    if (ys.size() <= 1) ys = {0.0, 1.0};  // gpyreg's fallback for a single target
    s.y_min = *std::min_element(ys.begin(), ys.end());
    s.y_max = *std::max_element(ys.begin(), ys.end());
    s.height = positive_range(s.y_min, s.y_max);
    s.y_sd = sample_sd(ys);
    if (!(s.y_sd > 0.0)) s.y_sd = 1.0;
    s.y_median = quantile(ys, 0.5);
    s.y_q90 = quantile(ys, 0.9);
    return s;
}

}  // namespace

// Densities as in gpyreg GP.__compute_log_priors (per-coordinate terms).
double hyperprior_log_pdf(const HyperPrior& p, double x, double* dlogp) {
    double grad = 0.0, value = 0.0;
    switch (p.kind) {
        case PriorKind::uniform:
            break;
        case PriorKind::gaussian: {
            const double z = (x - p.mu) / p.sigma;
            value = -kLogSqrt2Pi - std::log(p.sigma) - 0.5 * z * z;
            grad = -(x - p.mu) / (p.sigma * p.sigma);
            break;
        }
        case PriorKind::student_t: {
            const double z = (x - p.mu) / p.sigma;
            value = student_t_log_norm(p.df) - std::log(p.sigma) - 0.5 * (p.df + 1.0) * std::log1p(z * z / p.df);
            grad = -(p.df + 1.0) / p.df / (1.0 + z * z / p.df) * (x - p.mu) / (p.sigma * p.sigma);
            break;
        }
        case PriorKind::smoothbox: {
            const double c = 1.0 + (p.b - p.a) / (p.sigma * std::sqrt(2.0 * kPi));
            value = -std::log(c * p.sigma) - kLogSqrt2Pi;
            const double edge = x < p.a ? p.a : (x > p.b ? p.b : x);
            const double z = (x - edge) / p.sigma;
            value -= 0.5 * z * z;
            grad = -(x - edge) / (p.sigma * p.sigma);
            break;
        }
        case PriorKind::smoothbox_student_t: {
            const double log_norm = student_t_log_norm(p.df);
            const double c = 1.0 + (p.b - p.a) * std::exp(log_norm) / p.sigma;
            value = log_norm - std::log(c * p.sigma);
            const double edge = x < p.a ? p.a : (x > p.b ? p.b : x);
            const double z = (x - edge) / p.sigma;
            value -= 0.5 * (p.df + 1.0) * std::log1p(z * z / p.df);
            grad = -(p.df + 1.0) / p.df / (1.0 + z * z / p.df) * (x - edge) / (p.sigma * p.sigma);
            break;
        }
    }
    if (dlogp != nullptr) *dlogp = grad;
    return value;
}

double hyperprior_cdf(const HyperPrior& p, double x) {
    switch (p.kind) {
        case PriorKind::uniform:
            return NAN;
        case PriorKind::gaussian:
            return normal_cdf((x - p.mu) / p.sigma);
        case PriorKind::student_t:
            return student_t_cdf((x - p.mu) / p.sigma, p.df);
        case PriorKind::smoothbox: {
            const double flat = 1.0 / (p.sigma * std::sqrt(2.0 * kPi));
            const double c = 1.0 + (p.b - p.a) * flat;
            if (x < p.a) return normal_cdf((x - p.a) / p.sigma) / c;
            if (x <= p.b) return (0.5 + (x - p.a) * flat) / c;
            return (c - 1.0 + normal_cdf((x - p.b) / p.sigma)) / c;
        }
        case PriorKind::smoothbox_student_t: {
            const double flat = std::exp(student_t_log_norm(p.df)) / p.sigma;
            const double c = 1.0 + (p.b - p.a) * flat;
            if (x < p.a) return student_t_cdf((x - p.a) / p.sigma, p.df) / c;
            if (x <= p.b) return (0.5 + (x - p.a) * flat) / c;
            return (c - 1.0 + student_t_cdf((x - p.b) / p.sigma, p.df)) / c;
        }
    }
    return NAN;
}

double hyperprior_quantile(const HyperPrior& p, double prob, double lo, double hi) {
    // Finite bracket around the prior's centre, widened geometrically where a bound is infinite.
    const double centre = (p.kind == PriorKind::smoothbox || p.kind == PriorKind::smoothbox_student_t)
                              ? 0.5 * (p.a + p.b) : p.mu;
    double step = p.sigma;
    if (!std::isfinite(lo)) {
        lo = std::min(centre, std::isfinite(hi) ? hi : centre) - step;
        while (hyperprior_cdf(p, lo) > prob && step < 1e300) {
            step *= 2.0;
            lo -= step;
        }
    }
    step = p.sigma;
    if (!std::isfinite(hi)) {
        hi = std::max(centre, lo) + step;
        while (hyperprior_cdf(p, hi) < prob && step < 1e300) {
            step *= 2.0;
            hi += step;
        }
    }
    for (int iter = 0; iter < 200 && hi - lo > 1e-13 * (1.0 + std::fabs(lo) + std::fabs(hi)); ++iter) {
        const double mid = 0.5 * (lo + hi);
        if (hyperprior_cdf(p, mid) < prob)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

GpHyperSetup gp_hyper_setup(const GpData& data, const std::vector<double>& plausible_lb,
                            const std::vector<double>& plausible_ub,
                            const GpHyperpriorSettings& settings) {
    const int n = data.size();
    const int dim = data.x.cols;
    if (n < 1) throw_error(Code::internal, "gp_hyper_setup: the training set is empty");
    if (static_cast<int>(plausible_lb.size()) != dim || static_cast<int>(plausible_ub.size()) != dim)
        throw_error(Code::internal, "gp_hyper_setup: plausible bounds have the wrong length");

    // High-posterior-density subset: the top round(hpd_frac * n) points by y (pyvbmc get_hpd).
    std::vector<int> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int i, int j) {
        return data.y[static_cast<size_t>(i)] > data.y[static_cast<size_t>(j)];
    });
    int n_hpd = static_cast<int>(std::nearbyint(settings.hpd_frac * n));
    n_hpd = std::min(n, std::max(n_hpd, std::min(n, 2)));
    const std::vector<int> hpd_rows(order.begin(), order.begin() + n_hpd);
    const DataStats hpd = data_stats(data, hpd_rows);
    const DataStats full = data_stats(data, order);

    const int count = hyp::count(dim);
    GpHyperSetup s;
    s.lower.assign(static_cast<size_t>(count), -INFINITY);
    s.upper.assign(static_cast<size_t>(count), INFINITY);
    s.plausible_lower.assign(static_cast<size_t>(count), 0.0);
    s.plausible_upper.assign(static_cast<size_t>(count), 0.0);
    s.x0.assign(static_cast<size_t>(count), 0.0);
    s.priors.assign(static_cast<size_t>(count), HyperPrior{});
    const double log_tol = std::log(kBoundsTol);

    const double min_noise = settings.tol_gp_noise;
    // Noise prior of PyVBMC _gp_hyp: noise_size only guides an exact target; with noise of
    // unknown level the prior is widened to log(10) so that the GP can find a real noise level.
    // (PyVBMC's level-1 multiplier of told variances has no counterpart: level 1 tells none.)
    const int level = settings.uncertainty_handling_level;
    const double noise_size = (level == 0 && settings.noise_size > 0.0) ? std::max(settings.noise_size, min_noise) : min_noise;
    const double noise_prior_sd = level == 1 ? std::log(10.0) : 0.5;
    const double length_prior_mean = settings.gp_length_prior_mean > 0.0
                                         ? settings.gp_length_prior_mean : std::sqrt(dim / 6.0);

    for (int d = 0; d < dim; ++d) {
        const size_t i = static_cast<size_t>(hyp::log_ell(d));
        const double w_full = full.width[static_cast<size_t>(d)];
        s.lower[i] = std::log(hpd.width[static_cast<size_t>(d)]) + log_tol;  // HPD-based, wider
        s.upper[i] = std::log(10.0 * w_full);
        s.plausible_lower[i] = std::log(w_full) + 0.5 * log_tol;
        s.plausible_upper[i] = std::log(w_full);
        s.x0[i] = std::log(hpd.global_sd);
        HyperPrior& prior = s.priors[i];
        prior.kind = PriorKind::student_t;
        prior.mu = std::log(length_prior_mean * (plausible_ub[static_cast<size_t>(d)] - plausible_lb[static_cast<size_t>(d)]));
        prior.sigma = settings.gp_length_prior_std;
        prior.df = 3.0;
    }
    {
        const size_t i = static_cast<size_t>(hyp::log_sf(dim));
        s.lower[i] = std::log(hpd.height) + log_tol;
        s.upper[i] = std::log(10.0 * full.height);
        s.plausible_lower[i] = std::log(full.height) + 0.5 * log_tol;
        s.plausible_upper[i] = std::log(full.height);
        s.x0[i] = std::log(hpd.y_sd);
    }
    {
        const size_t i = static_cast<size_t>(hyp::log_sn(dim));
        s.lower[i] = std::log(min_noise);
        s.upper[i] = INFINITY;
        s.plausible_lower[i] = 0.5 * log_tol;
        s.plausible_upper[i] = std::log(full.y_sd);
        s.x0[i] = std::log(noise_size);
        HyperPrior& prior = s.priors[i];
        prior.kind = PriorKind::student_t;
        prior.mu = std::log(noise_size);
        prior.sigma = noise_prior_sd;
        prior.df = 3.0;
    }
    {
        const size_t i = static_cast<size_t>(hyp::m0(dim));
        if (settings.gp_quadratic_mean_bound) {
            const double delta_y = std::max(settings.tol_sd, std::min(static_cast<double>(dim), hpd.y_max - hpd.y_min));
            s.lower[i] = -INFINITY;
            s.upper[i] = hpd.y_max + delta_y;
        } else {
            s.lower[i] = full.y_min;
            s.upper[i] = full.y_max + full.height;
        }
        s.plausible_lower[i] = full.y_median;
        s.plausible_upper[i] = full.y_max;
        s.x0[i] = hpd.y_q90;
    }
    for (int d = 0; d < dim; ++d) {
        const size_t i = static_cast<size_t>(hyp::xm(dim, d));
        s.lower[i] = full.global_min - 0.5 * full.global_width;
        s.upper[i] = full.global_max + 0.5 * full.global_width;
        s.plausible_lower[i] = full.global_min;
        s.plausible_upper[i] = full.global_max;
        s.x0[i] = hpd.global_median;
        const size_t j = static_cast<size_t>(hyp::log_omega(dim, d));
        s.lower[j] = std::log(full.global_width) + log_tol;
        s.upper[j] = std::log(full.global_width) + 3.0;
        s.plausible_lower[j] = std::log(full.global_width) + 0.5 * log_tol;
        s.plausible_upper[j] = std::log(full.global_width);
        s.x0[j] = std::log(hpd.global_sd);
    }
    for (size_t i = 0; i < static_cast<size_t>(count); ++i) {
        s.upper[i] = std::max(s.upper[i], s.lower[i]);
        s.plausible_lower[i] = std::min(std::max(s.plausible_lower[i], s.lower[i]), s.upper[i]);
        s.plausible_upper[i] = std::max(std::min(s.plausible_upper[i], s.upper[i]), s.lower[i]);
    }
    return s;
}

double gp_log_hyperprior(const GpHyperSetup& setup, const std::vector<double>& theta,
                         std::vector<double>* grad) {
    if (theta.size() != setup.priors.size())
        throw_error(Code::internal, "gp_log_hyperprior: theta has the wrong length");
    if (grad != nullptr) grad->assign(theta.size(), 0.0);
    double total = 0.0;
    for (size_t i = 0; i < theta.size(); ++i) {
        double g = 0.0;
        total += hyperprior_log_pdf(setup.priors[i], theta[i], grad != nullptr ? &g : nullptr);
        if (grad != nullptr) (*grad)[i] = g;
    }
    return total;
}

}  // namespace libvbmc
