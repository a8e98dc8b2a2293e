// Refined posterior draws: local refinement of the variational mixture against the run's
// surrogate (Havasi et al. 2021, "Sampling the variational posterior with local refinement",
// Algorithm 1), no new evaluations of the target.
//
// The model is augmented with auxiliary variables that leave the posterior p(w) ∝ exp f(w) (f the
// surrogate's posterior mean of the log joint) unchanged: a component label j with
// p(j | w) = r(j | w) = w_j q_j(w) / q(w), the mixture's responsibility, and, given j, additive
// parts a_1..a_K of w whose Gaussian split is that of the component q_j = N(mu_j, diag(v_j))
// itself (aux_chain.hpp; the prior of the paper's section 2.2 is q_j). One draw:
//   1. j ~ w_j (the mixture's weights), q_0 = q_j;
//   2. for k = 1 .. K-1: a_k ~ q_{k-1}(a_k), then q_k = the diagonal Gaussian maximising the
//      conditional ELBO given j, a_1..a_k (conditional_elbo.hpp), by BFGS from q_{k-1}(w | a_k),
//      which the family holds exactly;
//   3. w ~ q_{K-1} (a_K = w - a_1 - ... - a_{K-1}, the paper's last step).
// Given j the target of the refits is exp f(w) r(j | w) / q_j(w) times the window N(c_k, s_k^2 v_j),
// i.e. the window times p(w) / q(w) up to a constant: where the mixture matches the surrogate's
// posterior a refit keeps its start, and a draw is exactly a mixture draw; elsewhere the refits
// move the draw's local Gaussian toward p within a window that shrinks geometrically.
//
// Auxiliary ELBO (the paper's eq. 13 for this model): with q(j) = w_j the label costs nothing, and
// the paper's proof of Proposition 1 telescopes, exactly, to
//   ELBO_aux = ELBO(q) + E[sum_k Delta_k],   Delta_k = L_k(q_k) - L_k(q_{k-1}(. | a_k)) >= 0,
// where ELBO(q) is the mixture's ELBO under the same surrogate and L_k the conditional ELBO of
// refit k (every Delta_k is >= 0 because a refit that does not raise L_k is not kept; L_k's one
// term without a closed form is taken by the cubature of conditional_elbo.hpp). So
// ELBO_ref >= ELBO_aux >= ELBO(q) (Proposition 1), and K = 1 gives the mixture itself.
//
// Trust: f is the surrogate's mean, which extrapolates where it has seen no evaluation. A refit
// is kept only if it raises both L_k and its lower confidence bound L_k - kTrustSds * SD_k, SD_k
// the surrogate's posterior SD of E_q[f] (Bayesian quadrature); otherwise the points 1/2 and 1/4
// of the way from its start are tried, and failing those the step keeps its start. So a kept refit
// gains at least kTrustSds times the SD it adds: a move into a region the surrogate has not seen
// must promise three times the uncertainty it brings, and a step that cannot be trusted keeps the
// exact conditional of the step before (the mixture's own draw when no step is kept).
#pragma once
#include <cstdint>
#include <vector>

#include "gp/gp.hpp"
#include "gp/surrogate_record.hpp"
#include "io/serial.hpp"
#include "refine/aux_chain.hpp"
#include "refine/conditional_elbo.hpp"
#include "refine/responsibility.hpp"
#include "transforms/parameter_transform.hpp"
#include "util/rng.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

struct RefineSettings {
    int aux_count = 3;            // K: auxiliary variables per draw, K - 1 refits (1: mixture draws)
    double variance_ratio = 0.7;  // r: each auxiliary variable's share of the variance left

    static constexpr int kMaxAuxCount = 20;
    static constexpr double kMinRatio = 0.01, kMaxRatio = 0.99;
    // Throws Error(arg) naming the value and the rule it breaks.
    void validate() const;
    void write(Writer& out) const;
    static RefineSettings read(Reader& in);
};

// Weight of the surrogate's SD in the trust rule (header): three SDs, as the run's ELCBO.
constexpr double kTrustSds = 3.0;

class Refiner {
public:
    // vp and gp must outlive the refiner.
    Refiner(const VariationalPosterior& vp, const Gp& gp, const RefineSettings& settings);

    // One refined draw z[dim] in the space of vp; returns its ELBO gain sum_k Delta_k (>= 0).
    // Draws a fixed count of random numbers from rng (one uniform, 2 K dim normals).
    double draw(Rng& rng, double* z) const;

private:
    int pick_component(Rng& rng) const;
    DiagGaussian component(int j) const;
    // Refits q (in: the start q_{k-1}(. | a_k), out: q_k) under the trust rule; true if the refit is
    // kept, its gain then added to gain.
    bool refit(const ConditionalElbo& objective, DiagGaussian& q, double& gain) const;

    const VariationalPosterior& vp_;
    const Gp& gp_;
    RefineSettings settings_;
    Responsibility responsibility_;
};

// n refined draws mapped to the original space by transform into x (n x dim; x may be null when
// only the gains are wanted), from a generator seeded with seed: the same seed gives the same
// draws, and the first m of n draws are the draws of n = m. gains (may be null) receives each
// draw's ELBO gain. Throws Error(numeric) if the surrogate cannot be rebuilt.
void refined_sample(const VariationalPosterior& vp, const ParameterTransform& transform, const SurrogateRecord& surrogate,
                    const RefineSettings& settings, size_t n, uint64_t seed, double* x, std::vector<double>* gains);

}  // namespace libvbmc
