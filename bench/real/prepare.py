#!/usr/bin/python3
"""Prepare the real-posterior benchmark (Python 3 + numpy; run with /usr/bin/python3 on Debian).

    /usr/bin/python3 bench/real/prepare.py [--posteriordb DIR] [--models arK,gp_regr] [--data-only]

For every model of bench/real (the C registry, through libvbmc_real.so built by Meson):
1. writes its posteriordb data set to bench/out/real/<name>.data (git-ignored: nothing fetched
   from posteriordb is committed);
2. computes the ground truth from the C log joint and posteriordb's reference draws, and writes
   bench/real/ground_truth.json (our own summary numbers) and bench/real/real_truth.c:
   - log evidence by importance sampling with a Student-t proposal fitted to the reference
     draws in the unconstrained space (the value used, `lml`) and, as a check, by bridge
     sampling; both with standard errors;
   - posterior mean and covariance by the same importance sampling, compared with the
     reference draws' (z-scores), which validates the C log joint against Stan's posterior;
   - the prior box (16% and 84% marginal prior quantiles from the C prior sampler) and the
     informed box (posterior mean +- 1 SD; the 2.5% / 97.5% reference quantile where that
     would cross a hard bound).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import estimators  # noqa: E402
import gen_truth  # noqa: E402
import posteriordb  # noqa: E402
import real_lib  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
SETTINGS = {
    "importance_samples": 1000000,
    "bridge_proposal_samples": 200000,
    "prior_samples": 2000000,
    "proposal_nu": 5,
    "proposal_inflation": 1.5,
    "seed": 20240601,
}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--posteriordb", help="bare git directory or checkout (default: "
                        + " or ".join(posteriordb.DEFAULT_LOCATIONS) + ")")
    parser.add_argument("--models", help="comma-separated short names (default: all)")
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build-bench"))
    parser.add_argument("--data-dir", default=os.path.join(REPO, "bench", "out", "real"))
    parser.add_argument("--out", default=os.path.join(HERE, "ground_truth.json"))
    parser.add_argument("--data-only", action="store_true", help="only write the data files")
    return parser.parse_args(argv)


def z_max(a, b, se_a, se_b):
    """The largest |a - b| / sqrt(se_a^2 + se_b^2) over the entries."""
    return float(np.max(np.abs(a - b) / np.sqrt(se_a ** 2 + se_b ** 2)))


def reference_moments(x):
    """Mean and covariance of the reference draws with the SEs of independent draws (the
    reference posteriors have effective sample sizes close to their 10000 draws)."""
    n = x.shape[0]
    mean, cov = x.mean(axis=0), np.cov(x.T, bias=True)
    centred = x - mean
    products = np.einsum("ni,nj->nij", centred, centred)
    return mean, cov, np.sqrt(np.diag(cov) / n), products.std(axis=0) / math.sqrt(n)


def boxes(lib, model, reference, mean, sd, seed):
    """Prior box (16% / 84% prior quantiles) and informed box (mean +- SD, or the 2.5% / 97.5%
    reference quantile where mean -+ SD reaches a hard bound)."""
    prior = lib.sample_prior(model, SETTINGS["prior_samples"], seed)
    prior_lower, prior_upper = np.quantile(prior, [0.16, 0.84], axis=0)
    lower, upper = mean - sd, mean + sd
    low_q, high_q = np.quantile(reference, [0.025, 0.975], axis=0)
    lb, ub = np.array(model.lb), np.array(model.ub)
    lower = np.where(lower <= lb, low_q, lower)
    upper = np.where(upper >= ub, high_q, upper)
    return {"prior_box": {"lower": prior_lower.tolist(), "upper": prior_upper.tolist()},
            "informed_box": {"lower": lower.tolist(), "upper": upper.tolist()},
            "prior_box_width_in_sd": ((prior_upper - prior_lower) / sd).tolist()}


def finite_or_none(values):
    return [v if math.isfinite(v) else None for v in values]


def model_truth(lib, db, model, data_path, seed):
    """The ground-truth entry of one model."""
    target = lib.load(model, data_path)
    rng = np.random.default_rng(seed)
    reference = np.array(posteriordb.draws_matrix(db, model.posterior, model.param_names))
    reference_log_joint = target.log_joint(reference)
    if not np.all(np.isfinite(reference_log_joint)):
        raise RuntimeError(f"{model.name}: log joint not finite at "
                           f"{int((~np.isfinite(reference_log_joint)).sum())} reference draws")
    u = estimators.unconstrain(reference, model.lb, model.ub)
    nu, inflation = SETTINGS["proposal_nu"], SETTINGS["proposal_inflation"]
    proposal = estimators.StudentT(u, nu, inflation)
    importance = estimators.importance_sampling(target, model, proposal,
                                                SETTINGS["importance_samples"], rng)
    # Bridge: proposal fitted to the even draws, the odd draws as posterior sample.
    bridge = estimators.bridge_sampling(target, model, u[1::2],
                                        estimators.StudentT(u[::2], nu, inflation),
                                        SETTINGS["bridge_proposal_samples"], rng)
    target.close()
    ref_mean, ref_cov, ref_mean_se, ref_cov_se = reference_moments(reference)
    sd = np.sqrt(np.diag(importance["cov"]))
    entry = {"posterior": model.posterior, "D": model.dim, "param_names": model.param_names,
             "lb": finite_or_none(model.lb), "ub": finite_or_none(model.ub),
             "lml": importance["lml"], "lml_se": importance["lml_se"],
             "lml_importance": importance["lml"], "lml_importance_se": importance["lml_se"],
             "importance_samples": importance["samples"], "importance_ess": importance["ess"],
             "importance_failed": importance["failed"],
             "lml_bridge": bridge["lml"], "lml_bridge_se": bridge["lml_se"],
             "bridge_iterations": bridge["iterations"],
             "lml_difference_in_se": (importance["lml"] - bridge["lml"])
             / math.hypot(importance["lml_se"], bridge["lml_se"]),
             "mean": importance["mean"].tolist(), "cov": importance["cov"].tolist(),
             "reference_mean": ref_mean.tolist(), "reference_sd": np.sqrt(np.diag(ref_cov)).tolist(),
             "moments_max_abs_z": {
                 "mean": z_max(importance["mean"], ref_mean, importance["mean_se"], ref_mean_se),
                 "cov": z_max(importance["cov"], ref_cov, importance["cov_se"], ref_cov_se)},
             "seconds_per_log_joint": importance["seconds_per_eval"],
             "proposal": {"nu": nu, "location": proposal.location.tolist(),
                          "scale_cholesky": proposal.chol.tolist()}}
    entry.update(boxes(lib, model, reference, importance["mean"], sd, seed + 1))
    return entry


def posteriordb_commit(path):
    if os.path.isdir(os.path.join(path, "posterior_database")):
        path = os.path.join(path, ".git")
    result = subprocess.run(["git", "--git-dir", path, "rev-parse", "HEAD"], capture_output=True,
                            text=True)
    return result.stdout.strip() or None


def summary_line(name, e):
    return (f"{name:18s} D={e['D']:2d}  lml IS {e['lml_importance']:.4f} +- "
            f"{e['lml_importance_se']:.4f} (ESS {e['importance_ess']:.0f})  bridge "
            f"{e['lml_bridge']:.4f} +- {e['lml_bridge_se']:.4f}  diff {e['lml_difference_in_se']:+.1f} SE"
            f"  moments max|z| mean {e['moments_max_abs_z']['mean']:.1f} cov "
            f"{e['moments_max_abs_z']['cov']:.1f}  {1e6 * e['seconds_per_log_joint']:.1f} us/eval")


def format_truth(truth):
    """JSON with one line per key of a model (one per row of a matrix), so diffs stay readable."""
    def value(v, indent):
        if isinstance(v, list) and v and isinstance(v[0], list):
            return "[\n" + ",\n".join(indent + "  " + json.dumps(row) for row in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(x)}" for k, x in v.items()) + "}"
        return json.dumps(v)

    models = ",\n".join(
        f'  {json.dumps(name)}: {{\n' + ",\n".join(f"    {json.dumps(k)}: {value(v, '    ')}"
                                                   for k, v in entry.items()) + "\n  }"
        for name, entry in truth["models"].items())
    head = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in truth.items()
                      if k != "models")
    return "{\n" + head + ',\n "models": {\n' + models + "\n }\n}\n"


def main(argv):
    args = parse_args(argv)
    db_path = posteriordb.locate(args.posteriordb)
    if not db_path:
        raise SystemExit("posteriordb not found: give --posteriordb DIR")
    db = posteriordb.PosteriorDB(db_path)
    lib = real_lib.Library(real_lib.build_library(args.build_dir))
    names = args.models.split(",") if args.models else [m.name for m in lib.models]
    truth = {"models": {}}
    if os.path.exists(args.out):
        with open(args.out) as f:
            truth = json.load(f)
    start = time.monotonic()
    for index, name in enumerate(names):
        model = lib.model(name)
        data_path = os.path.join(args.data_dir, name + ".data")
        posteriordb.write_data_file(db, model.posterior, data_path)
        if args.data_only:
            continue
        began = time.monotonic()
        entry = model_truth(lib, db, model, data_path, SETTINGS["seed"] + 1000 * index)
        entry["preparation_seconds"] = time.monotonic() - began
        truth["models"][name] = entry
        print(summary_line(name, entry), f"({entry['preparation_seconds']:.0f} s)", flush=True)
    if args.data_only:
        print(f"data files in {args.data_dir}")
        return 0
    truth["about"] = ("Ground truth of the real-posterior benchmark, computed by "
                      "bench/real/prepare.py from the C models of bench/real and posteriordb's "
                      "reference draws (see bench/README.md). Our own summary numbers; no "
                      "posteriordb data.")
    truth["posteriordb_commit"] = posteriordb_commit(db_path)
    truth["settings"] = SETTINGS
    order = [m.name for m in lib.models]
    truth["models"] = {k: truth["models"][k] for k in order if k in truth["models"]}
    with open(args.out, "w") as f:
        f.write(format_truth(truth))
    gen_truth.write_c(truth, os.path.join(HERE, "real_truth.c"))
    print(f"{len(names)} models in {time.monotonic() - start:.0f} s; wrote {args.out} and "
          f"real_truth.c")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
