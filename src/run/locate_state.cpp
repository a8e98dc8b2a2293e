#include "run/locate_state.hpp"

#include <algorithm>

#include "util/error.hpp"

namespace libvbmc {

void LocateState::write(Writer& out) const {
    out.u8(static_cast<uint8_t>(phase));
    if (phase == Phase::pending) return;
    out.i64(first_evaluation);
    climb.write(out);
    search.write(out);
    out.ints(difference_points);
    out.u64(differences_out.size());
    for (const std::vector<double>& x : differences_out) out.doubles(x);
    out.ints(members);
    out.i64(searches);
    out.i64(first_search_evals);
    out.i64(search_start);
    out.boolean(restarted);
    out.u64(tops.size());
    for (const LocatedTop& top : tops) {
        out.i64(top.index);
        out.matrix(top.cov);
        out.i64(top.reached);
    }
    out.ints(candidates);
    out.u64(probes.size());
    for (const LocateProbe& probe : probes) {
        out.i64(probe.candidate);
        out.doubles(probe.x);
        out.i64(probe.evaluation);
    }
    companion.write(out);
    out.ints(companion_members);
    out.i64(spent);
    out.doubles(located_x);
}

LocateState LocateState::read(Reader& in, int dim, int n_evaluations) {
    LocateState s;
    const uint8_t phase = in.u8();
    if (phase > static_cast<uint8_t>(Phase::done)) throw_error(Code::format, "the locating stage has an unknown phase");
    s.phase = static_cast<Phase>(phase);
    if (s.phase == Phase::pending) return s;
    auto index = [&](const char* what) { return static_cast<int>(in.bounded(0, n_evaluations - 1, what)); };
    s.first_evaluation = static_cast<int>(in.bounded(0, n_evaluations, "locating stage start"));
    s.climb = GradientClimb::read(in);
    s.search = TrustRegionSearch::read(in);
    s.difference_points = in.ints();
    const int64_t n_out = in.bounded(0, 1 << 20, "difference points out");
    for (int64_t i = 0; i < n_out; ++i) {
        s.differences_out.push_back(in.doubles());
        if (static_cast<int>(s.differences_out.back().size()) != dim) throw_error(Code::format, "a difference point out has the wrong dimension");
    }
    s.members = in.ints();
    s.searches = static_cast<int>(in.bounded(1, 64, "locating searches"));
    s.first_search_evals = static_cast<int>(in.bounded(0, n_evaluations, "first search evaluations"));
    s.search_start = static_cast<int>(in.bounded(0, n_evaluations, "search start"));
    s.restarted = in.boolean();
    const int64_t n_tops = in.bounded(0, 64, "located top count");
    for (int64_t i = 0; i < n_tops; ++i) {
        LocatedTop top;
        top.index = index("located top");
        top.cov = in.matrix();
        if (top.cov.rows != dim || top.cov.cols != dim) throw_error(Code::format, "a located top has the wrong dimension");
        top.reached = static_cast<int>(in.bounded(1, 64, "searches that reached a located top"));
        s.tops.push_back(top);
    }
    s.candidates = in.ints();
    const int64_t n_probes = in.bounded(0, 1 << 20, "valley probe count");
    for (int64_t i = 0; i < n_probes; ++i) {
        LocateProbe probe;
        probe.candidate = static_cast<int>(in.bounded(LocateProbe::kCompanion, n_evaluations - 1, "probe candidate"));
        probe.x = in.doubles();
        probe.evaluation = static_cast<int>(in.bounded(LocateProbe::kNotAsked, n_evaluations - 1, "valley probe state"));
        if (static_cast<int>(probe.x.size()) != dim) throw_error(Code::format, "a valley probe has the wrong dimension");
        s.probes.push_back(probe);
    }
    s.companion = GradientClimb::read(in);
    s.companion_members = in.ints();
    s.spent = static_cast<int>(in.bounded(0, 1 << 30, "locating evaluations"));
    s.located_x = in.doubles();
    auto valid = [&](int i) { return i >= 0 && i < n_evaluations; };
    const bool climb_ok = (s.climb.stop() == ClimbStop::not_run || s.climb.dim() == dim) &&
                          (s.companion.stop() == ClimbStop::not_run || s.companion.dim() == dim);
    const bool ok = s.search.dim() == dim && climb_ok && std::all_of(s.members.begin(), s.members.end(), valid) &&
                    std::all_of(s.companion_members.begin(), s.companion_members.end(), valid) &&
                    std::all_of(s.difference_points.begin(), s.difference_points.end(), valid) &&
                    std::is_sorted(s.difference_points.begin(), s.difference_points.end()) &&
                    std::all_of(s.candidates.begin(), s.candidates.end(), valid) &&
                    (s.located_x.empty() || static_cast<int>(s.located_x.size()) == dim);
    if (!ok) throw_error(Code::format, "the locating stage holds an invalid evaluation index or point");
    return s;
}

}  // namespace libvbmc
