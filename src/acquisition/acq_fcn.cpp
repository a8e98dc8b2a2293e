#include "acquisition/acq_fcn.hpp"

#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "acquisition/acq_registry.hpp"
#include "acquisition/expected_noise.hpp"
#include "acquisition/variance_reduction.hpp"
#include "util/error.hpp"

namespace libvbmc {

// The kind's formula (acq_registry.cpp: AcqFcn, eq. 9, AcqFcnVanilla, AcqFcnLog, AcqFcnNoisy of
// PyVBMC), then the variance regulariser of AbstractAcqFcn.__call__.
double acq_from_moments(const AcqSettings& s, double f_bar, double var_tot, double log_q, double y_max,
                        double noise_var) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (std::isnan(f_bar) || std::isnan(var_tot) || std::isnan(log_q)) return inf;
    const AcqEntry& entry = acq_entry(s.kind);
    if (entry.from_moments == nullptr)
        throw_error(Code::internal, std::string("acq_from_moments: ") + entry.name + " is not a function of the moments");
    const double log_q_floored = std::max(log_q, std::log(DBL_MIN));
    double acq = entry.from_moments(AcqMoments{f_bar, var_tot, log_q_floored, y_max, noise_var});
    if (s.variance_regularized && var_tot < s.tol_gp_var) {
        const double excess = var_tot > 0.0 ? s.tol_gp_var / var_tot - 1.0 : inf;
        if (entry.log_valued)
            acq += excess;
        else
            acq *= std::exp(-excess);
    }
    return std::max(acq, -DBL_MAX);
}

bool outside_limits(const AcqSettings& s, const double* x, int dim) {
    if (s.lb_eps.empty()) return false;
    bool outside = false;
    for (int d = 0; d < dim; ++d) outside = outside || x[d] < s.lb_eps[d] || x[d] > s.ub_eps[d];
    return outside;
}

bool implausible(const AcqSettings& s, double f_bar, double var_tot, double y_max) {
    return f_bar + 3.0 * std::sqrt(std::max(var_tot, 0.0)) < y_max - s.plausible_drop;
}

void acq_evaluate(const Gp& gp, const VariationalPosterior& vp, const Matrix& xs, double y_max,
                  const AcqSettings& s, double* acq) {
    const int m = xs.rows;
    const int dim = xs.cols;
    if (m == 0) return;
    if (s.kind == AcqKind::ivr) {
        ivr_evaluate(gp, VarianceReduction(gp, vp), xs, y_max, s, acq);
        return;
    }
    std::vector<double> f_bar, var_tot;
    gp_predict(gp, xs, f_bar, var_tot);
    const ExpectedNoise noise = expected_noise(gp, xs);
    for (int j = 0; j < m; ++j) {
        const double* x = xs.row(j);
        acq[j] = outside_limits(s, x, dim) ? std::numeric_limits<double>::infinity()
                         : acq_from_moments(s, f_bar[j], var_tot[j], vp_log_pdf(vp, x), y_max, noise.mean(j));
    }
}

}  // namespace libvbmc
