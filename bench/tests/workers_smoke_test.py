#!/usr/bin/env python3
"""Smoke test of the scale-out benchmark (suite 'bench'): vbmc_workers runs lumpy_D2 on a small
budget with 1 and 4 simulated workers and appends one valid JSON record each (4 workers kept busy,
the told evaluations within the dispatched ones, the simulated wall time shorter), and
bench/workers turns them into a report. Thresholds live in the report, not here.

Usage: workers_smoke_test.py VBMC_WORKERS BENCH_WORKERS
"""
import json
import os
import subprocess
import sys
import tempfile

REQUIRED = ["problem", "D", "seed", "workers", "status", "lml_err", "gskl", "fevals", "dispatched",
            "max_busy", "sim_wall", "sim_wall_hosted", "library_wall_s", "library_cpu_s",
            "library_cpu_per_eval_s", "cpu_total", "time_total"]


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def main(exe, bench_workers):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        runs = os.path.join(tmp, "runs.jsonl")
        for workers in (1, 4):
            proc = subprocess.run([exe, "--problem", "lumpy_D2", "--seed", "1", "--workers", str(workers),
                                   "--max-fun-evals", "30", "--out", runs], capture_output=True, text=True,
                                  env=env, timeout=300)
            if proc.returncode != 0:
                fail(f"vbmc_workers --workers {workers}: exit {proc.returncode}: {proc.stderr[-400:]}")
        with open(runs) as f:
            records = [json.loads(line) for line in f]
        if len(records) != 2:
            fail(f"{len(records)} records, expected 2")
        for r in records:
            missing = [k for k in REQUIRED if k not in r]
            if missing or r["status"] != "VBMC_DONE" or not r["fevals"] <= r["dispatched"] <= 30:
                fail(f"record of {r.get('workers')} workers: missing {missing}, status {r.get('status')}, "
                     f"{r.get('fevals')} told of {r.get('dispatched')} dispatched")
        one, four = records
        if one["max_busy"] != 1 or four["max_busy"] != 4 or not four["sim_wall"] < one["sim_wall"]:
            fail(f"busy {one['max_busy']} and {four['max_busy']}, simulated wall {one['sim_wall']} and "
                 f"{four['sim_wall']}")
        proc = subprocess.run([sys.executable, bench_workers, "--report-only", runs, "--out-dir", tmp],
                              capture_output=True, text=True, timeout=120)
        report = os.path.join(tmp, "report.md")
        if proc.returncode != 0 or not os.path.exists(report) or "lumpy_D2" not in open(report).read():
            fail(f"bench/workers --report-only: exit {proc.returncode}: {proc.stderr[-400:]}")
    print("workers smoke test passed")


if __name__ == "__main__":
    main(*sys.argv[1:3])
