#include "acquisition/acq_fcn.hpp"

#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "acquisition/variance_reduction.hpp"
#include "util/error.hpp"

namespace libvbmc {

// AcqFcn (eq. 9), AcqFcnVanilla and AcqFcnLog of PyVBMC, then the variance regulariser of
// AbstractAcqFcn.__call__. The products are formed in log space so exp(f_bar - y_max) cannot
// overflow against a zero variance.
double acq_from_moments(const AcqSettings& s, double f_bar, double var_tot, double log_q, double y_max) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (std::isnan(f_bar) || std::isnan(var_tot) || std::isnan(log_q)) return inf;
    const double log_q_floored = std::max(log_q, std::log(DBL_MIN));
    const double log_var = var_tot > 0.0 ? std::log(var_tot) : -inf;
    double acq = 0.0;
    switch (s.kind) {
        case AcqKind::pro:
            acq = var_tot > 0.0 ? -std::exp(log_var + f_bar - y_max + log_q_floored) : 0.0;
            break;
        case AcqKind::us:
            acq = var_tot > 0.0 ? -std::exp(log_var + 2.0 * log_q_floored) : 0.0;
            break;
        case AcqKind::log:
            acq = -(log_var + f_bar - y_max + log_q_floored);
            break;
        case AcqKind::ivr:
            throw_error(Code::internal, "acq_from_moments: ivr is not a function of the moments");
    }
    if (s.variance_regularized && var_tot < s.tol_gp_var) {
        const double excess = var_tot > 0.0 ? s.tol_gp_var / var_tot - 1.0 : inf;
        if (s.kind == AcqKind::log)
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
    for (int j = 0; j < m; ++j) {
        const double* x = xs.row(j);
        acq[j] = outside_limits(s, x, dim) ? std::numeric_limits<double>::infinity()
                         : acq_from_moments(s, f_bar[j], var_tot[j], vp_log_pdf(vp, x), y_max);
    }
}

}  // namespace libvbmc
