#!/usr/bin/env python3
"""Smoke test of the benchmark (suite 'bench'): vbmc_bench runs rosenbrock_D2 on a tiny budget and
appends exactly one valid JSON record, and bench/run turns that record into a report. It checks
that the benchmark still runs, not how well the library does: thresholds live in the report.

Usage: smoke_test.py VBMC_BENCH BENCH_RUN
"""
import json
import math
import os
import subprocess
import sys
import tempfile

BUDGET = 20
REQUIRED = ["problem", "D", "seed", "budget", "status", "elbo", "elbo_sd", "lml", "lml_err", "gskl",
            "fevals", "iterations", "wall_s", "cpu_s", "overhead_wall_s", "overhead_cpu_s",
            "overhead_per_eval_s", "overhead_cpu_per_eval_s", "peak_rss_mb", "version", "x0",
            "trace", "trace_columns"]


def fail(message):
    print(f"FAIL: {message}")
    print("0 passed, 1 failed")
    sys.exit(1)


def main():
    bench_exe, bench_run = sys.argv[1], sys.argv[2]
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
        if abs(record["lml_err"] - abs(record["elbo"] - record["lml"])) > 1e-9:
            fail("lml_err is not |elbo - lml|")
        if any(len(row) != len(record["trace_columns"]) for row in record["trace"]):
            fail("trace rows do not match trace_columns")

        # The record compared with itself as a rerun: identical ELBO, +0% change.
        report = subprocess.run([sys.executable, bench_run, "--report-only", out, "--rerun", out,
                                 "--out-dir", tmp, "--no-plot", "--no-results"],
                                capture_output=True, text=True, timeout=60)
        report_path = os.path.join(tmp, "report.md")
        if report.returncode != 0 or not os.path.exists(report_path):
            fail(f"bench/run --report-only failed: {report.stderr.strip()[-500:]}")
        with open(report_path) as f:
            text = f.read()
        if "### rosenbrock_D2" not in text:
            fail("report has no rosenbrock_D2 table")
        if not any(line.startswith("| rosenbrock_D2 | 1 | 1/1 |") and "+0%" in line
                   for line in text.splitlines()):
            fail("report has no rerun row showing rosenbrock_D2 repeated bit for bit")
    print(f"rosenbrock_D2: {record['fevals']:.0f} evaluations, LML error {record['lml_err']:.3g}, "
          f"gsKL {record['gskl']:.3g}, {len(record['trace'])} trace points, "
          f"overhead {record['overhead_per_eval_s']:.3g} s/eval")
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
