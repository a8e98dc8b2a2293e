"""Monte Carlo estimators of the log evidence and posterior moments of the real-posterior models
(numpy): the unconstrained parametrisation, a multivariate Student-t proposal, importance
sampling and bridge sampling."""
import math
import time

import numpy as np


# ------------------------------------------------------------------------------------------
# Unconstrained space: log for a lower bound, logit for an interval, identity otherwise.
# ------------------------------------------------------------------------------------------

def unconstrain(x, lb, ub):
    u = np.array(x, dtype=float)
    for j, (low, high) in enumerate(zip(lb, ub)):
        if math.isfinite(low) and math.isfinite(high):
            p = (x[:, j] - low) / (high - low)
            u[:, j] = np.log(p) - np.log1p(-p)
        elif math.isfinite(low):
            u[:, j] = np.log(x[:, j] - low)
    return u


def constrain(u, lb, ub):
    """x = T(u) and log |det dx/du| per row."""
    x = np.array(u, dtype=float)
    log_jacobian = np.zeros(u.shape[0])
    for j, (low, high) in enumerate(zip(lb, ub)):
        if math.isfinite(low) and math.isfinite(high):
            x[:, j] = low + (high - low) / (1.0 + np.exp(-u[:, j]))
            log_jacobian += (math.log(high - low) - np.logaddexp(0.0, -u[:, j])
                             - np.logaddexp(0.0, u[:, j]))
        elif math.isfinite(low):
            x[:, j] = low + np.exp(u[:, j])
            log_jacobian += u[:, j]
    return x, log_jacobian


# ------------------------------------------------------------------------------------------
# Proposal
# ------------------------------------------------------------------------------------------

class StudentT:
    """Multivariate Student t with nu degrees of freedom, location m and scale matrix
    inflation^2 * cov(u) fitted to draws u."""

    def __init__(self, u, nu, inflation):
        self.nu = nu
        self.location = u.mean(axis=0)
        self.chol = np.linalg.cholesky(np.cov(u.T) * inflation ** 2)
        dim = u.shape[1]
        self.log_norm = (math.lgamma(0.5 * (nu + dim)) - math.lgamma(0.5 * nu)
                         - 0.5 * dim * math.log(nu * math.pi)
                         - np.log(np.diag(self.chol)).sum())

    def sample(self, n, rng):
        dim = self.location.size
        z = rng.standard_normal((n, dim)) * np.sqrt(self.nu / rng.chisquare(self.nu, n))[:, None]
        return self.location + z @ self.chol.T

    def log_pdf(self, u):
        z = np.linalg.solve(self.chol, (u - self.location).T)
        mahalanobis = (z ** 2).sum(axis=0)
        return self.log_norm - 0.5 * (self.nu + u.shape[1]) * np.log1p(mahalanobis / self.nu)


def log_target(target, model, u, batch=100000):
    """log p(T(u)) + log |dT/du| of the unconstrained draws u, with the time per evaluation."""
    x, log_jacobian = constrain(u, model.lb, model.ub)
    values = np.empty(u.shape[0])
    start = time.perf_counter()
    for begin in range(0, u.shape[0], batch):
        values[begin:begin + batch] = target.log_joint(x[begin:begin + batch])
    seconds = (time.perf_counter() - start) / u.shape[0]
    return values + log_jacobian, x, seconds


# ------------------------------------------------------------------------------------------
# Importance sampling
# ------------------------------------------------------------------------------------------

def weighted_moments(x, weights):
    """Self-normalised mean and covariance with delta-method standard errors (Owen, Monte
    Carlo theory, methods and examples, section 9.2, eq. 9.8): SE^2 of a ratio estimate
    sum w f / sum w is sum w^2 (f - estimate)^2 / (sum w)^2."""
    w = weights / weights.sum()
    w2 = w ** 2
    mean = w @ x
    centred = x - mean
    mean_se = np.sqrt(w2 @ centred ** 2)
    dim = x.shape[1]
    cov, cov_se = np.empty((dim, dim)), np.empty((dim, dim))
    for i in range(dim):
        for j in range(i + 1):
            product = centred[:, i] * centred[:, j]
            cov[i, j] = cov[j, i] = w @ product
            cov_se[i, j] = cov_se[j, i] = math.sqrt(w2 @ (product - cov[i, j]) ** 2)
    return mean, cov, mean_se, cov_se


def importance_sampling(target, model, proposal, n, rng):
    """log Z = log mean(p(T(u)) |T'(u)| / q(u)), u ~ q (Owen, section 9.1); its SE by the delta
    method, SD(w) / (mean(w) sqrt(n)). A NaN log joint (solver failure) counts as weight 0 and
    is reported."""
    u = proposal.sample(n, rng)
    log_p, x, seconds = log_target(target, model, u)
    log_w = log_p - proposal.log_pdf(u)
    failed = int(np.isnan(log_w).sum())
    log_w[np.isnan(log_w)] = -np.inf
    top = log_w.max()
    w = np.exp(log_w - top)
    mean, cov, mean_se, cov_se = weighted_moments(x, w)
    return {"lml": float(top + math.log(w.mean())),
            "lml_se": float(w.std() / (w.mean() * math.sqrt(n))),
            "ess": float(w.sum() ** 2 / (w ** 2).sum()), "samples": n, "failed": failed,
            "mean": mean, "cov": cov, "mean_se": mean_se, "cov_se": cov_se,
            "seconds_per_eval": seconds}


# ------------------------------------------------------------------------------------------
# Bridge sampling
# ------------------------------------------------------------------------------------------

def log_mean_exp(values):
    top = values.max()
    return top + math.log(np.exp(values - top).mean())


def bridge_sampling(target, model, posterior_u, proposal, n, rng, tolerance=1e-10):
    """Meng and Wong (1996) optimal bridge, iterated as in Gronau et al. (2017), eq. 5:
    r <- [1/N2 sum_j l2_j / (s1 l2_j + s2 r)] / [1/N1 sum_i 1 / (s1 l1_i + s2 r)], with
    l = p(u) / g(u) at the N1 posterior draws (l1) and N2 proposal draws (l2), s_k = N_k / N.
    Relative SE from Fruhwirth-Schnatter (2004) (Gronau et al., eq. 17) with independent
    posterior draws: RE^2 = V_g(f2) / (N2 E_g(f2)^2) + V_p(f1) / (N1 E_p(f1)^2), f2 = l2 h,
    f1 = h, h = 1 / (s1 l + s2 r)."""
    log_l1 = log_target(target, model, posterior_u)[0] - proposal.log_pdf(posterior_u)
    u2 = proposal.sample(n, rng)
    log_l2 = log_target(target, model, u2)[0] - proposal.log_pdf(u2)
    log_l2[np.isnan(log_l2)] = -np.inf  # solver failures, as in importance_sampling
    n1, n2 = log_l1.size, log_l2.size
    log_s1, log_s2 = math.log(n1 / (n1 + n2)), math.log(n2 / (n1 + n2))
    log_r = float(np.median(log_l1))
    for iteration in range(1000):
        log_h1 = -np.logaddexp(log_s1 + log_l1, log_s2 + log_r)
        log_h2 = -np.logaddexp(log_s1 + log_l2, log_s2 + log_r)
        updated = log_mean_exp(log_l2 + log_h2) - log_mean_exp(log_h1)
        converged = abs(updated - log_r) < tolerance
        log_r = updated
        if converged:
            break
    log_h1 = -np.logaddexp(log_s1 + log_l1, log_s2 + log_r)
    log_h2 = -np.logaddexp(log_s1 + log_l2, log_s2 + log_r)

    def relative_variance(log_f):
        f = np.exp(log_f - log_f.max())
        return f.var() / f.mean() ** 2

    relative_error = math.sqrt(relative_variance(log_l2 + log_h2) / n2
                               + relative_variance(log_h1) / n1)
    return {"lml": log_r, "lml_se": relative_error, "iterations": iteration + 1,
            "posterior_draws": n1, "proposal_draws": n2}
