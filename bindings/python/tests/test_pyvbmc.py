"""Tests of PyVBMC's interface (vbmc.VBMC, vbmc.VariationalPosterior): names, signatures and
return shapes as PyVBMC documents them, and results checked against analytic values."""
import os
import tempfile
import unittest
import warnings

import numpy as np

from vbmc import VBMC, VBMCError, VariationalPosterior
from vbmc.formatting import format_dict
from vbmc.priors import SmoothBox, SplineTrapezoidal, Trapezoidal, UniformBox

PLOT_DIR = os.environ.get("VBMC_PLOT_DIR") or tempfile.mkdtemp()
os.makedirs(PLOT_DIR, exist_ok=True)
D = 2


def banana_log_likelihood(theta):
    """PyVBMC's example target (Rosenbrock's banana), written as PyVBMC users write it."""
    theta = np.atleast_2d(theta)
    x, y = theta[:, :-1], theta[:, 1:]
    return -np.sum((x ** 2 - y) ** 2 + (x - 1) ** 2 / 100, axis=1)


def normal_log_prior(theta):
    """N(0, 3^2 I) in D = 2."""
    return float(-0.5 * np.sum(np.square(theta)) / 9.0 - np.log(2.0 * np.pi * 9.0))


def banana_log_joint(theta):
    return banana_log_likelihood(theta) + normal_log_prior(theta)


def gaussian_log_joint(x):
    """log of 5 * N(x; (1, -1), diag(0.5^2, 2^2)): the log evidence is log 5."""
    z = (np.asarray(x) - [1.0, -1.0]) / [0.5, 2.0]
    return float(np.log(5.0) - 0.5 * z @ z - np.log(2.0 * np.pi * 0.5 * 2.0))


LB, UB = np.full((1, D), -np.inf), np.full((1, D), np.inf)
PLB, PUB = np.full((1, D), -3.0), np.full((1, D), 3.0)


class Banana(unittest.TestCase):
    """PyVBMC's first example: the ELBO matches the true log evidence, -2.272 (PyVBMC's value)."""

    @classmethod
    def setUpClass(cls):
        np.random.seed(1)
        cls.vbmc = VBMC(banana_log_joint, np.zeros((1, D)), LB, UB, PLB, PUB,
                        options={"display": "off"})
        cls.vp, cls.results = cls.vbmc.optimize()

    def test_elbo_matches_the_log_evidence(self):
        self.assertLess(abs(self.results["elbo"] - (-2.272)), 0.05)
        self.assertLess(self.results["elbo_sd"], 0.05)
        for key in ("elbo", "elbo_sd", "success_flag", "func_count", "iterations", "message",
                    "convergence_status", "components", "r_index", "problem_type"):
            self.assertIn(key, self.results)
        self.assertIsInstance(self.results["success_flag"], bool)
        self.assertIn("'elbo': %r," % self.results["elbo"], format_dict(self.results))
        self.assertEqual(self.results["problem_type"], "unconstrained")

    def test_sample_gives_draws_and_components(self):
        x, components = self.vp.sample(1000)
        self.assertEqual(x.shape, (1000, D))
        self.assertEqual(components.shape, (1000,))
        self.assertTrue(np.all((components >= 0) & (components < self.vp.K)))
        self.assertFalse(np.array_equal(x, self.vp.sample(1000)[0]))

    def test_moments_and_pdf_have_pyvbmc_shapes(self):
        mean = self.vp.moments()
        self.assertEqual(mean.shape, (1, D))
        mean, cov = self.vp.moments(cov_flag=True)
        np.testing.assert_array_equal(cov, self.vp.moments(cov=True)[1])
        self.assertEqual(cov.shape, (D, D))
        x, _ = self.vp.sample(10)
        density = self.vp.pdf(x)
        self.assertEqual(density.shape, (10, 1))
        np.testing.assert_allclose(np.log(density), self.vp.pdf(x, log_flag=True), rtol=1e-12)
        np.testing.assert_array_equal(self.vp.pdf(x, log=True), self.vp.log_pdf(x))
        self.assertEqual(self.vp.pdf(x[0]).shape, (1,))

    def test_kl_div_of_a_posterior_with_itself_is_zero(self):
        np.testing.assert_allclose(self.vp.kl_div(vp2=self.vp, gauss_flag=True), 0.0, atol=1e-9)
        np.testing.assert_array_equal(self.vp.kl_div(vp2=self.vp, N=1000), [0.0, 0.0])

    def test_mtv_has_pyvbmc_shape_and_is_zero_for_itself(self):
        mtv = self.vp.mtv(vp2=self.vp, N=1000)
        self.assertEqual(mtv.shape, (1, D))
        np.testing.assert_array_equal(mtv, np.zeros((1, D)))
        with self.assertRaises(ValueError):
            self.vp.mtv()

    def test_mtv_to_samples(self):
        # Draws of the posterior itself: only the kernel estimate's smoothing bias and the
        # sampling error of 20000 draws (about 0.01) remain. Draws far away: no overlap.
        draws, _ = self.vp.sample(20000)
        near = self.vp.mtv(samples=draws, N=20000)
        self.assertEqual(near.shape, (1, D))
        self.assertLess(near.max(), 0.03)
        far = self.vp.mtv(samples=draws + 100.0, N=20000)
        np.testing.assert_allclose(far, 1.0, atol=1e-3)

    def test_gaussian_kl_div_to_samples(self):
        # Draws shifted by delta: the Gaussians of their moments differ by delta in the mean,
        # KL = 0.5 delta' S^-1 delta in both directions, up to the draws' sampling error.
        mean, cov = self.vp.moments(cov_flag=True)
        delta = np.array([0.3, -0.5])
        draws, _ = self.vp.sample(200000)
        kl = self.vp.kl_div(samples=draws + delta, gauss_flag=True)
        expected = 0.5 * delta @ np.linalg.solve(cov, delta)
        np.testing.assert_allclose(kl, [expected, expected], rtol=0.05)
        with self.assertRaisesRegex(ValueError, "gauss_flag"):
            self.vp.kl_div(samples=draws)
        with self.assertRaises(ValueError):
            self.vp.kl_div()

    def test_mode_is_the_library_mode(self):
        np.testing.assert_array_equal(self.vp.mode(), self.vp.posterior.mode())
        self.assertEqual(self.vp.mode().shape, (D,))

    def test_iteration_history_and_elbo_trace(self):
        history = self.vbmc.iteration_history
        # PyVBMC's results["iterations"] is the index of the last iteration (0-based).
        self.assertEqual(len(history["elbo"]), self.results["iterations"] + 1)
        self.assertEqual(len(history["vp"]), self.results["iterations"] + 1)
        self.assertEqual(history["vp"][-1].stats["elbo"], history["elbo"][-1])
        self.assertEqual(history["action"][0], "start warm-up")
        for name, figure in (("pyvbmc_corner.png", self.vp.plot(title="PyVBMC's banana")),
                             ("pyvbmc_elbo.png", self.vbmc.plot_elbo(title="PyVBMC's banana"))):
            path = os.path.join(PLOT_DIR, name)
            figure.savefig(path, dpi=80)
            self.assertGreater(os.path.getsize(path), 5000)

    def test_save_and_load(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "run")
            self.vbmc.save(path)
            with self.assertRaises(FileExistsError):
                self.vbmc.save(path + ".pkl")
            loaded = VBMC.load(path + ".pkl")
            vp, results = loaded.optimize()
            self.assertEqual(results["elbo"], self.results["elbo"])
            self.vp.save(os.path.join(folder, "vp"))
            again = VariationalPosterior.load(os.path.join(folder, "vp.pkl"))
            x, _ = self.vp.sample(5)
            np.testing.assert_array_equal(again.pdf(x), self.vp.pdf(x))


class PlotOption(unittest.TestCase):
    """PyVBMC's option plot draws the posterior at each iteration, the evaluations of that
    iteration highlighted, then the final posterior."""

    def test_one_figure_per_iteration_with_its_new_points(self):
        import matplotlib.pyplot as plt
        plt.close("all")
        np.random.seed(7)
        vbmc = VBMC(banana_log_joint, np.zeros((1, D)), LB, UB, PLB, PUB,
                    options={"display": "off", "max_fun_evals": 20, "plot": True})
        vbmc.optimize()
        history = vbmc.run.history()
        iterations = len(history["iteration"])
        figures = [plt.figure(number) for number in plt.get_fignums()]
        self.assertEqual(len(figures), iterations + 2)  # and the final posterior, the ELBO trace
        self.assertTrue(figures[1]._suptitle.get_text().startswith("VBMC iteration 1"))
        self.assertEqual(figures[iterations]._suptitle.get_text(),
                         "VBMC final (%d iterations)" % (iterations - 1))
        highlighted = [c for c in figures[1].axes[D].collections
                       if c.get_label() == "highlighted"][0]
        first, last = history["func_count"][:2].astype(int)
        np.testing.assert_array_equal(highlighted.get_offsets(),
                                      vbmc.run.evaluations()["x"][first:last])
        plt.close("all")

    def test_highlight_data_fills_the_chosen_evaluations(self):
        vbmc = VBMC(banana_log_joint, np.zeros((1, D)), LB, UB, PLB, PUB,
                    options={"display": "off", "max_fun_evals": 12, "seed": 2})
        vp, _ = vbmc.optimize()
        figure = vp.plot(n_samples=1000, highlight_data=[0, 3])
        highlighted = [c for c in figure.axes[D].collections if c.get_label() == "highlighted"]
        np.testing.assert_array_equal(highlighted[0].get_offsets(), vp.evaluations["x"][[0, 3]])
        with self.assertRaises(ValueError):
            vp.plot(n_samples=1000, plot_data=False, highlight_data=[0])

    def test_highlight_data_in_one_dimension(self):
        vbmc = VBMC(lambda x: -0.5 * float(x[0]) ** 2, np.zeros(1), None, None, [-2.0], [2.0],
                    options={"display": "off", "max_fun_evals": 12, "seed": 2})
        vp, _ = vbmc.optimize()
        lines = [line for line in vp.plot(n_samples=1000, highlight_data=[1]).axes[0].lines
                 if line.get_label() == "highlighted"]
        np.testing.assert_array_equal(lines[0].get_xdata(), vp.evaluations["x"][[1], 0])


class LoadAndContinue(unittest.TestCase):
    """VBMC.load's arguments as PyVBMC has them: new_options, iteration, set_random_state, and
    file names without ".pkl"."""

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.folder.name, "short_run.pkl")
        np.random.seed(5)
        cls.vbmc = VBMC(banana_log_joint, np.zeros((1, D)), LB, UB, PLB, PUB,
                        options={"display": "off", "max_fun_evals": 20})
        cls.vp, cls.results = cls.vbmc.optimize()
        cls.state_after_run = np.random.get_state()
        cls.vbmc.save(cls.path)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def test_new_options_continue_the_run_with_a_larger_budget(self):
        loaded = VBMC.load(self.path, new_options={"max_fun_evals": 30})
        self.assertEqual(loaded.options["max_fun_evals"], 30)
        vp, results = loaded.optimize()
        self.assertEqual(results["func_count"], 30)
        self.assertEqual(loaded.run.stat("reused_count"), self.results["train_set_size"])
        self.assertTrue(np.isfinite(results["elbo"]))

    def test_a_budget_already_spent_is_refused(self):
        with self.assertRaisesRegex(ValueError, "made 20 evaluations"):
            VBMC.load(self.path, new_options={"max_fun_evals": 20})

    def test_new_options_before_any_evaluation_make_a_fresh_run(self):
        path = os.path.join(self.folder.name, "not_run.pkl")
        VBMC(banana_log_joint, np.zeros((1, D)), LB, UB, PLB, PUB,
             options={"display": "off", "max_fun_evals": 20}).save(path)
        loaded = VBMC.load(path, new_options={"max_fun_evals": 12})
        self.assertEqual(loaded.run.stat("max_fun_evals"), 12)
        self.assertEqual(loaded.optimize()[1]["func_count"], 12)

    def test_iteration_is_the_last_one_or_refused(self):
        last = self.results["iterations"]
        self.assertEqual(VBMC.load(self.path, iteration=last).run.stat("iteration"), last + 1)
        with self.assertRaises(ValueError):
            VBMC.load(self.path, iteration=last + 1)
        with self.assertRaisesRegex(NotImplementedError, "last iteration"):
            VBMC.load(self.path, iteration=0)

    def test_set_random_state_restores_the_state_after_the_run(self):
        expected = np.random.RandomState()
        expected.set_state(self.state_after_run)
        np.random.seed(123)
        VBMC.load(self.path, set_random_state=True)
        self.assertEqual(np.random.rand(), expected.rand())

    def test_file_names_without_extension_mean_pkl(self):
        self.assertEqual(VBMC.load(self.path[:-len(".pkl")]).results, self.results)
        path = os.path.join(self.folder.name, "posterior")
        self.vp.save(path)
        again = VariationalPosterior.load(path)
        x, _ = self.vp.sample(3)
        np.testing.assert_array_equal(again.pdf(x), self.vp.pdf(x))


class Interface(unittest.TestCase):
    CHEAP = {"display": "off", "max_fun_evals": 30, "seed": 3}

    def test_np_random_seed_before_optimize_reproduces_the_run(self):
        # PyVBMC's example 6 seeds numpy between VBMC(...) and optimize().
        def elbo_of_a_run_seeded_after_creation():
            vbmc = VBMC(banana_log_joint, np.zeros((1, D)), LB, UB, PLB, PUB,
                        options={"display": "off", "max_fun_evals": 15})
            np.random.seed(11)
            return vbmc.optimize()[1]["elbo"]
        self.assertEqual(elbo_of_a_run_seeded_after_creation(),
                         elbo_of_a_run_seeded_after_creation())

    def test_option_values_are_checked_at_creation(self):
        with self.assertRaises(VBMCError) as refused:
            VBMC(banana_log_joint, np.zeros((1, D)), LB, UB, PLB, PUB,
                 options={"max_fun_evals": "many"})
        self.assertIn("max_fun_evals", str(refused.exception))

    def test_log_prior_gives_the_run_of_the_joint(self):
        joint = VBMC(banana_log_joint, None, LB, UB, PLB, PUB, options=self.CHEAP).optimize()[1]
        split = VBMC(banana_log_likelihood, None, LB, UB, PLB, PUB, options=self.CHEAP,
                     log_prior=normal_log_prior).optimize()[1]
        self.assertEqual(joint["elbo"], split["elbo"])

    def test_prior_objects(self):
        try:
            import scipy.stats as scs
        except ImportError:
            self.skipTest("scipy is not installed")
        prior = [scs.norm(scale=3.0), scs.norm(scale=3.0)]
        vbmc = VBMC(banana_log_likelihood, None, LB, UB, PLB, PUB, options=self.CHEAP,
                    prior=prior)
        self.assertAlmostEqual(float(vbmc.log_joint(np.array([0.5, 1.0]))),
                               float(banana_log_joint(np.array([0.5, 1.0]))), places=12)
        with self.assertRaises(ValueError):
            VBMC(banana_log_likelihood, None, LB, UB, PLB, PUB, prior=prior,
                 log_prior=normal_log_prior)

    def test_gaussian_evidence(self):
        vp, results = VBMC(gaussian_log_joint, [0.0, 0.0], None, None, [-3.0, -5.0], [3.0, 5.0],
                           {"display": "off", "seed": 2}).optimize()
        self.assertLess(abs(results["elbo"] - np.log(5.0)), 0.05)
        mean, cov = vp.moments(cov_flag=True)
        np.testing.assert_allclose(mean, [[1.0, -1.0]], atol=0.1)
        np.testing.assert_allclose(np.diag(cov), [0.25, 4.0], rtol=0.1)
        np.testing.assert_allclose(vp.mode(), [1.0, -1.0], atol=0.1)

    def test_options_pyvbmc_names(self):
        with self.assertRaises(ValueError) as caught:
            VBMC(gaussian_log_joint, None, None, None, PLB, PUB, options={"max_fun_eval": 10})
        self.assertIn("max_fun_evals", str(caught.exception))
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            VBMC(gaussian_log_joint, None, None, None, PLB, PUB,
                 options={"tol_gp_noise": 1e-3, "uncertainty_handling": [], "display": "full"})
        self.assertTrue(any("tol_gp_noise" in str(w.message) for w in seen))
        self.assertFalse(any("uncertainty_handling" in str(w.message) for w in seen))
        # PyVBMC's uncertainty_handling = [] leaves noisy mode off; a non-empty value turns it on.
        quiet = VBMC(gaussian_log_joint, None, None, None, PLB, PUB, options={"uncertainty_handling": []})
        noisy = VBMC(gaussian_log_joint, None, None, None, PLB, PUB, options={"uncertainty_handling": [1]})
        self.assertEqual(quiet.run.stat("noisy"), 0.0)
        self.assertEqual(noisy.run.stat("noisy"), 1.0)
        with self.assertRaises(ValueError):
            VBMC(gaussian_log_joint, None, None, None, None, PUB)
        with self.assertRaises(ValueError):
            VBMC(gaussian_log_joint, None, None, None, [-1.0, -1.0, -1.0], PUB)

    def test_several_starting_points_and_noisy_targets(self):
        starts = np.array([[0.0, 0.0], [0.5, 0.5], [-0.5, 1.0]])
        options = dict(self.CHEAP, specify_target_noise=True)
        vbmc = VBMC(lambda x: (gaussian_log_joint(x), 0.5), starts, None, None, PLB, PUB,
                    options=options)
        vbmc.optimize()
        told = vbmc.run.evaluations()
        np.testing.assert_array_equal(told["x"][:2], starts[1:])
        np.testing.assert_array_equal(told["log_joint_sd"], 0.5)

    def test_target_errors_propagate_and_the_run_goes_on(self):
        calls = []

        def flaky(x):
            calls.append(1)
            if len(calls) == 3:
                raise RuntimeError("model crashed")
            return gaussian_log_joint(x)
        vbmc = VBMC(flaky, None, None, None, PLB, PUB, options=self.CHEAP)
        with self.assertRaises(RuntimeError):
            vbmc.optimize()
        vp, results = vbmc.optimize()
        self.assertEqual(results["func_count"], 30)

    def test_a_target_returning_nothing_is_refused(self):
        vbmc = VBMC(lambda x: None, None, None, None, PLB, PUB, options=self.CHEAP)
        with self.assertRaises(TypeError) as caught:
            vbmc.optimize()
        self.assertIn("None", str(caught.exception))


class Priors(unittest.TestCase):
    """PyVBMC's box priors: normalised densities, continuous shapes, draws from them."""

    PRIORS = (UniformBox(-3, 3), Trapezoidal(-3, -2, 2, 3), SplineTrapezoidal(-3, -2, 2, 3),
              SplineTrapezoidal(-3, 0, 0, 3), SmoothBox(-2, 2, 0.8))

    def test_densities_integrate_to_one(self):
        grid = np.linspace(-12.0, 12.0, 240001)
        for prior in self.PRIORS:
            density = prior.pdf(grid.reshape(-1, 1), keepdims=False)
            # trapezoid rule; the kinks of the densities cost O(h) = 1e-4 at most
            self.assertAlmostEqual(np.trapz(density, grid), 1.0, delta=2e-4,
                                   msg=type(prior).__name__)

    def test_shapes_and_dimensions(self):
        prior = SplineTrapezoidal(np.zeros(3), 0.5, [1.0, 2.0, 3.0], 4.0)
        self.assertEqual(prior.D, 3)
        self.assertEqual(prior.log_pdf(np.ones((5, 3))).shape, (5, 1))
        self.assertEqual(prior.pdf(np.ones(3), keepdims=False).shape, (1,))
        np.testing.assert_allclose(prior.log_pdf(np.array([0.25, 1.5, 2.0])),
                                   SplineTrapezoidal(0, 0.5, 1.0, 4).log_pdf([[0.25]])
                                   + SplineTrapezoidal(0, 0.5, 2.0, 4).log_pdf([[1.5]])
                                   + SplineTrapezoidal(0, 0.5, 3.0, 4).log_pdf([[2.0]]))
        self.assertEqual(UniformBox(0, 1, D=4).D, 4)
        self.assertEqual(UniformBox(0, 1).pdf(np.linspace(0, 1, 7)).shape, (7, 1))
        with self.assertRaises(ValueError):
            prior.log_pdf(np.ones((3, 5)))
        with self.assertRaises(ValueError):
            Trapezoidal(0, 2, 1, 3)

    def test_draws_follow_the_density(self):
        np.random.seed(5)
        for prior in self.PRIORS:
            draws = prior.sample(40000)
            self.assertEqual(draws.shape, (40000, 1))
            grid = np.linspace(-12.0, 12.0, 240001)
            density = prior.pdf(grid.reshape(-1, 1), keepdims=False)
            second_moment = np.trapz(grid ** 2 * density, grid)
            # 40000 draws: the standard error of the second moment is below 0.03 here
            self.assertAlmostEqual(np.mean(draws ** 2), second_moment, delta=0.1,
                                   msg=type(prior).__name__)

    def test_a_prior_object_drives_a_run(self):
        prior = SplineTrapezoidal(np.zeros(D), 0.1, 3.0, 10.0)
        vbmc = VBMC(banana_log_likelihood, np.ones((1, D)), np.zeros((1, D)), 10 * np.ones((1, D)),
                    0.1 * np.ones((1, D)), 3 * np.ones((1, D)), prior=prior,
                    options={"display": "off", "max_fun_evals": 30, "seed": 1})
        x = np.array([0.5, 1.5])
        self.assertAlmostEqual(float(vbmc.log_joint(x)),
                               float(banana_log_likelihood(x) + prior.log_pdf(x)), places=12)
        # Its support is the bounds' box: the library adds it (vbmc_set_prior) and records both parts.
        self.assertEqual(vbmc.run.stat("has_prior"), 1.0)
        vp, results = vbmc.optimize()
        self.assertTrue(np.isfinite(results["elbo"]))
        record = vbmc.run.evaluations()
        np.testing.assert_allclose(record["log_prior"], prior.log_pdf(record["x"], keepdims=False),
                                   rtol=0, atol=1e-12)
        np.testing.assert_array_equal(record["log_likelihood"],
                                      [float(banana_log_likelihood(x)) for x in record["x"]])

    def test_a_prior_the_library_cannot_take_is_added_here(self):
        # A uniform box inside the hard bounds: the library refuses it, so Python adds it.
        prior = UniformBox(np.full(D, 0.05), 9.0)
        vbmc = VBMC(banana_log_likelihood, np.ones((1, D)), np.zeros((1, D)), 10 * np.ones((1, D)),
                    0.1 * np.ones((1, D)), 3 * np.ones((1, D)), prior=prior,
                    options={"display": "off", "max_fun_evals": 12, "seed": 1})
        self.assertEqual(vbmc.run.stat("has_prior"), 0.0)
        x = np.array([0.5, 1.5])
        self.assertEqual(float(vbmc.log_joint(x)), float(banana_log_likelihood(x) + prior.log_pdf(x)))
        vbmc.optimize()
        record = vbmc.run.evaluations()
        np.testing.assert_array_equal(record["log_joint"][:3],
                                      [float(vbmc.log_joint(x)) for x in record["x"][:3]])


if __name__ == "__main__":
    unittest.main()
