"""Run a binding's banana example; pass if its ELBO agrees with the C reference's to 1e-12.

    python3 compare_elbo.py REFERENCE_OUTPUT -- COMMAND [ARGS...]

REFERENCE_OUTPUT is what reference_elbo printed (meson runs it once, into the build tree). Both
print a line starting "ELBO = <value>" (anything may follow the value). The same engine, seed and asks give the same ELBO,
so the tolerance is 1e-12 (relative to max(1, |ELBO|)): only the last bits of the log joint, as
computed by each language, may differ. Exits 0 on agreement, 1 otherwise.
"""
import re
import subprocess
import sys

TOLERANCE = 1e-12


def elbo_in(text, source):
    match = re.search(r"^ELBO =\s*(\S+)", text, flags=re.M)
    if match is None:
        sys.exit("%s printed no line 'ELBO = <value>'" % source)
    return float(match.group(1))


def elbo_of(command):
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    if done.returncode != 0:
        sys.exit("%s exited with %d" % (command[0], done.returncode))
    return elbo_in(done.stdout, " ".join(command))


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as handle:
        reference = elbo_in(handle.read(), sys.argv[1])
    binding = elbo_of(sys.argv[3:])
    difference = abs(binding - reference)
    tolerance = TOLERANCE * max(1.0, abs(reference))
    print("reference ELBO %.17g, binding ELBO %.17g, |difference| %.3g, tolerance %.3g"
          % (reference, binding, difference, tolerance))
    return 0 if difference <= tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
