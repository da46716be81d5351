"""What every tool that starts a program under test does with it: the program
runs in a session (and process group) of its own; a timeout, SIGINT or SIGTERM
kills that whole group; and an interrupted tool exits 130 (SIGINT) or 143
(SIGTERM) with one line, never a traceback.

    with process_group.signals_interrupt():      # SIGINT/SIGTERM raise Interrupted
        proc = subprocess.Popen(..., start_new_session=True)
        try:
            proc.wait()
        finally:
            process_group.kill(proc)              # the program and all it started
"""

import os
import signal
import threading
from contextlib import contextmanager

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(Exception):
    """SIGINT or SIGTERM arrived; exit_status is what the tool should exit with."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.name = signal.Signals(signum).name
        self.exit_status = 128 + signum


def _raise(signum, _frame):
    raise Interrupted(signum)


@contextmanager
def signals_interrupt():
    """Within: SIGINT and SIGTERM raise Interrupted (in the main thread; in any
    other thread this does nothing). The previous handlers come back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _raise) for s in SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def kill(proc, sig=signal.SIGKILL):
    """Sends sig to the process group of proc (started with
    start_new_session=True), which is gone already or not."""
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
