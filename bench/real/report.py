"""The Markdown report of the real-posterior suite (bench/run --real): one row per (problem, box,
noise) and pooled rows per (box, noise). Python standard library only."""
import datetime
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "support"))
from report_helpers import (bootstrap_ci, fmt, median, metric, phase_section,  # noqa: E402
                            provenance_lines, with_ci)

PREFIX = "real:"


def is_real(record):
    return str(record.get("problem", "")).startswith(PREFIX)


def model_order():
    """Short names in the order of bench/real/ground_truth.json."""
    try:
        with open(os.path.join(HERE, "ground_truth.json")) as f:
            return list(json.load(f)["models"])
    except (OSError, ValueError, KeyError):
        return []


def group_stats(runs):
    """Statistics of a group of runs. A run that did not finish counts as an infinite LML
    error (so it is never below 1), and as neither converged nor reliable."""
    done = [r for r in runs if r.get("status") == "VBMC_DONE"]
    lml = [metric(r, "lml_err") if r.get("status") == "VBMC_DONE" else math.inf for r in runs]
    recorded = [r for r in done if r.get("reliable") is not None]
    converged = [r for r in done if r.get("converged")]
    return {
        "runs": len(runs), "finished": len(done),
        "lml_err": median(lml), "lml_err_ci": bootstrap_ci(lml),
        "below_1": sum(1 for v in lml if v < 1.0),
        "gskl": median(metric(r, "gskl") for r in done),
        "converged": len(converged),
        "converged_wrong": sum(1 for r in converged if metric(r, "lml_err") > 1.0),
        "reliable": (sum(1 for r in recorded if r.get("reliable")), len(recorded)),
        "reliable_wrong": sum(1 for r in recorded if r.get("reliable") and metric(r, "lml_err") > 1.0),
        "locate_evals": median(metric(r, "locate_evals") for r in done if r.get("locate_evals") is not None),
        "fevals": median(metric(r, "fevals") for r in done),
        "overhead_per_eval_s": median(metric(r, "overhead_per_eval_s") for r in done),
    }


def row(cells, s):
    reliable, recorded = s["reliable"]
    return ("| " + " | ".join(cells + [
        f"{s['finished']}/{s['runs']}", with_ci(s["lml_err"], s["lml_err_ci"]),
        f"{s['below_1']}/{s['runs']}", fmt(s["gskl"]), f"{s['converged']}/{s['runs']}",
        f"{s['converged_wrong']}", f"{reliable}/{recorded}" if recorded else "-",
        f"{s['reliable_wrong']}" if recorded else "-", fmt(s["fevals"]), fmt(s["locate_evals"]),
        fmt(s["overhead_per_eval_s"])]) + " |")


COLUMNS = ("finished | LML error [95% CI] | LML error < 1 | gsKL | converged | "
           "converged, LML error > 1 | reliable | reliable, LML error > 1 | evaluations used | "
           "of which locating | overhead s/eval")


def group(records, key):
    groups = {}
    for record in records:
        groups.setdefault(key(record), []).append(record)
    return groups


def cases(records):
    """The runs of each (problem, box, noise): problems in the order of ground_truth.json, the
    prior box first."""
    order = model_order()

    def problem_key(name):
        short = name[len(PREFIX):]
        return (order.index(short) if short in order else len(order), short)

    def case_key(case):
        problem, box, noise = case
        return (problem_key(problem), box != "prior", noise or 0.0)

    by_case = group(records, lambda r: (r["problem"], r.get("box"), r.get("noise")))
    return [(case, by_case[case]) for case in sorted(by_case, key=case_key)]


def tables(records):
    lines = ["## Per problem, box and noise", "",
             "| problem | D | box | noise | " + COLUMNS + " |",
             "|" + "---|" * 16]
    for (problem, box, noise), runs in cases(records):
        lines.append(row([problem[len(PREFIX):], str(runs[0].get("D")), str(box), fmt(noise)],
                         group_stats(runs)))
    by_setting = group(records, lambda r: (r.get("box"), r.get("noise")))
    lines += ["", "## Pooled over the problems", "",
              "| box | noise | runs | " + COLUMNS + " |", "|" + "---|" * 15]
    for box, noise in sorted(by_setting, key=lambda k: (k[0] != "prior", k[1] or 0.0)):
        runs = by_setting[(box, noise)]
        lines.append(row([str(box), fmt(noise), str(len(runs))], group_stats(runs)))
    return lines


def failures(records):
    failed = [r for r in records if r.get("status") != "VBMC_DONE"]
    if not failed:
        return []
    return ["", "## Runs that did not finish", ""] + [
        f"- {r.get('problem')} box {r.get('box')} noise {fmt(r.get('noise'))} seed "
        f"{r.get('seed')}: {r.get('status')} {r.get('error') or ''}".rstrip() for r in failed]


def write_report(records, path, note):
    records = [r for r in records if is_real(r)]
    generated = datetime.datetime.now(datetime.timezone.utc)
    versions = sorted({r.get("version") for r in records if r.get("version")})
    loads = [r["load_average"] for r in records if r.get("load_average") is not None]
    if loads:
        note += f" Median 1-minute load average at the end of a run: {statistics.median(loads):.1f}."
    lines = ["# libvbmc on real posteriors (posteriordb)", ""] + provenance_lines(records) + [
        f"Generated by `bench/run --real` on {generated:%Y-%m-%d %H:%M} UTC "
        f"({', '.join(versions) or 'unknown version'}). {note}", "",
        "Protocol (bench/README.md, \"Real posteriors\"): budget 50*(D+2) evaluations, hard "
        "bounds of the model, plausible box = the prior box (16% to 84% prior quantiles) or the "
        "informed box (posterior mean +- 1 SD), x0 uniform in it, default options; with noise "
        "SD > 0 each log-joint value carries N(0, SD^2) noise and SD is told. LML error = "
        "|ELBO - log Z| against bench/real/ground_truth.json; gsKL against its moments. Medians "
        "over all runs (a run that did not finish counts as an infinite LML error), 95% "
        "percentile bootstrap interval of the median in brackets. \"converged, LML error > 1\" "
        "counts the runs that claimed convergence with an LML error above 1; \"reliable\" the "
        "runs whose `reliable` statistic was 1, out of those that recorded it, and \"reliable, "
        "LML error > 1\" those among them that were wrong all the same; \"of which locating\" the "
        "median evaluations the locating stage spent.", ""]
    lines += tables(records) + failures(records) + [""]
    labelled = [(f"{problem[len(PREFIX):]}, {box}, {fmt(noise)}", runs)
                for (problem, box, noise), runs in cases(records)]
    lines += phase_section(labelled, "problem, box, noise")
    with open(path, "w") as f:
        f.write("\n".join(lines))
