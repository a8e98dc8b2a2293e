"""The noisy benchmark of bench/run (--noisy), Python standard library only: the synthetic
problems with N(0, SD^2) noise added to each log-joint value and SD told (`vbmc_bench --noise`),
on the noisy budget 75*(D+2); its runs, one per (problem, noise, seed), and its report, with
PyVBMC's noisy runs (bench/pyvbmc/run_pyvbmc.py --noise) beside ours and issue 20's acceptance
check."""
import datetime
import statistics

from report_helpers import (error_source_section, fmt, fmt_ratio, group_stats, median, metric,
                            phase_section, provenance_lines, ratio, with_ci)

NOISE_LEVELS = [1.0, 2.0]
DIMS = (2, 6, 10)
DEFAULT_SEEDS = 10
# The noisy budget per D + 2: PyVBMC's noisy default, 1.5 x its 50*(D+2).
BUDGET_PER_DIM = 75
# Issue 20's acceptance check: noise SD 1 on these problems; medians below these bounds, no run
# with gsKL above 1, no run that reports convergence with an LML error above 1; better than
# PyVBMC at >= 20x less overhead per evaluation.
ACCEPT_PROBLEMS = ["lumpy_D2", "lumpy_D6", "student_D2", "student_D6", "cigar_D2", "cigar_D6"]
ACCEPT_NOISE = 1.0
ACCEPT_LML_ERR = 0.15
ACCEPT_GSKL = 0.06
ACCEPT_OVERHEAD_RATIO = 20.0


def is_noisy(record):
    """A run of a noisy target: its record says a noise SD above 0."""
    return (record.get("noise") or 0.0) > 0.0


def budget(dim):
    return BUDGET_PER_DIM * (dim + 2)


def default_problems(available, sort_key):
    """Every synthetic problem with D in DIMS, in the report's order."""
    return sorted((n for n, info in available.items() if info["D"] in DIMS), key=sort_key)


def make_tasks(names, available, noise_levels, seeds, max_fun_evals):
    """One task per (problem, noise, seed), in the form bench/run's execute_runs takes (which
    adds --max-fun-evals itself when it is given)."""
    tasks = []
    for name in names:
        dim = available[name]["D"]
        for noise in noise_levels:
            for seed in seeds:
                tasks.append({
                    "problem": name, "seed": seed, "D": dim,
                    "label": f"{name}_noise{noise:g}",
                    "args": ["--noise", repr(noise)]
                            + ([] if max_fun_evals else ["--max-fun-evals", str(budget(dim))]),
                    "fields": {"noise": noise},
                    "cost": (max_fun_evals or budget(dim)) * dim})
    return tasks


def cases(records, sort_key):
    """{(problem, noise): runs}, in the order of sort_key(problem), then noise."""
    by_case = {}
    for record in records:
        by_case.setdefault((record["problem"], record.get("noise")), []).append(record)
    return {case: by_case[case] for case in sorted(by_case, key=lambda c: (sort_key(c[0]), c[1]))}


def pyvbmc_stats(runs):
    """Medians of PyVBMC's runs of a case (its synthetic records have no status: each finished)."""
    return {"runs": len(runs),
            "lml_err": median(metric(r, "lml_err") for r in runs),
            "gskl": median(metric(r, "gskl") for r in runs),
            "overhead_per_eval_s": median(metric(r, "overhead_per_eval_s") for r in runs)}


def case_table(ours, theirs):
    lines = ["| problem | noise SD | finished | LML error [95% CI] | gsKL [95% CI] | gsKL > 1 | "
             "converged | converged, LML error > 1 | reliable, LML error > 1 | evaluations used | "
             "overhead s/eval (wall) | "
             "overhead s/eval (CPU) | PyVBMC runs | PyVBMC LML error | PyVBMC gsKL | "
             "PyVBMC overhead s/eval | overhead ratio |", "|" + "---|" * 17]
    for (problem, noise), runs in ours.items():
        s = group_stats(runs)
        p = pyvbmc_stats(theirs[(problem, noise)]) if (problem, noise) in theirs else {}
        lines.append("| " + " | ".join([
            problem, fmt(noise), f"{s['finished']}/{s['runs']}",
            with_ci(s["lml_err"], s["lml_err_ci"]), with_ci(s["gskl"], s["gskl_ci"]),
            f"{s['gskl_above_1']}/{s['runs']}", f"{s['converged']}/{s['runs']}",
            str(s["converged_wrong"]), str(s["reliable_wrong"]) if s["reliable"][1] else "-",
            fmt(s["fevals"]), fmt(s["overhead_per_eval_s"]),
            fmt(s["overhead_cpu_per_eval_s"]), str(p.get("runs", 0)), fmt(p.get("lml_err")),
            fmt(p.get("gskl")), fmt(p.get("overhead_per_eval_s")),
            fmt_ratio(ratio(p.get("overhead_per_eval_s"), s["overhead_per_eval_s"]))]) + " |")
    return lines + [""]


def verdict(ok):
    return "yes" if ok else "**no**"


def acceptance(ours, theirs):
    """Issue 20's check on ACCEPT_PROBLEMS at ACCEPT_NOISE: a row per problem and one line per
    criterion over all of them."""
    lines = [f"| problem | runs | median LML error < {ACCEPT_LML_ERR:g} | median gsKL < "
             f"{ACCEPT_GSKL:g} | runs with gsKL > 1 | converged with LML error > 1 | better than "
             f"PyVBMC at >= {ACCEPT_OVERHEAD_RATIO:g}x less overhead |", "|" + "---|" * 7]
    failing = {"lml": [], "gskl": [], "gskl_above_1": [], "wrong": [], "pyvbmc": []}
    missing, compared = [], 0
    for problem in ACCEPT_PROBLEMS:
        runs = ours.get((problem, ACCEPT_NOISE))
        if not runs:
            missing.append(problem)
            continue
        s = group_stats(runs)
        checks = {"lml": s["lml_err"] < ACCEPT_LML_ERR, "gskl": s["gskl"] is not None
                  and s["gskl"] < ACCEPT_GSKL, "gskl_above_1": s["gskl_above_1"] == 0,
                  "wrong": s["converged_wrong"] == 0}
        pyvbmc_cell = "no PyVBMC runs"
        if (problem, ACCEPT_NOISE) in theirs:
            p = pyvbmc_stats(theirs[(problem, ACCEPT_NOISE)])
            overhead = ratio(p["overhead_per_eval_s"], s["overhead_per_eval_s"])
            checks["pyvbmc"] = (s["lml_err"] <= p["lml_err"] and s["gskl"] is not None
                                and s["gskl"] <= p["gskl"] and overhead is not None
                                and overhead >= ACCEPT_OVERHEAD_RATIO)
            compared += 1
            pyvbmc_cell = (f"{verdict(checks['pyvbmc'])} (LML error {fmt(p['lml_err'])}, gsKL "
                           f"{fmt(p['gskl'])} over {p['runs']} run{'s' if p['runs'] > 1 else ''}; "
                           f"overhead {fmt_ratio(overhead)})")
        for key, ok in checks.items():
            if not ok:
                failing[key].append(problem)
        lines.append(f"| {problem} | {s['runs']} | {verdict(checks['lml'])} ({fmt(s['lml_err'])}) "
                     f"| {verdict(checks['gskl'])} ({fmt(s['gskl'])}) | {s['gskl_above_1']} "
                     f"| {s['converged_wrong']} | {pyvbmc_cell} |")
    measured = len(ACCEPT_PROBLEMS) - len(missing)

    def summary(text, key, denominator):
        names = failing[key]
        return (f"- {text}: {verdict(not names)} on {denominator - len(names)} of {denominator}"
                + (f" (not on {', '.join(names)})" if names else ""))

    lines += ["", summary(f"median LML error < {ACCEPT_LML_ERR:g}", "lml", measured),
              summary(f"median gsKL < {ACCEPT_GSKL:g}", "gskl", measured),
              summary("no run with gsKL > 1", "gskl_above_1", measured),
              summary("no run that reports convergence with an LML error > 1", "wrong", measured)]
    pyvbmc_text = (f"better than PyVBMC's noisy mode (both medians) at >= "
                   f"{ACCEPT_OVERHEAD_RATIO:g}x less overhead per evaluation")
    lines.append(summary(pyvbmc_text, "pyvbmc", compared) if compared
                 else f"- {pyvbmc_text}: no PyVBMC noisy runs")
    if missing:
        lines.append(f"- not measured: {', '.join(missing)}")
    return lines + [""]


def failures(records):
    failed = [r for r in records if r.get("status") != "VBMC_DONE"]
    return (["Runs that did not finish (counted as infinite LML error and gsKL > 1):", ""]
            + [f"- {r.get('problem')} noise {fmt(r.get('noise'))} seed {r.get('seed')}: "
               f"{r.get('status')} {r.get('error') or ''}".rstrip() for r in failed] + [""]
            if failed else [])


PROTOCOL = ("Protocol (bench/README.md, \"Noisy targets\"): each synthetic problem with N(0, SD^2) "
            "noise added to each log-joint value, SD told with the value (`vbmc_bench --noise "
            "SD`), budget 75*(D+2) evaluations (the noisy budget), x0 uniform in the plausible "
            "box, default options otherwise; LML error and gsKL against the noiseless truth. "
            "Medians over the runs (a run that did not finish counts as an infinite LML error), "
            "95% percentile bootstrap interval of the median in brackets; \"gsKL > 1\" and "
            "\"converged, LML error > 1\" (the runs whose `converged` statistic was 1 with an LML "
            "error above 1: a confident wrong answer) and \"reliable, LML error > 1\" (the same "
            "for the `reliable` statistic) count runs. PyVBMC: its noisy mode "
            "(`specify_target_noise`, bench/pyvbmc/run_pyvbmc.py --noise) under the same protocol, "
            "medians of its runs; overhead ratio = PyVBMC / libvbmc per evaluation (wall), above "
            "1 means libvbmc spends less.")


def figure_lines(figures, level):
    """Links to the convergence figures ({noise: path}), one per noise SD."""
    if not figures:
        return []
    lines = [f"{level} Convergence", "",
             "Median LML error and gsKL of the posterior at the end of each iteration against the "
             "function evaluations used (one panel per family and dimension; grey lines at 1 and "
             "0.1; PyVBMC's final noisy medians as open markers), one figure per noise SD.", ""]
    for noise, path in sorted(figures.items()):
        lines += [f"![noise SD {noise:g}: median LML error and gsKL against function "
                  f"evaluations]({path})", ""]
    return lines


def body(records, pyvbmc_records, sort_key, figures=None, level="##"):
    """The report's tables: per (problem, noise), issue 20's acceptance check, the runs that did
    not finish, the convergence figures ({noise: path}) and the library's time by phase; section
    headings at the given level."""
    ours = cases(records, sort_key)
    theirs = cases(pyvbmc_records, sort_key)
    lines = [PROTOCOL, "", f"{level} Per problem and noise", ""] + case_table(ours, theirs)
    lines += [f"{level} Acceptance check (issue 20)", "",
              f"Noise SD {ACCEPT_NOISE:g}, lumpy, student and cigar at D = 2 and 6.", ""]
    lines += acceptance(ours, theirs) + failures(records) + figure_lines(figures, level)
    labelled = [(f"{problem}, noise {fmt(noise)}", runs) for (problem, noise), runs in ours.items()]
    sections = phase_section(labelled, "problem, noise") + error_source_section(labelled, "problem, noise")
    return lines + [line.replace("## ", level + " ", 1) if line.startswith("## ") else line
                    for line in sections]


def header(records, note):
    generated = datetime.datetime.now(datetime.timezone.utc)
    versions = sorted({r.get("version") for r in records if r.get("version")})
    loads = [r["load_average"] for r in records if r.get("load_average") is not None]
    if loads:
        note += f" Median 1-minute load average at the end of a run: {statistics.median(loads):.1f}."
    return provenance_lines(records) + [
        f"Generated by `bench/run --noisy` on {generated:%Y-%m-%d %H:%M} UTC "
        f"({', '.join(versions) or 'unknown version'}). {note}", ""]


def write_report(records, pyvbmc_records, path, note, sort_key, figures=None):
    lines = ["# libvbmc on noisy targets", ""] + header(records, note)
    lines += body(records, pyvbmc_records, sort_key, figures)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def results_section(records, pyvbmc_records, note, sort_key, figures=None):
    """The lines of bench/RESULTS.md's section "noisy" (between its markers)."""
    return (["## Noisy targets (issue 20)", ""] + header(records, note)
            + body(records, pyvbmc_records, sort_key, figures, level="###"))
