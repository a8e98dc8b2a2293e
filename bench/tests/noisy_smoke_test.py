#!/usr/bin/env python3
"""Smoke test of the noisy benchmark's report (suite 'bench'): `bench/run --report-only` on a few
hand-written noisy run records (and PyVBMC noisy runs beside them) recognises them as noisy and
writes the table per (problem, noise) and issue 20's acceptance check with the counts and medians
the records imply; the noisy tasks carry the noise and the budget 75*(D+2); PyVBMC's noisy and
noiseless runs stay apart; the section 'noisy' of a RESULTS.md is written between its markers.
No timing: the overheads below are made up.

Usage: noisy_smoke_test.py BENCH_RUN
"""
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import tempfile


def fail(message):
    print(f"FAIL: {message}")
    print("0 passed, 1 failed")
    sys.exit(1)


def run_record(problem, seed, noise, lml_err, gskl, converged, reliable=0):
    return {"problem": problem, "family": problem.split("_")[0], "D": int(problem[-1]),
            "seed": seed, "budget": 300, "box": None, "noise": noise, "status": "VBMC_DONE",
            "lml_err": lml_err, "gskl": gskl, "fevals": 100 + seed, "converged": converged,
            "reliable": reliable, "overhead_per_eval_s": 0.5, "overhead_cpu_per_eval_s": 0.4,
            "version": "libvbmc test"}


# lumpy_D2, noise 1: LML errors 0.05, 0.1, 0.2, 1.5 (converged and reliable) and a run that did
# not finish (infinite): median 0.2; gsKL over the finished 0.02, 0.03, 0.04, 2.0: median 0.035;
# gsKL > 1: the 2.0 and the unfinished run.
RECORDS = [run_record("lumpy_D2", 1, 1.0, 0.1, 0.02, 1),
           run_record("lumpy_D2", 2, 1.0, 0.05, 0.04, 1),
           run_record("lumpy_D2", 3, 1.0, 1.5, 2.0, 1, reliable=1),
           run_record("lumpy_D2", 4, 1.0, 0.2, 0.03, 0),
           {"problem": "lumpy_D2", "D": 2, "seed": 5, "noise": 1.0, "status": "NO_RECORD",
            "error": "timed out"},
           run_record("cigar_D2", 1, 2.0, 0.01, 0.01, 1),
           run_record("cigar_D2", 2, 2.0, 0.03, 0.02, 1)]
# PyVBMC: two noisy runs of lumpy_D2 (medians 0.4 and 0.15, overhead 1.5 s/eval, 3x ours) and a
# noiseless one that the noisy report must leave out.
PYVBMC = [{"problem": "lumpy_D2", "D": 2, "seed": 1, "noise": 1.0, "lml_err": 0.3, "gskl": 0.1,
           "fevals": 300, "converged": 0, "overhead_per_eval_s": 1.0, "version": "pyvbmc"},
          {"problem": "lumpy_D2", "D": 2, "seed": 2, "noise": 1.0, "lml_err": 0.5, "gskl": 0.2,
           "fevals": 300, "converged": 1, "overhead_per_eval_s": 2.0, "version": "pyvbmc"},
          {"problem": "lumpy_D2", "D": 2, "seed": 3, "noise": 0.0, "lml_err": 9.0, "gskl": 9.0,
           "fevals": 200, "converged": 1, "overhead_per_eval_s": 9.0, "version": "pyvbmc"}]


def write_jsonl(path, records):
    with open(path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)


def load_bench_run(path):
    loader = importlib.machinery.SourceFileLoader("bench_run", path)
    spec = importlib.util.spec_from_loader("bench_run", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def row(text, start):
    rows = [line for line in text.splitlines() if line.startswith(start)]
    if len(rows) != 1:
        fail(f"expected one row starting {start!r}, found {len(rows)}")
    return [cell.strip() for cell in rows[0].strip("|").split("|")]


def check_report(text):
    cells = row(text, "| lumpy_D2 | 1 |")
    expected = {2: "4/5", 3: "0.2 [", 4: "0.035 [", 5: "2/5", 6: "3/5", 7: "1", 8: "1",
                12: "2", 13: "0.4", 14: "0.15", 15: "1.5", 16: "3x"}
    for index, start in expected.items():
        if not cells[index].startswith(start):
            fail(f"lumpy_D2 noise 1 column {index}: {cells[index]!r}, expected {start!r}...")
    cells = row(text, "| cigar_D2 | 2 |")
    if cells[2] != "2/2" or cells[12] != "0":
        fail(f"cigar_D2 noise 2 row: {cells}")
    accept = text.split("Acceptance check (issue 20)", 1)[-1]
    cells = row(accept, "| lumpy_D2 | 5 |")
    if not (cells[2].startswith("**no** (0.2)") and cells[3].startswith("yes (0.035)")
            and cells[4] == "2" and cells[5] == "1" and cells[6].startswith("**no**")):
        fail(f"acceptance row of lumpy_D2: {cells}")
    for line in ("- median LML error < 0.15: **no** on 0 of 1 (not on lumpy_D2)",
                 "- median gsKL < 0.06: yes on 1 of 1",
                 "- no run with gsKL > 1: **no** on 0 of 1 (not on lumpy_D2)",
                 "- not measured: lumpy_D6, student_D2, student_D6, cigar_D2, cigar_D6"):
        if line not in accept:
            fail(f"acceptance summary lacks {line!r}")
    if "- lumpy_D2 noise 1 seed 5: NO_RECORD timed out" not in text:
        fail("the run that did not finish is not listed")


def check_tasks_and_pyvbmc(bench_run, pyvbmc_path):
    import noisy_report  # on the path bench/run set
    available = {"lumpy_D6": {"D": 6, "budget": 400}}
    tasks = noisy_report.make_tasks(["lumpy_D6"], available, [1.0, 2.0], range(1, 3), None)
    if len(tasks) != 4 or tasks[0]["args"] != ["--noise", "1.0", "--max-fun-evals", "600"]:
        fail(f"noisy tasks: {tasks}")
    if noisy_report.make_tasks(["lumpy_D6"], available, [1.0], [1], 50)[0]["args"] != ["--noise", "1.0"]:
        fail("--max-fun-evals given: the noisy task must not add its own budget")
    noisy = bench_run.load_remeasured_noisy([pyvbmc_path])
    exact = bench_run.load_remeasured([pyvbmc_path])
    if [r["seed"] for r in noisy] != [1, 2] or [r["seed"] for r in exact] != [3]:
        fail("PyVBMC's noisy and noiseless runs are not told apart")
    return noisy_report


def check_results_section(noisy_report, bench_run, tmp):
    path = os.path.join(tmp, "RESULTS.md")
    with open(path, "w") as f:
        f.write("# results\n\n<!-- evidence:begin -->\nkept\n<!-- evidence:end -->\n")
    for _ in range(2):  # written, then replaced in place
        lines = noisy_report.results_section(RECORDS, PYVBMC[:2], "test.", bench_run.problem_sort_key)
        bench_run.write_marked_section(path, "noisy", lines)
    with open(path) as f:
        text = f.read()
    if (text.count("<!-- noisy:begin -->") != 1 or "<!-- evidence:begin -->\nkept\n" not in text
            or "### Acceptance check (issue 20)" not in text):
        fail("RESULTS.md's noisy section is not written once between its markers")


def main():
    bench_run_path = sys.argv[1]
    bench_run = load_bench_run(bench_run_path)
    with tempfile.TemporaryDirectory() as tmp:
        runs, pyvbmc = os.path.join(tmp, "noisy.jsonl"), os.path.join(tmp, "pyvbmc-noisy.jsonl")
        write_jsonl(runs, RECORDS)
        write_jsonl(pyvbmc, PYVBMC)
        out_dir = os.path.join(tmp, "out")
        proc = subprocess.run([sys.executable, bench_run_path, "--report-only", runs,
                               "--pyvbmc-runs", pyvbmc, "--out-dir", out_dir, "--no-plot",
                               "--no-results"], capture_output=True, text=True, timeout=60)
        report_path = os.path.join(out_dir, "report.md")
        if proc.returncode != 0 or not os.path.exists(report_path):
            fail(f"bench/run --report-only failed: {proc.stderr.strip()[-500:]}")
        with open(report_path) as f:
            text = f.read()
        if not text.startswith("# libvbmc on noisy targets"):
            fail("the noisy records were not reported as noisy")
        check_report(text)
        noisy_report = check_tasks_and_pyvbmc(bench_run, pyvbmc)
        check_results_section(noisy_report, bench_run, tmp)
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
