#include "acquisition/shortlist.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "acquisition/candidate_search.hpp"
#include "acquisition/search_points.hpp"
#include "acquisition/acq_registry.hpp"

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
    const double y_max = s.best_value(gp.data.y);
    const std::unique_ptr<AcqScorer> scorer = make_acq_scorer(gp, vp, y_max, unclipped, rng);
    Matrix shortlist(0, gp.dim);
    for (const BestCandidate& c : best_candidates(gp, vp, candidates, y_max, unclipped, *scorer, share_of(s)))
        if (c.value < INFINITY) shortlist.append_row(candidates.row(c.index), gp.dim);
    return shortlist;
}

}  // namespace libvbmc
