#!/usr/bin/env python3
"""Importance-sampling check of bench/problems/extended/ground_truth.json (cigar, lumpy at D = 15,
20), independent of its closed forms: the log likelihood is evaluated as bench/problems/problems.c
does, the proposal is built from the likelihood's constants only (never from the ground truth), and
the estimates of log Z and of the posterior mean are compared with the stored truth in standard
errors.

    /usr/bin/python3 bench/problems/check_extended_problems.py [DIR] [--draws N] [--seed S]

Proposals: cigar, a multivariate Student t (nu = 5) centred on mu with scale 1.5 Sigma (Sigma =
R^T diag(l^2) R, the likelihood's covariance); lumpy, a defensive mixture: 0.9 x the likelihood's
own mixture, 0.1 x the prior. Both keep the weights bounded. Needs numpy.
Exit code 0 iff every estimate is within 5 standard errors of the truth.
"""
import argparse
import json
import math
import os
import sys

import numpy as np

LOG_2PI = math.log(2.0 * math.pi)
LOG_DBL_MIN = math.log(sys.float_info.min)
CHUNK = 100_000


def cigar_log_likelihood(x, R):
    """problems.c: z = R (x - mu), -0.5 sum (z_k / l_k)^2 - 0.5 D log 2 pi - log 100."""
    dim = x.shape[1]
    mu = np.array([-1.0 + 2.0 * j / (dim - 1) for j in range(dim)])
    z = (x - mu) @ R.T
    length = np.ones(dim)
    length[-1] = 100.0
    return -0.5 * ((z / length) ** 2).sum(axis=1) - 0.5 * dim * LOG_2PI - math.log(100.0)


def lumpy_log_likelihood(x, w, Mu, var):
    """problems.c: log sum_m w_m N(x; Mu_m, diag(var_m)), floored at log(DBL_MIN)."""
    dim = x.shape[1]
    terms = np.log(w) - 0.5 * dim * LOG_2PI - 0.5 * (
        ((x[:, None, :] - Mu[None]) ** 2 / var[None]).sum(axis=2) + np.log(var).sum(axis=1))
    top = terms.max(axis=1)
    log_lik = top + np.log(np.exp(terms - top[:, None]).sum(axis=1))
    return np.maximum(log_lik, LOG_DBL_MIN)


def log_prior(x, m0, v0):
    return -0.5 * (LOG_2PI + np.log(v0) + (x - m0) ** 2 / v0).sum(axis=1)


def logsumexp_rows(a):
    top = a.max(axis=1)
    return top + np.log(np.exp(a - top[:, None]).sum(axis=1))


class StudentProposal:
    def __init__(self, center, scale, nu=5.0):
        self.center, self.nu = center, nu
        self.chol = np.linalg.cholesky(scale)
        dim = len(center)
        self.log_norm = (math.lgamma(0.5 * (nu + dim)) - math.lgamma(0.5 * nu) - 0.5 * dim * math.log(nu * math.pi)
                         - np.log(np.diag(self.chol)).sum())

    def draw(self, rng, n):
        dim = len(self.center)
        z = rng.standard_normal((n, dim))
        shrink = np.sqrt(self.nu / rng.chisquare(self.nu, n))
        return self.center + (z @ self.chol.T) * shrink[:, None]

    def log_pdf(self, x):
        dim = len(self.center)
        u = np.linalg.solve(self.chol, (x - self.center).T).T
        return self.log_norm - 0.5 * (self.nu + dim) * np.log1p((u * u).sum(axis=1) / self.nu)


class DefensiveMixtureProposal:
    """0.9 x sum_m w_m N(Mu_m, diag(var_m)) + 0.1 x N(m0, diag(v0)): the weight L prior / q is at
    most max(prior) / 0.9."""

    def __init__(self, w, Mu, var, m0, v0):
        self.log_weights = np.log(np.concatenate([0.9 * w, [0.1]]))
        self.means = np.vstack([Mu, m0])
        self.vars = np.vstack([var, v0])

    def draw(self, rng, n):
        which = rng.choice(len(self.log_weights), size=n, p=np.exp(self.log_weights))
        return self.means[which] + np.sqrt(self.vars[which]) * rng.standard_normal((n, self.means.shape[1]))

    def log_pdf(self, x):
        dim = x.shape[1]
        terms = self.log_weights - 0.5 * dim * LOG_2PI - 0.5 * (
            ((x[:, None, :] - self.means[None]) ** 2 / self.vars[None]).sum(axis=2) + np.log(self.vars).sum(axis=1))
        return logsumexp_rows(terms)


def check(name, truth, data, draws, rng):
    family, dim = name.split("_D")[0], int(name.split("_D")[1])
    m0, v0 = np.array(truth["prior_mean"]), np.array(truth["prior_var"])
    if family == "cigar":
        R = np.array(data["cigar"][str(dim)]["R"])
        length2 = np.ones(dim)
        length2[-1] = 1e4
        mu = np.linspace(-1.0, 1.0, dim)
        proposal = StudentProposal(mu, 1.5 * (R.T @ np.diag(length2) @ R))
        log_lik = lambda x: cigar_log_likelihood(x, R)  # noqa: E731
    else:
        entry = data["lumpy"][str(dim)]
        w, Mu = np.array(entry["w"]), np.array(entry["Mu"])
        var = np.array([np.diag(s) for s in entry["Sigma"]])
        proposal = DefensiveMixtureProposal(w, Mu, var, m0, v0)
        log_lik = lambda x: lumpy_log_likelihood(x, w, Mu, var)  # noqa: E731
    xs, lws = [], []
    for start in range(0, draws, CHUNK):
        x = proposal.draw(rng, min(CHUNK, draws - start))
        xs.append(x)
        lws.append(log_lik(x) + log_prior(x, m0, v0) - proposal.log_pdf(x))
    x, lw = np.vstack(xs), np.concatenate(lws)
    top = lw.max()
    wt = np.exp(lw - top)
    n = len(wt)
    log_z = top + math.log(wt.mean())
    log_z_se = wt.std() / math.sqrt(n) / wt.mean()
    mean = wt @ x / wt.sum()
    mean_se = np.sqrt(((wt[:, None] * (x - mean)) ** 2).sum(axis=0)) / wt.sum()
    sd = np.sqrt(np.diag(np.array(truth["cov"])))
    ess = wt.sum() ** 2 / (wt * wt).sum()
    z_lml = (log_z - truth["lml"]) / log_z_se
    z_mean = (mean - np.array(truth["mean"])) / mean_se
    worst = int(np.argmax(np.abs(z_mean)))
    print(f"{name:<10} ESS {ess:9.0f}/{n}  lml {log_z:.5f} (truth {truth['lml']:.5f}, SE {log_z_se:.1e}, "
          f"{z_lml:+.2f} SE)  mean: largest |diff|/SE {abs(z_mean[worst]):.2f} (coord {worst}), "
          f"largest |diff| {np.max(np.abs(mean - truth['mean']) / sd):.1e} posterior SD, SE <= "
          f"{np.max(mean_se / sd):.1e} SD")
    return abs(z_lml) <= 5.0 and np.all(np.abs(z_mean) <= 5.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "extended"))
    parser.add_argument("--draws", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with open(os.path.join(args.dir, "ground_truth.json")) as f:
        truth = json.load(f)
    with open(os.path.join(args.dir, "infbench_data.json")) as f:
        data = json.load(f)
    rng = np.random.default_rng(args.seed)
    ok = [check(name, truth[name], data, args.draws, rng) for name in sorted(truth)]
    print(f"{sum(ok)} passed, {len(ok) - sum(ok)} failed")
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
