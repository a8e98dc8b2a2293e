"""Install the Python package as a user would, and check that it works on its own.

    python3 pip_install.py PYTHON SOURCE_ROOT REFERENCE_OUTPUT EXAMPLE

Copies the source tree's tracked files to a scratch folder (pip builds in the tree it is given),
makes a virtual environment of PYTHON with the system's site packages (Debian's numpy and
meson-python), runs `pip install --no-build-isolation --no-index` there (offline: nothing is
fetched), then, from another folder and without VBMC_LIBRARY or PYTHONPATH, checks that the
package loads the library pip built into it and that EXAMPLE prints the reference ELBO
(compare_elbo.py's rule). Exits 0 when all of that holds.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_elbo  # noqa: E402


def tracked_files(root):
    """The files git tracks under root, or every file outside build folders and .git."""
    try:
        listing = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
        return [name for name in listing.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = [s for s in subfolders if not s.startswith(("build", ".git"))]
            found += [os.path.relpath(os.path.join(folder, f), root) for f in files]
        return found


def copy_tree(root, destination):
    for name in tracked_files(root):
        target = os.path.join(destination, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.join(root, name), target)


def run(command, **kwargs):
    print("+ " + " ".join(command), flush=True)
    subprocess.run(command, check=True, **kwargs)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    python, root, reference_output, example = sys.argv[1:]
    with tempfile.TemporaryDirectory(prefix="vbmc-pip-") as scratch:
        source, venv = os.path.join(scratch, "libvbmc"), os.path.join(scratch, "venv")
        copy_tree(root, source)
        run([python, "-m", "venv", "--system-site-packages", venv])
        venv_python = os.path.join(venv, "bin", "python")
        run([venv_python, "-m", "pip", "install", "--no-build-isolation", "--no-index",
             "--no-cache-dir", "--quiet", source])
        env = {k: v for k, v in os.environ.items() if k not in ("VBMC_LIBRARY", "PYTHONPATH")}
        run([venv_python, "-c", "import sys, vbmc; print('loaded', vbmc._capi.LIBRARY_PATH); "
             "sys.exit(not vbmc._capi.LIBRARY_PATH.startswith(sys.prefix))"],
            cwd=scratch, env=env)
        with open(reference_output, encoding="utf-8") as handle:
            reference = compare_elbo.elbo_in(handle.read(), reference_output)
        os.environ.clear()
        os.environ.update(env)
        os.chdir(scratch)
        binding = compare_elbo.elbo_of([venv_python, example])
    difference = abs(binding - reference)
    print("installed package: reference ELBO %.17g, binding ELBO %.17g, |difference| %.3g"
          % (reference, binding, difference))
    return 0 if difference <= compare_elbo.TOLERANCE * max(1.0, abs(reference)) else 1


if __name__ == "__main__":
    sys.exit(main())
