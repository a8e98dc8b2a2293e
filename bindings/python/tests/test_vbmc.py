"""Tests of the Python binding against the build's libvbmc (VBMC_LIBRARY, VBMC_HEADER set by meson)."""
import logging
import math
import os
import pickle
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import header  # noqa: E402

import vbmc  # noqa: E402
from vbmc import _capi  # noqa: E402

try:
    import matplotlib  # noqa: F401
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False

HEADER = os.environ.get("VBMC_HEADER",
                        os.path.join(HERE, "..", "..", "..", "include", "vbmc", "vbmc.h"))


def gaussian_log_joint(x):
    return -0.5 * float(np.dot(x, x))


class Signatures(unittest.TestCase):
    def test_every_header_function_is_declared_with_its_arity(self):
        functions = header.functions(header.read(HEADER))
        self.assertEqual(sorted(f.name for f in functions), sorted(_capi.SIGNATURES))
        for function in functions:
            restype, argtypes = _capi.SIGNATURES[function.name]
            self.assertEqual(len(argtypes), len(function.params), function.name)
            self.assertEqual(restype is None, function.return_type == "void", function.name)

    def test_status_enum_matches_library_names(self):
        for status in vbmc.Status:
            self.assertEqual(_capi.lib.vbmc_status_name(status).decode(), "VBMC_" + status.name)

    def test_version_matches_header_macros(self):
        self.assertEqual(vbmc.version(), "%d.%d.%d" % (
            vbmc.VERSION_MAJOR, vbmc.VERSION_MINOR, vbmc.VERSION_PATCH))


class Errors(unittest.TestCase):
    def test_bad_box_raises_with_library_message(self):
        with self.assertRaises(vbmc.VBMCError) as caught:
            vbmc.VBMCRun(None, None, [3.0, -3.0], [-3.0, 3.0])
        self.assertEqual(caught.exception.status, vbmc.Status.E_ARG)
        self.assertIn("plb", caught.exception.message)

    def test_unknown_option_raises(self):
        with self.assertRaises(vbmc.VBMCError) as caught:
            vbmc.VBMCRun(None, None, [-1.0], [1.0], options={"no_such_option": 1})
        self.assertEqual(caught.exception.status, vbmc.Status.E_OPTION)
        self.assertIn("no_such_option", caught.exception.message)

    def test_tell_of_point_not_pending_raises_and_keeps_run_usable(self):
        run = vbmc.VBMCRun(None, None, [-1.0], [1.0], options={"seed": 3, "display": "off"})
        x = run.ask()
        with self.assertRaises(vbmc.VBMCError) as caught:
            run.tell(x + 0.25, 0.0)
        self.assertEqual(caught.exception.status, vbmc.Status.E_STATE)
        self.assertGreater(len(caught.exception.message), 0)
        run.tell(x, gaussian_log_joint(x))

    def test_the_ask_tell_form_keeps_the_name_vbmc(self):
        run = vbmc.VBMC(None, None, [-1.0], [1.0], options={"seed": 3, "display": "off"})
        self.assertIsInstance(run, vbmc.VBMCRun)
        keywords = vbmc.VBMC(lb=None, ub=None, plb=[-1.0], pub=[1.0], options={"display": "off"})
        self.assertIsInstance(keywords, vbmc.VBMCRun)
        drop_in = vbmc.VBMC(gaussian_log_joint, [0.0], None, None, [-1.0], [1.0])
        self.assertNotIsInstance(drop_in, vbmc.VBMCRun)

    def test_wrong_shape_is_rejected_before_the_library(self):
        run = vbmc.VBMCRun(None, None, [-1.0, -1.0], [1.0, 1.0], options={"display": "off"})
        with self.assertRaises(ValueError):
            run.tell([0.0, 0.0, 0.0], 0.0)


class Options(unittest.TestCase):
    def test_introspection_lists_seed_and_max_fun_evals(self):
        names = {o["name"]: o for o in vbmc.options()}
        self.assertIn("seed", names)
        self.assertIn("max_fun_evals", names)
        self.assertTrue(all(o["type"] in ("int", "double", "text", "bool") for o in names.values()))


class Posterior(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.run_ = vbmc.VBMCRun(None, None, [-2.0, -2.0], [2.0, 2.0],
                             options={"seed": 5, "display": "off", "max_fun_evals": 40})
        cls.post = cls.run_.run(gaussian_log_joint)

    def test_run_finishes_and_reports_elbo(self):
        self.assertEqual(self.run_.stat("finished"), 1.0)
        self.assertTrue(math.isfinite(self.post.elbo))
        self.assertEqual(self.post.elbo, self.run_.posterior().elbo)

    def test_result_message_and_verdict(self):
        self.assertTrue(self.run_.result_message().startswith("Inference terminated: "))
        self.assertIn(self.run_.stat("reliable"), (0.0, 1.0))
        fresh = vbmc.VBMCRun(None, None, [-2.0, -2.0], [2.0, 2.0], options={"display": "off"})
        self.assertEqual(fresh.result_message(), "")
        self.assertTrue(math.isnan(fresh.stat("reliable")))

    def test_shapes_and_reproducible_sampling(self):
        self.assertFalse(np.array_equal(self.post.sample(4), self.post.sample(4)))
        np.random.seed(3)
        first = self.post.sample(4)
        np.random.seed(3)
        np.testing.assert_array_equal(first, self.post.sample(4))
        draws = self.post.sample(7, seed=11)
        self.assertEqual(draws.shape, (7, 2))
        np.testing.assert_array_equal(draws, self.post.sample(7, seed=11))
        values = self.post.log_pdf(draws)
        self.assertEqual(values.shape, (7,))
        self.assertAlmostEqual(self.post.log_pdf(draws[3]), values[3],
                               delta=1e-12 * abs(values[3]))
        mean, cov = self.post.moments()
        self.assertEqual(mean.shape, (2,))
        self.assertEqual(cov.shape, (2, 2))
        np.testing.assert_allclose(cov, cov.T, rtol=0, atol=1e-12 * np.abs(cov).max())

    def test_posterior_save_load_round_trips(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "post.vbmc")
            self.post.save(path)
            loaded = vbmc.Posterior.load(path)
        self.assertEqual(loaded.elbo, self.post.elbo)
        x = self.post.sample(5, seed=2)
        np.testing.assert_array_equal(loaded.log_pdf(x), self.post.log_pdf(x))

    def test_refined_draws_and_auxiliary_elbo(self):
        draws = self.post.sample_refined(7, seed=11)
        self.assertEqual(draws.shape, (7, 2))
        self.assertTrue(np.all(np.isfinite(draws)))
        np.testing.assert_array_equal(draws, self.post.sample_refined(7, seed=11))
        elbo, elbo_sd = self.post.refined_elbo(50, seed=3)
        self.assertGreaterEqual(elbo, self.post.elbo)
        self.assertGreaterEqual(elbo_sd, self.post.elbo_sd)
        with self.assertRaises(vbmc.VBMCError) as caught:
            self.post.set_refinement(0, 0.7)
        self.assertEqual(caught.exception.status, vbmc.Status.E_ARG)

    def test_load_of_missing_file_raises(self):
        with self.assertRaises(vbmc.VBMCError) as caught:
            vbmc.Posterior.load("/nonexistent/post.vbmc")
        self.assertEqual(caught.exception.status, vbmc.Status.E_IO)


def shifted_log_joint(x):
    return gaussian_log_joint(np.asarray(x) - [2.5, 1.0])


class Comparison(unittest.TestCase):
    """Mode, marginals, KL and MTV of snapshots, and the diagnostics of several runs: two fits of
    a standard normal and one of a shifted normal (the same evidence)."""

    @classmethod
    def setUpClass(cls):
        def fit(seed, fn):
            run = vbmc.VBMCRun(None, None, [-3.0, -3.0], [4.0, 4.0],
                               options={"seed": seed, "display": "off", "max_fun_evals": 150})
            return run, run.run(fn)
        cls.run1, cls.post1 = fit(1, gaussian_log_joint)
        cls.run2, cls.post2 = fit(2, gaussian_log_joint)
        cls.shifted, cls.post3 = fit(3, shifted_log_joint)

    def test_log_evidence_is_near_the_truth(self):
        log_z, log_z_sd = self.post1.log_evidence()
        truth = np.log(2 * np.pi)  # gaussian_log_joint is a standard normal without its normaliser
        self.assertGreater(log_z_sd, 0.0)
        self.assertLess(abs(log_z - truth), 0.05)
        self.assertEqual((log_z, log_z_sd), self.post1.log_evidence())
        bbq, bbq_sd = self.post1.log_evidence_bbq()
        self.assertTrue(np.isnan(bbq) or abs(bbq - truth) < 0.5)

    def test_mode_is_the_highest_point(self):
        mode = self.post1.mode()
        self.assertEqual(mode.shape, (2,))
        np.testing.assert_array_equal(mode, self.post1.mode())
        np.testing.assert_allclose(mode, [0.0, 0.0], atol=0.15)
        heights = self.post1.log_pdf(self.post1.sample(1000, seed=1))
        self.assertTrue(np.all(heights <= self.post1.log_pdf(mode)))

    def test_marginal_pdf_is_normalised(self):
        grid = np.linspace(-10.0, 10.0, 20001)
        for coord in range(2):
            pdf = self.post1.marginal_pdf(coord, grid)
            self.assertEqual(pdf.shape, grid.shape)
            self.assertAlmostEqual(float(np.sum(pdf) * (grid[1] - grid[0])), 1.0, delta=1e-6)
        self.assertEqual(self.post1.marginal_pdf(1, [[0.0, 1.0]]).shape, (1, 2))
        with self.assertRaises(vbmc.VBMCError) as caught:
            self.post1.marginal_pdf(2, grid)
        self.assertIn("coord = 2", caught.exception.message)

    def test_kl_and_mtv(self):
        kl, kl_sd = self.post1.kl(self.post1, 1000, seed=3)
        np.testing.assert_array_equal(kl, [0.0, 0.0])
        np.testing.assert_array_equal(kl_sd, [0.0, 0.0])
        kl, kl_sd = self.post1.kl(self.post2, 5000, seed=3)
        np.testing.assert_array_equal(kl, self.post1.kl(self.post2, 5000, seed=3)[0])
        self.assertTrue(np.all((kl >= 0.0) & (kl < 0.1)) and np.all(kl_sd > 0.0))
        mtv, mean_mtv = self.post1.mtv(self.post1, 1000, seed=3)
        np.testing.assert_array_equal(mtv, [0.0, 0.0])
        mtv, mean_mtv = self.post1.mtv(self.post3, 5000, seed=3)
        self.assertTrue(np.all((mtv > 0.3) & (mtv <= 1.0)))
        self.assertAlmostEqual(mean_mtv, float(np.mean(mtv)), delta=1e-15)
        with self.assertRaises(vbmc.VBMCError) as caught:
            self.post1.kl(self.post2, 1)
        self.assertIn("n = 1 draws", caught.exception.message)

    def test_diagnose_agreeing_and_disagreeing_runs(self):
        same = vbmc.diagnose([self.run1, self.run2], seed=1)
        self.assertTrue(same.agree, same.message)
        self.assertIn(same.best, (0, 1))
        self.assertTrue(same.message.startswith("The runs agree."))
        skl = same.pairwise("skl")
        self.assertEqual(skl.shape, (2, 2))
        self.assertEqual(skl[0, 1], skl[1, 0])
        self.assertEqual(same.stat("max_skl"), skl[0, 1])
        different = vbmc.diagnose([self.run1, self.shifted], seed=1)
        self.assertFalse(different.agree)
        self.assertEqual(different.stat("exit_flag"), -1.0)
        self.assertIn("symmetrised KL divergence", different.message)
        with self.assertRaises(vbmc.VBMCError) as caught:
            vbmc.diagnose([self.run1])
        self.assertIn("at least 2 runs", caught.exception.message)
        with self.assertRaises(vbmc.VBMCError) as caught:
            same.stat("nonsense")
        self.assertEqual(caught.exception.status, vbmc.Status.E_ARG)


class Checkpoint(unittest.TestCase):
    def test_resumed_run_continues_identically(self):
        options = {"seed": 2, "display": "off", "max_fun_evals": 30}
        reference = vbmc.VBMCRun(None, None, [-2.0], [2.0], options=options)
        resumed = vbmc.VBMCRun(None, None, [-2.0], [2.0], options=options)
        for _ in range(12):
            for run in (reference, resumed):
                x = run.ask()
                run.tell(x, gaussian_log_joint(x))
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "run.vbmc")
            resumed.save(path)
            resumed.close()
            resumed = vbmc.VBMCRun.load(path)
        self.assertEqual(reference.run(gaussian_log_joint).elbo,
                         resumed.run(gaussian_log_joint).elbo)


class Priors(unittest.TestCase):
    OPTIONS = {"seed": 3, "display": "off", "max_fun_evals": 24}

    @staticmethod
    def log_likelihood(x):
        return -0.5 * float((x[0] - 0.5) ** 2 / 0.5 + (x[1] + 0.2) ** 2)

    def test_coordinate_priors_give_the_run_told_the_log_joints(self):
        with_prior = vbmc.VBMCRun(None, None, [-2.0, -2.0], [2.0, 2.0], options=self.OPTIONS)
        joint = vbmc.VBMCRun(None, None, [-2.0, -2.0], [2.0, 2.0], options=self.OPTIONS)
        with_prior.set_prior(0, "gaussian", [0.0, 1.5])
        with_prior.set_prior(1, "student_t", (0.0, 2.0, 4.0))
        self.assertEqual(with_prior.stat("has_prior"), 1.0)
        while (x := with_prior.ask()) is not None:
            np.testing.assert_array_equal(x, joint.ask())
            log_prior = with_prior.log_prior(x)
            with_prior.tell(x, self.log_likelihood(x))
            joint.tell(x, self.log_likelihood(x) + log_prior)
        self.assertEqual(with_prior.posterior().elbo, joint.posterior().elbo)
        record = with_prior.evaluations()
        np.testing.assert_array_equal(record["log_joint"], joint.evaluations()["log_joint"])
        np.testing.assert_array_equal(record["log_joint"],
                                      record["log_likelihood"] + record["log_prior"])
        self.assertNotIn("log_prior", joint.evaluations())
        x = np.array([0.3, -0.7])
        self.assertAlmostEqual(with_prior.log_prior(x),
                               -0.5 * (0.3 / 1.5) ** 2 - math.log(1.5 * math.sqrt(2 * math.pi))
                               + math.lgamma(2.5) - math.lgamma(2.0) - 0.5 * math.log(4 * math.pi)
                               - math.log(2.0) - 2.5 * math.log1p((0.7 / 2.0) ** 2 / 4.0), places=13)

    def test_invalid_prior_raises_with_the_library_message(self):
        run = vbmc.VBMCRun([0.0], [1.0], [0.2], [0.8], options=self.OPTIONS)
        with self.assertRaises(vbmc.VBMCError) as caught:
            run.set_prior(0, "uniform", [0.0, 2.0])
        self.assertEqual(caught.exception.status, vbmc.Status.E_ARG)
        self.assertIn("needs lb = a and ub = b", caught.exception.message)
        run.set_prior(0, "uniform", [0.0, 1.0])
        self.assertAlmostEqual(run.log_prior([0.5]), 0.0, places=15)

    def test_prior_function_errors_and_checkpoints(self):
        run = vbmc.VBMCRun(None, None, [-2.0, -2.0], [2.0, 2.0], options=self.OPTIONS)
        failing = {"now": False}

        def log_prior(x):
            if failing["now"]:
                raise ValueError("no prior here")
            return -0.5 * float(np.dot(x, x))

        run.set_prior_fn(log_prior)
        self.assertEqual(run.log_prior([1.0, 2.0]), -2.5)
        x = run.ask()
        failing["now"] = True
        with self.assertRaises(vbmc.VBMCError) as caught:
            run.tell(x, self.log_likelihood(x))
        self.assertIsInstance(caught.exception.__cause__, ValueError)
        self.assertIn("returned nan", caught.exception.message)
        self.assertEqual(run.stat("pending"), 1.0)
        failing["now"] = False
        run.tell(x, self.log_likelihood(x))
        # A checkpoint cannot hold the function: set it again after loading.
        resumed = pickle.loads(pickle.dumps(run))
        x = resumed.ask()
        with self.assertRaises(vbmc.VBMCError) as caught:
            resumed.tell(x, self.log_likelihood(x))
        self.assertEqual(caught.exception.status, vbmc.Status.E_STATE)
        self.assertIn("call vbmc_set_prior_fn again after vbmc_load", caught.exception.message)
        resumed.set_prior_fn(log_prior)
        resumed.tell(x, self.log_likelihood(x))
        record = resumed.evaluations()
        self.assertEqual(record["log_prior"][1], -0.5 * float(np.dot(x, x)))


class IterationCallback(unittest.TestCase):
    def test_on_iteration_sees_each_completed_iteration_once_in_order(self):
        run = vbmc.VBMCRun(None, None, [-1.0], [1.0],
                           options={"display": "off", "max_fun_evals": 20, "seed": 4})
        seen = []
        run.run(lambda x: -0.5 * float(x[0]) ** 2, on_iteration=seen.append)
        self.assertEqual(seen, list(range(int(run.stat("iteration")))))
        self.assertGreater(len(seen), 1)


class CallbackErrors(unittest.TestCase):
    def test_exception_in_fn_propagates_and_leaves_point_pending(self):
        run = vbmc.VBMCRun(None, None, [-1.0], [1.0], options={"display": "off"})

        def broken(x):
            raise KeyError("model failed")
        with self.assertRaises(KeyError):
            run.run(broken)
        self.assertEqual(run.pending().shape, (1, 1))
        run.abandon(run.pending()[0])
        self.assertEqual(run.stat("pending"), 0.0)

    def test_run_after_an_exception_starts_with_the_pending_point(self):
        run = vbmc.VBMCRun(None, None, [-1.0], [1.0],
                           options={"display": "off", "max_fun_evals": 12})
        seen = []

        def broken(x):
            raise KeyError("model failed")

        def log_joint(x):
            seen.append(x.copy())
            return -0.5 * float(x[0]) ** 2
        with self.assertRaises(KeyError):
            run.run(broken)
        left = run.pending()[0].copy()
        run.run(log_joint)
        np.testing.assert_array_equal(seen[0], left)
        self.assertEqual(run.stat("func_count"), 12.0)
        self.assertEqual(run.stat("finished"), 1.0)


class Loading(unittest.TestCase):
    """Importing vbmc without a usable library says what to do (in a fresh interpreter)."""

    def import_error(self, library):
        env = dict(os.environ, VBMC_LIBRARY=library)
        done = subprocess.run([sys.executable, "-c", "import vbmc"], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("ImportError", done.stderr)
        return done.stderr

    def test_missing_library_says_how_to_install(self):
        message = self.import_error("/nonexistent/libvbmc.so")
        self.assertIn("could not be loaded", message)
        self.assertIn("VBMC_LIBRARY", message)
        self.assertIn("pip install --no-build-isolation", message)

    def test_library_without_the_functions_is_named(self):
        message = self.import_error("libm.so.6")
        self.assertIn("needs the function vbmc_version", message)


class Validation(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.run_ = vbmc.VBMCRun(None, None, [-2.0] * 3, [2.0] * 3,
                                options={"seed": 1, "display": "off", "max_fun_evals": 30})
        cls.post = cls.run_.run(gaussian_log_joint)

    def test_point_sets_of_the_wrong_shape_are_refused(self):
        for bad in ([1.0, 2.0], np.zeros((3, 2)), np.zeros((2, 3, 1)), [[1.0, 2.0, 3.0, 4.0]]):
            with self.assertRaises(ValueError) as caught:
                self.post.log_pdf(bad)
            self.assertIn("(n, 3)", str(caught.exception))
        with self.assertRaises(TypeError):
            self.post.log_pdf([["a", "b", "c"]])
        self.assertEqual(self.post.log_pdf(np.zeros((0, 3))).shape, (0,))

    def test_library_messages_are_reported(self):
        with self.assertRaises(vbmc.VBMCError) as caught:
            self.post.log_pdf([0.0, float("nan"), 0.0])
        self.assertIn("NaN", caught.exception.message)
        self.assertNotIn("rejected", caught.exception.message)
        with self.assertRaises(ValueError):
            self.post.sample(-1)

    def test_function_returns_that_are_not_one_number_are_refused(self):
        run = vbmc.VBMCRun(None, None, [-1.0], [1.0], options={"display": "off"})
        for bad, error in ((None, TypeError), (np.array([]), ValueError), ("1.5", TypeError),
                           ([1.0, 2.0], ValueError), ((1.0,), TypeError)):
            with self.assertRaises(error, msg=repr(bad)) as caught:
                run.run(lambda x, value=bad: value)
            self.assertIn("log joint returned at x = ", str(caught.exception))
            self.assertEqual(run.stat("pending"), 1.0)
            self.assertEqual(run.stat("func_count"), 0.0)
        run.run(lambda x: np.array([-0.5 * x[0] ** 2]))  # a one-element array is a number
        self.assertEqual(run.stat("finished"), 1.0)

    def test_a_run_whose_every_evaluation_failed_says_why(self):
        run = vbmc.VBMCRun(None, None, [-1.0], [1.0],
                           options={"display": "off", "max_fun_evals": 12})
        with self.assertRaises(vbmc.VBMCError) as caught:
            run.run(lambda x: float("nan"))
        self.assertIn("without a single finite log-joint value", caught.exception.message)


class Records(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.run_ = vbmc.VBMCRun(None, None, [-2.0, -2.0], [2.0, 2.0],
                                options={"seed": 4, "display": "off", "max_fun_evals": 40})
        cls.values = []

        def target(x):
            cls.values.append(gaussian_log_joint(x))
            return cls.values[-1]
        cls.post = cls.run_.run(target)

    def test_history_has_one_entry_per_iteration(self):
        history = self.run_.history()
        n = int(self.run_.stat("iteration"))
        self.assertEqual(sorted(history), sorted(("iteration", "action") + vbmc.HISTORY_SERIES))
        for name, values in history.items():
            self.assertEqual(values.shape, (n,), name)
        self.assertTrue(np.all(np.diff(history["func_count"]) > 0))
        self.assertTrue(np.all(history["elbo_sd"] >= 0))

    def test_history_posterior_and_actions(self):
        history = self.run_.history()
        self.assertEqual(history["action"][0], "start warm-up")
        self.assertEqual(self.run_.history_action(0), "start warm-up")
        self.assertTrue(np.all(history["gp_output_scale"] > 0))
        first = self.run_.history_posterior(0)
        self.assertEqual(first.elbo, history["elbo"][0])
        last = self.run_.history_posterior(len(history["elbo"]) - 1)
        self.assertEqual(last.elbo, history["elbo"][-1])
        with self.assertRaises(vbmc.VBMCError) as caught:
            self.run_.history_posterior(len(history["elbo"]))
        self.assertIn("iteration = ", caught.exception.message)
        with self.assertRaises(vbmc.VBMCError):
            self.run_.history_action(-1)

    def test_warm_start_reuses_the_training_set(self):
        warm = self.run_.warm_start(options={"seed": 2, "display": "off", "max_fun_evals": 20})
        old = self.run_.evaluations()
        self.assertEqual(warm.stat("reused_count"), self.run_.stat("train_count"))
        np.testing.assert_array_equal(warm.evaluations()["x"], old["x"][old["in_training"]])
        x = warm.ask()  # the first iteration runs on the re-used values: no initial design
        self.assertEqual(warm.stat("iteration"), 1.0)
        warm.tell(x, gaussian_log_joint(x))
        fresh = self.run_.warm_start(options={"display": "off"}, reuse_evaluations=False)
        self.assertEqual(fresh.stat("func_count"), 0.0)
        self.assertEqual(self.run_.stat("func_count"), 40.0)  # the previous run is not modified

    def test_warm_start_needs_a_posterior(self):
        run = vbmc.VBMCRun(None, None, [-1.0], [1.0], options={"display": "off"})
        with self.assertRaises(vbmc.VBMCError) as caught:
            run.warm_start()
        self.assertIn("no posterior", caught.exception.message)

    def test_retry_goes_on_once(self):
        run = vbmc.VBMCRun(None, None, [-2.0, -2.0], [2.0, 2.0],
                           options={"seed": 4, "display": "off", "max_fun_evals": 20,
                                    "retry_max_fun_evals": 10, "ns_gp_max": 4})
        run.run(gaussian_log_joint)
        self.assertEqual(run.stat("retried"), 1.0)
        self.assertEqual(run.stat("func_count"), 30.0)
        self.assertEqual(list(run.history()["action"]).count("retry"), 1)

    def test_evaluations_are_the_told_values(self):
        record = self.run_.evaluations()
        self.assertEqual(record["x"].shape, (40, 2))
        np.testing.assert_array_equal(record["log_joint"], self.values)
        self.assertEqual(int(record["in_training"].sum()), int(self.run_.stat("train_count")))

    def test_sample_components_gives_sample_draws_and_labels(self):
        draws, labels = self.post.sample_components(500, seed=8)
        np.testing.assert_array_equal(draws, self.post.sample(500, seed=8))
        self.assertTrue(np.all((labels >= 0) & (labels < self.post.components)))

    def test_runs_and_posteriors_pickle(self):
        again = pickle.loads(pickle.dumps(self.run_))
        self.assertEqual(again.stat("func_count"), 40.0)
        np.testing.assert_array_equal(again.history()["elbo"], self.run_.history()["elbo"])
        post = pickle.loads(pickle.dumps(self.post))
        x = self.post.sample(5, seed=1)
        np.testing.assert_array_equal(post.log_pdf(x), self.post.log_pdf(x))

    @unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is not installed")
    def test_both_plots_are_drawn(self):
        folder = os.environ.get("VBMC_PLOT_DIR") or tempfile.mkdtemp()
        os.makedirs(folder, exist_ok=True)
        for name, figure in (("python_corner.png", self.post.plot(self.run_.evaluations(),
                                                                  n_samples=20000, seed=1)),
                             ("python_elbo.png", self.run_.plot_elbo(title="ask-tell run"))):
            path = os.path.join(folder, name)
            figure.savefig(path, dpi=80)
            self.assertGreater(os.path.getsize(path), 5000)


class Logging(unittest.TestCase):
    def test_iteration_table_goes_to_the_vbmc_logger(self):
        run = vbmc.VBMCRun(None, None, [-1.0], [1.0],
                           options={"display": "iter", "max_fun_evals": 15})
        with self.assertLogs("vbmc", level="INFO") as logs:
            run.run(lambda x: -0.5 * float(x[0]) ** 2)
        text = "\n".join(logs.output)
        self.assertIn("Iteration", text)
        self.assertIn("Inference terminated", text)

    def test_display_off_sends_nothing(self):
        run = vbmc.VBMCRun(None, None, [-1.0], [1.0],
                           options={"display": "off", "max_fun_evals": 15})
        logger = logging.getLogger("vbmc")
        seen = []
        handler = logging.Handler()
        handler.emit = seen.append
        logger.addHandler(handler)
        try:
            run.run(lambda x: -0.5 * float(x[0]) ** 2)
        finally:
            logger.removeHandler(handler)
        self.assertEqual(seen, [])


class ManyPointsOut(unittest.TestCase):
    def test_ask_status_says_wait_when_every_allowed_point_is_out(self):
        run = vbmc.VBMCRun(None, None, [-1.0, -1.0], [1.0, 1.0],
                           options={"display": "off", "max_pending": 2})
        (first, x1), (second, _) = run.ask_status(), run.ask_status()
        self.assertEqual((first, second), (vbmc.Status.OK, vbmc.Status.OK))
        self.assertEqual(run.ask_status(), (vbmc.Status.WAIT, None))
        self.assertIsNone(run.ask())
        run.tell(x1, gaussian_log_joint(x1))
        self.assertEqual(run.ask_status()[0], vbmc.Status.OK)

    def test_parallel_example_resumes_a_killed_host(self):
        sys.path.insert(0, os.path.join(HERE, "..", "examples"))
        import concurrent.futures as cf
        import parallel
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "run.ckpt")
            run = parallel.open_run(4, path, 30)
            out = [run.ask() for _ in range(3)]
            run.tell(out[0], parallel.log_joint(out[0]))  # saved here, two points out
            del run                                       # the host dies
            resumed = parallel.open_run(4, path, 30)
            self.assertEqual(resumed.stat("pending"), 2.0)
            with cf.ThreadPoolExecutor(max_workers=4) as executor:
                post = parallel.run_in_parallel(resumed, executor, 4, 0.0)
            self.assertEqual(resumed.stat("finished"), 1.0)
            self.assertEqual(resumed.stat("pending"), 0.0)
            self.assertTrue(math.isfinite(post.elbo))


if __name__ == "__main__":
    unittest.main()
