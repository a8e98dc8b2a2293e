"""ctypes declarations of the C API in include/vbmc/vbmc.h, and the loading of the library.

The shared library is, in order: the file named by the environment variable VBMC_LIBRARY (and
only that one when it is set); the copy pip built into this package (vbmc/libvbmc.so); libvbmc
installed on the system (ctypes.util.find_library("vbmc"), then "libvbmc.so.0" on the loader's
search path). When none loads, importing vbmc raises ImportError saying how to get one.
"""
import ctypes
import ctypes.util
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_int, c_longlong,
                    c_size_t, c_uint64, c_void_p)

from ._constants import __version__

BUNDLED_LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libvbmc.so")
HOW_TO_INSTALL = (
    "Install this package with pip from the libvbmc source tree, which builds the library into "
    "it (offline, with Debian's python3-mesonpy): python3 -m venv --system-site-packages VENV && "
    "VENV/bin/pip install --no-build-isolation /path/to/libvbmc. Or install libvbmc itself "
    "(meson setup build && ninja -C build install && ldconfig), or set VBMC_LIBRARY to the path "
    "of a libvbmc.so.")


class Opts(Structure):
    """struct vbmc_opts (opaque)."""


class Run(Structure):
    """struct vbmc (opaque)."""


class Post(Structure):
    """struct vbmc_post (opaque)."""


class Diag(Structure):
    """struct vbmc_diag (opaque)."""


status_t = c_int
double_p = POINTER(c_double)
int_p = POINTER(c_int)
log_joint_fn = CFUNCTYPE(c_double, double_p, double_p, c_void_p)
log_fn = CFUNCTYPE(None, c_void_p, c_int, c_char_p)
log_prior_fn = CFUNCTYPE(c_double, double_p, c_void_p)

# name: (restype, argtypes), in header order.
SIGNATURES = {
    "vbmc_version": (c_char_p, []),
    "vbmc_status_name": (c_char_p, [status_t]),
    "vbmc_opts_create": (status_t, [POINTER(POINTER(Opts))]),
    "vbmc_opts_destroy": (None, [POINTER(Opts)]),
    "vbmc_opts_set": (status_t, [POINTER(Opts), c_char_p, c_char_p]),
    "vbmc_opts_set_int": (status_t, [POINTER(Opts), c_char_p, c_longlong]),
    "vbmc_opts_set_double": (status_t, [POINTER(Opts), c_char_p, c_double]),
    "vbmc_opts_get": (status_t, [POINTER(Opts), c_char_p, c_char_p, c_size_t]),
    "vbmc_opts_error": (c_char_p, [POINTER(Opts)]),
    "vbmc_opts_count": (c_int, []),
    "vbmc_opts_name": (c_char_p, [c_int]),
    "vbmc_opts_type": (c_char_p, [c_int]),
    "vbmc_opts_default": (c_char_p, [c_int]),
    "vbmc_opts_help": (c_char_p, [c_int]),
    "vbmc_create": (status_t, [POINTER(POINTER(Run)), c_int, double_p, double_p, double_p,
                               double_p, double_p, POINTER(Opts)]),
    "vbmc_create_warm": (status_t, [POINTER(POINTER(Run)), POINTER(Run), POINTER(Opts), c_int]),
    "vbmc_destroy": (None, [POINTER(Run)]),
    "vbmc_last_error": (c_char_p, [POINTER(Run)]),
    "vbmc_dim": (c_int, [POINTER(Run)]),
    "vbmc_ask": (status_t, [POINTER(Run), double_p]),
    "vbmc_tell": (status_t, [POINTER(Run), double_p, c_double, c_double]),
    "vbmc_tell_extra": (status_t, [POINTER(Run), double_p, c_double, c_double]),
    "vbmc_abandon": (status_t, [POINTER(Run), double_p]),
    "vbmc_pending_point": (status_t, [POINTER(Run), c_int, double_p]),
    "vbmc_stat": (status_t, [POINTER(Run), c_char_p, double_p]),
    "vbmc_result_message": (c_char_p, [POINTER(Run)]),
    "vbmc_set_prior": (status_t, [POINTER(Run), c_int, c_char_p, double_p, c_int]),
    "vbmc_set_prior_fn": (status_t, [POINTER(Run), log_prior_fn, c_void_p]),
    "vbmc_log_prior": (status_t, [POINTER(Run), double_p, double_p]),
    "vbmc_run": (status_t, [POINTER(Run), log_joint_fn, c_void_p]),
    "vbmc_history": (status_t, [POINTER(Run), c_char_p, c_size_t, double_p]),
    "vbmc_history_posterior": (status_t, [POINTER(Run), c_int, POINTER(POINTER(Post))]),
    "vbmc_history_action": (status_t, [POINTER(Run), c_int, c_char_p, c_size_t]),
    "vbmc_evaluations": (status_t, [POINTER(Run), c_size_t, double_p, double_p, double_p, int_p]),
    "vbmc_evaluations_prior": (status_t, [POINTER(Run), c_size_t, double_p, double_p]),
    "vbmc_run_threads": (status_t, [POINTER(Run), log_joint_fn, c_void_p, c_int, c_double]),
    "vbmc_set_logger": (status_t, [POINTER(Run), log_fn, c_void_p]),
    "vbmc_save": (status_t, [POINTER(Run), c_char_p]),
    "vbmc_load": (status_t, [POINTER(POINTER(Run)), c_char_p]),
    "vbmc_posterior": (status_t, [POINTER(Run), POINTER(POINTER(Post))]),
    "vbmc_post_destroy": (None, [POINTER(Post)]),
    "vbmc_post_dim": (c_int, [POINTER(Post)]),
    "vbmc_post_components": (c_int, [POINTER(Post)]),
    "vbmc_post_elbo": (status_t, [POINTER(Post), double_p, double_p]),
    "vbmc_post_sample": (status_t, [POINTER(Post), c_size_t, c_uint64, double_p]),
    "vbmc_post_sample_components": (status_t, [POINTER(Post), c_size_t, c_uint64, double_p,
                                               int_p]),
    "vbmc_post_sample_refined": (status_t, [POINTER(Post), c_size_t, c_uint64, double_p]),
    "vbmc_post_refined_elbo": (status_t, [POINTER(Post), c_size_t, c_uint64, double_p, double_p]),
    "vbmc_post_set_refinement": (status_t, [POINTER(Post), c_int, c_double]),
    "vbmc_post_log_pdf": (status_t, [POINTER(Post), c_size_t, double_p, double_p]),
    "vbmc_post_moments": (status_t, [POINTER(Post), double_p, double_p]),
    "vbmc_post_mode": (status_t, [POINTER(Post), double_p]),
    "vbmc_post_log_evidence": (status_t, [POINTER(Post), double_p, double_p]),
    "vbmc_post_log_evidence_bbq": (status_t, [POINTER(Post), double_p, double_p]),
    "vbmc_post_marginal_pdf": (status_t, [POINTER(Post), c_int, c_size_t, double_p, double_p]),
    "vbmc_post_kl": (status_t, [POINTER(Post), POINTER(Post), c_size_t, c_uint64, double_p,
                                double_p]),
    "vbmc_post_mtv": (status_t, [POINTER(Post), POINTER(Post), c_size_t, c_uint64, double_p,
                                 double_p]),
    "vbmc_post_save": (status_t, [POINTER(Post), c_char_p]),
    "vbmc_post_load": (status_t, [POINTER(POINTER(Post)), c_char_p]),
    "vbmc_diagnose": (status_t, [POINTER(POINTER(Run)), c_int, c_uint64, POINTER(POINTER(Diag))]),
    "vbmc_diag_destroy": (None, [POINTER(Diag)]),
    "vbmc_diag_stat": (status_t, [POINTER(Diag), c_char_p, double_p]),
    "vbmc_diag_pairwise": (status_t, [POINTER(Diag), c_char_p, c_size_t, double_p]),
    "vbmc_diag_message": (c_char_p, [POINTER(Diag)]),
}


def _candidates():
    """(path, where it came from) of each library to try, in order."""
    explicit = os.environ.get("VBMC_LIBRARY")
    if explicit:
        return [(explicit, "VBMC_LIBRARY")]
    found = [(BUNDLED_LIBRARY, "this package")] if os.path.exists(BUNDLED_LIBRARY) else []
    system = ctypes.util.find_library("vbmc")
    if system:
        found.append((system, "the system"))
    return found + [("libvbmc.so.0", "the loader's search path")]


def _declare(library, path):
    """Set every function's restype and argtypes; ImportError if the library lacks one."""
    for name, (restype, argtypes) in SIGNATURES.items():
        try:
            function = getattr(library, name)
        except AttributeError:
            version = library.vbmc_version() if hasattr(library, "vbmc_version") else None
            raise ImportError(
                "vbmc %s needs the function %s, which %s (libvbmc %s) lacks: the library is "
                "older than the package or is not libvbmc. %s"
                % (__version__, name, path, version.decode() if version else "unknown",
                   HOW_TO_INSTALL)) from None
        function.restype = restype
        function.argtypes = argtypes


def _load():
    failures = []
    for path, origin in _candidates():
        try:
            library = ctypes.CDLL(path)
        except OSError as error:
            failures.append("%s (from %s): %s" % (path, origin, error))
            continue
        _declare(library, path)
        return library, path
    raise ImportError("vbmc: the C library libvbmc could not be loaded. Tried " +
                      "; ".join(failures) + ". " + HOW_TO_INSTALL)


lib, LIBRARY_PATH = _load()
