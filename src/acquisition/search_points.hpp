// Candidate set of the fast acquisition search (PyVBMC active_sample._get_search_points).
#pragma once
#include <vector>

#include "acquisition/acq_settings.hpp"
#include "linalg/matrix.hpp"
#include "util/rng.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

// s.ns_search candidates in the transformed space: up to ceil(ns_search * cache_frac) rows of
// start_cache (user points not yet evaluated; may be empty), then, of the remaining N,
// round(N heavy_tail_search_frac) vp draws with Student-t scales, round(N mvn_search_frac)
// draws from a Gaussian with the vp moments, round(N box_search_frac) uniform draws in the
// training box widened by half its diameter (cut to the search box), and plain vp draws for
// the rest. All are clipped to [lb_search, ub_search]. cache_index[i] is the start_cache row
// of candidate i, or -1.
Matrix search_points(const Matrix& train_x, const VariationalPosterior& vp, const Matrix& start_cache,
                     const AcqSettings& s, Rng& rng, std::vector<int>& cache_index);

}  // namespace libvbmc
