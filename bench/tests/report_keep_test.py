#!/usr/bin/env python3
"""Test of what a regenerated bench/RESULTS.md keeps (suite 'bench'): everything from the first
marked section on, the sections other tools write and the hand-written notes between and after
them, while the generated part before it is replaced; a report without markers keeps nothing.

Usage: report_keep_test.py REPORT_HELPERS_PY
"""
import importlib.util
import os
import sys
import tempfile


def fail(message):
    print(f"FAIL: {message}")
    print("0 passed, 1 failed")
    sys.exit(1)


def main():
    spec = importlib.util.spec_from_file_location("report_helpers", sys.argv[1])
    helpers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helpers)
    text = ("# generated\n\n| old table |\n\n"
            "<!-- refine:begin -->\n## Refined\n<!-- refine:end -->\n\n"
            "### A hand-written measurement\n\nnumbers\n\n"
            "<!-- workers:begin -->\n## Many workers\n<!-- workers:end -->\n\n"
            "### Another note, last\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "RESULTS.md")
        with open(path, "w") as f:
            f.write(text)
        kept = helpers.kept_after_generated(path)
        if kept != text[text.index("<!-- refine:begin -->"):].rstrip("\n"):
            fail(f"kept the wrong text: {kept!r}")
        if "old table" in kept or "A hand-written measurement" not in kept or "Another note" not in kept:
            fail("the generated part was kept or a hand-written note lost")
        with open(path, "w") as f:
            f.write("# generated only\n")
        if helpers.kept_after_generated(path) != "":
            fail("a report without marked sections kept text")
        if helpers.kept_after_generated(os.path.join(tmp, "missing.md")) != "":
            fail("a missing report kept text")
    print("3 passed, 0 failed")


if __name__ == "__main__":
    main()
