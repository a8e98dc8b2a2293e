#!/usr/bin/env python3
"""Run PyVBMC on one benchmark problem and print one JSON line of the harness's metrics.

Usage: run_pyvbmc.py PROBLEM SEED   (e.g. run_pyvbmc.py lumpy_D6 101)

Re-measures the reference figures of shared/bench/pyvbmc.md with more seeds. Needs PyVBMC,
gpyreg and cma importable (shared/bench/pyvbmc.md gives the commits the reference used) and
numpy/scipy. The protocol is shared/bench/README.md's: default options, max_fun_evals =
50*(D+2), x0 uniform in the plausible box (numpy's global generator seeded with SEED, which
PyVBMC then also draws from), plb/pub = the plausible box, no hard bounds. The targets are
written from the family definitions of shared/bench/README.md; bench/pyvbmc/check_targets.py
checks that each integrates to its ground-truth log marginal likelihood.
"""
import contextlib
import json
import math
import os
import sys
import time

import numpy as np
from scipy.special import gammaln, logsumexp

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SHARED = next((p for p in (os.path.join(REPO, "..", "shared", "bench"), "/work/shared/bench")
               if os.path.isfile(os.path.join(p, "ground_truth.json"))), None)


def load_problem(name):
    """The problem's ground truth and its log joint as a function of a 1-D array."""
    family, dim = name.rsplit("_D", 1)
    dim = int(dim)
    truth = json.load(open(os.path.join(SHARED, "ground_truth.json")))[name]
    data = json.load(open(os.path.join(SHARED, "infbench_data.json")))
    prior_mean, prior_var = np.array(truth["prior_mean"]), np.array(truth["prior_var"])

    if family == "cigar":
        rotation = np.array(data["cigar"][str(dim)]["R"])
        centre = np.linspace(-1.0, 1.0, dim)
        lengths = np.ones(dim)
        lengths[-1] = 100.0

        def log_lik(x):  # N(x; mu, R^T diag(l^2) R)
            z = rotation @ (x - centre) / lengths
            return -0.5 * z @ z - 0.5 * dim * math.log(2 * math.pi) - math.log(100.0)
    elif family == "student":
        location = np.array(data["studentt"][str(dim)]["Mu"]).ravel()
        scale = np.array(data["studentt"][str(dim)]["Sigma"]).ravel()
        nu = 2.0 + 0.5 * np.arange(1, dim + 1)

        def log_lik(x):  # product of location-scale Student t, nu_i = 2 + i/2
            t = (x - location) / scale
            return float(np.sum(gammaln(0.5 * (nu + 1)) - gammaln(0.5 * nu) - 0.5 * np.log(nu * math.pi)
                                - np.log(scale) - 0.5 * (nu + 1) * np.log1p(t * t / nu)))
    elif family == "lumpy":
        lumpy = data["lumpy"][str(dim)]
        weight = np.array(lumpy["w"]).ravel()
        location = np.array(lumpy["Mu"])
        variance = np.array([np.diag(c) for c in lumpy["Sigma"]])

        def log_lik(x):  # log sum_m w_m N(x; Mu_m, diag(Sigma_m)), floored at the smallest normal
            quad = (x - location) ** 2 / variance
            terms = np.log(weight) - 0.5 * np.sum(np.log(2 * math.pi * variance) + quad, axis=1)
            return max(float(logsumexp(terms)), math.log(np.finfo(float).tiny))
    elif family == "rosenbrock":
        def log_lik(x):
            return -((x[0] ** 2 - x[1]) ** 2 + (x[0] - 1.0) ** 2 / 100.0)
    else:
        raise SystemExit(f"unknown problem {name}")

    def log_joint(x):
        x = np.asarray(x, dtype=float).ravel()
        prior_quad = (x - prior_mean) ** 2 / prior_var
        return log_lik(x) - 0.5 * float(np.sum(np.log(2 * math.pi * prior_var) + prior_quad))

    return dim, truth, log_joint


def gauss_kl(mean1, cov1, mean2, cov2):
    """KL(N(mean1, cov1) || N(mean2, cov2))."""
    inv2 = np.linalg.inv(cov2)
    diff = mean2 - mean1
    return 0.5 * (np.trace(inv2 @ cov1) + diff @ inv2 @ diff - len(mean1)
                  + np.linalg.slogdet(cov2)[1] - np.linalg.slogdet(cov1)[1])


def main():
    name, seed = sys.argv[1], int(sys.argv[2])
    dim, truth, log_joint = load_problem(name)
    target_seconds = [0.0]

    def timed_target(x):
        start = time.perf_counter()
        value = log_joint(x)
        target_seconds[0] += time.perf_counter() - start
        return value

    from pyvbmc import VBMC

    np.random.seed(seed)
    plb, pub = np.array(truth["plb"]), np.array(truth["pub"])
    x0 = plb + np.random.rand(dim) * (pub - plb)
    start = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):  # PyVBMC's own messages stay off the JSON line
        vbmc = VBMC(timed_target, x0.reshape(1, -1), np.full((1, dim), -np.inf), np.full((1, dim), np.inf),
                    plb.reshape(1, -1), pub.reshape(1, -1),
                    options={"max_fun_evals": 50 * (dim + 2), "display": "off"})
        vp, results = vbmc.optimize()
    wall = time.perf_counter() - start
    mean, cov = vp.moments(orig_flag=True, cov_flag=True)
    mean = np.ravel(mean)
    true_mean, true_cov = np.array(truth["mean"]), np.array(truth["cov"])
    gskl = 0.5 * (gauss_kl(mean, cov, true_mean, true_cov) + gauss_kl(true_mean, true_cov, mean, cov))
    fevals = int(results["func_count"])
    print(json.dumps({"problem": name, "D": dim, "seed": seed, "budget": 50 * (dim + 2),
                      "elbo": float(results["elbo"]), "elbo_sd": float(results["elbo_sd"]),
                      "lml": truth["lml"],
                      "lml_err": abs(float(results["elbo"]) - truth["lml"]), "gskl": float(gskl),
                      "fevals": fevals, "converged": int(bool(results["success_flag"])), "wall_s": wall,
                      "overhead_per_eval_s": (wall - target_seconds[0]) / fevals, "version": "pyvbmc"}),
          flush=True)


if __name__ == "__main__":
    main()
