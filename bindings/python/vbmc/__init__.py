"""Variational Bayesian Monte Carlo (libvbmc) from Python: a thin ctypes layer over the C API.

PyVBMC's interface (a script written for PyVBMC runs by changing its import):

    from vbmc import VBMC
    vbmc = VBMC(log_joint, x0, lb, ub, plb, pub, options={"max_fun_evals": 100})
    vp, results = vbmc.optimize()
    samples, components = vp.sample(1000); vp.moments(cov_flag=True); vp.plot()

The ask-tell interface, for targets evaluated elsewhere (a cluster, another process, later):

    run = vbmc.VBMCRun(lb=None, ub=None, plb=[-3, -3], pub=[3, 3], options={"seed": 1})
    while (x := run.ask()) is not None:
        run.tell(x, log_joint(x))
    post = run.posterior()
    post.elbo, post.sample(1000), post.log_pdf(points), post.moments()

Arrays go in and come out as numpy float64 arrays; a set of n points is an (n, dim) array.
Every failed call raises VBMCError carrying the library's status and message; arrays of the
wrong shape and targets that return no number raise TypeError or ValueError first. The
library's output goes to the logger "vbmc" (see vbmc._logging).
"""
import ctypes
import math
import os
import tempfile
import weakref

import numpy as np

from . import _capi, _logging, _plot, _validate
from ._capi import lib
from ._constants import (Status, MAX_DIM, VERSION_MAJOR, VERSION_MINOR, VERSION_PATCH,  # noqa: F401
                         __version__)

__all__ = ["VBMC", "VariationalPosterior", "VBMCRun", "Posterior", "Diagnosis", "diagnose",
           "VBMCError", "Status", "options", "version"]


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


def _ptr(array):
    return None if array is None else array.ctypes.data_as(_capi.double_p)


def _int_ptr(array):
    return array.ctypes.data_as(_capi.int_p)


def _fresh_seed():
    """A seed from numpy's global generator: fresh draws each call, reproducible after
    np.random.seed(...), as PyVBMC's sampling is."""
    return int(np.random.randint(0, 2**53, dtype=np.int64))


def _file_bytes(write):
    """The bytes that write(path) puts in a file (for pickling handles)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "state")
        write(path)
        with open(path, "rb") as handle:
            return handle.read()


def _from_bytes(data, read):
    """read(path) of a file holding data (for unpickling handles)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "state")
        with open(path, "wb") as handle:
            handle.write(data)
        return read(path)


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


def _check_options(settings):
    """Raise as VBMCRun would for an option name or value the library refuses (the checks that
    need the dimension are made when a run is created)."""
    lib.vbmc_opts_destroy(_make_options(settings))


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
        """Call vbmc_post_<name>; the message of a failure is the thread's handle-less one."""
        return _check(getattr(lib, "vbmc_post_" + name)(self._handle, *args),
                      lambda: lib.vbmc_last_error(None))

    def __getstate__(self):
        return {"file": _file_bytes(self.save)}

    def __setstate__(self, state):
        def read(path):
            handle = ctypes.POINTER(_capi.Post)()
            _check(lib.vbmc_post_load(ctypes.byref(handle), path.encode()),
                   lambda: lib.vbmc_last_error(None))
            return handle
        self.__init__(_from_bytes(state["file"], read))

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

    def sample(self, n, seed=None):
        """n draws as an (n, dim) array. seed=None draws a fresh seed from numpy's global
        generator (np.random.seed makes it reproducible); the same seed gives the same draws."""
        n = _validate.count(n)
        draws = np.empty((n, self.dim))
        self._call("sample", n, _fresh_seed() if seed is None else int(seed), _ptr(draws))
        return draws

    def sample_components(self, n, seed=None):
        """(draws, components): sample(n, seed)'s draws and the mixture component (0-based) that
        each came from."""
        n = _validate.count(n)
        draws, components = np.empty((n, self.dim)), np.empty(n, dtype=np.intc)
        self._call("sample_components", n, _fresh_seed() if seed is None else int(seed),
                   _ptr(draws), _int_ptr(components))
        return draws, components

    def sample_refined(self, n, seed=None):
        """n draws refined against the run's surrogate (vbmc_post_sample_refined), (n, dim);
        seed as for sample()."""
        n = _validate.count(n)
        draws = np.empty((n, self.dim))
        self._call("sample_refined", n, _fresh_seed() if seed is None else int(seed), _ptr(draws))
        return draws

    def refined_elbo(self, n, seed=None):
        """(elbo, elbo_sd): the auxiliary ELBO of n refined draws (vbmc_post_refined_elbo)."""
        elbo, elbo_sd = ctypes.c_double(), ctypes.c_double()
        self._call("refined_elbo", _validate.count(n), _fresh_seed() if seed is None else int(seed),
                   ctypes.byref(elbo), ctypes.byref(elbo_sd))
        return elbo.value, elbo_sd.value

    def set_refinement(self, aux_count, variance_ratio):
        """The tuning of refined draws (vbmc_post_set_refinement)."""
        self._call("set_refinement", int(aux_count), float(variance_ratio))

    def log_pdf(self, x):
        """Log density at x: a float for one point (dim,), an (n,) array for points (n, dim)."""
        points = _validate.points(x, self.dim)
        values = np.empty(points.shape[0])
        self._call("log_pdf", points.shape[0], _ptr(points), _ptr(values))
        return float(values[0]) if np.ndim(x) == 1 else values

    def moments(self):
        """(mean, cov): the posterior mean (dim,) and covariance (dim, dim)."""
        mean, cov = np.empty(self.dim), np.empty((self.dim, self.dim))
        self._call("moments", _ptr(mean), _ptr(cov))
        return mean, cov

    def log_evidence(self):
        """(log_z, log_z_sd): an estimate of the log evidence that is not a bound, with an SD
        meant as an error bar (vbmc_post_log_evidence)."""
        return self._pair("log_evidence")

    def log_evidence_bbq(self):
        """(log_z, log_z_sd): BBQ's log evidence of the snapshot (vbmc_post_log_evidence_bbq);
        NaN when BBQ gives none."""
        return self._pair("log_evidence_bbq")

    def _pair(self, name):
        first, second = ctypes.c_double(), ctypes.c_double()
        self._call(name, ctypes.byref(first), ctypes.byref(second))
        return first.value, second.value

    def mode(self):
        """The highest point of the density in the original space (dim,) (vbmc_post_mode)."""
        x = np.empty(self.dim)
        self._call("mode", _ptr(x))
        return x

    def marginal_pdf(self, coord, values):
        """The exact marginal density of coordinate coord (0-based) at values, an array of
        values' shape (vbmc_post_marginal_pdf)."""
        points = np.ascontiguousarray(values, dtype=np.float64)
        flat = points.reshape(-1)
        pdf = np.empty(flat.shape[0])
        self._call("marginal_pdf", int(coord), flat.shape[0], _ptr(flat), _ptr(pdf))
        return pdf.reshape(points.shape)

    def kl(self, other, n=100000, seed=None):
        """(kl, kl_sd): [KL(self || other), KL(other || self)] by Monte Carlo with n draws of
        each, and their standard errors (vbmc_post_kl); seed as for sample()."""
        kl, kl_sd = np.empty(2), np.empty(2)
        seed = _fresh_seed() if seed is None else int(seed)
        self._call("kl", other._handle, _validate.count(n), seed, _ptr(kl), _ptr(kl_sd))
        return kl, kl_sd

    def mtv(self, other, n=100000, seed=None):
        """(mtv, mean_mtv): the marginal total variation distance of each coordinate (dim,) and
        their mean, from n draws of each (vbmc_post_mtv); seed as for sample()."""
        mtv, mean_mtv = np.empty(self.dim), ctypes.c_double()
        seed = _fresh_seed() if seed is None else int(seed)
        self._call("mtv", other._handle, _validate.count(n), seed, _ptr(mtv),
                   ctypes.byref(mean_mtv))
        return mtv, mean_mtv.value

    def plot(self, evaluations=None, n_samples=100000, labels=None, title=None, seed=None):
        """Corner plot of n_samples draws (1-D histograms on the diagonal, 2-D below), with the
        evaluations of a run (VBMCRun.evaluations()) over them when given. Returns the
        matplotlib figure."""
        return _plot.corner(self.sample(n_samples, seed), evaluations, labels=labels, title=title)

    def __repr__(self):
        return "Posterior(dim=%d, components=%d, elbo=%g, elbo_sd=%g)" % (
            self.dim, self.components, self.elbo, self.elbo_sd)


class VBMCRun:
    """One inference run: ask for points, tell their log joint, read the posterior.

    VBMCRun(lb, ub, plb, pub, x0=None, options=None): lb/ub are the hard bounds (None or +-inf
    for unbounded), plb/pub the finite plausible box, x0 the start (None: the box's centre),
    options a dict of option names (PyVBMC's, see vbmc.options()) to values.
    """

    def __init__(self, lb, ub, plb, pub, x0=None, options=None):
        if plb is None or pub is None:
            raise ValueError("plb and pub (the plausible box) are required")
        dim = np.size(plb)
        arrays = [_validate.vector(v, dim, what) for v, what in
                  ((x0, "x0"), (lb, "lb"), (ub, "ub"), (plb, "plb"), (pub, "pub"))]
        opts = _make_options(options)
        handle = ctypes.POINTER(_capi.Run)()
        try:
            status = lib.vbmc_create(ctypes.byref(handle), dim, *map(_ptr, arrays), opts)
        finally:
            lib.vbmc_opts_destroy(opts)
        _check(status, lambda: lib.vbmc_last_error(None))
        self._adopt(handle)

    def warm_start(self, options=None, reuse_evaluations=True):
        """A new run that starts from this run's posterior (vbmc_create_warm): the same hard
        bounds, x0 and the plausible box from the posterior. reuse_evaluations=True (the same
        model, e.g. refitted with more budget): this run's training set is re-used, not
        evaluated again and not counted against the new run's max_fun_evals; False for a changed
        model. options: the new run's (not inherited). This run is not modified."""
        opts = _make_options(options)
        handle = ctypes.POINTER(_capi.Run)()
        try:
            status = lib.vbmc_create_warm(ctypes.byref(handle), self._handle, opts,
                                          1 if reuse_evaluations else 0)
        finally:
            lib.vbmc_opts_destroy(opts)
        _check(status, lambda: lib.vbmc_last_error(None))
        run = VBMCRun.__new__(VBMCRun)
        run._adopt(handle)
        return run

    def _adopt(self, handle):
        """Own a run handle: it is destroyed by close() or when this object is collected."""
        self._handle = handle
        self._finalizer = weakref.finalize(self, lib.vbmc_destroy, handle)
        self.dim = lib.vbmc_dim(handle)
        self._prior_errors = []  # exceptions raised by a set_prior_fn function, for the failed call
        _logging.connect(handle)

    def __getstate__(self):
        return {"file": _file_bytes(self.save)}

    def __setstate__(self, state):
        def read(path):
            handle = ctypes.POINTER(_capi.Run)()
            _check(lib.vbmc_load(ctypes.byref(handle), path.encode()),
                   lambda: lib.vbmc_last_error(None))
            return handle
        self._adopt(_from_bytes(state["file"], read))

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
        raised, self._prior_errors[:] = list(self._prior_errors), []
        try:
            return _check(status, lambda: lib.vbmc_last_error(self._handle))
        except VBMCError as error:
            if raised:
                raise error from raised[-1]
            raise

    def close(self):
        """Release the run now (it is also released when garbage-collected)."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def ask(self):
        """The next point to evaluate, shape (dim,), or None when there is none to hand out now:
        the run has finished, or every point it may hand out is pending (ask_status says which)."""
        return self.ask_status()[1]

    def ask_status(self):
        """(Status.OK, point), (Status.DONE, None) when the run has finished, or (Status.WAIT,
        None) when every point the run may hand out now is pending: tell one, then ask again.

        A loop keeping several evaluations in flight asks until WAIT (see
        examples/parallel.py); a loop that evaluates its pending points first never sees it.
        """
        x = np.empty(self.dim)
        status = Status(self._check(lib.vbmc_ask(self._handle, _ptr(x))))
        return (status, x if status == Status.OK else None)

    def tell(self, x, log_joint, sd=0.0):
        """Report the log joint at a point returned by ask() (the log likelihood once a prior is
        set: set_prior, set_prior_fn); sd > 0 for a noisy estimate."""
        point = _validate.vector(x, self.dim, "x")
        self._check(lib.vbmc_tell(self._handle, _ptr(point), float(log_joint), float(sd)))

    def tell_extra(self, x, log_joint, sd=0.0):
        """Add an evaluation that was not asked for to the training set."""
        point = _validate.vector(x, self.dim, "x")
        self._check(lib.vbmc_tell_extra(self._handle, _ptr(point), float(log_joint), float(sd)))

    def set_prior(self, coord, kind, params):
        """Give coordinate coord (0-based) a ready-made prior (vbmc_set_prior): kind "gaussian"
        (mu, sigma), "student_t" (mu, sigma, nu), "uniform" (a, b), "smoothbox" (a, b, sigma),
        "trapezoidal" or "spline_trapezoidal" (a, u, v, b), "lognormal" (mu, sigma of log x).
        Before the first tell, for every coordinate; the values told are then log likelihoods and
        the run adds the log prior."""
        values = np.ascontiguousarray(np.atleast_1d(np.asarray(params, dtype=np.float64)).ravel())
        self._check(lib.vbmc_set_prior(self._handle, int(coord), str(kind).encode(), _ptr(values),
                                       values.size))

    def set_prior_fn(self, fn):
        """Give the whole prior as a function (vbmc_set_prior_fn): fn(x) returns log p(x) at a
        point x (dim,), -inf outside its support; the values told are then log likelihoods. An
        exception raised by fn fails the call that evaluated it (VBMCError, with fn's exception
        as its cause) and leaves the point pending. A checkpoint (save, pickle) cannot hold fn:
        after load() call set_prior_fn again before telling."""
        dim, errors = self.dim, self._prior_errors

        def log_prior(x, _userdata):
            try:
                return float(fn(np.ctypeslib.as_array(x, shape=(dim,)).copy()))
            except BaseException as error:  # nothing may unwind into the library
                errors.append(error)
                return math.nan

        callback = _capi.log_prior_fn(log_prior)
        self._check(lib.vbmc_set_prior_fn(self._handle, callback, None))
        self._prior_callback = callback  # the library calls it as long as the run lives

    def log_prior(self, x):
        """The log prior the run adds, at a point x (dim,) (vbmc_log_prior)."""
        point = _validate.vector(x, self.dim, "x")
        value = ctypes.c_double()
        self._check(lib.vbmc_log_prior(self._handle, _ptr(point), ctypes.byref(value)))
        return value.value

    def abandon(self, x):
        """Give up a pending point without a value; the run will ask again."""
        point = _validate.vector(x, self.dim, "x")
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

    def history(self):
        """The record of each completed iteration, oldest first: a dict of (iterations,) arrays,
        "iteration" (1-based) and the series of vbmc_history ("func_count", "elbo", "elbo_sd",
        "skl", "r_index", "components", "train_count", "gp_samples", "stable", "warmup",
        "gp_output_scale", "gp_length_scale", "gp_noise_sd"), and "action" (the iteration
        table's action of each, an array of str)."""
        n = int(self.stat("iteration"))
        record = {"iteration": np.arange(1, n + 1)}
        for name in HISTORY_SERIES:
            values = np.empty(n)
            self._check(lib.vbmc_history(self._handle, name.encode(), n, _ptr(values)))
            record[name] = values
        record["action"] = np.array([self.history_action(i) for i in range(n)], dtype=object)
        return record

    def history_posterior(self, iteration):
        """The Posterior of completed iteration `iteration` (0-based), as posterior() gave it
        right after that iteration."""
        handle = ctypes.POINTER(_capi.Post)()
        self._check(lib.vbmc_history_posterior(self._handle, int(iteration), ctypes.byref(handle)))
        return Posterior(handle)

    def history_action(self, iteration):
        """The action completed iteration `iteration` (0-based) took, as in the iteration table
        ("start warm-up", "end warm-up", "rotoscale", "retry", ...; "" for none)."""
        buffer = ctypes.create_string_buffer(1024)
        self._check(lib.vbmc_history_action(self._handle, int(iteration), buffer, len(buffer)))
        return buffer.value.decode()

    def evaluations(self):
        """Every evaluation told, in order: a dict with "x" (n, dim), "log_joint" (n,) (non-finite
        where it failed), "log_joint_sd" (n,) and "in_training" (n,) booleans (in the surrogate's
        training set: not failed, trimmed or a penalty); with a prior also "log_likelihood" (n,)
        as told and "log_prior" (n,), whose sum is "log_joint"."""
        n = int(self.stat("func_count"))
        x, log_joint, sd = np.empty((n, self.dim)), np.empty(n), np.empty(n)
        in_training = np.empty(n, dtype=np.intc)
        self._check(lib.vbmc_evaluations(self._handle, n, _ptr(x), _ptr(log_joint), _ptr(sd),
                                         _int_ptr(in_training)))
        record = {"x": x, "log_joint": log_joint, "log_joint_sd": sd,
                  "in_training": in_training.astype(bool)}
        if self.stat("has_prior"):
            record["log_likelihood"], record["log_prior"] = np.empty(n), np.empty(n)
            self._check(lib.vbmc_evaluations_prior(self._handle, n, _ptr(record["log_likelihood"]),
                                                   _ptr(record["log_prior"])))
        return record

    def plot_elbo(self, title=None):
        """The ELBO +- SD of each iteration against the evaluations told, with the returned
        posterior's ELBO once the run has finished. Returns the matplotlib figure."""
        final = (self.stat("elbo"), self.stat("elbo_sd")) if self.stat("finished") else None
        return _plot.elbo_trace(self.history(), final, title=title)

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

    def run(self, fn, on_iteration=None):
        """Ask-tell until the run finishes and return the posterior.

        fn(x) returns the log joint at x (a number or one-element array), or a tuple
        (log_joint, sd) for a noisy estimate; anything else raises TypeError or ValueError with
        the point pending. The loop runs in Python (not through vbmc_run), so an exception raised by fn propagates
        normally and leaves the run usable: its point stays pending (see pending(), abandon()),
        and the next run() evaluates pending points before asking for new ones.
        on_iteration(i), when given, is called once for each iteration i (0-based, as
        history_posterior takes it) completed during this call, before the next evaluation.
        """
        completed = int(self.stat("iteration"))
        while True:
            pending = self.pending()
            if len(pending):
                x = pending[0]
            else:
                status, x = self.ask_status()  # never WAIT: nothing is pending
                if status == Status.DONE:
                    break
            completed = self._report_iterations(completed, on_iteration)
            value = fn(x.copy())
            self.tell(x, *_validate.log_joint_value(value, x, isinstance(value, tuple)))
        self._report_iterations(completed, on_iteration)
        return self.posterior()

    def _report_iterations(self, reported, on_iteration):
        """on_iteration(i) for each iteration completed beyond the `reported` first ones; the
        number completed."""
        completed = int(self.stat("iteration"))
        if on_iteration is not None:
            for iteration in range(reported, completed):
                on_iteration(iteration)
        return completed

    def __repr__(self):
        return "VBMCRun(dim=%d)" % self.dim


class Diagnosis:
    """Diagnostics of several runs of one problem (vbmc_diagnose; MATLAB VBMC's vbmc_diagnostics):
    agree, best (index of the best run), message (sentences), stat(name) and pairwise(name)."""

    def __init__(self, runs, seed=None):
        handles = (ctypes.POINTER(_capi.Run) * len(runs))(*[run._handle for run in runs])
        handle = ctypes.POINTER(_capi.Diag)()
        _check(lib.vbmc_diagnose(handles, len(runs), _fresh_seed() if seed is None else int(seed),
                                 ctypes.byref(handle)), lambda: lib.vbmc_last_error(None))
        self._handle, self.runs = handle, len(runs)
        self._finalizer = weakref.finalize(self, lib.vbmc_diag_destroy, handle)
        self.agree = self.stat("agree") == 1.0
        self.best = int(self.stat("best"))
        self.message = _text(lib.vbmc_diag_message(handle))

    def stat(self, name):
        """A scalar result: "agree", "best", "converged_count", "exit_flag", "elbo_spread",
        "max_skl", "max_mtv", ... (vbmc_diag_stat)."""
        value = ctypes.c_double()
        _check(lib.vbmc_diag_stat(self._handle, name.encode(), ctypes.byref(value)),
               lambda: lib.vbmc_last_error(None))
        return value.value

    def pairwise(self, name):
        """A (runs, runs) matrix: "skl", "kl" or "mtv" (vbmc_diag_pairwise)."""
        values = np.empty((self.runs, self.runs))
        _check(lib.vbmc_diag_pairwise(self._handle, name.encode(), self.runs, _ptr(values)),
               lambda: lib.vbmc_last_error(None))
        return values

    def __repr__(self):
        return "Diagnosis(agree=%s, best=%d)" % (self.agree, self.best)


def diagnose(runs, seed=None):
    """Diagnose several VBMCRun runs of one problem: a Diagnosis. seed as for Posterior.sample()."""
    return Diagnosis(list(runs), seed)


# The series of vbmc_history, in the header's order.
HISTORY_SERIES = ("func_count", "elbo", "elbo_sd", "skl", "r_index", "components",
                  "train_count", "gp_samples", "stable", "warmup", "gp_output_scale",
                  "gp_length_scale", "gp_noise_sd")

from ._pyvbmc import VBMC, VariationalPosterior  # noqa: E402  (it builds on the classes above)
