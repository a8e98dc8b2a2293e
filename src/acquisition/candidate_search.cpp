#include "acquisition/candidate_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "acquisition/acq_fcn.hpp"
#include "acquisition/expected_noise.hpp"
#include "acquisition/variance_reduction.hpp"
#include "linalg/linalg.hpp"
#include "util/error.hpp"
#include "util/parallel.hpp"
#include "util/vector_clones.hpp"

namespace libvbmc {

namespace {

constexpr int kBlock = 256;       // candidates per block: cross-covariances of all samples kept
constexpr int kExactBatch = 32;   // candidates of a block scored exactly together
// Relative slack that keeps the bounds below the exact values despite rounding.
constexpr double kVarianceSlack = 1e-10;
constexpr double kBoundSlack = 1e-9;

// max_i k_i^2 / A_ii over the rows of kstar (n x count), column by column: the single-point
// term of the variance bound.
VBMC_VECTOR_CLONES
void best_ratio_by_column(const Matrix& kstar, const double* inv_diag, double* best_ratio) {
    const int count = kstar.cols;
    std::fill(best_ratio, best_ratio + count, 0.0);
    for (int i = 0; i < kstar.rows; ++i) {
        const double* k = kstar.row(i);
        for (int j = 0; j < count; ++j) best_ratio[j] = std::max(best_ratio[j], k[j] * k[j] * inv_diag[i]);
    }
}

// Column subset of m (n x cols) into out (n x columns.size()).
void gather_columns(const Matrix& m, const std::vector<int>& columns, Matrix& out) {
    out.reshape(m.rows, static_cast<int>(columns.size()));
    for (int i = 0; i < m.rows; ++i) {
        const double* from = m.row(i);
        double* to = out.row(i);
        for (size_t c = 0; c < columns.size(); ++c) to[c] = from[columns[c]];
    }
}

// Hands the candidates to score_batch in increasing order of their lower bounds, kExactBatch at a
// time, until the next bound exceeds the worst value kept (score_batch updates top).
template <class ScoreBatch>
void in_bound_order(const std::vector<double>& bound, const TopCandidates& top, ScoreBatch score_batch) {
    const int count = static_cast<int>(bound.size());
    std::vector<int> order(count);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return bound[a] < bound[b]; });
    std::vector<int> batch;
    for (int pos = 0; pos < count && (!top.full() || bound[order[pos]] <= top.threshold());) {
        const int batch_size = std::min(kExactBatch, count - pos);
        batch.assign(order.begin() + pos, order.begin() + pos + batch_size);
        score_batch(batch);
        pos += batch_size;
    }
}

// One block of candidates. For each sample the cross-covariance K* with the training set is
// formed once; from it the exact means and a lower bound of each candidate's acquisition,
// whose latent variance is bounded above by sf^2 - max_i k_i^2 / A_ii (k^T A^{-1} k >=
// (k^T e_i)^2 / A_ii by Cauchy-Schwarz, A = the factorised K + noise). The block's candidates
// are then scored exactly from the same K* in increasing order of their bounds, kExactBatch at a
// time, as acq_evaluate scores them (gp_predict's solve and eq. 10 average), until the next
// bound exceeds the worst value kept so far. For ivr the bound comes from the covariance with E_q f
// instead (score_variance_reduction); acquisitions without a bound (acq_pruning) are scored
// exactly by their scorer, a block at a time.
class BlockScorer {
public:
    BlockScorer(const Gp& gp, const VariationalPosterior& vp, double y_max, const AcqSettings& s,
                const AcqScorer& scorer)
        : gp_(gp), vp_(vp), y_max_(y_max), s_(s), scorer_(scorer), pruning_(acq_pruning(acq_entry(s.kind))),
          ivr_(scorer.variance_reduction()), ns_(gp.samples.size()), kstar_(ns_), sf2_(ns_),
          inv_diag_(ns_, std::vector<double>(gp.data.size(), 0.0)) {
        const int n = gp.data.size();
        for (size_t si = 0; si < ns_; ++si) {
            sf2_[si] = std::exp(2.0 * gp.samples[si].theta[hyp::log_sf(gp.dim)]);
            for (int i = 0; i < n; ++i) {
                const double* row = gp.samples[si].chol.row(i);
                double a_ii = 0.0;  // |row i of L|^2, jitter included
                for (int c = 0; c <= i; ++c) a_ii += row[c] * row[c];
                inv_diag_[si][i] = 1.0 / a_ii;
            }
        }
    }

    void score(const Matrix& candidates, int start, int count, TopCandidates& top) {
        const int dim = gp_.dim;
        Matrix block(count, dim);
        std::copy(candidates.row(start), candidates.row(start) + static_cast<size_t>(count) * dim, block.row(0));
        if (pruning_ == AcqBound::none) {
            std::vector<double> values(count);
            scorer_.evaluate(block, values.data());
            for (int j = 0; j < count; ++j) top.consider(values[j], start + j);
            return;
        }
        noise_ = expected_noise(gp_, block);
        if (pruning_ == AcqBound::variance_reduction) {
            score_variance_reduction(block, start, top);
            return;
        }
        const std::vector<double> var_sum = means_and_variance_bounds(block);
        // Bounds, then exact scores in increasing order of the bounds, a batch at a time, until
        // the next bound exceeds the worst value kept.
        std::vector<double> bound(count), log_q(count);
        const double inv = 1.0 / static_cast<double>(ns_);
        for (int j = 0; j < count; ++j) {
            const double* x = block.row(j);
            log_q[j] = outside_limits(s_, x, dim) ? std::numeric_limits<double>::quiet_NaN() : vp_log_pdf(vp_, x);
            bound[j] = std::numeric_limits<double>::infinity();
            if (std::isnan(log_q[j])) continue;
            const double f_bar = mean_of_means(j, count);
            const double var_upper = (var_sum[j] * inv + mean_spread(j, count, f_bar)) * (1.0 + kVarianceSlack);
            const double value = acq_from_moments(s_, f_bar, var_upper, log_q[j], y_max_, noise_.mean(j));
            if (value < std::numeric_limits<double>::infinity()) bound[j] = value - kBoundSlack * (1.0 + std::abs(value));
        }
        in_bound_order(bound, top, [&](const std::vector<int>& batch) { score_exactly(batch, start, count, top, log_q); });
    }

private:
    // For each sample: K* of the block, the exact means (into means_) and, returned summed over
    // the samples, upper bounds of the latent variances, sf^2 - max_i k_i^2 / A_ii.
    std::vector<double> means_and_variance_bounds(const Matrix& block) {
        const int count = block.rows;
        const int dim = gp_.dim;
        means_.assign(ns_ * count, 0.0);
        std::vector<double> var_sum(count, 0.0), best_ratio(count);
        for (size_t si = 0; si < ns_; ++si) {
            const GpSample& sample = gp_.samples[si];
            gp_cross_kernel(gp_.data.x, block, sample.theta.data(), dim, kstar_[si]);
            double* mean_s = means_.data() + si * count;
            gp_mean_rows(block.row(0), count, sample.theta.data(), dim, gp_.data.mean_dof, mean_s);
            gemv(true, 1.0, kstar_[si], sample.alpha.data(), 1.0, mean_s);
            best_ratio_by_column(kstar_[si], inv_diag_[si].data(), best_ratio.data());
            for (int j = 0; j < count; ++j)
                var_sum[j] += std::max(sf2_[si] - best_ratio[j], 0.0) + kVarianceSlack * sf2_[si];
        }
        return var_sum;
    }

    // ivr: the exact covariances c of the block give each candidate an upper bound of its
    // reduction (VarianceReduction::reduction_bound), so a lower bound of its value; candidates
    // are scored exactly (latent variances from the same K*, as ivr_evaluate) in increasing order
    // of the bounds until the next bound exceeds the worst value kept. Candidates that even the upper
    // bound of their variance leaves implausible are excluded before any exact score.
    void score_variance_reduction(const Matrix& block, int start, TopCandidates& top) {
        const int count = block.rows;
        const int dim = gp_.dim;
        const std::vector<double> var_sum = means_and_variance_bounds(block);
        covs_.assign(ns_ * count, 0.0);
        std::vector<double> reduction_upper(count, 0.0), bound(count);
        for (size_t si = 0; si < ns_; ++si) {
            double* cov = covs_.data() + si * count;
            ivr_->covariance(si, block, kstar_[si], cov);
            for (int j = 0; j < count; ++j) reduction_upper[j] += ivr_->reduction_bound(si, cov[j]);
        }
        const double inv = 1.0 / static_cast<double>(ns_);
        std::vector<bool> outside(count);
        for (int j = 0; j < count; ++j) {
            const double f_bar = mean_of_means(j, count);
            const double var_upper = (var_sum[j] * inv + mean_spread(j, count, f_bar)) * (1.0 + kVarianceSlack);
            outside[j] = outside_limits(s_, block.row(j), dim) || implausible(s_, f_bar, var_upper, y_max_);
            const double upper = reduction_upper[j] * inv * (1.0 + kVarianceSlack);
            bound[j] = outside[j] || !(upper > 0.0) ? std::numeric_limits<double>::infinity()
                                                    : -std::log(upper) - kBoundSlack * (1.0 + std::abs(std::log(upper)));
        }
        in_bound_order(bound, top, [&](const std::vector<int>& batch) {
            score_variance_reduction_exactly(batch, start, count, outside, top);
        });
    }

    void score_variance_reduction_exactly(const std::vector<int>& batch, int start, int count,
                                          const std::vector<bool>& outside, TopCandidates& top) {
        const size_t m = batch.size();
        std::vector<double> reduction(m, 0.0), latent_var(m, 0.0), means(ns_ * m), vars(ns_ * m), f_mean(m), f_var(m);
        for (size_t si = 0; si < ns_; ++si) {
            gather_columns(kstar_[si], batch, subset_);
            double* var = vars.data() + si * m;
            gp_latent_variance(gp_.samples[si], sf2_[si], subset_, var);
            for (size_t c = 0; c < m; ++c) {
                means[si * m + c] = means_[si * count + batch[c]];
                reduction[c] += ivr_->reduction(si, covs_[si * count + batch[c]], var[c], noise_.at(si, batch[c]));
                latent_var[c] += var[c];
            }
        }
        gp_average_samples(ns_, m, means.data(), vars.data(), f_mean.data(), f_var.data());
        const double inv = 1.0 / static_cast<double>(ns_);
        for (size_t c = 0; c < m; ++c) {
            const int j = batch[c];
            const double value = outside[j] || implausible(s_, f_mean[c], f_var[c], y_max_)
                                     ? std::numeric_limits<double>::infinity()
                                     : ivr_from_terms(s_, reduction[c] * inv, latent_var[c] * inv);
            top.consider(value, start + j);
        }
    }

    double mean_of_means(int j, int count) const {
        double sum = 0.0;
        for (size_t si = 0; si < ns_; ++si) sum += means_[si * count + j];
        return sum * (1.0 / static_cast<double>(ns_));
    }

    // Sample variance of the means about their mean f_bar, as gp_average_samples forms it.
    double mean_spread(int j, int count, double f_bar) const {
        if (ns_ < 2) return 0.0;
        double spread = 0.0;
        for (size_t si = 0; si < ns_; ++si) {
            const double deviation = means_[si * count + j] - f_bar;
            spread += deviation * deviation;
        }
        return spread * (1.0 / (ns_ - 1.0));
    }

    void score_exactly(const std::vector<int>& batch, int start, int count, TopCandidates& top,
                       const std::vector<double>& log_q) {
        const size_t m = batch.size();
        std::vector<double> means(ns_ * m), vars(ns_ * m), f_mean(m), f_var(m);
        for (size_t si = 0; si < ns_; ++si) {
            for (size_t c = 0; c < m; ++c) means[si * m + c] = means_[si * count + batch[c]];
            gather_columns(kstar_[si], batch, subset_);
            gp_latent_variance(gp_.samples[si], sf2_[si], subset_, vars.data() + si * m);
        }
        gp_average_samples(ns_, m, means.data(), vars.data(), f_mean.data(), f_var.data());
        for (size_t c = 0; c < m; ++c) {
            const int j = batch[c];
            const double value = std::isnan(log_q[j]) ? std::numeric_limits<double>::infinity()
                                                      : acq_from_moments(s_, f_mean[c], f_var[c], log_q[j], y_max_,
                                                                         noise_.mean(j));
            top.consider(value, start + j);
        }
    }

    const Gp& gp_;
    const VariationalPosterior& vp_;
    double y_max_;
    const AcqSettings& s_;
    const AcqScorer& scorer_;
    AcqBound pruning_;
    const VarianceReduction* ivr_;
    size_t ns_;
    std::vector<Matrix> kstar_;  // per sample: k(X, block), n x count
    std::vector<double> sf2_;
    std::vector<std::vector<double>> inv_diag_;  // per sample: 1 / A_ii
    std::vector<double> means_;  // ns x count sample means of the block
    std::vector<double> covs_;   // ns x count ivr covariances c of the block
    Matrix subset_;              // the batch's columns of one K*, solved in place
    ExpectedNoise noise_;        // expected noise at the block's candidates
};

}  // namespace

// Lexicographic order of (value, index): the lower value, the first index on ties.
static bool better(const BestCandidate& a, const BestCandidate& b) {
    return a.value < b.value || (a.value == b.value && a.index < b.index);
}

void TopCandidates::consider(double value, int index) {
    const BestCandidate c{index, value};
    if (!full()) {
        kept_.push_back(c);
        std::push_heap(kept_.begin(), kept_.end(), better);  // the worst kept on top
    } else if (better(c, kept_.front())) {
        std::pop_heap(kept_.begin(), kept_.end(), better);
        kept_.back() = c;
        std::push_heap(kept_.begin(), kept_.end(), better);
    }
}

std::vector<BestCandidate> TopCandidates::sorted() const {
    std::vector<BestCandidate> out = kept_;
    std::sort(out.begin(), out.end(), better);
    return out;
}

std::vector<BestCandidate> best_candidates(const Gp& gp, const VariationalPosterior& vp, const Matrix& candidates,
                                           double y_max, const AcqSettings& s, const AcqScorer& scorer,
                                           int count) {
    if (acq_pruning(acq_entry(s.kind)) == AcqBound::variance_reduction && scorer.variance_reduction() == nullptr)
        throw_error(Code::internal, "best_candidates: the ivr acquisition needs its precomputed terms");
    if (count < 1) throw_error(Code::internal, "best_candidates: count must be positive");
    // Each worker keeps its own scratch and its own best; a candidate is pruned only when it
    // cannot be among its worker's best, so the merged best are the same for any thread count.
    const int n_blocks = (candidates.rows + kBlock - 1) / kBlock;
    const int workers = std::max(1, std::min(current_threads(), n_blocks));
    std::vector<TopCandidates> tops(static_cast<size_t>(workers), TopCandidates(static_cast<size_t>(count)));
    std::vector<std::unique_ptr<BlockScorer>> scorers(static_cast<size_t>(workers));
    parallel_for(n_blocks, workers, [&](int block, int worker) {
        std::unique_ptr<BlockScorer>& blocks = scorers[static_cast<size_t>(worker)];
        if (!blocks) blocks = std::make_unique<BlockScorer>(gp, vp, y_max, s, scorer);
        const int start = block * kBlock;
        blocks->score(candidates, start, std::min(kBlock, candidates.rows - start), tops[static_cast<size_t>(worker)]);
    });
    TopCandidates top(static_cast<size_t>(count));
    for (const TopCandidates& part : tops)
        for (const BestCandidate& c : part.sorted()) top.consider(c.value, c.index);
    return top.sorted();
}

BestCandidate best_candidate(const Gp& gp, const VariationalPosterior& vp, const Matrix& candidates,
                             double y_max, const AcqSettings& s, const AcqScorer& scorer) {
    const std::vector<BestCandidate> best = best_candidates(gp, vp, candidates, y_max, s, scorer, 1);
    return best.empty() ? BestCandidate{0, std::numeric_limits<double>::infinity()} : best.front();
}

}  // namespace libvbmc
