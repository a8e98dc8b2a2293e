"""R CMD check of the R package; fails on any WARNING or ERROR, and on any NOTE but those that
name the machine rather than the package (listed in ALLOWED_NOTES with the reason).

    python3 check_r.py PACKAGE_SOURCE

Builds the source package (R CMD build) in a scratch folder and checks it with --no-manual (the
PDF manual needs LaTeX, which is not a dependency). libvbmc is found as for the package's
installation (pkg-config; meson sets PKG_CONFIG_PATH, VBMC_CPPFLAGS and LD_LIBRARY_PATH).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

# NOTE headings that say something about this machine, not the package.
ALLOWED_NOTES = {
    # HTML validation needs the program 'tidy', which is not a dependency.
    "checking HTML version of manual",
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory(prefix="vbmc-rcheck-") as scratch:
        package = os.path.join(scratch, "vbmc")
        shutil.copytree(sys.argv[1], package, ignore=shutil.ignore_patterns("*.o", "*.so"))
        subprocess.run(["R", "CMD", "build", "--no-build-vignettes", package], cwd=scratch,
                       check=True)
        tarball = glob.glob(os.path.join(scratch, "vbmc_*.tar.gz"))[0]
        done = subprocess.run(["R", "CMD", "check", "--no-manual", tarball], cwd=scratch,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(done.stdout)
        log = open(os.path.join(scratch, "vbmc.Rcheck", "00check.log"), encoding="utf-8").read()
    findings = re.findall(r"^\* (checking .*?) \.\.\. ?(?:\[[^\]]*\] )?(WARNING|ERROR|NOTE)$",
                          log, flags=re.M)
    problems = [(what, kind) for what, kind in findings
                if not (kind == "NOTE" and any(what.startswith(a) for a in ALLOWED_NOTES))]
    for what, kind in findings:
        print("%s: %s%s" % (kind, what, "" if (what, kind) in problems else " (allowed)"))
    if done.returncode != 0 and not problems:
        problems.append(("R CMD check", "exit status %d" % done.returncode))
    print("R CMD check: %d WARNING/ERROR/NOTE findings that count" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
