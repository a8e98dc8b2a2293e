"""Checks at the boundary between Python values and the C API: every array the library reads
has the shape it expects, and every value a user's function returns is one number (or a pair
number, SD). A wrong value raises TypeError or ValueError naming what was wrong, before any
library call; the library never re-reads memory of another shape."""
import numpy as np


def _floats(values, what):
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError("%s must hold real numbers, not %r (%s)" % (what, values, error)) from None


def vector(values, dim, what):
    """A C-contiguous float64 copy of `values` with shape (dim,), or None for None; a row (1, dim),
    as PyVBMC's bounds are written, is accepted too."""
    if values is None:
        return None
    array = _floats(values, what)
    if array.shape == (1, dim):
        array = array[0]
    if array.shape != (dim,):
        raise ValueError("%s must have shape (%d,) or (1, %d), not %s"
                         % (what, dim, dim, array.shape))
    return np.ascontiguousarray(array)


def points(values, dim, what="x"):
    """A C-contiguous (n, dim) float64 array from one point (dim,) or n points (n, dim)."""
    array = _floats(values, what)
    if array.ndim == 1 and array.shape[0] == dim:
        array = array.reshape(1, dim)
    if array.ndim != 2 or array.shape[1] != dim:
        raise ValueError("%s must be one point of shape (%d,) or n points of shape (n, %d), not "
                         "an array of shape %s" % (what, dim, dim, array.shape))
    return np.ascontiguousarray(array)


def count(n, what="n"):
    """A whole number >= 0 (an int, or a float with an integral value such as 1e5)."""
    if isinstance(n, (bool, np.bool_)) or not np.isscalar(n) or not np.isreal(n):
        raise TypeError("%s must be a whole number, not %r" % (what, n))
    if n < 0 or n != int(n):
        raise ValueError("%s must be a whole number >= 0, not %r" % (what, n))
    return int(n)


def _number(value, what):
    if value is None:
        raise TypeError("%s is None; it must be a number" % what)
    if isinstance(value, (str, bytes)):
        raise TypeError("%s is %r, a string; it must be a number" % (what, value))
    array = _floats(value, what)
    if array.size != 1:
        raise ValueError("%s must be one number, not %s" % (
            what, "an empty array" if array.size == 0 else "%d values" % array.size))
    return float(array.reshape(-1)[0])


def log_joint_value(value, x, pair):
    """(log_joint, sd) from what a target returned at x: one number (sd 0), or with pair a
    sequence (log_joint, sd). A number may be a one-element array, as PyVBMC allows."""
    where = "the log joint returned at x = %s" % np.array2string(np.asarray(x), precision=6)
    if not pair:
        return _number(value, where), 0.0
    try:
        log_joint, sd = value
    except (TypeError, ValueError):
        raise TypeError("%s must be a pair (log_joint, sd), not %r" % (where, value)) from None
    return _number(log_joint, where), _number(sd, "its SD")
