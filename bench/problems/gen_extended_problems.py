#!/usr/bin/env python3
"""Generate bench/problems/extended/{infbench_data,ground_truth}.json: cigar and lumpy at D = 15 and
20, for the scaling benchmark's dimension sweep (shared/bench stops at D = 10).

    python3 bench/problems/gen_extended_problems.py INFBENCH_PROBLEMS_DIR /work/shared/bench \\
        bench/problems/extended

INFBENCH_PROBLEMS_DIR holds infbench_cigar.m and infbench_lumpy.m of infbench's matlab/problems
(the same commit as shared/bench/infbench_data.json, ac9dc7428fd7). Needs numpy (Debian:
python3-numpy, run with /usr/bin/python3). The outputs are committed, like problem_data.c, which
gen_problem_data.py then builds from shared/bench and this directory together.

Constants: infbench's own. Both files list literal constants for every D = 1..20 (drawn once in
MATLAB: the cigar's R a random rotation, the lumpy mixture's 12 weights ~ Dirichlet(1), means
~ U(0, 1)^D, diagonal SDs a random permutation of linspace(0.2, 0.6, D)); shared/bench took
D <= 10 from the same text, and this script takes D = 15 and 20. Before writing anything it
checks that its parser reproduces shared/bench/infbench_data.json for every D stored there.

Ground truth: computed here in closed form, as shared/bench/README.md describes, with the prior
N(m0, diag(v0)) of the plausible box (the box is m0 +- 1 prior SD):
  cigar   L(x) = N(x; mu, Sigma), mu = linspace(-1, 1, D), Sigma = R^T diag(l^2) R, l = (1, ..., 1,
          100); box +-(2 sqrt(diag Sigma) + max|mu|). Gaussian x Gaussian: log Z = log N(mu; m0,
          Sigma + V0), posterior precision Sigma^-1 + V0^-1, mean = cov (Sigma^-1 mu + V0^-1 m0).
  lumpy   L(x) = sum_m w_m N(x; Mu_m, diag(S_m)), box [-1, 2]^D. Each component times the prior
          is a scaled Gaussian: evidence w_m N(Mu_m; m0, diag(S_m + v0)), mean (Mu_m v0 + m0 S_m)
          / (S_m + v0), variance S_m v0 / (S_m + v0); log Z = log-sum-exp of the evidences, the
          posterior moments those of the mixture with weights proportional to them. The floor of
          the likelihood at the smallest normal double adds at most 2.2e-308 to Z: ignored.
Sigma^-1 is taken as R^T diag(l^-2) R, as bench/problems/problems.c evaluates the cigar (R is
orthogonal to 15 significant digits). The same code is checked against shared/bench's
ground_truth.json for cigar and lumpy at D = 2..10 before the new problems are written.
"""
import json
import os
import re
import sys

import numpy as np

NEW_DIMS = (15, 20)
COMMIT = "ac9dc7428fd74525d1e8fbb7954a7996e57c4948"


# ------------------------------------------------------------------------------------------
# infbench's MATLAB text
# ------------------------------------------------------------------------------------------

def parse_matrix(text):
    """A mat2str matrix '[a b;c d]' (or a scalar) as a list of rows of floats."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:-1]
    return [[float(v) for v in row.split()] for row in text.split(";")]


def cases(source):
    """{D: text of `case D` up to the next case / otherwise} of the switch on D."""
    parts = re.split(r"^\s*case (\d+)\s*$", source, flags=re.M)
    out = {}
    for i in range(1, len(parts), 2):
        out[int(parts[i])] = parts[i + 1].split("otherwise")[0]
    return out


def parse_cigar(path):
    with open(path) as f:
        source = f.read()
    data = {}
    for dim, body in cases(source).items():
        match = re.search(r"R = (\[[^\]]*\]|[-\d.e]+);", body)
        R = parse_matrix(match.group(1))
        assert len(R) == dim and all(len(row) == dim for row in R), dim
        data[dim] = {"R": R}
    return data


def parse_lumpy(path):
    with open(path) as f:
        source = f.read()
    # The switch on D inside the `else` branch (the generator code above it has no `case N`).
    data = {}
    for dim, body in cases(source).items():
        count = int(re.search(r"M = (\d+);", body).group(1))

        def field(name):
            return parse_matrix(re.search(name + r" = (\[[^\]]*\]|[-\d.e]+);", body).group(1))

        w = [row[0] for row in field("w")]
        Mu = field("Mu")
        Sigma = [None] * count
        for m, text in re.findall(r"Sigma\((\d+),:,:\) = (\[[^\]]*\]|[-\d.e]+);", body):
            Sigma[int(m) - 1] = parse_matrix(text)
        mean, cov = field("Mean")[0], field("Cov")
        assert len(w) == count and len(Mu) == count and all(len(r) == dim for r in Mu), dim
        assert all(s is not None and len(s) == dim for s in Sigma), dim
        data[dim] = {"w": w, "Mu": Mu, "Sigma": Sigma, "Mean_lik": mean, "Cov_lik": cov}
    return data


# ------------------------------------------------------------------------------------------
# Ground truth
# ------------------------------------------------------------------------------------------

def box_prior(plb, pub):
    prior_mean = 0.5 * (pub + plb)
    prior_var = (0.5 * (pub - plb)) ** 2
    return prior_mean, prior_var


def gauss_logpdf(x, mean, cov):
    chol = np.linalg.cholesky(cov)
    z = np.linalg.solve(chol, x - mean)
    return -0.5 * (z @ z) - np.log(np.diag(chol)).sum() - 0.5 * len(x) * np.log(2 * np.pi)


def symmetric(a):
    return 0.5 * (a + a.T)


def cigar_truth(dim, R):
    R = np.array(R)
    mu = np.linspace(-1.0, 1.0, dim)
    ell = np.ones(dim)
    ell[-1] = 100.0
    sigma = R.T @ np.diag(ell ** 2) @ R
    precision = R.T @ np.diag(ell ** -2) @ R
    half = 2.0 * np.sqrt(np.diag(sigma)) + np.max(np.abs(mu))
    plb, pub = -half, half
    m0, v0 = box_prior(plb, pub)
    lml = gauss_logpdf(mu, m0, sigma + np.diag(v0))
    post_cov = symmetric(np.linalg.inv(precision + np.diag(1.0 / v0)))
    post_mean = post_cov @ (precision @ mu + m0 / v0)
    return {"D": dim, "lml": float(lml), "mean": post_mean.tolist(), "cov": post_cov.tolist(),
            "plb": plb.tolist(), "pub": pub.tolist(), "prior_mean": m0.tolist(),
            "prior_var": v0.tolist(), "method": "closed form (Gaussian x Gaussian)"}


def lumpy_truth(dim, entry):
    w = np.array(entry["w"])
    Mu = np.array(entry["Mu"])
    S = np.array([np.diag(s) for s in entry["Sigma"]])  # [M, D] diagonal variances
    plb, pub = -np.ones(dim), 2.0 * np.ones(dim)
    m0, v0 = box_prior(plb, pub)
    total = S + v0
    log_evidence = (np.log(w) - 0.5 * dim * np.log(2 * np.pi) - 0.5 * np.log(total).sum(axis=1)
                    - 0.5 * ((Mu - m0) ** 2 / total).sum(axis=1))
    top = log_evidence.max()
    lml = top + np.log(np.exp(log_evidence - top).sum())
    pi = np.exp(log_evidence - lml)
    means = (Mu * v0 + m0 * S) / total
    variances = S * v0 / total
    mean = pi @ means
    second = sum(p * (np.diag(v) + np.outer(m, m)) for p, m, v in zip(pi, means, variances))
    cov = symmetric(second - np.outer(mean, mean))
    return {"D": dim, "lml": float(lml), "mean": mean.tolist(), "cov": cov.tolist(),
            "plb": plb.tolist(), "pub": pub.tolist(), "prior_mean": m0.tolist(),
            "prior_var": v0.tolist(), "method": "closed form (Gaussian mixture x Gaussian prior)"}


def truth_of(family, dim, data):
    return cigar_truth(dim, data["R"]) if family == "cigar" else lumpy_truth(dim, data)


def difference(a, b):
    """Largest |a - b| relative to max(1, |b|) over every number of two ground-truth entries."""
    worst = 0.0
    for key in ("lml", "mean", "cov", "plb", "pub", "prior_mean", "prior_var"):
        x, y = np.ravel(np.array(a[key], dtype=float)), np.ravel(np.array(b[key], dtype=float))
        scale = np.maximum(1.0, np.abs(y))
        worst = max(worst, float(np.max(np.abs(x - y) / scale)))
    return worst


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    infbench_dir, shared, out_dir = sys.argv[1:]
    parsed = {"cigar": parse_cigar(os.path.join(infbench_dir, "infbench_cigar.m")),
              "lumpy": parse_lumpy(os.path.join(infbench_dir, "infbench_lumpy.m"))}
    with open(os.path.join(shared, "infbench_data.json")) as f:
        shared_data = json.load(f)
    with open(os.path.join(shared, "ground_truth.json")) as f:
        shared_truth = json.load(f)
    assert shared_data["commit"] == COMMIT, shared_data["commit"]

    # 1. The parser reproduces shared/bench's constants exactly.
    for family in ("cigar", "lumpy"):
        for key, entry in shared_data[family].items():
            if int(key) >= 2:
                assert parsed[family][int(key)] == entry, (family, key)
        print(f"{family}: parsed constants equal shared/bench for D = "
              f"{', '.join(k for k in shared_data[family] if int(k) >= 2)}", file=sys.stderr)

    # 2. The closed forms reproduce shared/bench's ground truth.
    for name, entry in shared_truth.items():
        family, dim = name.split("_D")[0], int(name.split("_D")[1])
        if family in ("cigar", "lumpy"):
            diff = difference(truth_of(family, dim, parsed[family][dim]), entry)
            print(f"{name}: largest relative difference from shared/bench ground truth "
                  f"{diff:.1e}", file=sys.stderr)
            assert diff < 1e-9, name

    # 3. The new problems.
    data = {"source": "github:lacerbi/infbench matlab/problems (infbench_cigar.m, infbench_lumpy.m)",
            "commit": COMMIT,
            "cigar": {str(d): parsed["cigar"][d] for d in NEW_DIMS},
            "lumpy": {str(d): parsed["lumpy"][d] for d in NEW_DIMS}}
    truth = {f"{family}_D{d}": truth_of(family, d, parsed[family][d])
             for family in ("cigar", "lumpy") for d in NEW_DIMS}
    for name, entry in truth.items():
        assert np.all(np.linalg.eigvalsh(np.array(entry["cov"])) > 0), name
        print(f"{name}: lml {entry['lml']:.12g}", file=sys.stderr)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "infbench_data.json"), "w") as f:
        json.dump(data, f)
        f.write("\n")
    with open(os.path.join(out_dir, "ground_truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
