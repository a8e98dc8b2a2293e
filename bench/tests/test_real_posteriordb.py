#!/usr/bin/env python3
"""Checks the real-posterior models against posteriordb (suite 'bench'), standard library only:
for every model, the C log joint is finite at reference draws, and a short importance-sampling
run with the proposal stored in ground_truth.json reproduces its log evidence within 5 combined
standard errors. Needs posteriordb ($POSTERIORDB, the mirror or ../shared/posteriordb); exits 77
(Meson's "skipped") when it is not found, as on CI machines.

Usage: test_real_posteriordb.py LIBVBMC_REAL GROUND_TRUTH_JSON [model ...]
"""
import json
import math
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "real"))
import posteriordb  # noqa: E402
import real_lib  # noqa: E402

SAMPLES = 20000
REFERENCE_POINTS = 20
SE_MULTIPLE = 5.0
SKIP = 77


def logistic(value):
    if value >= 0:
        return 1.0 / (1.0 + math.exp(-value))
    return math.exp(value) / (1.0 + math.exp(value))


def constrain(u, lb, ub):
    """x = T(u) (exp above a lower bound, logistic inside an interval) and log |dx/du|, with
    log(s (1 - s)) = -|u| - 2 log(1 + exp(-|u|)) for the logistic s."""
    x, log_jacobian = [], 0.0
    for value, low, high in zip(u, lb, ub):
        if math.isfinite(low) and math.isfinite(high):
            x.append(low + (high - low) * logistic(value))
            log_jacobian += (math.log(high - low) - abs(value)
                             - 2.0 * math.log1p(math.exp(-abs(value))))
        elif math.isfinite(low):
            x.append(low + math.exp(value))
            log_jacobian += value
        else:
            x.append(value)
    return x, log_jacobian


def student_t_draw(rng, proposal):
    """A multivariate Student-t draw u = m + sqrt(nu / chi2) L z and its log density."""
    nu, location, chol = proposal["nu"], proposal["location"], proposal["scale_cholesky"]
    dim = len(location)
    z = [rng.gauss(0.0, 1.0) for _ in range(dim)]
    shrink = math.sqrt(nu / rng.gammavariate(0.5 * nu, 2.0))
    u = [location[i] + shrink * sum(chol[i][k] * z[k] for k in range(i + 1)) for i in range(dim)]
    log_norm = (math.lgamma(0.5 * (nu + dim)) - math.lgamma(0.5 * nu)
                - 0.5 * dim * math.log(nu * math.pi) - sum(math.log(chol[i][i]) for i in range(dim)))
    mahalanobis = shrink * shrink * sum(v * v for v in z)
    return u, log_norm - 0.5 * (nu + dim) * math.log1p(mahalanobis / nu)


def importance_lml(target, model, proposal, rng):
    """log Z with its delta-method SE from SAMPLES proposal draws."""
    points, log_q, log_jacobians = [], [], []
    for _ in range(SAMPLES):
        u, log_density = student_t_draw(rng, proposal)
        x, log_jacobian = constrain(u, model.lb, model.ub)
        points.append(x)
        log_q.append(log_density)
        log_jacobians.append(log_jacobian)
    log_joint = target.log_joint(points)
    log_w = [lj + jac - q if not math.isnan(lj) else -math.inf
             for lj, jac, q in zip(log_joint, log_jacobians, log_q)]
    top = max(log_w)
    w = [math.exp(v - top) for v in log_w]
    mean = sum(w) / SAMPLES
    variance = sum((v - mean) ** 2 for v in w) / SAMPLES
    return top + math.log(mean), math.sqrt(variance / SAMPLES) / mean


def check_model(lib, db, model, truth, data_dir, seed):
    """Returns a list of failure messages."""
    data_path = os.path.join(data_dir, model.name + ".data")
    posteriordb.write_data_file(db, model.posterior, data_path)
    target = lib.load(model, data_path)
    draws = posteriordb.draws_matrix(db, model.posterior, model.param_names)
    step = max(1, len(draws) // REFERENCE_POINTS)
    values = target.log_joint(draws[::step][:REFERENCE_POINTS])
    failures = []
    if not all(math.isfinite(v) for v in values):
        failures.append(f"{model.name}: log joint not finite at some reference draws: {values}")
    lml, se = importance_lml(target, model, truth["proposal"], random.Random(seed))
    target.close()
    combined = math.hypot(se, truth["lml_se"])
    ok = abs(lml - truth["lml"]) <= SE_MULTIPLE * combined
    print(f"{model.name:18s} lml {lml:.4f} (SE {se:.4f}) vs ground truth {truth['lml']:.4f} "
          f"(SE {truth['lml_se']:.4f}): {abs(lml - truth['lml']) / combined:.1f} SE  "
          f"{'ok' if ok and not failures else 'FAIL'}", flush=True)
    if not ok:
        failures.append(f"{model.name}: lml {lml} differs from {truth['lml']} by more than "
                        f"{SE_MULTIPLE} SE ({combined})")
    return failures


def main():
    lib_path, truth_path, selected = sys.argv[1], sys.argv[2], sys.argv[3:]
    db_path = posteriordb.locate()
    if not db_path:
        print("posteriordb not found (set POSTERIORDB to a checkout or bare git directory): "
              "skipped")
        return SKIP
    db = posteriordb.PosteriorDB(db_path)
    lib = real_lib.Library(lib_path)
    with open(truth_path) as f:
        truth = json.load(f)["models"]
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as data_dir:
        for index, model in enumerate(lib.models):
            if selected and model.name not in selected:
                continue
            if model.name not in truth:
                failures.append(f"{model.name}: no ground truth in {truth_path}")
                continue
            failures += check_model(lib, db, model, truth[model.name], data_dir, 4242 + index)
            checked += 1
    for failure in failures:
        print("FAIL:", failure)
    print(f"{checked} models checked, {len(failures)} failures")
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
