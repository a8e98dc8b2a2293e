#include "acquisition/search_bounds.hpp"

#include <algorithm>
#include <cmath>

namespace libvbmc {

void initial_search_bounds(const std::vector<double>& plb, const std::vector<double>& pub,
                           const std::vector<double>& lb, const std::vector<double>& ub,
                           double active_search_bound, std::vector<double>& lb_search,
                           std::vector<double>& ub_search) {
    const size_t dim = plb.size();
    lb_search.resize(dim);
    ub_search.resize(dim);
    for (size_t d = 0; d < dim; ++d) {
        const double width = pub[d] - plb[d];
        lb_search[d] = std::max(plb[d] - active_search_bound * width, lb[d]);
        ub_search[d] = std::min(pub[d] + active_search_bound * width, ub[d]);
    }
}

void expand_search_bounds(const double* x, double below_best, double max_below_best,
                          const std::vector<double>& lb, const std::vector<double>& ub,
                          std::vector<double>& lb_search, std::vector<double>& ub_search) {
    if (!(below_best <= max_below_best)) return;
    for (size_t d = 0; d < lb_search.size(); ++d) {
        const double delta = 0.05 * (ub_search[d] - lb_search[d]);
        if (std::abs(x[d] - lb_search[d]) < delta) lb_search[d] = std::max(lb[d], lb_search[d] - delta);
        if (std::abs(x[d] - ub_search[d]) < delta) ub_search[d] = std::min(ub[d], ub_search[d] + delta);
    }
}

}  // namespace libvbmc
