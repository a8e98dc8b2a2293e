#!/usr/bin/env python3
"""Smoke test of the benchmark (suite 'bench'): vbmc_bench runs rosenbrock_D2 on a tiny budget and
appends exactly one valid JSON record, --stop-after-locate ends a run after its locating stage,
and bench/run turns the record into a report. It checks
that the benchmark still runs, not how well the library does: thresholds live in the report.

Usage: smoke_test.py VBMC_BENCH BENCH_RUN
"""
import importlib.machinery
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile

BUDGET = 20
REQUIRED = ["problem", "D", "seed", "budget", "box", "noise", "status", "elbo", "elbo_sd", "lml",
            "lml_err", "gskl", "fevals", "iterations", "converged", "reliable", "wall_s", "cpu_s",
            "overhead_wall_s", "overhead_cpu_s", "overhead_per_eval_s", "overhead_cpu_per_eval_s",
            "peak_rss_mb", "version", "x0", "trace", "trace_columns"]
PHASES = ["gp_train", "vp_optim", "acquisition", "final_boost", "locate", "total"]
REQUIRED += [f"{clock}_{phase}" for clock in ("time", "cpu") for phase in PHASES]


def fail(message):
    print(f"FAIL: {message}")
    print("0 passed, 1 failed")
    sys.exit(1)


def check_rank_sum_test(bench_run):
    """bench/run's Mann-Whitney test against SciPy's mannwhitneyu(method='asymptotic')."""
    loader = importlib.machinery.SourceFileLoader("bench_run", bench_run)
    spec = importlib.util.spec_from_loader("bench_run", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    # (ours, theirs, P(ours smaller), SciPy's p-value)
    cases = [([1, 2, 3], [4, 5, 6], 1.0, 0.08085559837005224),
             ([1, 1, 2, 5], [1, 3, 3, 4, 6], 0.7, 0.38116022651163173)]
    for ours, theirs, smaller, p_value in cases:
        for a, b, expected in ((ours, theirs, smaller), (theirs, ours, 1.0 - smaller)):
            got_smaller, got_p = module.rank_sum_test(list(map(float, a)), list(map(float, b)))
            if abs(got_smaller - expected) > 1e-12 or abs(got_p - p_value) > 1e-12:
                fail(f"rank_sum_test({a}, {b}) = ({got_smaller}, {got_p}), "
                     f"expected ({expected}, {p_value})")


def check_stop_after_locate(bench_exe, tmp, env):
    """cigar_D2 locates from its box: --stop-after-locate ends the run right after the stage,
    the record counting the design and the stage's evaluations and no posterior."""
    out = os.path.join(tmp, "stage.jsonl")
    proc = subprocess.run([bench_exe, "--problem", "cigar_D2", "--seed", "1", "--out", out,
                           "--stop-after-locate"], capture_output=True, text=True, env=env,
                          timeout=100)
    with open(out) as f:
        record = json.loads(f.read())
    if proc.returncode != 0 or record["status"] != "VBMC_OK" or record["stopped_after_locate"] != 1:
        fail(f"--stop-after-locate run: exit {proc.returncode}, status {record['status']}")
    if not record["locate_evals"] > 0 or record["evaluations"] <= record["locate_evals"]:
        fail(f"--stop-after-locate: {record['locate_evals']} locating evaluations of "
             f"{record['evaluations']}")
    if record["lml_err"] is not None or not math.isfinite(record["best_log_joint"]):
        fail("--stop-after-locate: a posterior metric, or no best log joint")


def main():
    bench_exe, bench_run = sys.argv[1], sys.argv[2]
    check_rank_sum_test(bench_run)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "runs.jsonl")
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        proc = subprocess.run([bench_exe, "--problem", "rosenbrock_D2", "--seed", "1", "--out", out,
                               "--max-fun-evals", str(BUDGET), "--trace"],
                              capture_output=True, text=True, env=env, timeout=100)
        if not os.path.exists(out):
            fail(f"no output (exit {proc.returncode}): {proc.stderr.strip()}")
        with open(out) as f:
            lines = f.read().splitlines()
        if len(lines) != 1:
            fail(f"expected one JSON line, got {len(lines)}")
        try:
            record = json.loads(lines[0])
        except json.JSONDecodeError as error:
            fail(f"invalid JSON ({error}): {lines[0][:200]}")
        missing = [key for key in REQUIRED if key not in record]
        if missing:
            fail(f"missing keys {missing}")
        if proc.returncode != 0 or record["status"] != "VBMC_DONE":
            fail(f"run did not finish (exit {proc.returncode}, status {record['status']}): "
                 f"{record.get('error')}")
        if record["problem"] != "rosenbrock_D2" or record["D"] != 2 or record["budget"] != BUDGET:
            fail(f"wrong problem fields: {record['problem']} D={record['D']} "
                 f"budget={record['budget']}")
        if not (0 < record["fevals"] <= BUDGET):
            fail(f"fevals {record['fevals']} outside (0, {BUDGET}]")
        for key in ("elbo", "lml_err", "gskl", "wall_s", "overhead_wall_s", "peak_rss_mb"):
            if not isinstance(record[key], (int, float)) or not math.isfinite(record[key]):
                fail(f"{key} is not a finite number: {record[key]}")
        for key in REQUIRED[-2 * len(PHASES):]:
            if not isinstance(record[key], (int, float)) or not record[key] >= 0:
                fail(f"{key} is not a number >= 0: {record[key]}")
        # The library's time lies inside the host's overhead intervals (1e-6 s for rounding).
        if record["time_total"] > record["overhead_wall_s"] + 1e-6:
            fail(f"time_total {record['time_total']} exceeds overhead_wall_s "
                 f"{record['overhead_wall_s']}")
        if abs(record["lml_err"] - abs(record["elbo"] - record["lml"])) > 1e-9:
            fail("lml_err is not |elbo - lml|")
        if record["box"] is not None or record["noise"] != 0:
            fail(f"a synthetic run records box {record['box']} and noise {record['noise']}")
        if any(len(row) != len(record["trace_columns"]) for row in record["trace"]):
            fail("trace rows do not match trace_columns")

        check_stop_after_locate(bench_exe, tmp, env)

        # The record compared with itself as a rerun: identical ELBO, +0% change.
        report = subprocess.run([sys.executable, bench_run, "--report-only", out, "--rerun", out,
                                 "--out-dir", tmp, "--no-plot", "--no-results"],
                                capture_output=True, text=True, timeout=60)
        report_path = os.path.join(tmp, "report.md")
        if report.returncode != 0 or not os.path.exists(report_path):
            fail(f"bench/run --report-only failed: {report.stderr.strip()[-500:]}")
        with open(report_path) as f:
            text = f.read()
        if not any(line.startswith("| rosenbrock_D2 | 1 | ") for line in
                   text.split("## Where the library's time goes", 1)[-1].splitlines()[:8]):
            fail("report has no breakdown of the library's time by phase")
        if "### rosenbrock_D2" not in text:
            fail("report has no rosenbrock_D2 table")
        if not any(line.startswith("| rosenbrock_D2 | 1 | 1/1 |") and "+0%" in line
                   for line in text.splitlines()):
            fail("report has no rerun row showing rosenbrock_D2 repeated bit for bit")
    listed = subprocess.run([bench_exe, "--list-real"], capture_output=True, text=True)
    if listed.returncode != 0 or not listed.stdout.startswith("real:"):
        fail(f"vbmc_bench --list-real failed: {listed.stderr.strip()}")
    print(f"rosenbrock_D2: {record['fevals']:.0f} evaluations, LML error {record['lml_err']:.3g}, "
          f"gsKL {record['gskl']:.3g}, {len(record['trace'])} trace points, "
          f"overhead {record['overhead_per_eval_s']:.3g} s/eval")
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
