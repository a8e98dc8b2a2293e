"""The real-posterior suite of bench/run (--real), Python standard library only: its problems,
the data files they read (written from posteriordb when missing), and its runs, one per
(problem, box, noise, seed)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import posteriordb  # noqa: E402

PREFIX = "real:"
BOXES = ["prior", "informed"]
NOISE_LEVELS = [0.0, 1.0]
DEFAULT_SEEDS = 5


def list_problems(exe):
    """{short name: {"D", "budget", "posterior"}} from `vbmc_bench --list-real`."""
    out = subprocess.run([exe, "--list-real"], check=True, capture_output=True, text=True).stdout
    problems = {}
    for line in out.splitlines():
        name, dim, budget, posterior = line.split()
        problems[name[len(PREFIX):]] = {"D": int(dim), "budget": int(budget),
                                        "posterior": posterior}
    return problems


def select(available, requested):
    """The requested short names (a "real:" prefix is allowed), or all; raises ValueError for
    unknown ones."""
    if not requested:
        return list(available)
    names = [n.strip()[len(PREFIX):] if n.strip().startswith(PREFIX) else n.strip()
             for n in requested.split(",") if n.strip()]
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ValueError(f"unknown real problems: {', '.join(unknown)} "
                         f"(known: {', '.join(available)})")
    return names


def ensure_data(names, available, data_dir, db_path):
    """Writes the data file of every named problem that lacks one, from posteriordb."""
    missing = [n for n in names if not os.path.isfile(os.path.join(data_dir, n + ".data"))]
    if not missing:
        return
    path = posteriordb.locate(db_path)
    if not path:
        raise SystemExit(f"no data files for {', '.join(missing)} in {data_dir} and posteriordb "
                         f"not found: give --posteriordb DIR (a bare git directory or checkout)")
    db = posteriordb.PosteriorDB(path)
    for name in missing:
        posteriordb.write_data_file(db, available[name]["posterior"],
                                    os.path.join(data_dir, name + ".data"))
    print(f"wrote data files of {', '.join(missing)} from {path} to {data_dir}", flush=True)


def parse_list(text, default, convert):
    return [convert(v) for v in text.split(",")] if text else list(default)


def make_tasks(names, available, boxes, noise_levels, seeds, data_dir, max_fun_evals):
    """One task per (problem, box, noise, seed), in the form bench/run's execute_runs takes."""
    tasks = []
    for name in names:
        info = available[name]
        for box in boxes:
            for noise in noise_levels:
                for seed in seeds:
                    tasks.append({
                        "problem": PREFIX + name, "seed": seed, "D": info["D"],
                        "label": f"{name}_{box}_noise{noise:g}",
                        "args": ["--box", box, "--noise", repr(noise), "--data-dir", data_dir],
                        "fields": {"box": box, "noise": noise},
                        "cost": (max_fun_evals or info["budget"]) * info["D"]})
    return tasks
