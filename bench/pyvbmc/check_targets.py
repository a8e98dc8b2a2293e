#!/usr/bin/env python3
"""Check run_pyvbmc.py's targets: each must integrate to its ground-truth log marginal likelihood.

Importance sampling with a multivariate Student t proposal (2 degrees of freedom, centred on the
true posterior mean, scale 1.5^2 x the true covariance); prints log Z, its standard error and the
ground truth, and exits 1 if any estimate is more than 5 standard errors (and 0.01) away.
Usage: check_targets.py [PROBLEM ...]   (default: the nine problems of shared/bench/pyvbmc.md)
"""
import json
import sys

import numpy as np
from scipy.special import gammaln, logsumexp

from run_pyvbmc import SHARED, load_problem

DEFAULT = ["cigar_D2", "cigar_D6", "cigar_D10", "lumpy_D2", "lumpy_D6", "rosenbrock_D2",
           "student_D2", "student_D6", "student_D10"]


def check(name, n=200000, df=2.0, seed=1):
    dim, truth, log_joint = load_problem(name)
    rng = np.random.default_rng(seed)
    mean, scale = np.array(truth["mean"]), 1.5 ** 2 * np.array(truth["cov"])
    chol = np.linalg.cholesky(scale)
    draws = mean + (rng.standard_normal((n, dim)) @ chol.T) / np.sqrt(rng.chisquare(df, n) / df)[:, None]
    maha = np.sum(np.linalg.solve(chol, (draws - mean).T) ** 2, axis=0)
    log_q = (gammaln(0.5 * (df + dim)) - gammaln(0.5 * df) - 0.5 * dim * np.log(df * np.pi)
             - np.sum(np.log(np.diag(chol))) - 0.5 * (df + dim) * np.log1p(maha / df))
    log_w = np.array([log_joint(x) for x in draws]) - log_q
    log_z = logsumexp(log_w) - np.log(n)
    weights = np.exp(log_w - log_z)
    se = np.std(weights) / np.sqrt(n)  # SE of Z / Z, i.e. of log Z to first order
    ok = abs(log_z - truth["lml"]) <= max(5 * se, 0.01)
    verdict = "ok" if ok else "MISMATCH"
    print(f"{name:14s} log Z {log_z:10.4f} +- {se:.4f}   ground truth {truth['lml']:10.4f}   {verdict}")
    return ok


if __name__ == "__main__":
    names = sys.argv[1:] or DEFAULT
    sys.exit(0 if all([check(p) for p in names]) else 1)
