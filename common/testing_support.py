"""What the tests of the tools share (test_policies.py, test_signals.py,
test_properties.py): a throw-away git checkout to endanger, stand-in programs
that start children (one in a session of its own), a stand-in matplotlib, and
the check that no process a tool started outlives it.

Nothing here synchronizes by sleeping: every wait is for a condition (a file
that appears, a process that ends), with a deadline.

run() and signalled() start the tool under test with subprocess, not through
common/supervisor.py, on purpose: the supervisor stops whatever its child
leaves behind, and these tests must see what the TOOL leaves (leftovers()
finds it, then kills it, so that one failing test does not disturb the next)."""

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
LEAK_VARIABLE = "CH12_TEST_LEAK_MARK"
BOOK_GOLDEN = "58_bitonic_split_cpu_baseline.txt"
BOOK_SOURCE = "58_bitonic_split_cpu_baseline.cpp"


STARTER_1 = "ch12/exercises/1_descending/ex1_descending.cuh"


def starter_fields(repo=REPO, rel=STARTER_1):
    """What a stand-in table's starter row says of its file: the file, and
    its SHA-256 as it is now (CRLF read as LF), so that run_all.sh finds the
    file as shipped -- as the row's starter_as_shipped says."""
    import hashlib
    with open(os.path.join(repo, rel), "rb") as f:
        data = f.read().replace(b"\r\n", b"\n")
    return {"starter": rel, "shipped_sha256": hashlib.sha256(data).hexdigest()}


def run(cmd, env=None, cwd=None, timeout=300, stdin=subprocess.DEVNULL):
    """(exit status, stdout, stderr) of cmd, with env added to this environment."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env, cwd=cwd,
                       timeout=timeout, stdin=stdin)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def git(folder, *args):
    subprocess.run(["git", "-c", "user.name=ch12 test", "-c", "user.email=test@example.invalid",
                    "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-C", folder] + list(args),
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def fake_checkout(folder, with_common=False):
    """A git checkout in folder that looks like ours where it matters: a
    listing, its book golden, a golden of our own, README.md -- all tracked
    (copies: the real ones are never put at risk). Returns folder."""
    os.makedirs(os.path.join(folder, "ch12"))
    os.makedirs(os.path.join(folder, "expected_output"))
    shutil.copy(os.path.join(REPO, "ch12", BOOK_SOURCE), os.path.join(folder, "ch12"))
    shutil.copy(os.path.join(REPO, "expected_output", BOOK_GOLDEN), os.path.join(folder, "expected_output"))
    with open(os.path.join(folder, "expected_output", "chapter_claims.txt"), "w") as f:
        f.write("a golden of our own\n")
    with open(os.path.join(folder, "README.md"), "w") as f:
        f.write("# a checkout\n")
    if with_common:
        shutil.copytree(os.path.join(REPO, "common"), os.path.join(folder, "common"),
                        ignore=shutil.ignore_patterns("__pycache__"))
    git(folder, "init", "-q", "--template=")   # (no sample hooks: a small .git)
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "a checkout to endanger")
    return folder


def snapshot(folder):
    """{relative path: (bytes, mode)} of every file under folder (links as
    ('->', target)), .git excepted: what must not change or go."""
    state = {}
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder)
            if os.path.islink(path):
                state[rel] = ("->", os.readlink(path))
            else:
                try:
                    with open(path, "rb") as f:
                        state[rel] = (f.read(), os.stat(path).st_mode & 0o7777)
                except OSError:
                    state[rel] = ("?", None)
    return state


def leak_env():
    """An environment variable that every process a tool starts inherits:
    what carries it after the tool has ended was left behind."""
    return {LEAK_VARIABLE: uuid.uuid4().hex}


def carriers(env):
    """The live processes (not zombies) whose environment holds env's mark."""
    mark = ("%s=%s" % (LEAK_VARIABLE, env[LEAK_VARIABLE])).encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % entry, "rb") as f:
                if mark not in f.read().split(b"\0"):
                    continue
            with open("/proc/%s/stat" % entry, "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                    continue
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                found.append((int(entry), f.read().replace(b"\0", b" ").decode(errors="replace")[:120]))
        except OSError:
            continue
    return found


def leftovers(env, seconds=10):
    """The processes carrying env's mark that are still running `seconds`
    after this call (they are given that long to finish ending); each is
    killed, so that one failing test does not disturb the next."""
    deadline = time.monotonic() + seconds
    found = carriers(env)
    while found and time.monotonic() < deadline:
        time.sleep(0.05)
        found = carriers(env)
    for pid, _ in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return found


def wait_for(condition, seconds=60, poll=0.02):
    """Waits until condition() is true (returns True) or seconds pass (False)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(poll)
    return condition()


def until_ready(attempt, ready, first=1.0, most=32.0):
    """For a test of a tool's --timeout whose program must get ready first
    (start a child, install a handler) or the run tests nothing: runs
    attempt(timeout) with timeout = first seconds and, while ready() is false
    after the run, again with twice the time, up to most. On a loaded machine
    a program can take longer than a second to start; the test then waits
    for a run in which it got ready, never for a guessed time. Returns
    (attempt's result, the timeout of that run, the seconds that run took);
    the test asserts ready()."""
    timeout = first
    while True:
        start = time.monotonic()
        result = attempt(timeout)
        took = time.monotonic() - start
        if ready() or timeout * 2 > most:
            return result, timeout, took
        timeout *= 2


def atomic_pid_write(path, expression):
    """Python source that writes str(expression) to path in one step (a
    temporary file renamed), so that a file there is never half written."""
    return "open(%r, 'w').write(str(%s)); __import__('os').rename(%r, %r)" % (
        path + ".tmp", expression, path + ".tmp", path)


def sleeper(folder):
    """A program that starts a child in its own process group, and one in a
    session of its own (as chromedriver starts Chromium), writes its pid and
    theirs to $CH12_TEST_PIDFILE, and sleeps."""
    path = os.path.join(folder, "sleeper.py")
    with open(path, "w") as f:
        f.write("import os, subprocess, sys, time\n"
                "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
                "s = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'], start_new_session=True)\n"
                "p = os.environ['CH12_TEST_PIDFILE']\n"
                "open(p + '.tmp', 'w').write('%d %d %d' % (os.getpid(), c.pid, s.pid))\n"
                "os.rename(p + '.tmp', p)\n"
                "time.sleep(120)\n")
    return path


def cleaner(folder):
    """A program that, on SIGTERM, takes a moment to clean up (it stops a
    child of its own session, as page_output.py closes its browser) and
    writes 'cleaned' to $CH12_TEST_CLEANED before it exits."""
    path = os.path.join(folder, "cleaner.py")
    with open(path, "w") as f:
        f.write("import os, signal, subprocess, sys, time\n"
                "s = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'], start_new_session=True)\n"
                "def stop(signum, frame):\n"
                "    s.terminate(); s.wait()\n"
                "    open(os.environ['CH12_TEST_CLEANED'], 'w').write('cleaned')\n"
                "    sys.exit(0)\n"
                "signal.signal(signal.SIGTERM, stop)\n"
                "p = os.environ['CH12_TEST_PIDFILE']\n"
                "open(p + '.tmp', 'w').write('%d %d' % (os.getpid(), s.pid))\n"
                "os.rename(p + '.tmp', p)\n"
                "time.sleep(120)\n")
    return path


def stub_matplotlib(folder):
    """A stand-in matplotlib (Agg) whose savefig writes b'PNG stand-in': for
    the tests of the plot scripts on a machine without matplotlib. Returns
    the folder to put first on PYTHONPATH."""
    pkg = os.path.join(folder, "stubs", "matplotlib")
    os.makedirs(pkg)
    with open(os.path.join(pkg, "__init__.py"), "w") as f:
        f.write("def use(*a, **k):\n    pass\n")
    with open(os.path.join(pkg, "pyplot.py"), "w") as f:
        f.write("class _Any:\n"
                "    lines = []\n"
                "    def __getattr__(self, name):\n"
                "        return lambda *a, **k: None\n"
                "    def __getitem__(self, i):\n"
                "        return _Any()\n"
                "    def plot(self, *a, **k):\n"
                "        return [_Any()]   # (the lines drawn, as matplotlib returns them)\n"
                "class _Figure(_Any):\n"
                "    def savefig(self, f, **k):\n"
                "        data = b'PNG stand-in'\n"
                "        if hasattr(f, 'write'):\n"
                "            f.write(data)\n"
                "        else:\n"
                "            open(f, 'wb').write(data)\n"
                "def subplots(rows=1, cols=1, **k):\n"
                "    axes = [[_Any() for _ in range(cols)] for _ in range(rows)]\n"
                "    if k.get('squeeze', True) and rows == 1:\n"
                "        axes = axes[0] if cols > 1 else axes[0][0]\n"
                "    return _Figure(), axes\n")
    return os.path.join(folder, "stubs")


def signalled(command, sig, env, pidfile, start_seconds=60, cwd=None, after_seconds=60):
    """Starts command, waits until its program wrote pidfile, sends sig; returns
    (exit status, stdout, stderr, pids in pidfile). A tool that has not ended
    after_seconds after the signal is killed and fails the test."""
    tool = subprocess.Popen(command, env=dict(os.environ, CH12_TEST_PIDFILE=pidfile, **env), cwd=cwd,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    started = wait_for(lambda: os.path.exists(pidfile) or tool.poll() is not None, start_seconds)
    if not started or not os.path.exists(pidfile):
        tool.kill()
        out, err = tool.communicate()
        raise AssertionError("the program never started (%s): %r" % (command, (out + err)[-2000:]))
    with open(pidfile) as f:
        pids = [int(x) for x in f.read().split()]
    tool.send_signal(sig)
    try:
        out, err = tool.communicate(timeout=after_seconds)
    except subprocess.TimeoutExpired:
        tool.kill()
        out, err = tool.communicate()
        raise AssertionError("the tool had not ended %g s after the signal (%s): %r"
                             % (after_seconds, command, (out + err)[-2000:]))
    return tool.returncode, out.decode(errors="replace"), err.decode(errors="replace"), pids


def python():
    return sys.executable
