"""PyVBMC's box-shaped priors (pyvbmc.priors), so that scripts using them run unchanged: each
coordinate independent, parameters given per coordinate or as scalars (then D, default 1, or
the other parameters' length sets the dimension). log_pdf(x) and pdf(x) take one point (D,)
or points (n, D) (in 1-D also a vector of n values) and return (n, 1) (keepdims=False: (n,));
sample(n) gives (n, D) draws.

    UniformBox(a, b)              1/(b - a) on [a, b]
    Trapezoidal(a, u, v, b)       flat on [u, v], linear ramps down to 0 at a and b
    SplineTrapezoidal(a, u, v, b) the same with smooth ramps, 3 z^2 - 2 z^3 of the ramp's
                                  fraction z (zero slope at both ends)
    SmoothBox(a, b, scale)        flat on [a, b], Gaussian tails of SD `scale` outside
"""
import numpy as np


def _tiled(parameters, D):
    """The parameters as (D,) float arrays; D from the non-scalar ones when not given."""
    arrays = [np.atleast_1d(np.asarray(p, dtype=np.float64)).ravel() for p in parameters]
    lengths = {a.size for a in arrays if a.size > 1}
    if len(lengths) > 1:
        raise ValueError("the parameters have different lengths %s" % sorted(lengths))
    size = D or (lengths.pop() if lengths else 1)
    if any(a.size not in (1, size) for a in arrays):
        raise ValueError("the parameters must be scalars or have length D = %d" % size)
    return [np.broadcast_to(a, (size,)).copy() for a in arrays]


class _BoxPrior:
    """Shared machinery: per-coordinate log densities summed, shapes as PyVBMC's priors."""

    def _coordinate_log_pdf(self, x):
        """(n, D) log densities of each coordinate of the points x (n, D)."""
        raise NotImplementedError

    def log_pdf(self, x, keepdims=True):
        points = np.atleast_2d(np.asarray(x, dtype=np.float64))
        if self.D == 1 and np.ndim(x) == 1:
            points = points.reshape(-1, 1)  # in 1-D a vector of n values is n points
        if points.shape[1] != self.D:
            raise ValueError("x must have %d columns, not %d" % (self.D, points.shape[1]))
        with np.errstate(divide="ignore"):
            total = np.sum(self._coordinate_log_pdf(points), axis=1)
        return total.reshape(-1, 1) if keepdims else total

    def pdf(self, x, keepdims=True):
        return np.exp(self.log_pdf(x, keepdims))

    def _rejection_sample(self, n, low, high, peak):
        """n draws by rejection from the box [low, high] under the density's maximum `peak`."""
        draws = np.empty((0, self.D))
        while len(draws) < n:
            proposals = np.random.uniform(low, high, size=(2 * n, self.D))
            keep = np.log(np.random.uniform(size=2 * n)) < (
                self.log_pdf(proposals, keepdims=False) - np.sum(np.log(peak)))
            draws = np.vstack([draws, proposals[keep]])
        return draws[:n]


class UniformBox(_BoxPrior):
    def __init__(self, a, b, D=None):
        self.a, self.b = _tiled((a, b), D)
        self.D = self.a.size
        if not np.all(self.a < self.b):
            raise ValueError("UniformBox needs a < b in every coordinate")

    def _coordinate_log_pdf(self, x):
        inside = (x >= self.a) & (x <= self.b)
        return np.where(inside, -np.log(self.b - self.a), -np.inf)

    def sample(self, n):
        return np.random.uniform(self.a, self.b, size=(int(n), self.D))


class Trapezoidal(_BoxPrior):
    def __init__(self, a, u, v, b, D=None):
        self.a, self.u, self.v, self.b = _tiled((a, u, v, b), D)
        self.D = self.a.size
        if not np.all((self.a < self.u) & (self.u <= self.v) & (self.v < self.b)):
            raise ValueError("%s needs a < u <= v < b in every coordinate" % type(self).__name__)
        # plateau height: the ramps hold half their width each
        self.height = 1.0 / (0.5 * (self.b - self.a + self.v - self.u))

    def _ramp(self, z):
        """The density's fraction of the plateau height at fraction z of a ramp."""
        return z

    def _coordinate_log_pdf(self, x):
        rising = np.clip((x - self.a) / (self.u - self.a), 0.0, 1.0)
        falling = np.clip((self.b - x) / (self.b - self.v), 0.0, 1.0)
        fraction = np.where(x < self.u, self._ramp(rising),
                            np.where(x > self.v, self._ramp(falling), 1.0))
        inside = (x > self.a) & (x < self.b)
        return np.where(inside, np.log(fraction) + np.log(self.height), -np.inf)

    def sample(self, n):
        return self._rejection_sample(int(n), self.a, self.b, self.height)


class SplineTrapezoidal(Trapezoidal):
    def _ramp(self, z):
        return z * z * (3.0 - 2.0 * z)


class SmoothBox(_BoxPrior):
    def __init__(self, a, b, scale=1, D=None):
        self.a, self.b, self.scale = _tiled((a, b, scale), D)
        self.D = self.a.size
        if not np.all((self.a < self.b) & (self.scale > 0)):
            raise ValueError("SmoothBox needs a < b and scale > 0 in every coordinate")
        # the two Gaussian tails hold sqrt(2 pi) scale / 2 each, in units of the plateau height
        self.height = 1.0 / (self.b - self.a + np.sqrt(2.0 * np.pi) * self.scale)

    def _coordinate_log_pdf(self, x):
        outside = np.maximum(self.a - x, 0.0) + np.maximum(x - self.b, 0.0)
        return np.log(self.height) - 0.5 * (outside / self.scale) ** 2

    def sample(self, n):
        n = int(n)
        tails = np.sqrt(2.0 * np.pi) * self.scale
        in_tail = np.random.uniform(size=(n, self.D)) < tails * self.height
        spread = np.abs(np.random.normal(size=(n, self.D))) * self.scale
        below = np.random.uniform(size=(n, self.D)) < 0.5
        tail = np.where(below, self.a - spread, self.b + spread)
        return np.where(in_tail, tail, np.random.uniform(self.a, self.b, size=(n, self.D)))
