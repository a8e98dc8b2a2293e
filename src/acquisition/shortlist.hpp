// Asks from one surrogate when many points are out (option max_pending > 1). Between two
// iterations the variational posterior and the GP's hyperparameters stay the same; only the
// points change, as asks add pending points (kriging believers) and tells replace them with
// their values. The candidates worth scoring change little, so instead of a fresh candidate set
// per ask, each iteration draws one, scores it under its own surrogate and keeps the best few
// (the shortlist); every ask then scores the shortlist and a few fresh draws under the
// surrogate of the moment (told values and pending points included) and refines the best with
// CMA-ES as usual (active_sample.hpp). The shortlist depends only on the iteration's surrogate
// and its own random stream, so a loaded checkpoint draws the same one.
#pragma once
#include "acquisition/acq_settings.hpp"
#include "gp/gp.hpp"
#include "linalg/matrix.hpp"
#include "util/rng.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

// Of each ask's s.ns_search candidates, this share comes from the shortlist and as much again
// from fresh draws: 256 candidates per ask at the default 2048 (1024 of 8192 before the default
// fell). With 16 asks out on lumpy_D6 (seeds 1-5) 1024 instead of 8192 cut the library's CPU time
// per evaluation from 81 to 50 ms, the median evaluations from 145 to 140, and the LML error and
// gsKL stayed below the sequential run's (bench/RESULTS.md, "Many workers"); 256 instead of 1024
// (16 workers, seeds 1-3, "Fewer candidates in exact mode") gave the same simulated wall time and
// evaluations within 3%, errors within seed noise.
constexpr double kShortlistShare = 1.0 / 16.0;

// The best round(ns_search * kShortlistShare) (at least 1) of s.ns_search candidates drawn from
// rng (search_points, not clipped to the search box: each ask clips them to its own), by the
// acquisition of s under gp and vp; candidates that cannot be chosen (value +inf) are left out.
Matrix acquisition_shortlist(const Gp& gp, const VariationalPosterior& vp, const AcqSettings& s, Rng& rng);

// The candidates each ask draws fresh beside the shortlist.
int shortlist_fresh_count(const AcqSettings& s);

}  // namespace libvbmc
