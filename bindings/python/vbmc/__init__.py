"""Variational Bayesian Monte Carlo (libvbmc) from Python: a thin ctypes layer over the C API.

    import vbmc
    run = vbmc.VBMC(lb=None, ub=None, plb=[-3, -3], pub=[3, 3], options={"seed": 1})
    while (x := run.ask()) is not None:
        run.tell(x, log_joint(x))
    post = run.posterior()
    post.elbo, post.sample(1000), post.log_pdf(points), post.moments()

Arrays go in and come out as numpy float64 arrays; a set of n points is an (n, dim) array.
Every failed call raises VBMCError carrying the library's status and message.
"""
import ctypes
import weakref

import numpy as np

from . import _capi
from ._capi import lib
from ._constants import (Status, MAX_DIM, VERSION_MAJOR, VERSION_MINOR, VERSION_PATCH,  # noqa: F401
                         __version__)

__all__ = ["VBMC", "Posterior", "VBMCError", "Status", "options", "version"]


class VBMCError(RuntimeError):
    """A failed library call: `status` is the Status code, `message` the library's sentence."""

    def __init__(self, status, message):
        self.status = Status(status)
        self.message = message
        super().__init__("%s: %s" % (lib.vbmc_status_name(status).decode(), message))


def _text(raw):
    if isinstance(raw, bytes):
        return raw.decode("utf-8", "replace")
    return raw or ""


def _check(status, message_source):
    """Raise VBMCError for a negative status; return the status otherwise."""
    if status < 0:
        raise VBMCError(status, _text(message_source()))
    return status


def _vector(values, dim, what):
    """A C-contiguous float64 copy of `values` with shape (dim,), or None for None."""
    if values is None:
        return None
    array = np.ascontiguousarray(values, dtype=np.float64)
    if array.shape != (dim,):
        raise ValueError("%s must have shape (%d,), not %s" % (what, dim, array.shape))
    return array


def _points(values, dim):
    """A C-contiguous (n, dim) float64 array from one point (dim,) or n points (n, dim)."""
    array = np.ascontiguousarray(values, dtype=np.float64)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    if array.ndim != 2 or array.shape[1] != dim:
        raise ValueError("x must have shape (dim,) or (n, dim) with dim = %d, not %s"
                         % (dim, np.shape(values)))
    return array


def _ptr(array):
    return None if array is None else array.ctypes.data_as(_capi.double_p)


def version():
    """The version of the loaded C library, "MAJOR.MINOR.PATCH"."""
    return _text(lib.vbmc_version())


def options():
    """Every option the library knows: a list of dicts with name, type, default and help."""
    return [{"name": _text(lib.vbmc_opts_name(i)), "type": _text(lib.vbmc_opts_type(i)),
             "default": _text(lib.vbmc_opts_default(i)), "help": _text(lib.vbmc_opts_help(i))}
            for i in range(lib.vbmc_opts_count())]


def _make_options(settings):
    """A vbmc_opts handle holding `settings` (name -> bool, int, float or text)."""
    handle = ctypes.POINTER(_capi.Opts)()
    _check(lib.vbmc_opts_create(ctypes.byref(handle)), lambda: b"vbmc_opts_create failed")
    try:
        for name, value in (settings or {}).items():
            key = name.encode()
            if isinstance(value, (bool, np.bool_)):
                status = lib.vbmc_opts_set(handle, key, b"true" if value else b"false")
            elif isinstance(value, (int, np.integer)):
                status = lib.vbmc_opts_set_int(handle, key, int(value))
            elif isinstance(value, (float, np.floating)):
                status = lib.vbmc_opts_set_double(handle, key, float(value))
            else:
                status = lib.vbmc_opts_set(handle, key, str(value).encode())
            _check(status, lambda: lib.vbmc_opts_error(handle))
    except BaseException:
        lib.vbmc_opts_destroy(handle)
        raise
    return handle


class Posterior:
    """A snapshot of the variational posterior, independent of the run that made it."""

    def __init__(self, handle):
        self._handle = handle
        self._finalizer = weakref.finalize(self, lib.vbmc_post_destroy, handle)
        self.dim = lib.vbmc_post_dim(handle)
        self.components = lib.vbmc_post_components(handle)
        elbo, elbo_sd = ctypes.c_double(), ctypes.c_double()
        self._call("elbo", ctypes.byref(elbo), ctypes.byref(elbo_sd))
        self.elbo = elbo.value
        self.elbo_sd = elbo_sd.value

    def _call(self, name, *args):
        """Call vbmc_post_<name>; snapshots keep no message, so the error names the call."""
        return _check(getattr(lib, "vbmc_post_" + name)(self._handle, *args),
                      lambda: "vbmc_post_%s rejected its arguments" % name)

    @classmethod
    def load(cls, path):
        """Read a snapshot written by save()."""
        handle = ctypes.POINTER(_capi.Post)()
        _check(lib.vbmc_post_load(ctypes.byref(handle), str(path).encode()),
               lambda: lib.vbmc_last_error(None))
        return cls(handle)

    def save(self, path):
        """Write the snapshot to a file (atomically)."""
        self._call("save", str(path).encode())

    def sample(self, n, seed=0):
        """n draws as an (n, dim) array; the same seed gives the same draws."""
        draws = np.empty((int(n), self.dim))
        self._call("sample", int(n), int(seed), _ptr(draws))
        return draws

    def sample_refined(self, n, seed=0):
        """n draws refined against the run's surrogate (vbmc_post_sample_refined), (n, dim)."""
        draws = np.empty((int(n), self.dim))
        self._call("sample_refined", int(n), int(seed), _ptr(draws))
        return draws

    def refined_elbo(self, n, seed=0):
        """(elbo, elbo_sd): the auxiliary ELBO of n refined draws (vbmc_post_refined_elbo)."""
        elbo, elbo_sd = ctypes.c_double(), ctypes.c_double()
        self._call("refined_elbo", int(n), int(seed), ctypes.byref(elbo), ctypes.byref(elbo_sd))
        return elbo.value, elbo_sd.value

    def set_refinement(self, aux_count, variance_ratio):
        """The tuning of refined draws (vbmc_post_set_refinement)."""
        self._call("set_refinement", int(aux_count), float(variance_ratio))

    def log_pdf(self, x):
        """Log density at x: a float for one point (dim,), an (n,) array for points (n, dim)."""
        points = _points(x, self.dim)
        values = np.empty(points.shape[0])
        self._call("log_pdf", points.shape[0], _ptr(points), _ptr(values))
        return float(values[0]) if np.ndim(x) == 1 else values

    def moments(self):
        """(mean, cov): the posterior mean (dim,) and covariance (dim, dim)."""
        mean, cov = np.empty(self.dim), np.empty((self.dim, self.dim))
        self._call("moments", _ptr(mean), _ptr(cov))
        return mean, cov

    def __repr__(self):
        return "Posterior(dim=%d, components=%d, elbo=%g, elbo_sd=%g)" % (
            self.dim, self.components, self.elbo, self.elbo_sd)


class VBMC:
    """One inference run: ask for points, tell their log joint, read the posterior.

    VBMC(lb, ub, plb, pub, x0=None, options=None): lb/ub are the hard bounds (None or +-inf for
    unbounded), plb/pub the finite plausible box, x0 the start (None: the box's centre), options
    a dict of option names (PyVBMC's, see vbmc.options()) to values.
    """

    def __init__(self, lb, ub, plb, pub, x0=None, options=None):
        dim = np.size(plb)
        arrays = [_vector(v, dim, what) for v, what in
                  ((x0, "x0"), (lb, "lb"), (ub, "ub"), (plb, "plb"), (pub, "pub"))]
        opts = _make_options(options)
        handle = ctypes.POINTER(_capi.Run)()
        try:
            status = lib.vbmc_create(ctypes.byref(handle), dim, *map(_ptr, arrays), opts)
        finally:
            lib.vbmc_opts_destroy(opts)
        _check(status, lambda: lib.vbmc_last_error(None))
        self._adopt(handle)

    def _adopt(self, handle):
        """Own a run handle: it is destroyed by close() or when this object is collected."""
        self._handle = handle
        self._finalizer = weakref.finalize(self, lib.vbmc_destroy, handle)
        self.dim = lib.vbmc_dim(handle)

    @classmethod
    def load(cls, path):
        """Resume a run from a checkpoint written by save()."""
        handle = ctypes.POINTER(_capi.Run)()
        _check(lib.vbmc_load(ctypes.byref(handle), str(path).encode()),
               lambda: lib.vbmc_last_error(None))
        run = cls.__new__(cls)
        run._adopt(handle)
        return run

    def _check(self, status):
        return _check(status, lambda: lib.vbmc_last_error(self._handle))

    def close(self):
        """Release the run now (it is also released when garbage-collected)."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def ask(self):
        """The next point to evaluate, shape (dim,), or None when the run has finished."""
        x = np.empty(self.dim)
        status = self._check(lib.vbmc_ask(self._handle, _ptr(x)))
        return None if status == Status.DONE else x

    def tell(self, x, log_joint, sd=0.0):
        """Report the log joint at a point returned by ask(); sd > 0 for a noisy estimate."""
        point = _vector(x, self.dim, "x")
        self._check(lib.vbmc_tell(self._handle, _ptr(point), float(log_joint), float(sd)))

    def tell_extra(self, x, log_joint, sd=0.0):
        """Add an evaluation that was not asked for to the training set."""
        point = _vector(x, self.dim, "x")
        self._check(lib.vbmc_tell_extra(self._handle, _ptr(point), float(log_joint), float(sd)))

    def abandon(self, x):
        """Give up a pending point without a value; the run will ask again."""
        point = _vector(x, self.dim, "x")
        self._check(lib.vbmc_abandon(self._handle, _ptr(point)))

    def pending(self):
        """The points asked for and not yet told, as an (n, dim) array."""
        count = int(self.stat("pending"))
        points = np.empty((count, self.dim))
        for i in range(count):
            self._check(lib.vbmc_pending_point(self._handle, i, _ptr(points[i])))
        return points

    def stat(self, name):
        """A scalar fact about the run: "iteration", "func_count", "elbo", "converged", ..."""
        value = ctypes.c_double()
        self._check(lib.vbmc_stat(self._handle, name.encode(), ctypes.byref(value)))
        return value.value

    def result_message(self):
        """How the run ended: why it stopped and, if its result is unreliable, why ("" while it runs)."""
        return lib.vbmc_result_message(self._handle).decode()

    def posterior(self):
        """A Posterior snapshot (the final one once the run has finished)."""
        handle = ctypes.POINTER(_capi.Post)()
        self._check(lib.vbmc_posterior(self._handle, ctypes.byref(handle)))
        return Posterior(handle)

    def save(self, path):
        """Checkpoint the whole run to a file (atomically)."""
        self._check(lib.vbmc_save(self._handle, str(path).encode()))

    def run(self, fn):
        """Ask-tell until the run finishes and return the posterior.

        fn(x) returns the log joint at x, or a pair (log_joint, sd) for a noisy estimate. The
        loop runs in Python (not through vbmc_run), so an exception raised by fn propagates
        normally and leaves the run usable: its point stays pending (see pending(), abandon()),
        and the next run() evaluates pending points before asking for new ones.
        """
        while True:
            pending = self.pending()
            x = pending[0] if len(pending) else self.ask()
            if x is None:
                break
            value = fn(x.copy())
            log_joint, sd = value if isinstance(value, tuple) else (value, 0.0)
            self.tell(x, log_joint, sd)
        return self.posterior()

    def __repr__(self):
        return "VBMC(dim=%d)" % self.dim
