"""ctypes declarations of the C API in include/vbmc/vbmc.h: one line per function, nothing else.

The shared library is found, in order, at the path in the environment variable VBMC_LIBRARY, by
ctypes.util.find_library("vbmc"), or as "libvbmc.so.0" on the loader's search path.
"""
import ctypes
import ctypes.util
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_int, c_longlong,
                    c_size_t, c_uint64, c_void_p)


class Opts(Structure):
    """struct vbmc_opts (opaque)."""


class Run(Structure):
    """struct vbmc (opaque)."""


class Post(Structure):
    """struct vbmc_post (opaque)."""


status_t = c_int
double_p = POINTER(c_double)
log_joint_fn = CFUNCTYPE(c_double, double_p, double_p, c_void_p)
log_fn = CFUNCTYPE(None, c_void_p, c_int, c_char_p)

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
    "vbmc_run": (status_t, [POINTER(Run), log_joint_fn, c_void_p]),
    "vbmc_set_logger": (status_t, [POINTER(Run), log_fn, c_void_p]),
    "vbmc_save": (status_t, [POINTER(Run), c_char_p]),
    "vbmc_load": (status_t, [POINTER(POINTER(Run)), c_char_p]),
    "vbmc_posterior": (status_t, [POINTER(Run), POINTER(POINTER(Post))]),
    "vbmc_post_destroy": (None, [POINTER(Post)]),
    "vbmc_post_dim": (c_int, [POINTER(Post)]),
    "vbmc_post_components": (c_int, [POINTER(Post)]),
    "vbmc_post_elbo": (status_t, [POINTER(Post), double_p, double_p]),
    "vbmc_post_sample": (status_t, [POINTER(Post), c_size_t, c_uint64, double_p]),
    "vbmc_post_sample_refined": (status_t, [POINTER(Post), c_size_t, c_uint64, double_p]),
    "vbmc_post_refined_elbo": (status_t, [POINTER(Post), c_size_t, c_uint64, double_p, double_p]),
    "vbmc_post_set_refinement": (status_t, [POINTER(Post), c_int, c_double]),
    "vbmc_post_log_pdf": (status_t, [POINTER(Post), c_size_t, double_p, double_p]),
    "vbmc_post_moments": (status_t, [POINTER(Post), double_p, double_p]),
    "vbmc_post_save": (status_t, [POINTER(Post), c_char_p]),
    "vbmc_post_load": (status_t, [POINTER(POINTER(Post)), c_char_p]),
}


def _load():
    path = os.environ.get("VBMC_LIBRARY") or ctypes.util.find_library("vbmc") or "libvbmc.so.0"
    library = ctypes.CDLL(path)
    for name, (restype, argtypes) in SIGNATURES.items():
        function = getattr(library, name)
        function.restype = restype
        function.argtypes = argtypes
    return library


lib = _load()
