"""Tests of the Python binding against the build's libvbmc (VBMC_LIBRARY, VBMC_HEADER set by meson)."""
import math
import os
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import header  # noqa: E402

import vbmc  # noqa: E402
from vbmc import _capi  # noqa: E402

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
            vbmc.VBMC(None, None, [3.0, -3.0], [-3.0, 3.0])
        self.assertEqual(caught.exception.status, vbmc.Status.E_ARG)
        self.assertIn("plb", caught.exception.message)

    def test_unknown_option_raises(self):
        with self.assertRaises(vbmc.VBMCError) as caught:
            vbmc.VBMC(None, None, [-1.0], [1.0], options={"no_such_option": 1})
        self.assertEqual(caught.exception.status, vbmc.Status.E_OPTION)
        self.assertIn("no_such_option", caught.exception.message)

    def test_tell_of_point_not_pending_raises_and_keeps_run_usable(self):
        run = vbmc.VBMC(None, None, [-1.0], [1.0], options={"seed": 3, "display": "off"})
        x = run.ask()
        with self.assertRaises(vbmc.VBMCError) as caught:
            run.tell(x + 0.25, 0.0)
        self.assertEqual(caught.exception.status, vbmc.Status.E_STATE)
        self.assertGreater(len(caught.exception.message), 0)
        run.tell(x, gaussian_log_joint(x))

    def test_wrong_shape_is_rejected_before_the_library(self):
        run = vbmc.VBMC(None, None, [-1.0, -1.0], [1.0, 1.0], options={"display": "off"})
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
        cls.run_ = vbmc.VBMC(None, None, [-2.0, -2.0], [2.0, 2.0],
                             options={"seed": 5, "display": "off", "max_fun_evals": 40})
        cls.post = cls.run_.run(gaussian_log_joint)

    def test_run_finishes_and_reports_elbo(self):
        self.assertEqual(self.run_.stat("finished"), 1.0)
        self.assertTrue(math.isfinite(self.post.elbo))
        self.assertEqual(self.post.elbo, self.run_.posterior().elbo)

    def test_result_message_and_verdict(self):
        self.assertTrue(self.run_.result_message().startswith("Inference terminated: "))
        self.assertIn(self.run_.stat("reliable"), (0.0, 1.0))
        fresh = vbmc.VBMC(None, None, [-2.0, -2.0], [2.0, 2.0], options={"display": "off"})
        self.assertEqual(fresh.result_message(), "")
        self.assertTrue(math.isnan(fresh.stat("reliable")))

    def test_shapes_and_reproducible_sampling(self):
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


class Checkpoint(unittest.TestCase):
    def test_resumed_run_continues_identically(self):
        options = {"seed": 2, "display": "off", "max_fun_evals": 30}
        reference = vbmc.VBMC(None, None, [-2.0], [2.0], options=options)
        resumed = vbmc.VBMC(None, None, [-2.0], [2.0], options=options)
        for _ in range(12):
            for run in (reference, resumed):
                x = run.ask()
                run.tell(x, gaussian_log_joint(x))
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "run.vbmc")
            resumed.save(path)
            resumed.close()
            resumed = vbmc.VBMC.load(path)
        self.assertEqual(reference.run(gaussian_log_joint).elbo,
                         resumed.run(gaussian_log_joint).elbo)


class CallbackErrors(unittest.TestCase):
    def test_exception_in_fn_propagates_and_leaves_point_pending(self):
        run = vbmc.VBMC(None, None, [-1.0], [1.0], options={"display": "off"})

        def broken(x):
            raise KeyError("model failed")
        with self.assertRaises(KeyError):
            run.run(broken)
        self.assertEqual(run.pending().shape, (1, 1))
        run.abandon(run.pending()[0])
        self.assertEqual(run.stat("pending"), 0.0)

    def test_run_after_an_exception_starts_with_the_pending_point(self):
        run = vbmc.VBMC(None, None, [-1.0], [1.0], options={"display": "off", "max_fun_evals": 12})
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


if __name__ == "__main__":
    unittest.main()
