// Acquisition functions of active sampling (paper section 3.3, eq. 9; PyVBMC
// acquisition_functions/). Values are to be MINIMISED, as in PyVBMC.
#pragma once
#include "acquisition/acq_settings.hpp"
#include "gp/gp.hpp"
#include "linalg/matrix.hpp"
#include "vp/vp.hpp"

namespace libvbmc {

// One acquisition value from the eq. 10 moments of the surrogate at x (mean f_bar, total
// variance var_tot), log q(x), the largest observed log joint y_max and the expected noise
// variance of an evaluation at x (used by npro only), with PyVBMC's post-processing
// (AbstractAcqFcn.__call__): log q floored at log(DBL_MIN); when s.variance_regularized and
// var_tot < tol_gp_var the value is penalised by + (tol/var_tot - 1) (log-valued kinds) or
// * exp(-(tol/var_tot - 1)); the result is floored at -DBL_MAX. Zero variance gives +inf (log)
// or 0 (pro, us, npro); NaN input gives +inf. Defined for the kinds with a from_moments formula
// in the registry (throws Error(internal) for the others).
double acq_from_moments(const AcqSettings& s, double f_bar, double var_tot, double log_q, double y_max,
                        double noise_var = 0.0);

// True if x (transformed space, dim coordinates) lies outside the hard limits s.lb_eps / s.ub_eps
// (never when they are empty); the acquisition is +inf there.
bool outside_limits(const AcqSettings& s, const double* x, int dim);

// True when even the optimistic surrogate value f_bar + 3 sqrt(var_tot) lies more than
// s.plausible_drop below y_max: no posterior mass can be there (acq_settings.hpp).
bool implausible(const AcqSettings& s, double f_bar, double var_tot, double y_max);

// Acquisition values at the rows of xs (transformed space): GP predictions over the whole
// batch (gp_predict, eq. 10), vp log densities, the expected noise (expected_noise.hpp),
// acq_from_moments, and +inf outside the hard limits s.lb_eps / s.ub_eps. acq receives xs.rows
// values. For ivr: ivr_evaluate with terms computed for this call (callers evaluating many
// batches keep a scorer instead, acq_registry.hpp). Kinds with random integration points (viqr,
// imiqr) are scored by their scorer only (throws Error(internal)).
void acq_evaluate(const Gp& gp, const VariationalPosterior& vp, const Matrix& xs, double y_max,
                  const AcqSettings& s, double* acq);

}  // namespace libvbmc
