"""The library's output (iteration table, warnings) through Python's logging, logger "vbmc".

Every run's vbmc_set_logger points at one ctypes callback that hands each line to the logger,
so it shows where Python output shows (a Jupyter cell, a log file) rather than on C's stderr.
The option "display" still chooses which lines the library sends. While the application has
not configured logging, a fallback handler prints the lines to the current sys.stdout, as
PyVBMC does; once the root logger has a handler, the lines go there instead (never twice).
"""
import logging
import sys

from . import _capi
from ._constants import LOG_DEBUG, LOG_ERROR, LOG_INFO, LOG_WARN

LOGGER = logging.getLogger("vbmc")
_LEVELS = {LOG_ERROR: logging.ERROR, LOG_WARN: logging.WARNING, LOG_INFO: logging.INFO,
           LOG_DEBUG: logging.DEBUG}


class _FallbackHandler(logging.Handler):
    """Prints to the sys.stdout of the moment while the root logger has no handler."""

    def emit(self, record):
        if logging.getLogger().handlers:
            return
        try:
            sys.stdout.write(self.format(record) + "\n")
        except Exception:  # noqa: BLE001 (logging's own policy: report, never raise)
            self.handleError(record)


def _forward(_userdata, level, line):
    LOGGER.log(_LEVELS.get(level, logging.INFO), line.decode("utf-8", "replace"))


_CALLBACK = _capi.log_fn(_forward)  # kept alive here for as long as the module lives
if not LOGGER.handlers:
    LOGGER.addHandler(_FallbackHandler())
if LOGGER.level == logging.NOTSET:
    LOGGER.setLevel(logging.INFO)


def connect(handle):
    """Send the output of the run behind `handle` to the "vbmc" logger."""
    _capi.lib.vbmc_set_logger(handle, _CALLBACK, None)
