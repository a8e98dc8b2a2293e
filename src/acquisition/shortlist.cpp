#include "acquisition/shortlist.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "acquisition/candidate_search.hpp"
#include "acquisition/search_points.hpp"
#include "acquisition/variance_reduction.hpp"

namespace libvbmc {

namespace {
int share_of(const AcqSettings& s) {
    return std::max(1, static_cast<int>(std::lround(s.ns_search * kShortlistShare)));
}
}  // namespace

int shortlist_fresh_count(const AcqSettings& s) { return share_of(s); }

Matrix acquisition_shortlist(const Gp& gp, const VariationalPosterior& vp, const AcqSettings& s, Rng& rng) {
    AcqSettings unclipped = s;
    unclipped.lb_search.clear();
    unclipped.ub_search.clear();
    std::vector<int> unused;
    const Matrix candidates = search_points(gp.data.x, vp, Matrix(), unclipped, rng, unused);
    std::unique_ptr<VarianceReduction> ivr;
    if (s.kind == AcqKind::ivr) ivr = std::make_unique<VarianceReduction>(gp, vp);
    const double y_max = s.best_value(gp.data.y);
    Matrix shortlist(0, gp.dim);
    for (const BestCandidate& c : best_candidates(gp, vp, candidates, y_max, unclipped, ivr.get(), share_of(s)))
        if (c.value < INFINITY) shortlist.append_row(candidates.row(c.index), gp.dim);
    return shortlist;
}

}  // namespace libvbmc
