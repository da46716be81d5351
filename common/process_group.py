"""The earlier name of the process rules, kept so that code written against
it still works: everything here is common/supervisor.py's now (start, stop,
main; common/README.md states the rules). New code imports supervisor.

    signals_interrupt()   supervisor.install(): SIGINT, SIGTERM, SIGHUP and
                          SIGQUIT raise Interrupted (the first one only)
    kill(proc)            supervisor.stop(proc): the program and all it started
"""

import os
import signal
import sys
from contextlib import contextmanager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import supervisor  # noqa: E402

SIGNALS = supervisor.SIGNALS
Interrupted = supervisor.Interrupted


@contextmanager
def signals_interrupt():
    """Within (and after: the handlers stay): the four signals raise Interrupted."""
    supervisor.install()
    yield


def kill(proc, sig=signal.SIGKILL):
    """Stops proc and everything it started (supervisor.stop); sig is ignored:
    the supervisor sends SIGTERM, then SIGKILL after its grace (none if sig is
    SIGKILL)."""
    supervisor.stop(proc, grace=0 if sig == signal.SIGKILL else None)
