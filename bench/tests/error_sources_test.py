#!/usr/bin/env python3
"""Test of the split of the LML error in the benchmark reports (suite 'bench'): the variational
gap log Z - ELBO_true and the signed surrogate error ELBO - ELBO_true of hand-written records,
their medians, which runs count, and no section when no run has a true ELBO.

Usage: error_sources_test.py REPORT_HELPERS_PY
"""
import importlib.util
import sys


def fail(message):
    print(f"FAIL: {message}")
    print("0 passed, 1 failed")
    sys.exit(1)


def record(elbo, elbo_true, lml=-10.0, status="VBMC_DONE"):
    return {"status": status, "elbo": elbo, "elbo_true": elbo_true, "lml": lml}


def row_cells(lines, label):
    rows = [line for line in lines if line.startswith(f"| {label} |")]
    if len(rows) != 1:
        fail(f"expected one row for {label}, got {rows}")
    return [cell.strip() for cell in rows[0].strip("|").split("|")]


def main():
    spec = importlib.util.spec_from_file_location("report_helpers", sys.argv[1])
    helpers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helpers)
    # log Z = -10. Gaps 0.1, 0.2, 0.3; surrogate errors -0.05, +0.15, +0.1; LML errors 0.15,
    # 0.05, 0.2. The unfinished run and the run without a true ELBO do not count.
    runs = [record(-10.15, -10.1), record(-10.05, -10.2), record(-10.2, -10.3),
            record(-9.0, -9.5, status="VBMC_ERR_NUMERIC"), record(-10.0, float("nan"))]
    lines = helpers.error_source_section([("p", runs)], "problem")
    cells = row_cells(lines, "p")
    expected = ["p", "3", "0.15", "0.2", "0.1", "0.1", "1/3"]
    if cells != expected:
        fail(f"row {cells}, expected {expected}")
    if helpers.error_source_section([("q", [record(-10.0, None)])], "problem") != []:
        fail("a section for runs without a true ELBO")
    both = helpers.error_source_section([("q", [record(-10.0, None)]), ("p", runs)], "problem")
    if any(line.startswith("| q |") for line in both) or not any(line.startswith("| p |") for line in both):
        fail("a group without true ELBOs got a row, or one with them lost its row")
    print("3 passed, 0 failed")


if __name__ == "__main__":
    main()
