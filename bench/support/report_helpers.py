"""Helpers shared by the benchmark reports of bench/run (synthetic, noisy and real suites): number
formatting, medians with percentile-bootstrap intervals, the statistics of a group of runs, the
ratio PyVBMC / libvbmc, the provenance header, the breakdown of the library's time by phase, and
the marked sections that other benchmarks (bench/workers, bench/refine) keep in
bench/RESULTS.md."""
import ctypes
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile

BOOTSTRAP_RESAMPLES = 2000


def fmt(value, digits=3):
    if value is None:
        return "-"
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 1000 or magnitude < 1e-3:
        return f"{value:.{digits - 1}e}"
    return f"{value:.{digits}g}" if magnitude < 1 else f"{value:.{max(digits, 3)}g}"


def metric(record, key):
    """A run's metric as a float; a missing (non-finite) accuracy metric counts as infinite."""
    value = record.get(key)
    if value is None:
        return math.inf if key in ("lml_err", "gskl") else None
    return float(value)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def bootstrap_ci(values, level=0.95, resamples=BOOTSTRAP_RESAMPLES, seed=0):
    """Percentile bootstrap confidence interval of the median (of the sorted values, so the same
    runs give the same interval in any order)."""
    values = sorted(v for v in values if v is not None)
    if len(values) < 2:
        return None, None
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(values, k=len(values)))
                     for _ in range(resamples))
    low = medians[int(math.floor((1 - level) / 2 * resamples))]
    high = medians[min(resamples - 1, int(math.ceil((1 + level) / 2 * resamples)) - 1)]
    return low, high


def with_ci(value, ci):
    if value is None:
        return "-"
    if not ci or ci[0] is None:
        return fmt(value)
    return f"{fmt(value)} [{fmt(ci[0])}, {fmt(ci[1])}]"


def ratio(theirs, ours):
    """PyVBMC / libvbmc: above 1 means libvbmc is better (smaller error, less overhead)."""
    if theirs is None or ours is None or math.isinf(theirs) or math.isinf(ours):
        return None
    if ours == 0:
        return math.inf if theirs > 0 else None
    return theirs / ours


def fmt_ratio(value):
    if value is None:
        return "-"
    if math.isinf(value):
        return "inf"
    return f"{value:.3g}x" if value < 100 else f"{value:.0f}x"


def group_stats(runs):
    """Statistics of a group of runs (bench/run --real and --noisy). A run that did not finish
    counts as an infinite LML error (so it is never below 1), as a gsKL above 1, and as neither
    converged nor reliable; gsKL and the other medians are over the finished runs."""
    done = [r for r in runs if r.get("status") == "VBMC_DONE"]
    lml = [metric(r, "lml_err") if r.get("status") == "VBMC_DONE" else math.inf for r in runs]
    gskl = [metric(r, "gskl") for r in done]
    recorded = [r for r in done if r.get("reliable") is not None]
    converged = [r for r in done if r.get("converged")]
    return {
        "runs": len(runs), "finished": len(done),
        "lml_err": median(lml), "lml_err_ci": bootstrap_ci(lml),
        "below_1": sum(1 for v in lml if v < 1.0),
        "gskl": median(gskl), "gskl_ci": bootstrap_ci(gskl),
        "gskl_above_1": len(runs) - len(done) + sum(1 for v in gskl if v > 1.0),
        "converged": len(converged),
        "converged_wrong": sum(1 for r in converged if metric(r, "lml_err") > 1.0),
        "reliable": (sum(1 for r in recorded if r.get("reliable")), len(recorded)),
        "reliable_wrong": sum(1 for r in recorded if r.get("reliable") and metric(r, "lml_err") > 1.0),
        "locate_evals": median(metric(r, "locate_evals") for r in done if r.get("locate_evals") is not None),
        "fevals": median(metric(r, "fevals") for r in done),
        "overhead_per_eval_s": median(metric(r, "overhead_per_eval_s") for r in done),
        "overhead_cpu_per_eval_s": median(metric(r, "overhead_cpu_per_eval_s") for r in done),
    }


def blas_core():
    """"OpenBLAS core NAME, " for the kernels OpenBLAS picked on this machine (the runs load the
    same library with the same environment), or "" when OpenBLAS is not found. OpenBLAS 0.3.21
    does not know some newer CPUs and falls back to its Prescott (SSE3) kernels there."""
    try:
        openblas = ctypes.CDLL("libopenblas.so.0")
        openblas.openblas_get_corename.restype = ctypes.c_char_p
        return f"OpenBLAS core {openblas.openblas_get_corename().decode()}, "
    except (OSError, AttributeError):
        return ""


def provenance(repo, command):
    """Commit, machine and command (a list of words) of a benchmark invocation, stamped into
    every run record."""
    def git(*cmd):
        try:
            return subprocess.run(["git", "-C", repo, *cmd], capture_output=True, text=True,
                                  check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""
    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    # Engine and harness sources only: the published results themselves do not count.
    if git("status", "--porcelain", "--", "src", "include", "bench", "meson.build",
           ":!bench/results", ":!bench/RESULTS.md"):
        commit += " (with uncommitted changes)"
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name")), cpu)
    except OSError:
        pass
    return {"commit": commit,
            "machine": f"{os.cpu_count()} cores, {cpu}, {blas_core()}BLAS threads 1 per run",
            "command": " ".join(command)}


def provenance_lines(records):
    """Markdown lines naming the engine commits, machines and commands of the records."""
    lines = []
    for key, title in (("commit", "Engine commit"), ("machine", "Machine"), ("command", "Command")):
        values = sorted({r[key] for r in records if r.get(key)})
        if values:
            lines.append(f"**{title}{'s' if len(values) > 1 else ''}:** "
                         + "; ".join(f"`{v}`" if key == "command" else v for v in values) + "  ")
    return lines


# The library's phases as vbmc_stat names them ("cpu_<phase>"), with their column headings.
PHASES = [("gp_train", "GP training"), ("vp_optim", "posterior optimisation"),
          ("acquisition", "acquisition"), ("final_boost", "final boost"), ("locate", "locating")]


def phase_seconds(record, phase):
    """A run's CPU seconds in a phase; "other" is its library total less the phases."""
    if phase == "other":
        return record["cpu_total"] - sum(record.get("cpu_" + p) or 0.0 for p, _ in PHASES)
    return record.get("cpu_" + phase) or 0.0


def phase_section(groups, first_column):
    """Markdown section: the library's own CPU seconds per run by phase (vbmc_stat "cpu_*"),
    median over each group's finished runs, with the median share of the run's library total.
    groups: (label, runs) pairs. Runs recorded before the timers existed are left out; no lines
    when none has them."""
    rows = []
    for label, runs in groups:
        timed = [r for r in runs if r.get("status") == "VBMC_DONE" and r.get("cpu_total")]
        if not timed:
            continue
        cells = [label, str(len(timed))]
        for phase in [p for p, _ in PHASES] + ["other"]:
            seconds = [phase_seconds(r, phase) for r in timed]
            shares = [value / r["cpu_total"] for value, r in zip(seconds, timed)]
            cells.append(f"{fmt(median(seconds))} ({100 * median(shares):.0f}%)")
        cells.append(fmt(median(r["cpu_total"] for r in timed)))
        rows.append("| " + " | ".join(cells) + " |")
    if not rows:
        return []
    return ["## Where the library's time goes", "",
            "CPU seconds per run inside the library by phase (`vbmc_stat` `cpu_*`: process CPU "
            "time inside vbmc_ask and vbmc_tell, README \"Where the library's time goes\"), "
            "medians over the finished runs, in brackets the median share of the run's library "
            "total; other = the total less the phases (bookkeeping, reliability checks).", "",
            f"| {first_column} | runs | " + " | ".join(h for _, h in PHASES) + " | other | total |",
            "|" + "---|" * (len(PHASES) + 4)] + rows + [""]


def error_source_section(groups, first_column):
    """Markdown section: where the LML error comes from, per group of finished runs with a true
    ELBO (vbmc_bench's `elbo_true`, E_q[log p - log q] under the true target). The LML error
    |ELBO - log Z| is the sum of two signed parts: ELBO - ELBO_true, the surrogate's error (the
    GP and the quadrature), and ELBO_true - log Z = -KL(q || p), the variational gap, which no
    surrogate can remove with the same q. Medians over the runs; no lines when none has a true
    ELBO."""
    rows = []
    for label, runs in groups:
        valid = [r for r in runs if r.get("status") == "VBMC_DONE"
                 and all(isinstance(r.get(k), (int, float)) and math.isfinite(r[k])
                         for k in ("elbo", "elbo_true", "lml"))]
        if not valid:
            continue
        gap = [r["lml"] - r["elbo_true"] for r in valid]
        surrogate = [r["elbo"] - r["elbo_true"] for r in valid]
        below = sum(1 for value in surrogate if value < 0.0)
        rows.append(f"| {label} | {len(valid)} | {fmt(median(abs(r['elbo'] - r['lml']) for r in valid))} "
                    f"| {fmt(median(gap))} | {fmt(median(surrogate))} "
                    f"| {fmt(median(abs(v) for v in surrogate))} | {below}/{len(valid)} |")
    if not rows:
        return []
    return ["## Where the LML error comes from", "",
            "The LML error |ELBO - log Z| split into the variational gap KL(q || p) = log Z - "
            "ELBO_true (what the returned mixture q misses of the target however well the "
            "surrogate is known; ELBO_true = E_q[log p - log q] under the true target, "
            "`elbo_true`) and the surrogate's error ELBO - ELBO_true (signed: below 0 when the GP "
            "and its quadrature underestimate E_q[log p]); ELBO = ELBO_true + surrogate error = log "
            "Z - gap + surrogate error. Medians over the finished runs.", "",
            f"| {first_column} | runs | LML error | variational gap KL(q \\|\\| p) | surrogate error "
            "(signed) | surrogate error (absolute) | runs with surrogate error < 0 |",
            "|---|---|---|---|---|---|---|"] + rows + [""]


def _markers(name):
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def write_marked_section(path, name, lines):
    """Writes lines as the section `name` of the report at path, between its markers: in place of
    the section's earlier text, or appended the first time. Other text is left as it is."""
    begin, end = _markers(name)
    section = "\n".join([begin, *lines, end])
    with open(path) as f:
        text = f.read()
    if begin in text:
        head, rest = text.split(begin, 1)
        text = head + section + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    with open(path, "w") as f:
        f.write(text)


def kept_after_generated(path):
    """The text of the report at path from its first marked section (written by
    write_marked_section) to its end: the sections other tools write and the hand-written notes
    between and after them, which a writer that regenerates the report's top keeps; empty when
    there is none."""
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        text = f.read()
    first = re.search(r"<!-- [\w-]+:begin -->", text)
    return text[first.start():].rstrip("\n") if first else ""


def gnuplot_data_dir(prefix):
    """A fresh folder for a figure's data files, or None (with a message) when gnuplot is missing."""
    if not shutil.which("gnuplot"):
        print("gnuplot not found (apt-get install gnuplot-nox): no figure", flush=True)
        return None
    return tempfile.mkdtemp(prefix=prefix)


def run_gnuplot(script, data_dir):
    """Runs the gnuplot script (a list of lines) and removes data_dir; True when gnuplot succeeded."""
    script_path = os.path.join(data_dir, "figure.gp")
    with open(script_path, "w") as f:
        f.write("\n".join(script) + "\n")
    result = subprocess.run(["gnuplot", script_path], capture_output=True, text=True)
    shutil.rmtree(data_dir, ignore_errors=True)
    if result.returncode != 0:
        print("gnuplot failed:\n" + result.stderr, flush=True)
    return result.returncode == 0
