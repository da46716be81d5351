#!/usr/bin/env python3
"""The one write policy: every file a tool of this companion writes is
written here (common/README.md states the rules).

    target = write_policy.check("out.png", inputs=["bench.csv"])   # Refused: why, and what to do
    with write_policy.Output(target) as out:                       # a temporary file beside it
        out.file.write(data)
        out.commit()                                               # fsync, keep the mode, rename

* A path is refused when it resolves, through any link, to a file tracked in
  a git checkout (any checkout, not only this one), to a book's or a trap's
  golden (NN_name.txt, NN_name.replay.txt in an expected_output/ folder, a
  copy without git included), to a folder, to something inside a .git
  folder, to a link that names nothing, or to one of the tool's inputs. The
  one exception: --update may replace the golden it names (a file in an
  expected_output/ folder) when that golden is not a book's or a trap's.
* Nothing is opened over the target before the work is done: the data goes
  to a temporary file in the same folder (made with O_EXCL, so that no file
  of the user's is taken for it), which commit() flushes to disk and renames
  over the target, with the target's old mode (0644 for a new file). A link
  stays a link: the file it names is replaced.
* The temporary file is removed on every way out: an error, an exception,
  SIGINT/SIGTERM/SIGHUP/SIGQUIT (through common/supervisor.py), and exit.
* A character device or a FIFO (/dev/null, /dev/full, a pipe) holds nothing to
  lose: it is written directly.
* The tools that draw committed files (GENERATED: draw_pictures.js,
  render_png.py, kernel_text.py --write) may replace those files, and only
  those, of this checkout: check(..., regenerates=TOOL).
* In a folder made in this run nothing is anyone else's: new_file() creates
  a file there with O_EXCL (a handout's copies, a scratch copy of the page).

As a command, for the shell scripts, which keep to the same rules:

    python3 common/write_policy.py check [--input FILE]... PATH...

exits 0 when every PATH may be written, 2 with one line per refusal.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import atexit
import fcntl
import glob
import re
import stat
import subprocess
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import delete_policy  # noqa: E402  (which folders were made in this run)
import arguments  # noqa: E402  (absolute(): paths as the system follows them)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
NEW_FILE_MODE = 0o644


class Refused(Exception):
    """The policy refuses the write: the message says why and what to do."""


# ---- goldens ------------------------------------------------------------------------------

# A numbered listing's or trap's golden: 58_bitonic_split_cpu_baseline.txt,
# 59_trap_adjacent_pairs.replay.txt, ...
PROTECTED_NAME = re.compile(r"\A[0-9]+_[^/]*\.txt\Z")


def book_golden_names(repo=REPO):
    """The golden file names that hold the book's sample output: one per
    numbered lesson listing in ch12/ (and its --replay variant)."""
    names = set()
    for path in glob.glob(os.path.join(repo, "ch12", "[0-9][0-9]_*.c*")):
        stem, ext = os.path.splitext(os.path.basename(path))
        if ext in (".cpp", ".cu"):
            names.add(stem + ".txt")
            names.add(stem + ".replay.txt")
    return names


def is_book_golden(path, repo=REPO):
    """True when `path` is (or links to) one of the book's goldens of this checkout."""
    real = os.path.realpath(path)
    golden_dir = os.path.realpath(os.path.join(repo, "expected_output"))
    return os.path.dirname(real) == golden_dir and os.path.basename(real) in book_golden_names(repo)


def is_protected_golden(path):
    """True when `path`, or the file it links to, is named like a numbered
    listing's or trap's golden (NN_*.txt, NN_*.replay.txt), wherever it is."""
    names = (os.path.basename(path), os.path.basename(os.path.realpath(path)))
    return any(PROTECTED_NAME.match(n) for n in names)


def is_golden(real):
    """A file in an expected_output/ folder."""
    return os.path.basename(os.path.dirname(real)) == "expected_output"


# ---- git checkouts ------------------------------------------------------------------------

def checkout_of(folder):
    """The top of the git checkout that holds folder (a .git folder or file
    there), or None."""
    d = folder
    while True:
        if os.path.lexists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def is_tracked(real):
    """Whether git tracks the file at the real path `real` in the checkout
    that holds it. Refused when there is a checkout but git cannot say."""
    top = checkout_of(os.path.dirname(real))
    if top is None:
        return False
    rel = os.path.relpath(real, top)
    command = ["git", "-c", "safe.directory=*", "--literal-pathspecs", "-C", top, "ls-files", "-z", "--", rel]
    # (the checkout's own index, whatever a caller's environment names: a git hook's GIT_DIR, a GIT_INDEX_FILE)
    env = {k: v for k, v in os.environ.items()
           if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY")}
    try:
        proc = supervisor.run(command, timeout=60, grace=1, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env)
    except OSError as e:
        raise Refused("%s is in the git checkout %s, and git cannot be run (%s) to tell whether it is tracked"
                      % (real, top, e.strerror))
    out, err = proc.stdout, proc.stderr
    if proc.returncode != 0:
        raise Refused("%s is in the git checkout %s, and git cannot tell whether it is tracked: %s"
                      % (real, top, err.decode(errors="replace").strip().splitlines()[-1:] or "?"))
    return bool(out.strip(b"\0"))


# ---- a copy without git --------------------------------------------------------------------

_untracked = {}


def project_untracked(repo=REPO):
    """True when git does not know this project's files: a copy without git
    (GitHub's "Download ZIP", `git archive`), or a folder inside another
    repository that ignores it (or has not added it). There git cannot tell a
    project file from an output, so the project's root is the anchor:
    existing_project_file() below."""
    if repo not in _untracked:   # (asked once a run: whether git knows the project does not change meanwhile)
        anchor = os.path.realpath(os.path.join(repo, "common", "write_policy.py"))
        try:
            _untracked[repo] = checkout_of(os.path.dirname(anchor)) is None or not is_tracked(anchor)
        except Refused:
            _untracked[repo] = True
    return _untracked[repo]


def _tools_folders(repo=REPO):
    """The root's folders that are the tools' own (build/, build-*/, the GPU
    logs): the ones the project's .gitignore names at its root as folders."""
    folders = []
    try:
        with open(os.path.join(repo, ".gitignore"), encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line.startswith("/") and line.endswith("/") and line.count("/") == 2:
                    folders.append(line.strip("/"))
    except OSError:
        pass
    return folders or ["build", "build-*"]


def project_root_of(real):
    """The root of the copy of this project that holds the real path `real`
    -- the nearest folder above it with common/write_policy.py and
    run_all.sh -- or None. Another clone or download counts as much as this
    one."""
    d = os.path.dirname(real)
    while True:
        if os.path.isfile(os.path.join(d, "common", "write_policy.py")) and os.path.isfile(os.path.join(d, "run_all.sh")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def existing_project_file(real, repo=REPO):
    """Where git does not know a copy's files (project_untracked()): True for
    an existing file under the root of a copy of this project -- this one,
    or the one that holds `real` (project_root_of) -- that is not in one of
    the tools' own folders (_tools_folders: build/, ...). Such a file may be
    one of the project's -- README.md, a source -- and no tool replaces it."""
    import fnmatch
    if not os.path.lexists(real):
        return False
    roots = {os.path.realpath(repo)}
    found = project_root_of(real)
    if found is not None:
        roots.add(os.path.realpath(found))
    for top in sorted(roots):
        if not real.startswith(top + os.sep):
            continue
        parts = os.path.relpath(real, top).split(os.sep)
        if len(parts) > 1 and any(fnmatch.fnmatchcase(parts[0], f) for f in _tools_folders(top)):
            continue
        if project_untracked(top):
            return True
    return False


# ---- the files that a tool draws for the repository ---------------------------------------

# The tools whose job is to make files that are committed -- pictures, and the
# page's copy of the CUDA kernels -- and the files of this checkout that each
# may replace (patterns relative to the repository, as fnmatch takes them;
# '*' stops at no '/', so each pattern names one folder's files). Nothing else
# that git tracks, and no book or trap golden, ever. draw_pictures.js (Node)
# keeps to the same list: it writes ch12/web/pictures/ or the --out folder.
GENERATED = {
    "draw_pictures.js": ("ch12/web/pictures/*.svg", "ch12/web/pictures/class/*.svg",
                         "ch12/web/pictures/class/README.md"),
    "render_png.py": ("ch12/web/pictures/class/*.png", "ch12/web/pictures/class/png.sha256"),
    "kernel_text.py": ("ch12/web/js/cuda_kernels.js",),
}


def generated_by(tool, real, repo=REPO):
    """True when the real path `real` is one of the files of this checkout
    that `tool` draws (GENERATED)."""
    import fnmatch
    top = os.path.realpath(repo)
    if not real.startswith(top + os.sep):
        return False
    rel = os.path.relpath(real, top)
    return any(fnmatch.fnmatchcase(rel, pattern) and rel.count(os.sep) == pattern.count("/")
               for pattern in GENERATED.get(tool, ()))


# ---- the check ----------------------------------------------------------------------------

class Target:
    """Where a write goes: given (as named), real (the file that changes),
    device (written directly: a character device or a FIFO), mode (what the
    file will have), descriptor (a descriptor of this process named as the
    output -- /dev/stdout, /dev/fd/N -- written to as it is, or None)."""

    def __init__(self, given, real, device, mode, descriptor=None):
        self.given, self.real, self.device, self.mode = given, real, device, mode
        self.descriptor = descriptor

    def __repr__(self):
        return "Target(%r -> %r)" % (self.given, self.real)


def _same(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


_FD_FOLDER = re.compile(r"^/proc/([0-9]+)(?:/task/[0-9]+)?/fd$")


def named_descriptor(path):
    """(pid, N) when `path` names descriptor N of process pid -- /dev/stdout,
    /dev/stderr, /dev/fd/N, /proc/self/fd/N, /proc/thread-self/fd/N, through
    any link on the way (a link to /dev/fd, to /proc/self, to /dev/stdout) --
    else None. Judged by where the path's folder really is (the kernel's
    /proc/<pid>/fd), not by its spelling. One of this process's descriptors is
    written to as it is (`tool --json /dev/stdout >>log` appends to log): it is
    what the caller opened, a file of theirs, a pipe or a terminal, not a
    path to replace."""
    p = path if os.path.isabs(path) else os.path.join(os.getcwd(), path)
    for _ in range(40):
        p = p.rstrip(os.sep) or os.sep
        folder, name = os.path.split(p)
        real_folder = os.path.realpath(folder)
        m = _FD_FOLDER.match(real_folder)
        if m and name.isdigit():
            return int(m.group(1)), int(name)
        if m is not None or real_folder.startswith("/proc/"):
            return None   # (inside /proc, a link is the kernel's: never followed as text)
        full = os.path.join(real_folder, name)
        if not os.path.islink(full):
            return None
        target = os.readlink(full)
        p = target if os.path.isabs(target) else os.path.join(real_folder, target)
    return None


def check(path, inputs=(), update_golden=False, what="output", regenerates=None):
    """The Target for writing `path`, or Refused. inputs: the files the tool
    reads (an output may not be one of them). update_golden: the one path
    --update names (a golden that is not a book's or a trap's may be replaced
    even though git tracks it). regenerates: the name of a tool in GENERATED,
    which may replace the tracked files of this checkout listed there for it
    (and no others).

    In a folder made in this run (delete_policy.made_folder, temporary_folder)
    nothing is anyone else's: git is not asked."""
    if not isinstance(path, str) or not path:
        raise Refused("the %s path is empty" % what)
    if "\0" in path:
        raise Refused("the %s path holds a NUL byte" % what)
    if path.endswith(os.sep) or path.endswith(os.sep + ".") or path.endswith(os.sep + ".."):
        raise Refused("the %s %s names a folder, not a file" % (what, path))
    named = named_descriptor(path)
    if named is not None and named[0] != os.getpid():
        raise Refused("the %s %s names a descriptor of another process (%d): give a file, or a descriptor of "
                      "this tool's (/dev/stdout, /dev/fd/N)" % (what, path, named[0]))
    descriptor = named[1] if named is not None else None
    if descriptor is not None:
        try:
            os.fstat(descriptor)
            readable_only = fcntl.fcntl(descriptor, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
        except OSError:
            raise Refused("the %s %s names descriptor %d, which is not open" % (what, path, descriptor))
        if descriptor in supervisor.CLOSED_AT_START:
            raise Refused("the %s %s names descriptor %d, which was closed when the tool started"
                          % (what, path, descriptor))
        if readable_only:
            raise Refused("the %s %s names descriptor %d, which is open for reading only" % (what, path, descriptor))
        return Target(path, path, True, None, descriptor=descriptor)
    try:
        st = os.stat(path)           # through links
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise Refused("cannot write the %s %s: %s" % (what, path, e.strerror))
    if st is not None and (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        return Target(path, path, True, None)
    if st is None and os.path.islink(path):
        raise Refused("the %s %s is a link to %s, which does not exist; give the file itself"
                      % (what, path, os.readlink(path)))
    real = os.path.realpath(path)
    shown = path if real == os.path.abspath(path) else "%s (%s)" % (path, real)
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise Refused("the %s %s is a folder, not a file" % (what, shown))
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise Refused("the %s %s is not a regular file" % (what, shown))
    folder = os.path.dirname(real)
    if not os.path.isdir(folder):
        raise Refused("cannot write the %s %s: the folder %s does not exist" % (what, path, folder))
    if ".git" in real.split(os.sep):
        raise Refused("the %s %s is inside a .git folder, which is git's own" % (what, shown))
    for i in inputs:
        if i and os.path.exists(i) and _same(real, i):
            raise Refused("the %s %s is also an input (%s): give another file for the %s" % (what, shown, i, what))
    protected = (is_protected_golden(path) or is_book_golden(real)) and (update_golden or is_golden(real))
    if protected:
        raise Refused("the %s %s is a golden named after a numbered listing or trap (NN_name.txt, "
                      "NN_name.replay.txt): it holds the book's sample output or a trap's, which no tool may change"
                      % (what, shown))
    if delete_policy.made_in_this_run(folder):
        pass   # (a folder this run made: no file of git's or of the user's is in it)
    elif regenerates is not None and generated_by(regenerates, real):
        pass   # (a file this tool draws for the repository: GENERATED)
    elif st is not None and is_tracked(real):
        if not (update_golden and is_golden(real)):
            raise Refused("the %s %s is a file tracked by git in the checkout %s: no tool overwrites it; "
                          "give a path outside the checkout's files (e.g. under build/)"
                          % (what, shown, checkout_of(folder)))
    elif st is None and is_tracked(real):  # deleted from the working tree, still tracked
        raise Refused("the %s %s is a file tracked by git (deleted from the working tree): restore it with "
                      "git checkout, or give another path" % (what, shown))
    elif st is not None and existing_project_file(real) and not (update_golden and is_golden(real)):
        raise Refused("the %s %s is a file of this project (%s), in a copy that git does not track (a download, "
                      "or a folder another repository ignores), where no tool replaces a file it did not make; "
                      "give a path under build/ or outside the project"
                      % (what, shown, project_root_of(real) or os.path.realpath(REPO)))
    mode = stat.S_IMODE(st.st_mode) if st is not None else NEW_FILE_MODE
    return Target(path, real, False, mode)


# ---- writing ------------------------------------------------------------------------------

_temporaries = set()   # temporary files of this process not yet renamed or removed


def _remove_temporaries():
    for tmp in list(_temporaries):
        try:
            os.unlink(tmp)
        except OSError:
            pass
        _temporaries.discard(tmp)


atexit.register(_remove_temporaries)


class Output:
    """A write through the policy: open() makes the temporary file (its
    .file, binary; its .fileno() for a child's stdout), commit() puts it in
    place, and anything else -- an exception, a signal, leaving the `with`
    block -- removes it and leaves the target as it was."""

    def __init__(self, target, recheck=None):
        self.target = target
        self.recheck = recheck   # check() again just before the rename (its keyword arguments)
        self.file = None
        self.tmp = None
        self.committed = False

    def __enter__(self):
        self.open()
        return self

    def __exit__(self, *exc):
        if not self.committed:
            self.discard()

    def fileno(self):
        return self.file.fileno()

    def open(self):
        if self.target.descriptor is not None:   # (as it is: appended where the caller appends, say)
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
            self.file = os.fdopen(os.dup(self.target.descriptor), "wb")
            return self.file
        if self.target.device:
            self.file = open(self.target.real, "wb")
            return self.file
        supervisor.install()
        folder, name = os.path.split(self.target.real)
        with supervisor.deferred():
            fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + name + ".", suffix=".partial")
            _temporaries.add(tmp)
            self.tmp = tmp
        self.file = os.fdopen(fd, "wb")
        return self.file

    def commit(self):
        """Flushes the data to disk and renames the temporary file over the
        target (keeping its mode). Refused when the target became something
        the policy refuses meanwhile."""
        if self.target.device:
            self.file.close()
            self.committed = True
            return
        self.file.flush()
        os.fsync(self.file.fileno())
        os.fchmod(self.file.fileno(), self.target.mode)
        try:
            old = os.stat(self.target.real)
            if os.geteuid() == 0 and (old.st_uid, old.st_gid) != (0, 0):
                os.fchown(self.file.fileno(), old.st_uid, old.st_gid)
        except OSError:
            pass
        self.file.close()
        if self.recheck is not None:
            again = check(self.target.given, **self.recheck)
            if again.real != self.target.real:
                raise Refused("%s changed while it was being written (it now names %s)"
                              % (self.target.given, again.real))
        with supervisor.deferred():
            os.replace(self.tmp, self.target.real)
            _temporaries.discard(self.tmp)
            self.committed = True
        try:
            fd = os.open(os.path.dirname(self.target.real), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError:
            pass

    def discard(self):
        if self.file is not None and not self.file.closed:
            try:
                self.file.close()
            except OSError:
                pass
        if self.tmp is not None and self.tmp in _temporaries:
            try:
                os.unlink(self.tmp)
            except OSError:
                pass
            _temporaries.discard(self.tmp)


def new_file(path, data=None, source=None):
    """A new file in a folder made in this run (delete_policy.made_folder or
    temporary_folder): created with O_EXCL and O_NOFOLLOW, so that it is never
    written over anything, holding data, or a copy of the file `source` (its
    permission bits and times too; a link is copied as a link). No temporary
    file: should the work stop halfway, the tool removes the whole folder it
    made. Refused anywhere else."""
    folder = os.path.dirname(arguments.absolute(path))
    if not delete_policy.made_in_this_run(folder):
        raise Refused("%s is not in a folder made by this tool in this run: a new file is written there only" % path)
    if source is not None and os.path.islink(source):
        os.symlink(os.readlink(source), path)
        return path
    src = None
    if source is not None:   # (opened without waiting, then looked at: a FIFO would wait for a writer forever)
        src = os.open(source, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
        st = os.fstat(src)
        if not stat.S_ISREG(st.st_mode):
            os.close(src)
            raise Refused("%s is not a regular file: it is not copied" % source)
    try:
        mode = stat.S_IMODE(st.st_mode) if source is not None else NEW_FILE_MODE
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "wb") as out:
                if src is not None:
                    while True:
                        chunk = os.read(src, 1 << 20)
                        if not chunk:
                            break
                        out.write(chunk)
                else:
                    out.write(data)
                os.fchmod(out.fileno(), mode)
        except BaseException:
            try:
                os.unlink(path)   # (made just now, with O_EXCL: this tool's own)
            except OSError:
                pass
            raise
    finally:
        if src is not None:
            os.close(src)
    if source is not None:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    return path


def copy_tree(source, dest, ignore=None):
    """A copy of the folder `source` as dest, inside a folder made in this run
    (new_file() for each file: never over anything; links copied as links).
    ignore(folder, names) -> names to leave out, as shutil.copytree takes it.
    Refused anywhere else."""
    dest = arguments.absolute(dest)
    if not (delete_policy.made_in_this_run(dest) or delete_policy.made_in_this_run(os.path.dirname(dest))):
        raise Refused("%s is not in a folder made by this tool in this run: a copy is made there only" % dest)
    for root, dirs, files in os.walk(source):
        skipped = set(ignore(root, dirs + files)) if ignore else set()
        dirs[:] = sorted(d for d in dirs if d not in skipped and not os.path.islink(os.path.join(root, d)))
        target = os.path.join(dest, os.path.relpath(root, source))
        os.makedirs(target, exist_ok=True)   # (inside the folder made in this run: its own)
        for name in sorted(files) + sorted(d for d in os.listdir(root) if os.path.islink(os.path.join(root, d))
                                           and os.path.isdir(os.path.join(root, d)) and d not in skipped):
            if name in skipped:
                continue
            new_file(os.path.join(target, name), source=os.path.join(root, name))
    return dest


def write_bytes(path, data, **check_args):
    """check(path, **check_args), then the data written through a temporary
    file. Returns the Target; raises Refused or OSError."""
    target = check(path, **check_args)
    with Output(target, recheck=check_args) as out:
        out.file.write(data)
        out.commit()
    return target


def write_all(files, regenerates=None, inputs=()):
    """Writes every (path, bytes) of files, each through the policy, once
    every one of them has been checked: one refused path and nothing is
    written. Returns the Targets; raises Refused (or OSError)."""
    targets = [check(path, inputs=inputs, regenerates=regenerates) for path, _ in files]
    for target, (_, data) in zip(targets, files):
        with Output(target, recheck={"inputs": inputs, "regenerates": regenerates}) as out:
            out.file.write(data)
            out.commit()
    return targets


def _command(argv):
    import json
    ap = arguments.Parser(prog="write_policy.py", description="May these paths be written? (check), or write "
                          "them (write: a JSON list of [path, text] pairs on stdin, every path checked first)")
    ap.add_argument("verb", choices=["check", "write"])
    ap.add_argument("--input", action="append", default=[], help="a file the tool reads (repeatable)")
    ap.add_argument("--what", default="output", help="what the path is, for the message")
    ap.add_argument("--regenerates", choices=sorted(GENERATED), help="write: the tool whose drawn files these are")
    ap.add_argument("paths", nargs="*")
    a = ap.parse_args(argv)
    if a.verb == "check":
        if not a.paths:
            ap.error("check: give the paths to check")
        refused = 0
        for p in a.paths:
            try:
                check(p, inputs=a.input, what=a.what)
            except Refused as e:
                print("refused: %s" % e, file=sys.stderr)
                refused += 1
        return 2 if refused else 0
    if a.paths:
        ap.error("write: the paths come on stdin, with their text")
    try:
        pairs = json.loads(sys.stdin.buffer.read().decode("utf-8"))
        if not isinstance(pairs, list) or not all(isinstance(x, list) and len(x) == 2 and all(isinstance(y, str)
                                                                                          for y in x) for x in pairs):
            raise ValueError("not a list of [path, text] pairs")
    except ValueError as e:
        print("write_policy.py: write: stdin holds no JSON list of [path, text] pairs (%s)" % e, file=sys.stderr)
        return 2
    refused = []
    for path, _ in pairs:
        try:
            check(path, inputs=a.input, what=a.what, regenerates=a.regenerates)
        except Refused as e:
            refused.append(str(e))
    if refused:
        for line in refused:
            print("refused: %s" % line, file=sys.stderr)
        print("write_policy.py: nothing was written", file=sys.stderr)
        return 2
    try:
        write_all([(p, t.encode("utf-8")) for p, t in pairs], regenerates=a.regenerates, inputs=a.input)
    except (Refused, OSError) as e:
        print("write_policy.py: %s" % (getattr(e, "strerror", None) or e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(supervisor.main(lambda: _command(sys.argv[1:]), "write_policy.py"))
