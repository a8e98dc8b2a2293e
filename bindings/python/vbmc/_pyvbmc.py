"""PyVBMC's interface over libvbmc: VBMC(fun, x0, lb, ub, plb, pub, options).optimize() returns
(vp, results) as PyVBMC does, so a PyVBMC script runs by changing `from pyvbmc import VBMC` to
`from vbmc import VBMC`. Names, signatures and return shapes follow PyVBMC (acerbilab/pyvbmc);
the computation is libvbmc's, through the ask-tell classes of this package.

What differs, and says so when used: options PyVBMC has and libvbmc has not are ignored with a
warning (libvbmc's options are vbmc.options()); VBMC.load(new_options=...) continues as a new run
started from the saved one (libvbmc fixes a run's options at creation) and cannot rewind to an
earlier iteration; the posterior is sampled and evaluated in the original space only.
"""
import difflib
import logging
import os
import pickle
import warnings

import numpy as np

from . import VBMCRun, _check_options, _logging, _plot, _validate, \
    options as library_options, version
from .priors import SmoothBox, SplineTrapezoidal, Trapezoidal, UniformBox

# PyVBMC options this module acts on itself (specify_target_noise is also libvbmc's: noisy mode).
_HANDLED_HERE = ("plot", "specify_target_noise", "log_file_name", "log_file_level",
                 "log_file_mode")
# PyVBMC's other options that libvbmc has no setting for: accepted, ignored with a warning.
_PYVBMC_ONLY = frozenset("""
    acq_hedge acq_hedge_decay acq_hedge_iter_window active_importance_sampling_box_samples
    active_importance_sampling_fess_thresh active_importance_sampling_mcmc_samples
    active_importance_sampling_mcmc_thin active_importance_sampling_vp_samples
    active_sample_fess_thresh active_sample_full_update_past_warmup
    active_sample_full_update_threshold active_sample_gp_update active_sample_vp_update
    active_search_bound active_variational_samples adaptive_entropy_alpha adaptive_k
    always_refit_vp annealed_gp_mean box_search_frac cache_frac cache_size constrained_gp_mean
    cov_sample_thresh det_entropy_alpha det_entropy_min_d det_entropy_tol_opt diagnostics
    double_gp elcbo_midpoint empirical_gp_prior entropy_force_switch entropy_switch f_vals
    fitness_shaping gp_hyp_sampler gp_int_mean_fun gp_length_prior_mean gp_length_prior_std
    gp_mean_fun gp_quadratic_mean_bound gp_retrain_threshold gp_sample_thin gp_sample_widths
    gp_stochastic_step_size gp_tol_opt gp_tol_opt_active gp_tol_opt_mcmc gp_tol_opt_mcmc_active
    gp_train_init_method gp_train_n_init gp_train_n_init_final heavy_tail_search_frac hpd_frac
    hpd_search_frac hyp_run_weight incremental_warp_delay init_design integer_vars
    integrate_gp_mean k_fun_max k_warmup kl_gauss max_iter_stochastic max_repeated_observations
    moments_run_weight mvn_search_frac nonlinear_scaling ns_elbo ns_elbo_incr ns_ent ns_ent_active ns_ent_boost
    ns_ent_fast ns_ent_fast_active ns_ent_fast_boost ns_ent_fine ns_ent_fine_active
    ns_ent_fine_boost ns_gp_max_main optimistic_variational_bound out_warp_thresh_base
    out_warp_thresh_mult out_warp_thresh_tol output_fcn print_iteration_header proposal_fcn
    pruning_threshold_multiplier recompute_lcb_max sample_extra_vp_means scale_lower_bound
    search_cache_frac search_cmaes_best search_cmaes_vp_init search_optimizer separate_search_gp
    sgd_step_size skip_active_sampling_after_warmup stable_gp_samples stable_gp_vp_k
    stochastic_optimizer temperature tol_bound_x tol_con_loss tol_cov_weight tol_fun_stochastic
    tol_gp_noise tol_gp_var tol_length tol_stable_entropy_iters tol_weight true_cov true_mean
    update_random_alpha upper_gp_length_factor variable_means
    variable_weights variational_init_repo variational_sampler warmup_check_max warmup_options
    warp_cov_reg warp_tol_sd_base warp_tol_sd_multiplier warp_undo_check weight_penalty
    weighted_hyp_cov
""".split())
# PyVBMC options whose default [] means unset.
_PYVBMC_UNSET_WHEN_EMPTY = frozenset(("uncertainty_handling", "noise_size"))
_LOG_FILE_LEVELS = {"off": logging.WARNING, "iter": logging.INFO, "full": logging.DEBUG}


def _translate_options(user_options):
    """(libvbmc settings, what this module handles) from PyVBMC options; ValueError for a name
    neither knows."""
    known = {o["name"] for o in library_options()}
    settings, here, ignored = {}, {}, []
    for name, value in (user_options or {}).items():
        if name in _PYVBMC_UNSET_WHEN_EMPTY and np.size(value) == 0:
            continue  # PyVBMC's [] leaves the option unset
        if name == "uncertainty_handling":
            value = True  # PyVBMC: any non-empty value turns it on
        if name in _HANDLED_HERE:
            here[name] = value
        if name in known:
            settings[name] = "iter" if name == "display" and value == "full" else value
        elif name in _HANDLED_HERE:
            pass
        elif name in _PYVBMC_ONLY:
            ignored.append(name)
        else:
            close = difflib.get_close_matches(name, sorted(known) + list(_HANDLED_HERE), n=3)
            raise ValueError("unknown option %r%s; the options are PyVBMC's names, listed by "
                             "vbmc.options()" % (name, " (did you mean %s?)" % ", ".join(close)
                                                 if close else ""))
    if ignored:
        warnings.warn("libvbmc has no setting for the PyVBMC option(s) %s: ignored"
                      % ", ".join(ignored), stacklevel=3)
    return settings, here


def _seeded(settings):
    """The settings with a seed drawn from numpy's global generator unless they hold one, so
    that np.random.seed(...) makes runs reproducible and runs differ otherwise, as in PyVBMC."""
    if "seed" in settings:
        return settings
    return {**settings, "seed": int(np.random.randint(0, 2**53, dtype=np.int64))}


def _log_prior_of(prior, log_prior):
    """The log prior density as a function of x, or None: `log_prior` itself, or from `prior`:
    an object with log_pdf (PyVBMC's priors) or logpdf (scipy.stats), or a list of 1-D
    scipy.stats distributions, one per coordinate."""
    if log_prior is not None and prior is not None:
        raise ValueError("give either prior or log_prior, not both")
    if log_prior is not None or prior is None:
        return log_prior
    if isinstance(prior, (list, tuple)):
        return _ProductPrior(prior)
    for method in ("log_pdf", "logpdf"):
        if callable(getattr(prior, method, None)):
            return getattr(prior, method)
    raise TypeError("prior must have a log_pdf or logpdf method, or be a list of "
                    "scipy.stats distributions, not %r" % (prior,))


# The priors of vbmc.priors that libvbmc has per coordinate (vbmc_set_prior), by kind.
_LIBRARY_KINDS = {UniformBox: "uniform", Trapezoidal: "trapezoidal",
                  SplineTrapezoidal: "spline_trapezoidal", SmoothBox: "smoothbox"}


def _give_prior_to_library(run, prior, lower_bounds, upper_bounds):
    """True after giving `run` the prior as libvbmc's per-coordinate priors, so the run adds
    the log prior to the log likelihoods told and records both: a prior of vbmc.priors whose
    support, for the bounded ones, is the box of the hard bounds (the library's rule). False,
    the run untouched, for any other prior (it is then added in Python)."""
    kind = _LIBRARY_KINDS.get(type(prior))
    if kind is None or prior.D != run.dim:
        return False
    if kind != "smoothbox" and not (np.array_equal(prior.a, lower_bounds)
                                    and np.array_equal(prior.b, upper_bounds)):
        return False
    if kind == "uniform":
        columns = (prior.a, prior.b)
    elif kind == "smoothbox":
        columns = (prior.a, prior.b, prior.scale)
    else:
        columns = (prior.a, prior.u, prior.v, prior.b)
    for d in range(run.dim):
        run.set_prior(d, kind, [float(column[d]) for column in columns])
    return True


class _ProductPrior:
    """Independent coordinates: the sum of each 1-D distribution's logpdf (picklable)."""

    def __init__(self, marginals):
        self.marginals = list(marginals)

    def __call__(self, x):
        return sum(float(np.sum(m.logpdf(value))) for m, value in zip(self.marginals, x))


class VBMC:
    """PyVBMC's VBMC: VBMC(log_density, x0, lower_bounds, upper_bounds, plausible_lower_bounds,
    plausible_upper_bounds, options=None, prior=None, log_prior=None, sample_prior=None).

    log_density(x) takes a point x of shape (D,) and returns the log joint (or, with log_prior
    or prior, the log likelihood), a number or a one-element array; with the option
    specify_target_noise it returns (value, SD). A prior of vbmc.priors (UniformBox, Trapezoidal,
    SplineTrapezoidal whose [a, b] are the hard bounds; SmoothBox) is given to the library, which
    adds it and records both parts (self.run.evaluations()); any other prior is added here.
    x0 may hold several starting points, one per row: the first starts the run, the others are evaluated and added to its training set.
    Bounds are (D,) or (1, D) arrays; None or +-inf for unbounded. The plausible bounds are
    required. optimize() runs and returns (vp, results).
    """

    def __new__(cls, *args, **kwargs):
        # libvbmc's own ask-tell form, VBMC(lb, ub, plb, pub, x0=None, options=None), as it was
        # before PyVBMC's interface took the name: a first argument that is no function selects
        # it, so scripts written for either keep running (VBMCRun is its explicit name).
        # pickle rebuilds an instance by calling __new__ with no arguments.
        if not args and not kwargs:
            return super().__new__(cls)
        first = args[0] if args else kwargs.get("lb")
        if "log_density" not in kwargs and not callable(first):
            from . import VBMCRun
            return VBMCRun(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, log_density, x0=None, lower_bounds=None, upper_bounds=None,
                 plausible_lower_bounds=None, plausible_upper_bounds=None, options=None,
                 prior=None, log_prior=None, sample_prior=None):
        if not callable(log_density):
            raise TypeError("log_density must be a function of x, not %r" % (log_density,))
        if plausible_lower_bounds is None or plausible_upper_bounds is None:
            raise ValueError("plausible_lower_bounds and plausible_upper_bounds are required: "
                             "the box where the posterior's mass probably lies")
        self.D = np.size(plausible_lower_bounds)
        starts = None if x0 is None else _validate.points(x0, self.D, "x0")
        self.lower_bounds, self.upper_bounds, self.plausible_lower_bounds, \
            self.plausible_upper_bounds = (
                _validate.vector(v, self.D, what) for v, what in (
                    (lower_bounds, "lower_bounds"), (upper_bounds, "upper_bounds"),
                    (plausible_lower_bounds, "plausible_lower_bounds"),
                    (plausible_upper_bounds, "plausible_upper_bounds")))
        if sample_prior is not None:
            warnings.warn("sample_prior is not used by libvbmc: ignored", stacklevel=2)
        self.options = dict(options or {})
        self._settings, self._here = _translate_options(options)
        _check_options(self._settings)
        self.prior = prior
        self.log_likelihood, self.log_prior = log_density, _log_prior_of(prior, log_prior)
        self.x0 = None if starts is None else starts[0]
        self._extra_starts = [] if starts is None else list(starts[1:])
        self._run = None
        self.vp, self.results = None, None
        self.random_state = np.random.get_state()

    @property
    def run(self):
        """The libvbmc run (VBMCRun), created at its first use, normally by optimize(): without
        a seed option its seed is drawn from numpy's global generator then, so np.random.seed
        called after VBMC(...) and before optimize() reproduces the run, as in PyVBMC."""
        if self._run is None:
            self._run = self._new_run(self._settings)
        return self._run

    def _new_run(self, settings):
        """A VBMCRun of this problem with the libvbmc settings given (_seeded), holding the
        prior when the library can take it (self._prior_in_library says whether it does)."""
        run = VBMCRun(self.lower_bounds, self.upper_bounds, self.plausible_lower_bounds,
                      self.plausible_upper_bounds, x0=self.x0, options=_seeded(settings))
        self._prior_in_library = _give_prior_to_library(run, self.prior, self.lower_bounds,
                                                        self.upper_bounds)
        return run

    def log_joint(self, x):
        """The target at x as the run sees it: log_density(x) (+ the log prior)."""
        value = self.log_likelihood(x)
        if self.log_prior is None:
            return value
        if self._here.get("specify_target_noise"):
            value, sd = value
            return value + self.log_prior(x), sd
        return value + self.log_prior(x)

    def _evaluate(self, x):
        """The value told to the run: the log joint, or the log likelihood when the run adds
        the prior itself."""
        value = (self.log_likelihood(x) if getattr(self, "_prior_in_library", False)
                 else self.log_joint(x))
        return _validate.log_joint_value(value, x, bool(self._here.get("specify_target_noise")))

    def optimize(self):
        """Run until the run stops; returns (vp, results). Exceptions raised by the target
        propagate, leaving the run where it was (call optimize() again to go on)."""
        run = self.run
        with self._log_file():
            while self._extra_starts:
                x = self._extra_starts[0]
                run.tell_extra(x, *self._evaluate(x.copy()))
                self._extra_starts.pop(0)
            posterior = run.run(self._evaluate, on_iteration=self._plot_iteration
                                if self._here.get("plot") else None)
        self.vp = VariationalPosterior(posterior, self.run.evaluations())
        self.results = self._results()
        self.random_state = np.random.get_state()
        if self._here.get("plot"):
            self.vp.plot(title="VBMC final (%d iterations)" % self.results["iterations"])
            self.plot_elbo()
        return self.vp, self.results

    def _plot_iteration(self, iteration):
        """PyVBMC's option plot, at each iteration: the iteration's posterior over the
        evaluations made so far, those made in this iteration highlighted."""
        history = self.run.history()
        counts = history["func_count"].astype(int)
        evaluations = {name: values[:counts[iteration]]
                       for name, values in self.run.evaluations().items()}
        first_new = counts[iteration - 1] if iteration > 0 else counts[0]  # none at the first
        new = np.arange(first_new, counts[iteration])
        action = history["action"][iteration]
        title = "VBMC iteration %d%s" % (iteration, " (%s)" % action if action else "")
        VariationalPosterior(self.run.history_posterior(iteration), evaluations).plot(
            title=title, highlight_data=new)

    def _log_file(self):
        """A context that copies the "vbmc" logger to the file of the log_file_* options."""
        level = _LOG_FILE_LEVELS.get(self._here.get("log_file_level", "iter"), logging.INFO)
        return _LogFile(self._here.get("log_file_name"), level,
                        self._here.get("log_file_mode", "a"))

    def _results(self):
        stat = self.run.stat
        bounded = any(np.isfinite(v).any() for v in (self.lower_bounds, self.upper_bounds)
                      if v is not None)
        converged = stat("converged") == 1
        return {
            "function": str(self.log_likelihood),
            "problem_type": "bounded" if bounded else "unconstrained",
            "iterations": int(stat("iteration")) - 1,  # the last one's index, as in PyVBMC
            "func_count": int(stat("func_count")),
            "train_set_size": int(stat("train_count")),
            "components": self.vp.K,
            "r_index": stat("r_index"),
            "convergence_status": "probable" if converged else "no",
            "reliable": stat("reliable") == 1,
            "algorithm": "Variational Bayesian Monte Carlo (libvbmc)",
            "version": version(),
            "message": self.run.result_message(),
            "elbo": self.vp.stats["elbo"],
            "elbo_sd": self.vp.stats["elbo_sd"],
            "success_flag": converged,
        }

    @property
    def iteration_history(self):
        """Per-iteration record (VBMCRun.history()): "iteration", "func_count", "elbo",
        "elbo_sd", "skl", "r_index", "components", "train_count", "gp_output_scale", ...,
        "action", and as PyVBMC "vp": each iteration's VariationalPosterior."""
        history = self.run.history()
        history["vp"] = [VariationalPosterior(self.run.history_posterior(i))
                         for i in range(len(history["iteration"]))]
        return history

    def plot_elbo(self, title=None):
        """The ELBO +- SD over the iterations (see VBMCRun.plot_elbo); returns the figure."""
        return self.run.plot_elbo(title=title)

    def save(self, file, overwrite=False):
        """Write the whole instance (run, target function, posterior) to a pickle file; ".pkl"
        is added to a name without extension. The target function must be picklable (defined
        at module level). FileExistsError if the file exists and overwrite is False."""
        _write_pickle(self, file, overwrite)

    @classmethod
    def load(cls, file, new_options=None, iteration=None, set_random_state=False):
        """Read an instance written by save() (".pkl" is added to a name without extension);
        optimize() then continues the run.
        iteration: None or the last iteration; libvbmc keeps each iteration's posterior
        (iteration_history["vp"]) but not the run's state at it, so it cannot rewind.
        new_options: PyVBMC options that replace the saved ones, e.g. a larger max_fun_evals.
        libvbmc fixes a run's options at creation, so the run goes on as a new run started from
        the saved one's posterior and re-using its evaluations (VBMCRun.warm_start): as in
        PyVBMC, max_fun_evals counts the saved evaluations too and results["func_count"]
        includes them, but the iterations (table, iteration_history, results["iterations"]) are
        counted afresh.
        set_random_state=True sets numpy's global random state to the one stored when the
        instance was created or optimize() last returned."""
        loaded = _read_pickle(file, cls)
        loaded._check_iteration(iteration)
        if set_random_state:
            np.random.set_state(loaded.random_state)
        if new_options:
            loaded._continue_with_options(new_options)
        return loaded

    def _check_iteration(self, iteration):
        """Nothing for None or the last iteration; ValueError outside the iterations run,
        NotImplementedError for an earlier one."""
        last = int(self.run.stat("iteration")) - 1
        if iteration is None or iteration == last:
            return
        if not 0 <= iteration <= last:
            raise ValueError("iteration = %s: the saved run's iterations are 0 to %d"
                             % (iteration, last))
        raise NotImplementedError(
            "VBMC.load(iteration=%d): libvbmc keeps each iteration's posterior "
            "(iteration_history['vp']) but not the run's state at it, so a run continues only "
            "from its last iteration (%d)" % (iteration, last))

    def _continue_with_options(self, new_options):
        """Replace the run by one with the user options updated by new_options: a fresh run if
        nothing was evaluated yet, else a warm start from the run's posterior that re-uses its
        evaluations, with max_fun_evals less the evaluations already made."""
        self.options = {**self.options, **new_options}
        settings, self._here = _translate_options(self.options)
        _check_options(settings)
        if self._run is None or self._run.stat("func_count") == 0:
            self._settings, self._run = settings, None
            return
        evaluated = int(self._run.stat("func_count"))
        budget = int(settings.get("max_fun_evals", self._run.stat("max_fun_evals")))
        if budget <= evaluated:
            raise ValueError("max_fun_evals = %d leaves nothing to continue with: the saved run "
                             "made %d evaluations" % (budget, evaluated))
        settings["max_fun_evals"] = budget - evaluated
        self._run = self._run.warm_start(_seeded(settings), reuse_evaluations=True)

    def __str__(self):
        return ("VBMC (libvbmc %s):\n    dimension = %d,\n    x0: %s,\n    lower bounds: %s,\n"
                "    upper bounds: %s,\n    plausible lower bounds: %s,\n"
                "    plausible upper bounds: %s,\n    log-density = %s,\n    log-prior = %s,\n"
                "    variational posterior = %s,\n    user options = %s" % (
                    version(), self.D, self.x0, self.lower_bounds, self.upper_bounds,
                    self.plausible_lower_bounds, self.plausible_upper_bounds,
                    self.log_likelihood, self.log_prior, self.vp, self.options))


class _LogFile:
    """Adds a FileHandler to the "vbmc" logger for the duration of a with block."""

    def __init__(self, path, level, mode):
        self.path, self.level, self.mode, self.handler = path, level, mode, None

    def __enter__(self):
        if self.path:
            self.handler = logging.FileHandler(self.path, mode=self.mode)
            self.handler.setLevel(self.level)
            _logging.LOGGER.addHandler(self.handler)
        return self

    def __exit__(self, *exc):
        if self.handler is not None:
            _logging.LOGGER.removeHandler(self.handler)
            self.handler.close()


class VariationalPosterior:
    """PyVBMC's VariationalPosterior over a libvbmc posterior snapshot (vbmc.Posterior): sample,
    pdf / log_pdf, moments, mode, kl_div, mtv, plot, save / load. D is the dimension, K the
    number of mixture components, stats the ELBO and its SD. `evaluations`
    (VBMCRun.evaluations()), when known, are drawn by plot()."""

    def __init__(self, posterior, evaluations=None):
        self.posterior, self.evaluations = posterior, evaluations
        self.D, self.K = posterior.dim, posterior.components
        self.stats = {"elbo": posterior.elbo, "elbo_sd": posterior.elbo_sd}

    @staticmethod
    def _original_space_only(orig_flag, what):
        if not orig_flag:
            raise NotImplementedError("%s: libvbmc works in the original space only (orig_flag "
                                      "must be True)" % what)

    def sample(self, N, orig_flag=True, balance_flag=False, df=np.inf):
        """(X, I): N draws (N, D) and the mixture component (0-based) of each (N,). Fresh draws
        each call from numpy's global generator (np.random.seed makes them reproducible)."""
        self._original_space_only(orig_flag, "sample")
        if balance_flag or df != np.inf:
            raise NotImplementedError("sample: balance_flag and heavy-tailed df are not supported")
        return self.posterior.sample_components(N)

    def pdf(self, x, orig_flag=True, log_flag=False, grad_flag=False, df=np.inf, log=None):
        """Density at the rows of x (N, D) as an (N, 1) array, or at one point (D,) as a (1,)
        array; log_flag=True (or log=True) for the log density."""
        self._original_space_only(orig_flag, "pdf")
        if grad_flag or df != np.inf:
            raise NotImplementedError("pdf: gradients and heavy-tailed df are not supported")
        values = np.atleast_1d(self.posterior.log_pdf(x))
        if not (log_flag if log is None else log):
            values = np.exp(values)
        return values if np.ndim(x) == 1 else values.reshape(-1, 1)

    def log_pdf(self, x, orig_flag=True, grad_flag=False, df=np.inf):
        """pdf(x, log_flag=True)."""
        return self.pdf(x, orig_flag=orig_flag, log_flag=True, grad_flag=grad_flag, df=df)

    def moments(self, N=int(1e6), orig_flag=True, cov_flag=False, cov=None):
        """The mean as a (1, D) array, and with cov_flag=True (or cov=True) also the covariance
        (D, D). Exact where the parameters are unbounded (libvbmc's vbmc_post_moments); N is not
        used."""
        self._original_space_only(orig_flag, "moments")
        mean, covariance = self.posterior.moments()
        return (mean.reshape(1, -1), covariance) if (cov_flag if cov is None else cov) \
            else mean.reshape(1, -1)

    def mode(self, orig_flag=True, n_opts=None):
        """The highest point of the density (D,) in the original space (libvbmc's
        vbmc_post_mode: BFGS from every component mean and the best of 1000 draws, so n_opts
        is not used)."""
        self._original_space_only(orig_flag, "mode")
        return self.posterior.mode()

    def mtv(self, vp2=None, samples=None, N=int(1e5)):
        """The marginal total variation distance of each coordinate, a (1, D) array, to vp2 or,
        without vp2, to the draws `samples` (M, D) of another distribution. To vp2: from N draws
        of each posterior and the exact marginals (libvbmc's vbmc_post_mtv; PyVBMC uses kernel
        density estimates). To samples: 0.5 * integral |p_d - k_d| on a grid, p_d this
        posterior's exact marginal and k_d a Gaussian kernel density estimate of column d of
        samples. Fresh draws each call, as sample()."""
        _require_other(vp2, samples)
        if vp2 is not None:
            return self.posterior.mtv(vp2.posterior, _validate.count(N, "N"))[0].reshape(1, -1)
        other = _validate.points(samples, self.D, "samples")
        own, _ = self.sample(_validate.count(N, "N"))
        return np.array([[_marginal_tv_to_draws(self.posterior, d, own[:, d], other[:, d])
                          for d in range(self.D)]])

    def kl_div(self, vp2=None, samples=None, N=int(1e5), gauss_flag=False):
        """[KL(self || vp2), KL(vp2 || self)]: by Monte Carlo with N draws from each (libvbmc's
        vbmc_post_kl), or with gauss_flag between Gaussians of the same moments. Without vp2,
        gauss_flag=True compares with the Gaussian of the mean and covariance of the draws
        `samples` (M, D), as PyVBMC does; ValueError otherwise."""
        _require_other(vp2, samples)
        if not gauss_flag and vp2 is None:
            raise ValueError("kl_div with samples needs gauss_flag=True (the KL divergence to "
                             "draws is taken between Gaussians of the same moments)")
        if not gauss_flag:
            return self.posterior.kl(vp2.posterior, _validate.count(N, "N"))[0]
        if vp2 is not None:
            return np.array(_gaussian_kl(self.moments(cov_flag=True), vp2.moments(cov_flag=True)))
        draws = _validate.points(samples, self.D, "samples")
        if len(draws) <= self.D:
            raise ValueError("samples: %d draws cannot give a %d-D covariance"
                             % (len(draws), self.D))
        draw_moments = (draws.mean(axis=0, keepdims=True), np.cov(draws.T).reshape(self.D, self.D))
        return np.array(_gaussian_kl(self.moments(cov_flag=True), draw_moments))

    def plot(self, n_samples=int(1e5), title=None, plot_data=None, highlight_data=None,
             plot_vp_centres=False, plot_style=None, gp=None):
        """Corner plot of n_samples draws with the run's evaluations over them (plot_data, by
        default when known), those whose indices are in highlight_data filled; returns the
        matplotlib figure. The component centres (plot_vp_centres) are not available from
        libvbmc's posterior snapshot."""
        if plot_vp_centres or plot_style or gp is not None:
            raise NotImplementedError("plot: plot_vp_centres, plot_style and gp are not supported")
        show = self.evaluations is not None if plot_data is None else plot_data
        if highlight_data is not None and not show:
            raise ValueError("plot: highlight_data needs the evaluations drawn (plot_data)")
        draws, _ = self.sample(_validate.count(n_samples, "n_samples"))
        return _plot.corner(draws, self.evaluations if show else None, title=title,
                            highlight=highlight_data)

    def save(self, file, overwrite=False):
        """Write to a pickle file (".pkl" added to a name without extension)."""
        _write_pickle(self, file, overwrite)

    @classmethod
    def load(cls, file):
        """Read a posterior written by save() (".pkl" added to a name without extension)."""
        return _read_pickle(file, cls)

    def __str__(self):
        return "VariationalPosterior (libvbmc): D = %d, K = %d, ELBO = %.6g +- %.3g" % (
            self.D, self.K, self.stats["elbo"], self.stats["elbo_sd"])

    __repr__ = __str__


def _pickle_path(file):
    """The file name with ".pkl" added when it has no extension, as PyVBMC names its files."""
    return file if os.path.splitext(str(file))[1] else str(file) + ".pkl"


def _write_pickle(instance, file, overwrite):
    """Pickle instance to file (_pickle_path); FileExistsError if it exists and not overwrite."""
    with open(_pickle_path(file), "wb" if overwrite else "xb") as handle:
        pickle.dump(instance, handle)


def _read_pickle(file, cls):
    """The instance of cls pickled in file (_pickle_path); TypeError for anything else."""
    path = _pickle_path(file)
    with open(path, "rb") as handle:
        loaded = pickle.load(handle)
    if not isinstance(loaded, cls):
        raise TypeError("%s holds a %s, not a %s" % (path, type(loaded).__name__, cls.__name__))
    return loaded


def _require_other(vp2, samples):
    """ValueError when neither the other posterior nor draws of it are given (PyVBMC's rule)."""
    if vp2 is None and samples is None:
        raise ValueError("give vp2 (a VariationalPosterior) or samples (draws, one per row)")


# Grid points of the kernel density estimates of mtv(samples=...), and the kernel's reach in
# bandwidths (the Gaussian beyond 5 SD is below 4e-6 of its peak).
_TV_GRID_POINTS = 2 ** 12
_KERNEL_REACH = 5.0
_trapezoid = getattr(np, "trapezoid", None) or np.trapz  # numpy 2 renamed trapz


def _marginal_tv_to_draws(posterior, coord, own_draws, other_draws):
    """0.5 * integral |p - k| over a grid covering both sets of draws with a 10% margin: p the
    exact marginal of coordinate coord of posterior, k the kernel density estimate of
    other_draws (1-D)."""
    low = min(own_draws.min(), other_draws.min())
    high = max(own_draws.max(), other_draws.max())
    margin = 0.1 * max(high - low, 1e-12)
    grid = np.linspace(low - margin, high + margin, _TV_GRID_POINTS)
    difference = np.abs(posterior.marginal_pdf(coord, grid) - _kernel_density(other_draws, grid))
    return float(min(1.0, 0.5 * _trapezoid(difference, grid)))


def _kernel_density(draws, grid):
    """Gaussian kernel density estimate of 1-D draws on an even grid, Silverman's bandwidth
    (Silverman 1986, eq. 3.31), by binning the draws on the grid and convolving with the kernel;
    normalised to integrate to 1 over the grid."""
    step = grid[1] - grid[0]
    spread = min(np.std(draws), np.subtract(*np.percentile(draws, [75, 25])) / 1.34)
    bandwidth = max(0.9 * spread * len(draws) ** -0.2, step)
    counts, _ = np.histogram(draws, bins=len(grid),
                             range=(grid[0] - step / 2, grid[-1] + step / 2))
    half = int(np.ceil(_KERNEL_REACH * bandwidth / step))
    kernel = np.exp(-0.5 * (np.arange(-half, half + 1) * step / bandwidth) ** 2)
    density = np.convolve(counts, kernel)[half:half + len(grid)]
    return density / _trapezoid(density, grid)


def _gaussian_kl(first, second):
    """Both KL divergences between N(m1, S1) and N(m2, S2) given as ((1, D) mean, cov) pairs."""
    (m1, s1), (m2, s2) = first, second
    d = (m2 - m1).ravel()

    def kl(sa, sb, diff):
        inv_b = np.linalg.inv(sb)
        return 0.5 * (np.trace(inv_b @ sa) + diff @ inv_b @ diff - len(diff)
                      + np.linalg.slogdet(sb)[1] - np.linalg.slogdet(sa)[1])
    return kl(s1, s2, d), kl(s2, s1, d)
