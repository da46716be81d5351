"""The one process supervisor: every program a tool of this companion starts
is started, stopped and reaped here, and every tool ends through main() below.
common/README.md states the rules; in short:

    import supervisor
    def work():
        proc = supervisor.start(["build/58_bitonic_split_cpu_baseline"], stdout=subprocess.PIPE)
        out, _ = proc.communicate()
        supervisor.stop(proc)          # whatever it left behind
        return 0
    sys.exit(supervisor.main(work, "my_tool"))

* start() runs the child in a session (and process group) of its own, with
  SIGINT, SIGTERM, SIGHUP and SIGQUIT held back until the child is recorded
  here and the handlers are in place: a signal can no longer land between the
  start and the bookkeeping that stops the child.
* The first of those signals raises Interrupted (a KeyboardInterrupt, so no
  `except Exception` swallows it) in the main thread; later ones never raise
  again -- the cleanup that the first one started runs to its end -- they only
  cut the grace short.
* stop() sends SIGTERM to the child's group and to every process descended
  from it, also those that started sessions of their own (chromedriver,
  Chromium, a daemon): on Linux this process is a "child subreaper", so no
  descendant can escape to init while it runs. It waits GRACE seconds (or the
  child's own grace) for them to end, then sends SIGKILL to all that are
  left, and reaps them.
* main() runs a tool's work; on an interrupt it stops every child still
  running and returns 128 + the signal (130 SIGINT, 131 SIGQUIT, 129 SIGHUP,
  143 SIGTERM) after one line on stderr.
"""

# First of all, before any other import: the four signals are recorded, not
# acted on (Python's own SIGINT handler would raise KeyboardInterrupt in the
# middle of an import, a traceback). install() below takes over from this, and
# main() ends a tool that got one as it would have ended later: 128 + the signal.
# (_signal, the interpreter's own module: `signal` imports enum and functools,
# milliseconds in which Python's handler would still be in charge.)
import _signal

_early = []


def _record_early(signum, _frame):
    _early.append(signum)


for _s in (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP, _signal.SIGQUIT):
    if _signal.getsignal(_s) is not _signal.SIG_IGN:
        _signal.signal(_s, _record_early)

import atexit  # noqa: E402
import signal  # noqa: E402
import ctypes  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from contextlib import contextmanager  # noqa: E402

# A tool started with a standard descriptor closed (`tool >&-`): /dev/null
# takes its place, so that the first file or pipe the tool opens is not
# taken for its stdin, stdout or stderr -- and a program it starts is not
# handed one as its own -- and what the tool prints goes nowhere, without a
# traceback; its exit status still says how it ended.
# The descriptors so replaced are in CLOSED_AT_START: the write policy does
# not take /dev/stdout for a place to write when the caller had closed it.
CLOSED_AT_START = set()
for _fd, _name, _mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
    try:
        os.fstat(_fd)
    except OSError:
        CLOSED_AT_START.add(_fd)
        _null = os.open(os.devnull, os.O_RDONLY if _mode == "r" else os.O_WRONLY)
        if _null != _fd:
            os.dup2(_null, _fd)
            os.close(_null)
        if getattr(sys, _name) is None:
            setattr(sys, _name, open(_fd, _mode, closefd=False))

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
GRACE = 10.0       # seconds between SIGTERM and SIGKILL, by default (time enough on a loaded machine)
POLL = 0.02        # how often a stop looks again (a tool's own loop, not a test's)


class Interrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM, SIGHUP or SIGQUIT arrived; exit_status = 128 + signal."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.name = signal.Signals(signum).name
        self.exit_status = 128 + signum


# ---- the state of this process ---------------------------------------------------------

_lock = threading.RLock()
_installed = False
_defer = 0            # > 0: a signal is recorded, not raised (a start or a stop is under way)
_received = None      # the first signal received (it decides the exit status)
_raised = False       # Interrupted was raised once: later signals never raise
_hurry = False        # a further signal came during a stop: no more grace
_children = {}        # pid -> Popen: the children started here and not yet stopped
_unstopped = set()    # (pid, start time) of what SIGKILL did not end (stuck in the kernel)


def _handler(signum, _frame):
    global _received, _raised, _hurry
    if _received is None:
        _received = signum
    else:
        _hurry = True
    if _raised or _defer:
        return
    _raised = True
    # The children are asked to stop at once (the first step of every stop):
    # should the exception below be swallowed -- Python ignores an exception
    # raised in a weakref callback or a __del__ method, where a handler may
    # run -- they end anyway, and start() and main() see the signal.
    for proc in list(_children.values()):
        if proc.returncode is None and not getattr(proc, "ch12_asked", False):
            proc.ch12_asked = True   # (once: a second SIGTERM could land in its own handler)
            _killpg(proc.pid, signal.SIGTERM)
    raise Interrupted(signum)


_libc = None


def _set_subreaper():
    """Orphaned descendants come back to this process instead of init (Linux)."""
    global _libc
    if not sys.platform.startswith("linux"):
        return False
    try:
        _libc = ctypes.CDLL(None, use_errno=True)
        return _libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def _uncaught(kind, value, traceback):
    """sys.excepthook: an Interrupted that no main() caught -- a signal that
    came while a tool was still importing its modules, before it reached
    main() -- ends the process as main() would: its children stopped, one
    line on stderr (no traceback), the exit handlers run, 128 + the signal.
    Python's own ending would be status 1 and a traceback."""
    if isinstance(value, BrokenPipeError) and output_closed():
        quiet_exit(EXIT_PIPE)
    if isinstance(value, KeyboardInterrupt) and not isinstance(value, Interrupted):
        value = Interrupted(signal.SIGINT)   # (Python's own handler, before this module's)
    if not isinstance(value, Interrupted):
        _previous_excepthook(kind, value, traceback)
        return
    _wind_down("%s: interrupted by %s\n" % (os.path.basename(sys.argv[0] or "python"), value.name))
    atexit._run_exitfuncs()  # (what a normal exit runs: the write policy's temporary files)
    os._exit(value.exit_status)


_previous_excepthook = sys.excepthook


def install():
    """The handlers for the four signals (a signal this process inherited as
    ignored, as under nohup, stays ignored), and the hook that turns an
    Interrupted no main() caught into 128 + the signal. Main thread only; once."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    for s in SIGNALS:
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, _handler)
    sys.excepthook = _uncaught
    _set_subreaper()
    atexit.register(stop_all)
    _installed = True
    if _early and _received is None:   # (one came while this module was imported: it ends the tool now)
        _handler(_early[0], None)


def received():
    """The signal that interrupted this process, or None."""
    return _received


def check():
    """Raises Interrupted if a signal was recorded while it could not be raised."""
    global _raised
    if _received is not None and not _raised and not _defer:
        _raised = True
        raise Interrupted(_received)


@contextmanager
def deferred():
    """Within: the four signals are held back (blocked in the main thread, and
    recorded rather than raised); on the way out a recorded one is raised.
    Yields the signal mask from before (what a child started within gets)."""
    global _defer
    main = threading.current_thread() is threading.main_thread()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS if main else [])
    with _lock:
        _defer += 1
    try:
        yield old
    finally:
        with _lock:
            _defer -= 1
        if main:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        if main:
            check()


# ---- processes, seen through /proc -----------------------------------------------------

def _stat(pid):
    """(ppid, state, start time) of pid, or None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return int(fields[1]), fields[0].decode(), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def _table():
    """pid -> (ppid, state, start time) of every process on the machine."""
    table = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return table
    for entry in entries:
        if entry.isdigit():
            s = _stat(int(entry))
            if s:
                table[int(entry)] = s
    return table


def _descendants(roots, table):
    """The processes descended from roots (not the roots), as {pid: start time}."""
    children = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = {}, list(roots)
    while todo:
        for c in children.get(todo.pop(), ()):
            if c not in found and c != os.getpid():
                found[c] = table[c][2]
                todo.append(c)
    return found


# The children of this process that are its own, as {pid: start time}: those
# it had when this module was imported (a shell's `job & exec tool` leaves
# its job to the tool), and those it forks itself -- through subprocess
# (start() below, or a plain subprocess call: a library's, a test driver's),
# or os.fork (multiprocessing) -- recorded as they are forked. Any other
# process whose parent is this one came back to it (its subreaper role) from
# a descendant that ended: an orphan, to be stopped, whatever it did to its
# environment, session or process group on the way (`env -i setsid ...`).
_forked = {}
_real_execute_child = subprocess.Popen._execute_child


def _own_children():
    """{pid: start time} of this process's children now."""
    me = os.getpid()
    return {pid: start for pid, (ppid, _, start) in _table().items() if ppid == me}


def _recording_execute_child(self, *args, **kwargs):
    with _lock:   # (an orphan scan never sees the new child unrecorded)
        _real_execute_child(self, *args, **kwargs)
        s = _stat(self.pid)
        if s is not None:
            _forked[self.pid] = s[2]


def _after_fork():
    """os.fork() returned in this process: its newest child is the one forked."""
    children = {p: s for p, s in _own_children().items() if p not in _forked}
    if children:
        newest = max(children, key=lambda p: children[p])
        _forked[newest] = children[newest]


def _forked_here(pid, start):
    return pid in _forked and _forked[pid] == start


def _orphans(table):
    """Processes that came back to this process (its subreaper role) from a
    child started here, and what descends from them: what a stopped or
    finished child left, as {pid: start time}; their zombies too, to be
    reaped. A child of this process's own (_forked: one it had at import, or
    forked itself) is not one."""
    me = os.getpid()
    found = {}
    for pid, (ppid, state, start) in table.items():
        if ppid == me and pid not in _children and not _forked_here(pid, start):
            found[pid] = start
            found.update(_descendants([pid], table))
    return found


def _alive(pid, start):
    s = _stat(pid)
    return s is not None and s[2] == start and s[1] not in ("Z", "X")


def _send(pid, start, sig):
    """sig to pid if it is still the process seen (same start time), and to its
    group when it leads one (Chromium's processes, in sessions of their own)."""
    s = _stat(pid)
    if s is None or s[2] != start:
        return
    for kill, target in ((os.kill, pid), (os.killpg, pid)):
        try:
            kill(target, sig)
        except (ProcessLookupError, PermissionError, OSError):
            pass


def signal_process(pid, sig):
    """sig to the process pid, which this tool did not start itself (a
    browser's process that a driver started, found by its profile): the one
    way a tool signals a process other than through start() and stop().
    False when it is gone."""
    try:
        os.kill(pid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _killpg(pid, sig):
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _reap(pids):
    """Waits for the zombies of orphans that came back to this process."""
    me = os.getpid()
    for pid in pids:
        s = _stat(pid)
        if s and s[0] == me and pid not in _children:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass


# ---- starting and stopping ---------------------------------------------------------------

def _child_setup(old_mask, limit_memory, parent):
    def setup():
        if parent is not None and _libc is not None:
            # Should this tool be killed outright (SIGKILL: no handler runs),
            # its child goes with it, rather than run on under init. (Only for
            # a child started by the main thread: the kernel ties this to the
            # thread that forked, and a worker thread may end before its child.)
            _libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)   # PR_SET_PDEATHSIG
            if os.getppid() != parent:   # (it died before that line)
                os._exit(128 + int(signal.SIGKILL))
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        if limit_memory:
            import resource
            resource.setrlimit(resource.RLIMIT_AS, (limit_memory, limit_memory))
    return setup


def start(argv, grace=GRACE, limit_memory=None, env=None, **popen_kwargs):
    """subprocess.Popen(argv, **popen_kwargs) in a session of its own, recorded
    here before any of the four signals can act. grace: seconds the child gets
    between SIGTERM and SIGKILL when it is stopped. limit_memory: RLIMIT_AS in
    bytes. Raises OSError when the program cannot be started."""
    install()
    if _received is not None:   # interrupted already (and that was swallowed somewhere): start nothing
        raise Interrupted(_received)
    for bad in ("start_new_session", "preexec_fn", "process_group"):
        if bad in popen_kwargs:
            raise TypeError("supervisor.start() decides %s itself" % bad)
    env = dict(os.environ if env is None else env)
    parent = os.getpid() if threading.current_thread() is threading.main_thread() else None
    with deferred() as mask:
        with _lock:   # (another thread's stop() never sees it unrecorded, and takes it for an orphan)
            proc = subprocess.Popen(argv, start_new_session=True, env=env,
                                    preexec_fn=_child_setup(mask, limit_memory, parent), **popen_kwargs)
            proc.ch12_grace = grace
            _children[proc.pid] = proc
    return proc


def _wait_gone(proc, pids, seconds):
    """Until proc has ended and none of pids runs, or seconds pass (or a
    further signal asks to hurry)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not _hurry:
        if proc.poll() is not None and not any(_alive(p, s) for p, s in pids.items()):
            return
        time.sleep(POLL)


def _leftovers(proc, seen):
    table = _table()
    found = dict(seen)
    found.update(_descendants([proc.pid], table))
    found.update(_orphans(table))
    return {p: s for p, s in found.items() if _alive(p, s)}


def stop(proc, grace=None):
    """Stops proc and everything descended from it -- processes in sessions of
    their own too, and whatever came back to this process when its parent
    ended -- and reaps proc:
      1. while proc runs: SIGTERM to its process group, and up to `grace`
         seconds (default: the grace given to start()) for it to end -- the
         time a program needs to stop what it started itself (page_output.py
         closes its browser);
      2. once it has ended: SIGTERM to every process of its tree still running,
         and up to `grace` seconds for them to end (if it has not ended, it
         let its grace pass: no second grace);
      3. SIGKILL to whatever is left.
    Uninterruptible: a signal that arrives meanwhile is recorded, and cuts the
    waiting short. Returns the pids of its tree that were still running after
    step 1 (what proc left behind, or could not stop itself)."""
    global _defer
    if grace is None:
        grace = getattr(proc, "ch12_grace", GRACE)
    with _lock:
        _defer += 1
    try:
        seen = _descendants([proc.pid], _table())
        if not os.path.isdir("/proc/self"):   # no /proc: the process group is all we can reach
            if proc.poll() is None:
                _killpg(proc.pid, signal.SIGTERM)
                _wait_gone(proc, {}, grace)
            if proc.poll() is None:
                _killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return []
        if proc.poll() is None:
            if not getattr(proc, "ch12_asked", False):   # (the signal handler may have asked already)
                proc.ch12_asked = True
                _killpg(proc.pid, signal.SIGTERM)   # (a zombie not yet reaped keeps its pid: no one else's group)
            _wait_gone(proc, {}, grace)
        with _lock:   # (what to stop is decided while no other thread starts a child)
            left = _leftovers(proc, seen)
            if proc.poll() is None:   # it let its grace pass: no second one for what it started
                _killpg(proc.pid, signal.SIGKILL)
            else:
                for pid, start_time in left.items():
                    _send(pid, start_time, signal.SIGTERM)
        if proc.returncode is not None:
            _wait_gone(proc, left, grace)
        with _lock:
            late = _leftovers(proc, left)
            for pid, start_time in late.items():
                _send(pid, start_time, signal.SIGKILL)
        proc.wait()
        everyone = dict(left)
        everyone.update(late)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(p, s) for p, s in everyone.items()):
            time.sleep(POLL)
        _reap(everyone)
        _unstopped.update((p, st) for p, st in everyone.items() if _alive(p, st))
        return sorted(left)
    finally:
        with _lock:
            _children.pop(proc.pid, None)
            _defer -= 1


def stop_all():
    """Stops every child still recorded here, the last started first, then
    whatever else came back to this process (SIGTERM, a short grace, SIGKILL),
    again until nothing more comes back. Returns what could not be stopped
    (still running after SIGKILL: a process stuck in the kernel), as pids."""
    global _defer
    with _lock:
        _defer += 1
    try:
        for proc in reversed(list(_children.values())):
            stop(proc)
        for _ in range(100):   # (each round stops what the last one's orphans left)
            with _lock:
                left = _orphans(_table())
                for pid, start_time in left.items():
                    _send(pid, start_time, signal.SIGTERM)
            if not left:
                break
            deadline = time.monotonic() + GRACE
            while time.monotonic() < deadline and not _hurry and any(_alive(p, s) for p, s in left.items()):
                time.sleep(POLL)
            for pid, start_time in left.items():
                if _alive(pid, start_time):
                    _send(pid, start_time, signal.SIGKILL)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and any(_alive(p, s) for p, s in left.items()):
                time.sleep(POLL)
            _reap(left)
            _unstopped.update((p, st) for p, st in left.items() if _alive(p, st))
            if all((p, st) in _unstopped for p, st in left.items()):
                break
        return sorted(p for p, st in _unstopped if _alive(p, st))
    finally:
        with _lock:
            _defer -= 1


def run(argv, timeout=None, input=None, **popen_kwargs):
    """subprocess.run through the supervisor: start(), communicate(), stop()
    (also on a timeout, which then raises subprocess.TimeoutExpired carrying
    what the program wrote before it was stopped, in .stdout and .stderr, and
    its exit status, in .returncode; and on an interrupt). Returns a
    subprocess.CompletedProcess."""
    grace = popen_kwargs.pop("grace", GRACE)
    if input is not None:
        popen_kwargs["stdin"] = subprocess.PIPE
    proc = start(argv, grace=grace, **popen_kwargs)
    try:
        out, err = proc.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        stop(proc)
        e.stdout, e.stderr = proc.communicate()
        e.returncode = proc.returncode
        raise
    except BaseException:
        stop(proc)
        raise
    stop(proc)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def children():
    """The children started here and not yet stopped."""
    return list(_children.values())


# ---- a tool's main ---------------------------------------------------------------------------

def readable_output():
    """stdout and stderr never raise on a character their encoding lacks (a
    terminal or a pipe that is not UTF-8): such a character is written escaped."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass


EXIT_PIPE = 128 + signal.SIGPIPE   # (141: what a shell reports for a program ended by a closed pipe)


def output_closed():
    """Whether the reader of this process's stdout or stderr has gone (a pipe
    into `head` that has ended): writing there can only fail."""
    import select
    for fd in (1, 2):
        try:
            poller = select.poll()
            poller.register(fd, 0)
            if any(events & (select.POLLERR | select.POLLNVAL) for _, events in poller.poll(0)):
                return True
        except (OSError, ValueError):
            return True
    return False


def quiet_exit(status):
    """The reader of the output has gone: nothing more can be said. Every child
    is stopped, the exit handlers run (temporary files), and the process ends
    with `status`, without a word (stdout and stderr now lead nowhere)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
    except OSError:
        pass
    _wind_down()
    atexit._run_exitfuncs()
    os._exit(status)


def main(work, name, stopped="what it was running was stopped"):
    """Runs work() (it returns the exit status) with the handlers installed.
    On SIGINT, SIGTERM, SIGHUP or SIGQUIT: every child still running is
    stopped, one line goes to stderr and the status is 128 + the signal."""
    install()
    readable_output()
    try:
        if _received is not None:
            raise Interrupted(_received)
        status = work()
        sys.stdout.flush()
    except Interrupted as e:
        status = e.exit_status
    except BrokenPipeError:
        if not output_closed():
            raise
        quiet_exit(EXIT_PIPE)   # (a closed reader: `tool | head -1`)
    if _received is None:
        _wind_down()
        return status
    _wind_down("%s: interrupted by %s: %s\n" % (name, signal.Signals(_received).name, stopped))
    return 128 + _received


def _wind_down(line=None):
    """A tool's end (main(), or _uncaught()): from here on a signal only
    hurries the stop; every child still running is stopped; then `line`, if
    any, goes to stderr after whatever stdout still holds."""
    global _defer
    with _lock:
        _defer += 1
    stuck = stop_all()
    if line is not None and stuck:   # (never a word that all was stopped when it was not)
        line = "%s; but %s still running after SIGKILL (stuck in the kernel?)\n" % (
            line.rstrip("\n"), ", ".join("pid %d" % p for p in stuck) + (" is" if len(stuck) == 1 else " are"))
    elif stuck:
        line = "%s: could not stop %s (still running after SIGKILL)\n" % (
            os.path.basename(sys.argv[0] or "python"), ", ".join("pid %d" % p for p in stuck))
    if line is None:
        return
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    try:
        sys.stderr.write(line)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


subprocess.Popen._execute_child = _recording_execute_child
os.register_at_fork(after_in_parent=_after_fork)
_forked.update(_own_children())   # (what it had before: not its orphans)

# The handlers are in place as soon as a tool imports this module (its first
# import): the earlier, the smaller the time in which Python's own SIGINT
# handler -- whose KeyboardInterrupt an import may swallow -- is in charge.
install()
