"""The real-posterior models of bench/real through ctypes (libvbmc_real.so, built by Meson from
bench/real/real_api.c), Python standard library only; numpy arrays are accepted and returned
when given. The same C code serves the benchmark (vbmc_bench) and its ground truth."""
import ctypes
import os
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ERROR_SIZE = 256
DOUBLE_P = ctypes.POINTER(ctypes.c_double)


def build_library(build_dir):
    """Sets up (if needed) and builds libvbmc_real.so in build_dir; returns its path."""
    if not os.path.isfile(os.path.join(build_dir, "build.ninja")):
        subprocess.run(["meson", "setup", build_dir, REPO, "-Dbench=true"], check=True)
    subprocess.run(["ninja", "-C", build_dir, "bench/real/libvbmc_real.so"], check=True)
    return os.path.join(build_dir, "bench", "real", "libvbmc_real.so")


class Model:
    def __init__(self, lib, index):
        self.lib, self.index = lib, index
        self.name = lib.real_api_model_name(index).decode()
        self.posterior = lib.real_api_model_posterior(index).decode()
        self.dim = lib.real_api_model_dim(index)
        self.param_names = [lib.real_api_param_name(index, j).decode() for j in range(self.dim)]
        lb, ub = (ctypes.c_double * self.dim)(), (ctypes.c_double * self.dim)()
        lib.real_api_bounds(index, lb, ub)
        self.lb, self.ub = list(lb), list(ub)


class Target:
    """A model with its data loaded; log_joint of an n x dim batch."""

    def __init__(self, library, model, data_path):
        self.library, self.model = library, model
        error = ctypes.create_string_buffer(ERROR_SIZE)
        self.handle = library.lib.real_api_load(model.index, data_path.encode(), error)
        if not self.handle:
            raise RuntimeError(f"{model.name}: {error.value.decode()}")

    def log_joint(self, x):
        """Log joint of n points: x is an n x dim numpy array (gives a numpy array) or a list of
        n rows (gives a list)."""
        if hasattr(x, "ctypes"):
            import numpy
            x = numpy.ascontiguousarray(x, dtype=float)
            out = numpy.empty(x.shape[0])
            self.library.lib.real_api_log_joint(self.handle, x.shape[0],
                                                x.ctypes.data_as(DOUBLE_P),
                                                out.ctypes.data_as(DOUBLE_P))
            return out
        flat = [v for row in x for v in row]
        out = (ctypes.c_double * len(x))()
        self.library.lib.real_api_log_joint(self.handle, len(x),
                                            (ctypes.c_double * len(flat))(*flat), out)
        return list(out)

    def close(self):
        if self.handle:
            self.library.lib.real_api_free(self.handle)
            self.handle = None


class Library:
    def __init__(self, path):
        lib = ctypes.CDLL(path)
        lib.real_api_model_count.restype = ctypes.c_int
        for name in ("real_api_model_name", "real_api_model_posterior"):
            getattr(lib, name).restype = ctypes.c_char_p
            getattr(lib, name).argtypes = [ctypes.c_int]
        lib.real_api_model_dim.restype = ctypes.c_int
        lib.real_api_model_dim.argtypes = [ctypes.c_int]
        lib.real_api_param_name.restype = ctypes.c_char_p
        lib.real_api_param_name.argtypes = [ctypes.c_int, ctypes.c_int]
        lib.real_api_bounds.argtypes = [ctypes.c_int, DOUBLE_P, DOUBLE_P]
        lib.real_api_load.restype = ctypes.c_void_p
        lib.real_api_load.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p]
        lib.real_api_free.argtypes = [ctypes.c_void_p]
        lib.real_api_log_joint.argtypes = [ctypes.c_void_p, ctypes.c_long, DOUBLE_P, DOUBLE_P]
        lib.real_api_log_prior.argtypes = [ctypes.c_int, ctypes.c_long, DOUBLE_P, DOUBLE_P]
        lib.real_api_sample_prior.argtypes = [ctypes.c_int, ctypes.c_long, ctypes.c_ulonglong,
                                              DOUBLE_P]
        self.lib = lib
        self.models = [Model(lib, i) for i in range(lib.real_api_model_count())]

    def model(self, name):
        for model in self.models:
            if model.name == name:
                return model
        raise KeyError(f"unknown real model {name} (known: "
                       f"{', '.join(m.name for m in self.models)})")

    def load(self, model, data_path):
        return Target(self, model, data_path)

    def sample_prior(self, model, n, seed):
        """n prior draws as an n x dim numpy array (numpy required)."""
        import numpy
        out = numpy.empty((n, model.dim))
        self.lib.real_api_sample_prior(model.index, n, seed, out.ctypes.data_as(DOUBLE_P))
        return out

    def log_prior(self, model, x):
        """Log prior of an n x dim numpy array (numpy required)."""
        import numpy
        x = numpy.ascontiguousarray(x, dtype=float)
        out = numpy.empty(x.shape[0])
        self.lib.real_api_log_prior(model.index, x.shape[0], x.ctypes.data_as(DOUBLE_P),
                                    out.ctypes.data_as(DOUBLE_P))
        return out

