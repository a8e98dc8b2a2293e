"""Many evaluations at once with concurrent.futures: the host asks until every worker is busy or
the run says WAIT, and tells each result as soon as it comes back, in any order.

    python3 parallel.py [--workers N] [--checkpoint FILE] [--seconds S] [--max-fun-evals N]

The log joint here sleeps S seconds to stand for an expensive model; a ThreadPoolExecutor suits a
model that releases the GIL (a subprocess, a C extension, a remote call), a ProcessPoolExecutor a
model in pure Python (its function must then be importable, as this one is). With --checkpoint
the run saves itself after every tell and, started again after a kill, resumes from the file:
the points that were out are evaluated again first.
"""
import argparse
import concurrent.futures as cf
import os
import time

import numpy as np

import vbmc


def log_joint(x, seconds=0.0):
    """A correlated 2-D Gaussian (log Z = log(2 pi) + 0.5 log(1 - 0.25)), after a pause."""
    time.sleep(seconds)
    rho = 0.5
    return -0.5 * (x[0] ** 2 - 2 * rho * x[0] * x[1] + x[1] ** 2) / (1 - rho ** 2)


def open_run(workers, checkpoint, max_fun_evals):
    """The run in the checkpoint file if there is one, else a new one saving itself there."""
    if checkpoint and os.path.exists(checkpoint):
        return vbmc.VBMCRun.load(checkpoint)
    options = {"seed": 1, "display": "off", "max_pending": workers, "max_fun_evals": max_fun_evals}
    if checkpoint:
        options["checkpoint_file"] = checkpoint
    return vbmc.VBMCRun(lb=None, ub=None, plb=[-3.0, -3.0], pub=[3.0, 3.0], options=options)


def run_in_parallel(run, executor, workers, seconds):
    """Keeps up to `workers` evaluations in flight until the run finishes; returns the posterior."""
    out = {}  # future -> the point it evaluates
    for x in run.pending():  # points left out by a killed host: first in line
        out[executor.submit(log_joint, x, seconds)] = x
    finished = False
    while True:
        while not finished and len(out) < workers:
            status, x = run.ask_status()
            if status == vbmc.Status.WAIT:  # every point the run may hand out is out
                break
            if status == vbmc.Status.DONE:
                finished = True
                break
            out[executor.submit(log_joint, x, seconds)] = x
        if not out:
            break
        done, _ = cf.wait(out, return_when=cf.FIRST_COMPLETED)
        for future in done:
            run.tell(out.pop(future), future.result())  # values told after the end are kept too
    return run.posterior()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--checkpoint", help="save after every tell, resume from it if present")
    parser.add_argument("--seconds", type=float, default=0.05, help="time per evaluation")
    parser.add_argument("--max-fun-evals", type=int, default=100)
    args = parser.parse_args()
    run = open_run(args.workers, args.checkpoint, args.max_fun_evals)
    started = time.monotonic()
    with cf.ThreadPoolExecutor(max_workers=args.workers) as executor:
        post = run_in_parallel(run, executor, args.workers, args.seconds)
    log_z = np.log(2 * np.pi) + 0.5 * np.log(1 - 0.25)
    print("%d evaluations in %.1f s with %d workers" % (run.stat("func_count"), time.monotonic() - started,
                                                       args.workers))
    print("ELBO = %.4f +/- %.4f (log Z = %.4f)" % (post.elbo, post.elbo_sd, log_z))


if __name__ == "__main__":
    main()
