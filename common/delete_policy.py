#!/usr/bin/env python3
"""The one delete policy: every file or folder a tool of this companion
deletes is deleted here (common/README.md states the rules).

A tool deletes only
  * what it created in this run (made_folder(), temporary_folder(); the
    files a tool writes in such a folder are its own: write_policy.new_file),
    or
  * a scratch folder that it created in an earlier run and that still holds
    its marker: a regular file (never a link) recording the folder's own
    identity -- its real path, device and inode -- and the tool's name. A
    copy of the folder, a folder moved elsewhere, or a marker linked or
    copied in from elsewhere does not count.
Anything else in the way is refused (Refused: why, and what to do), and
nothing is deleted.

    scratch = delete_policy.Scratch("build/standalone/58", tool="standalone_build", marker=".standalone_build")
    scratch.fresh("ch12")          # deletes scratch/ch12 (if this tool made it) and makes it again
    profile = delete_policy.temporary_folder("ch12-web-chromium-")
    delete_policy.remove(profile)  # made in this run: removed (also at exit, and on a signal)

As a command, for the shell scripts, which keep to the same rules:

    python3 common/delete_policy.py make-scratch   --tool NAME --marker FILE PATH
    python3 common/delete_policy.py remove-scratch --tool NAME --marker FILE PATH

exit 0 when done, 2 with one line when refused.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import atexit
import json
import shutil
import stat
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arguments  # noqa: E402  (absolute(): paths as the system follows them)


class Refused(Exception):
    """The policy refuses the deletion: the message says why and what to do."""


_made = []        # folders created in this run: this tool may delete them
_temporary = []   # of those, the ones removed at exit


def _remove_tree(path):
    """shutil.rmtree, which never follows a link inside the folder."""
    def retry(function, p, exc):
        if isinstance(exc[1], FileNotFoundError):
            return
        raise exc[1]
    shutil.rmtree(path, onerror=retry)


def made_folder(path, unfinished=False):
    """Makes the folder path (its parent must exist; path must not): made in
    this run, so this tool may delete it. unfinished: the folder is removed
    at exit -- an error, an exception, a signal -- unless finished(path) says
    that the work in it was done (a handout half copied is not left behind)."""
    supervisor.install()
    with supervisor.deferred():
        os.mkdir(path)
        _made.append(os.path.realpath(path))
        if unfinished:
            _temporary.append(os.path.realpath(path))
    return path


def finished(path):
    """The folder made with made_folder(path, unfinished=True) is done: it
    stays at exit."""
    real = os.path.realpath(path)
    with supervisor.deferred():
        if real in _temporary:
            _temporary.remove(real)


def temporary_folder(prefix):
    """A new folder in the system's temporary folder, removed at exit (and on
    a signal, through the supervisor) unless remove()d earlier."""
    supervisor.install()
    with supervisor.deferred():
        path = tempfile.mkdtemp(prefix=prefix)
        _made.append(os.path.realpath(path))
        _temporary.append(os.path.realpath(path))
    return path


def made_in_this_run(path):
    """True when path is, or is inside, a folder made in this run (made_folder,
    temporary_folder) and not removed since: nothing in it is anyone else's."""
    real = os.path.realpath(path)
    return any(real == m or real.startswith(m + os.sep) for m in _made)


def remove(path):
    """Removes a folder made in this run (made_folder, temporary_folder). A
    signal that arrives meanwhile waits until it is done (no folder is left
    half removed by the tool's own interrupt)."""
    real = os.path.realpath(path)
    if real not in _made:
        raise Refused("%s was not made by this tool in this run: it is not deleted" % path)
    supervisor.install()
    with supervisor.deferred():
        if os.path.lexists(path):
            _remove_tree(real)
        _made.remove(real)
        if real in _temporary:
            _temporary.remove(real)


def _remove_temporary_at_exit():
    supervisor.stop_all()   # first what may still be using them (a browser and its profile)
    for real in reversed(list(_temporary)):
        try:
            _remove_tree(real)
        except OSError:
            pass
        if real in _made:
            _made.remove(real)
    del _temporary[:]


atexit.register(_remove_temporary_at_exit)


# ---- scratch folders with a marker ------------------------------------------------------------

def _identity(path):
    st = os.lstat(path)
    return {"folder": os.path.realpath(path), "device": st.st_dev, "inode": st.st_ino}


def read_marker(folder, marker):
    """The marker's record, or None when there is no valid one (absent, a
    link, not a regular file, unreadable, not ours)."""
    path = os.path.join(folder, marker)
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as f:
            record = json.loads(f.read(4096).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return record if isinstance(record, dict) else None


def marked_by(folder, tool, marker):
    """True when folder is a real folder (not a link) whose marker is a
    regular file recording this very folder and this tool."""
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        return False
    record = read_marker(folder, marker)
    return record is not None and record.get("tool") == tool and \
        {k: record.get(k) for k in ("folder", "device", "inode")} == _identity(folder)


def _write_marker(folder, tool, marker):
    record = dict(_identity(folder), tool=tool)
    record["note"] = ("made by %s, which deletes this folder (or what it made in it) only while this file, "
                      "a regular file, names the folder it is in" % tool)
    fd = os.open(os.path.join(folder, marker), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(record) + "\n")


class Scratch:
    """A scratch folder of `tool`: made if missing (or taken if it is empty),
    marked, and otherwise accepted only with a valid marker of this tool."""

    def __init__(self, path, tool, marker, legacy=None):
        """legacy: (the text of the marker that the tool wrote before markers
        recorded the folder, the entries such a folder may hold): a folder
        holding exactly that -- the marker a regular file -- gets the new marker."""
        self.path = arguments.absolute(_as_named(path))   # ('link/../x': beside the link's target)
        self.tool, self.marker = tool, _plain_marker(marker)
        if legacy is not None:
            self._upgrade(*legacy)
        if os.path.islink(self.path):
            raise Refused("%s is a link (to %s): give the scratch folder itself" % (path, os.readlink(self.path)))
        if not os.path.lexists(self.path):
            try:
                os.makedirs(self.path)
            except OSError as e:
                raise Refused("cannot make the scratch folder %s: %s" % (path, e.strerror))
            _write_marker(self.path, tool, marker)
            return
        if not os.path.isdir(self.path):
            raise Refused("%s is not a folder" % path)
        try:
            entries = os.listdir(self.path)
        except OSError as e:
            raise Refused("cannot read the folder %s: %s" % (path, e.strerror))
        if not entries:
            try:
                _write_marker(self.path, tool, marker)
            except OSError as e:
                raise Refused("cannot write in the folder %s: %s" % (path, e.strerror))
            return
        if not marked_by(self.path, tool, marker):
            why = "its marker %s is a link or not this tool's" % marker if os.path.lexists(
                os.path.join(self.path, marker)) else "it has no marker %s" % marker
            raise Refused("%s holds files that %s did not put there (%s: %s); give an empty or new folder, "
                          "or move those files away" % (path, tool, ", ".join(sorted(entries)[:4])
                                                        + (", ..." if len(entries) > 4 else ""), why))

    def _upgrade(self, text, entries):
        marker = os.path.join(self.path, self.marker)
        try:
            if os.path.islink(self.path) or not os.path.isdir(self.path):
                return
            st = os.lstat(marker)
            if not stat.S_ISREG(st.st_mode) or st.st_size > 4096:
                return
            if not set(os.listdir(self.path)) <= set(entries) | {self.marker}:
                return
            fd = os.open(marker, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as f:
                if f.read().decode("utf-8", "replace") != text:
                    return
            os.unlink(marker)
            _write_marker(self.path, self.tool, self.marker)
        except OSError:
            return

    def clear(self, name, made=None):
        """Deletes name in the scratch folder (what this tool made there).
        made: the paths, relative to name, that this tool puts in it: a folder
        that holds anything else (a file a user added later) is refused, and
        nothing is deleted."""
        if os.sep in name or name in ("", ".", "..", self.marker):
            raise Refused("%r is not an entry of the scratch folder" % name)
        path = os.path.join(self.path, name)
        if not os.path.lexists(path):
            return
        if os.path.islink(path):
            raise Refused("%s is a link, which %s did not make: remove it yourself" % (path, self.tool))
        if made is not None and os.path.isdir(path):
            others = []
            for root, dirs, files in os.walk(path):
                for n in dirs + files:
                    rel = os.path.relpath(os.path.join(root, n), path)
                    if rel not in made:
                        others.append(rel)
            if others:
                raise Refused("%s holds %s, which %s did not put there: nothing was deleted; move %s away"
                              % (path, ", ".join(sorted(others)[:4]) + (", ..." if len(others) > 4 else ""),
                                 self.tool, "it" if len(others) == 1 else "them"))
        if os.path.isdir(path):
            _remove_tree(path)
        else:
            os.unlink(path)

    def fresh(self, name, made=None):
        """name in the scratch folder, deleted (clear(name, made)) and made
        again, empty."""
        self.clear(name, made)
        return made_folder(os.path.join(self.path, name))


def _plain_marker(marker):
    """A marker is a file's name in the folder: no folder of its own, no '..'."""
    if not marker or os.sep in marker or marker in (os.curdir, os.pardir) or "\0" in marker:
        raise Refused("the marker %r is not a plain file name (it is written inside the folder, nowhere else)"
                      % marker)
    return marker


def _as_named(path):
    """path without its trailing slashes ('link/' is the link itself, which
    the refusals below judge; the system would follow it)."""
    stripped = os.fspath(path).rstrip(os.sep)
    return stripped or os.sep


def remove_scratch(path, tool, marker):
    """Deletes the scratch folder path, made by tool in an earlier run (or
    empty). Returns False when there was nothing; raises Refused otherwise."""
    _plain_marker(marker)
    path = _as_named(path)
    if not os.path.lexists(path):
        return False
    if os.path.islink(path):
        raise Refused("%s is a link (to %s): it is not deleted" % (path, os.readlink(path)))
    if not os.path.isdir(path):
        raise Refused("%s is not a folder: it is not deleted" % path)
    if os.listdir(path) and not marked_by(path, tool, marker):
        raise Refused("%s was not made by %s (it holds no valid marker %s): it is not deleted; move it away "
                      "or delete it yourself" % (path, tool, marker))
    _remove_tree(path)
    return True


def _command(argv):
    ap = arguments.Parser(prog="delete_policy.py")
    ap.add_argument("verb", choices=["make-scratch", "remove-scratch"])
    ap.add_argument("--tool", required=True)
    ap.add_argument("--marker", required=True)
    ap.add_argument("path")
    a = ap.parse_args(argv)
    try:
        if a.verb == "make-scratch":
            Scratch(a.path, a.tool, a.marker)
        else:
            remove_scratch(a.path, a.tool, a.marker)
    except Refused as e:
        print("%s: refused: %s" % (a.tool, e), file=sys.stderr)
        return 2
    except OSError as e:
        print("%s: cannot %s %s: %s" % (a.tool, a.verb.replace("-", " "), a.path, e.strerror), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(supervisor.main(lambda: _command(sys.argv[1:]), "delete_policy.py"))
