"""Install the R package into a library folder of the build tree (for the bindings tests).

    python3 install_r.py PACKAGE_SOURCE LIBRARY_DIR STAMP_FILE

R CMD INSTALL compiles inside the package folder, so the source is copied to a temporary folder
first and the source tree stays clean. libvbmc is found by the package's Makevars with pkg-config;
PKG_CONFIG_PATH (set by meson) points at the build's uninstalled vbmc.pc.
"""
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    source, library, stamp = sys.argv[1:4]
    os.makedirs(library, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        package = os.path.join(scratch, "vbmc")
        shutil.copytree(source, package, ignore=shutil.ignore_patterns("*.o", "*.so"))
        subprocess.run(["R", "CMD", "INSTALL", "--no-multiarch", "--library=" + library, package],
                       check=True)
    with open(stamp, "w", encoding="utf-8") as handle:
        handle.write("installed\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
