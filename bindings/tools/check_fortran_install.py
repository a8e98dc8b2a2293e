"""Install the build into a scratch folder and build Fortran programs the documented way.

    python3 check_fortran_install.py BUILD_DIR REFERENCE_OUTPUT PROGRAM.f90 [LINKED.f90 ...]

Runs `meson install --destdir` into a scratch folder, then compiles PROGRAM with
`gfortran $(pkg-config --cflags --libs vbmc-fortran)` against that installation only
(PKG_CONFIG_SYSROOT_DIR points pkg-config into it) and checks that the program prints the
reference ELBO (compare_elbo.py's rule). Each LINKED program is compiled and linked the same way,
not run: the procedures it calls (the plots of submodule vbmc_plot) are in the installed files.
Exits 0 when all of that holds.
"""
import glob
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_elbo  # noqa: E402


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    build, reference_output, program = sys.argv[1:4]
    linked = sys.argv[4:]
    with tempfile.TemporaryDirectory(prefix="vbmc-install-") as root:
        subprocess.run(["meson", "install", "-C", build, "--destdir", root, "--no-rebuild",
                        "--quiet"], check=True)
        found = glob.glob(os.path.join(root, "**", "pkgconfig", "vbmc-fortran.pc"), recursive=True)
        if not found:
            sys.exit("no vbmc-fortran.pc was installed")
        for pattern in ("vbmc.mod", "vbmc_c.mod", "vbmc_constants.mod", "libvbmc_fortran.a"):
            if not glob.glob(os.path.join(root, "**", pattern), recursive=True):
                sys.exit("%s was not installed" % pattern)
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(found[0]),
                   PKG_CONFIG_SYSROOT_DIR=root)
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "vbmc-fortran"], env=env,
                               check=True, stdout=subprocess.PIPE, text=True).stdout.split()
        print("pkg-config --cflags --libs vbmc-fortran: " + " ".join(flags))
        executable = os.path.join(root, "program")
        subprocess.run(["gfortran", "-o", executable, program] + flags, check=True)
        for source in linked:
            subprocess.run(["gfortran", "-o", os.path.join(root, "linked"), source] + flags,
                           check=True)
            print("built against the installation: " + source)
        library_dirs = [f[2:] for f in flags if f.startswith("-L")]
        os.environ["LD_LIBRARY_PATH"] = ":".join(library_dirs)
        binding = compare_elbo.elbo_of([executable])
    with open(reference_output, encoding="utf-8") as handle:
        reference = compare_elbo.elbo_in(handle.read(), reference_output)
    difference = abs(binding - reference)
    print("installed Fortran module: reference ELBO %.17g, program ELBO %.17g, |difference| %.3g"
          % (reference, binding, difference))
    return 0 if difference <= compare_elbo.TOLERANCE * max(1.0, abs(reference)) else 1


if __name__ == "__main__":
    sys.exit(main())
