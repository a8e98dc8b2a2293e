// Algorithm 1 of Havasi et al. (2021) on the augmented model of refine.hpp.
#include "refine/refine.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "elbo/bfgs.hpp"
#include "util/error.hpp"

namespace libvbmc {

namespace {
// "variance_ratio = 1 is outside [0.01, 0.99]" (the value as a user would write it).
std::string ratio_outside(double ratio) {
    std::ostringstream text;
    text << "variance_ratio = " << ratio << " is outside [" << RefineSettings::kMinRatio << ", " << RefineSettings::kMaxRatio << "]";
    return text.str();
}
}  // namespace

void RefineSettings::validate() const {
    if (aux_count < 1 || aux_count > kMaxAuxCount)
        throw_error(Code::arg, "aux_count = " + std::to_string(aux_count) + " is outside [1, " + std::to_string(kMaxAuxCount) + "]");
    if (!(variance_ratio >= kMinRatio && variance_ratio <= kMaxRatio)) throw_error(Code::arg, ratio_outside(variance_ratio));
}

void RefineSettings::write(Writer& out) const {
    out.i64(aux_count);
    out.f64(variance_ratio);
}

RefineSettings RefineSettings::read(Reader& in) {
    RefineSettings s;
    s.aux_count = static_cast<int>(in.bounded(1, kMaxAuxCount, "refinement aux_count"));
    s.variance_ratio = in.f64();
    if (!(s.variance_ratio >= kMinRatio && s.variance_ratio <= kMaxRatio))
        throw_error(Code::format, "the refinement setting " + ratio_outside(s.variance_ratio));
    return s;
}

Refiner::Refiner(const VariationalPosterior& vp, const Gp& gp, const RefineSettings& settings)
    : vp_(vp), gp_(gp), settings_(settings), responsibility_(vp) {}

int Refiner::pick_component(Rng& rng) const {
    const double u = rng.uniform();
    double cumulative = 0.0;
    for (int j = 0; j + 1 < vp_.k; ++j) {
        cumulative += vp_.w[static_cast<size_t>(j)];
        if (u < cumulative) return j;
    }
    return vp_.k - 1;
}

DiagGaussian Refiner::component(int j) const {
    DiagGaussian q{std::vector<double>(vp_.mu.row(j), vp_.mu.row(j) + vp_.dim), std::vector<double>(static_cast<size_t>(vp_.dim))};
    for (int d = 0; d < vp_.dim; ++d) {
        const double scale = vp_.sigma[static_cast<size_t>(j)] * vp_.lambda_of(j, d);
        q.var[static_cast<size_t>(d)] = scale * scale;
    }
    return q;
}

namespace {
// BFGS stops when the largest whitened gradient entry is below kGradTol (J then within ~1e-6 of
// its maximum) or after kMaxIter iterations.
constexpr double kGradTol = 1e-3;
constexpr int kMaxIter = 100;

// f(), or NaN where it fails numerically (a non-finite objective).
template <typename F>
double or_nan(F&& f) {
    try {
        return f();
    } catch (const Error& e) {
        if (e.code() != Code::numeric) throw;
        return NAN;
    }
}

// A refit's parameters in coordinates whitened by its start q0: nu = nu0 + rho0 u and
// log rho = log rho0 + l / sqrt 2, in which J's Hessian is the identity for a Gaussian target.
struct WhitenedStart {
    const DiagGaussian& q0;
    std::vector<double> rho0, log_rho0;

    explicit WhitenedStart(const DiagGaussian& start) : q0(start), rho0(start.var.size()), log_rho0(start.var.size()) {
        for (size_t d = 0; d < rho0.size(); ++d) {
            rho0[d] = std::sqrt(start.var[d]);
            log_rho0[d] = std::log(rho0[d]);
        }
    }
    // The parameters at t x, x = (u, l).
    void at(const std::vector<double>& x, double t, std::vector<double>& nu, std::vector<double>& log_rho) const {
        const size_t dim = rho0.size();
        nu.resize(dim);
        log_rho.resize(dim);
        for (size_t d = 0; d < dim; ++d) {
            nu[d] = q0.mean[d] + rho0[d] * t * x[d];
            log_rho[d] = log_rho0[d] + t * x[dim + d] / std::sqrt(2.0);
        }
    }
};

// The maximum of J from the start: BFGS on -J in whitened coordinates, from x = 0.
BfgsResult maximise(const ConditionalElbo& objective, const WhitenedStart& start) {
    const size_t dim = start.rho0.size();
    std::vector<double> nu, log_rho, g;
    return minimize_bfgs(
        [&](const std::vector<double>& x, std::vector<double>& grad) {
            start.at(x, 1.0, nu, log_rho);
            const double j = or_nan([&] { return objective.value(nu, log_rho, &g); });
            if (!std::isfinite(j)) return static_cast<double>(INFINITY);
            for (size_t d = 0; d < dim; ++d) {
                grad[d] = -g[d] * start.rho0[d];
                grad[dim + d] = -g[dim + d] / std::sqrt(2.0);
            }
            return -j;
        },
        std::vector<double>(2 * dim, 0.0), kGradTol, kMaxIter);
}
}  // namespace

// The trust rule of refine.hpp on the way from the start to the maximum: the first of the points
// 1, 1/2 and 1/4 of the way that raises J and does not lower J - kTrustSds SD is kept.
bool Refiner::refit(const ConditionalElbo& objective, DiagGaussian& q, double& gain) const {
    const WhitenedStart start(q);
    const double j_start = or_nan([&] { return objective.value(q.mean, start.log_rho0, nullptr); });
    if (!std::isfinite(j_start)) return false;
    const BfgsResult best = maximise(objective, start);
    if (!(-best.f > j_start)) return false;
    const double lcb_start = j_start - kTrustSds * or_nan([&] { return objective.log_joint_sd(q.mean, start.log_rho0); });
    std::vector<double> nu, log_rho;
    for (const double t : {1.0, 0.5, 0.25}) {
        start.at(best.x, t, nu, log_rho);
        const double j = t == 1.0 ? -best.f : or_nan([&] { return objective.value(nu, log_rho, nullptr); });
        const double sd = or_nan([&] { return objective.log_joint_sd(nu, log_rho); });
        if (!(j > j_start && j - kTrustSds * sd >= lcb_start)) continue;
        gain += j - j_start;
        q.mean = nu;
        for (size_t d = 0; d < nu.size(); ++d) q.var[d] = std::exp(2.0 * log_rho[d]);
        return true;
    }
    return false;
}

// The chain keeps a point w of the current approximation: drawn from q_j first, and drawn afresh
// from q_{k-1} only when refit k-1 changed it; otherwise w, a draw of q_{k-2}(. | a_{k-1}) = q_{k-1},
// is kept. a_k ~ p(a_k | a_1..a_{k-1}, w) then has the law q_{k-1}(a_k) (the paper's section 2.2),
// and a draw none of whose refits is kept is the mixture draw (j, w) itself.
double Refiner::draw(Rng& rng, double* z) const {
    const size_t dim = static_cast<size_t>(vp_.dim);
    const int j = pick_component(rng);
    const DiagGaussian prior = component(j);
    std::vector<double> w(dim), noise(dim);
    auto draw_point = [&](const DiagGaussian& q, bool use) {
        rng.normals(noise.data(), dim);
        if (use)
            for (size_t d = 0; d < dim; ++d) w[d] = q.mean[d] + std::sqrt(q.var[d]) * noise[d];
    };
    draw_point(prior, true);
    DiagGaussian q = prior;
    std::vector<double> centre = prior.mean;
    AuxStep step{settings_.variance_ratio, &prior.var, 1.0};
    double gain = 0.0;
    bool changed = false;
    for (int k = 1; k < settings_.aux_count; ++k) {
        draw_point(q, changed);
        std::vector<double> next = step.draw_centre(w, centre, rng);
        q = step.condition(q, centre, next);
        const ConditionalElbo objective(gp_, responsibility_, j, prior, next, step.left_after());
        changed = refit(objective, q, gain);
        centre = std::move(next);
        step.left_before = step.left_after();
    }
    draw_point(q, changed);
    std::copy(w.begin(), w.end(), z);
    return gain;
}

namespace {
// The seed of draw i's own generator (splitmix64 of the pair), so that a draw does not depend on n
// nor on the draws before it, and draw i of one setting pairs with draw i of another.
uint64_t draw_seed(uint64_t seed, uint64_t i) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (i + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
}  // namespace

void refined_sample(const VariationalPosterior& vp, const ParameterTransform& transform, const SurrogateRecord& surrogate,
                    const RefineSettings& settings, size_t n, uint64_t seed, double* x, std::vector<double>* gains) {
    const Gp gp = surrogate.build();
    const Refiner refiner(vp, gp, settings);
    std::vector<double> z(static_cast<size_t>(vp.dim));
    if (gains != nullptr) gains->assign(n, 0.0);
    for (size_t i = 0; i < n; ++i) {
        Rng rng(draw_seed(seed, i));
        const double gain = refiner.draw(rng, z.data());
        if (gains != nullptr) (*gains)[i] = gain;
        if (x != nullptr) transform.to_original(z.data(), x + i * static_cast<size_t>(vp.dim));
    }
}

}  // namespace libvbmc
