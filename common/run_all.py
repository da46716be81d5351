#!/usr/bin/env python3
"""The engine of run_all.sh (./run_all.sh --help says what it does).

It runs the rows of the program table that CMake exports, <build>/ch12_programs.json:
each row's check is the finished command of its CTest test, arguments as a
list, and a row runs exactly that (with --show added, so that the program's
output is seen). Nothing about a check is re-derived here.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import fcntl
import hashlib
import json
import platform
import re
import shutil
import subprocess
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arguments  # noqa: E402  (paths: not empty, no NUL)
import delete_policy  # noqa: E402  (the handout's folder: made in this run, removed if the run does not finish)
import write_policy  # noqa: E402  (--json's file; the handout's files)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
NAME = "run_all.sh"

USAGE = """\
Usage: ./run_all.sh [--quiet] [--traps] [--web] [--exercises] [--json FILE]
                    [--no-build] [PROGRAM...]
       ./run_all.sh --handout FOLDER

Configures the build if needed, then builds and runs the Chapter 12 programs
one by one -- 58 to 63, then the extras that belong in a class (the chapter's
claims checked, the GLSL shader) -- each under a header with its book
section, checks each against its golden file in expected_output/, and ends
with a summary table. Only what it runs is built.

  PROGRAM      a program number (58 ... 63), an extra's id (claims,
               per_element, glsl), an exercise's (ex1 ... ex5), or the
               name of a program in those rows (59_bitonic_split_kernel);
               default: the six lessons, claims and glsl (per_element, whose
               first build takes a minute, runs when named; the other
               extras, sort, tree and multi_gpu, run through ctest: README.md)
  --quiet      print only the summary table, and what each FAIL printed
               (its difference from the golden, or its build errors)
  --traps      also run each COMMON TRAP right after its program; a trap
               passes when it fails as it must (MISMATCH, exit 1); its note
               says where that differs from the book (ch12/ERRATA.md)
  --web        also run 59, 61 and 63 as the web page computes them (WebGPU
               in headless Chromium, through ch12/web/tests/page_output.py),
               checked against the same goldens; needs chromium and
               chromedriver, else those rows are SKIP and say how to get them
  --exercises  run the exercises (ch12/exercises/): each starter -- TODO with
               what its check said, until you have done it -- and its
               reference solution; with PROGRAMs, as well as those. A kernel
               exercise has two rows: on the GPU, and "(sim)", in the block
               simulator on the CPU (no GPU, no nvcc needed)
  --json FILE  also write each result as JSON to FILE (for grading: per
               exercise TODO / PASS / FAIL, its message, its time and the
               version of its check; the file is replaced at the end)
  --handout FOLDER
               make the student handout in FOLDER (a new folder): this
               checkout without the reference solutions and ANSWERS.md, each
               exercise's starter as shipped; it builds, and its
               ./run_all.sh --exercises shows every exercise as TODO
  --no-build   use the existing build: build and configure nothing
  --help       this text

Each GPU program's row says PASS, FAIL or SKIP; SKIP means no usable GPU here,
or CUDA not configured in this build (the row says how to fix it). A program
with the book's CPU replay (59, 61, 63) gets a second row, "(replay)", run
with --replay on the CPU: it needs no GPU, but it is built by nvcc like every
.cu file (so without nvcc it is a SKIP too), and it never counts as a GPU
pass. A program that this build should have made and did not is a FAIL.

Each row runs exactly the command of its CTest test, as the build exported
it (ch12_programs.json in the build folder). Exit status: 0 when nothing
FAILed, 1 otherwise, 2 for a bad argument or an unknown program (a name is
looked up in that table, once the build is configured: nothing is built or
run for a bad one), 128 + the signal when interrupted by SIGINT (130),
SIGTERM (143), SIGHUP (129: the terminal was closed) or SIGQUIT (131): what
was running, and all it started, is stopped first.

Environment: CH12_BUILD_DIR -- the build folder to configure, build and run
(default: build/ next to this script; a relative path is taken from the
current folder). One run_all.sh at a time builds in a build folder: another
one waits for it, and says so.
"""

class Failure(Exception):
    """A reason to stop, with the exit status and the message."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


def say_err(text):
    sys.stderr.write("%s: %s\n" % (NAME, text))
    sys.stderr.flush()


# ---- the build folder --------------------------------------------------------------------

def cache_source_dir(build_dir):
    """The source folder a build was configured for (its CMakeCache.txt), or None."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("CMAKE_HOME_DIRECTORY:"):
                    return line.split("=", 1)[1].rstrip("\n")
    except OSError:
        return None
    return None


def same_folder(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_build_belongs_here(build_dir, table=None):
    source = cache_source_dir(build_dir)
    if source is None and table is not None:
        source = table.get("source_dir")
    if source is None or same_folder(source, REPO):
        return
    gone = "" if os.path.isdir(source) else " (a folder that no longer exists: was the checkout moved?)"
    raise Failure(
        "the build folder %s was configured for the source in %s%s, not for this checkout (%s): "
        "its programs would be built from that source and checked against its goldens.\n"
        "  To use this checkout, remove that build folder and run again:  rm -rf '%s'\n"
        "  or give this checkout a build folder of its own:  CH12_BUILD_DIR=<new folder> %s/run_all.sh"
        % (build_dir, source, gone, REPO, build_dir.replace("'", "'\\''"), REPO))


class BuildLock:
    """One run_all.sh at a time builds in a build folder (an exclusive lock on
    <build>/.run_all.lock); --no-build runs share it. Released at exit."""

    def __init__(self, build_dir, exclusive):
        self.path = os.path.join(build_dir, ".run_all.lock")
        self.exclusive = exclusive
        self.fd = None

    def __enter__(self):
        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            if self.exclusive:
                raise Failure("cannot make the lock %s in the build folder: %s" % (self.path, e.strerror))
            return self  # a build folder this user cannot write to: nobody builds in it through us
        mode = fcntl.LOCK_EX if self.exclusive else fcntl.LOCK_SH
        try:
            fcntl.flock(self.fd, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            say_err("waiting: another run_all.sh is using the build folder %s (the lock %s); "
                    "this one goes on when that one ends" % (os.path.dirname(self.path), self.path))
            fcntl.flock(self.fd, mode)
            say_err("the other run_all.sh has ended: going on")
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)


# ---- running a child in its own process group ---------------------------------------------

class Children:
    """The one child running now, through common/supervisor.py: on an
    interrupt it is asked to stop (SIGTERM: compare_output.py then stops the
    program under test), and it and all it started are killed if they have
    not within 10 s."""
    current = None

    @classmethod
    def run(cls, argv, cwd=None, capture=True):
        proc = supervisor.start(argv, cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE if capture else None,
                                stderr=subprocess.STDOUT if capture else None)
        cls.current = proc   # stop() needs it if an interrupt comes
        out, _ = proc.communicate()
        supervisor.stop(proc)
        cls.current = None
        return proc.returncode, (out or b"").decode("utf-8", errors="backslashreplace")

    @classmethod
    def stop(cls):
        supervisor.stop_all()


# ---- the run ----------------------------------------------------------------------------

class Runner:
    def __init__(self, opts, build_dir):
        self.opts = opts
        self.build_dir = build_dir
        self.table_path = os.path.join(build_dir, "ch12_programs.json")
        self.table = None
        self.table_mtime = None
        self.rows = []       # summary rows: (label, section, kind, status, note, seconds)
        self.results = []    # the same rows, with what --json writes
        self.failures = []   # (label, what it printed): shown by --quiet
        self.failed = False
        tty = sys.stdout.isatty()
        self.bold, self.reset = ("\033[1m", "\033[0m") if tty else ("", "")
        self.colour = {"PASS": "\033[32m", "FAIL": "\033[31m"} if tty else {}
        self.other = "\033[33m" if tty else ""

    def say(self, text=""):
        if not self.opts["quiet"]:
            print(text, flush=True)

    def load_table(self):
        try:
            mtime = os.stat(self.table_path).st_mtime_ns
        except OSError:
            raise Failure("no build in %s (no ch12_programs.json there): run without --no-build, "
                          "or point CH12_BUILD_DIR at a configured build" % self.build_dir)
        if mtime != self.table_mtime:
            try:
                with open(self.table_path, encoding="utf-8") as f:
                    self.table = json.load(f)
            except (OSError, ValueError) as e:
                raise Failure("cannot read %s: %s (configure the build again: cmake -S '%s' -B '%s')"
                              % (self.table_path, e, REPO, self.build_dir))
            check_table_shape(self.table, self.table_path)
            self.table_mtime = mtime
        return self.table

    def row(self, name):
        for r in self.load_table()["rows"]:
            if r["name"] == name:
                return r
        return None

    # -- configure and build
    def configure(self):
        need("cmake", "CMake 3.25 or newer (https://cmake.org, or 'apt-get install cmake')")
        if not any(shutil.which(c) for c in ("c++", "g++", "clang++")):
            raise Failure("no C++ compiler was found. Please install a C++17 compiler (e.g. 'apt-get install g++').")
        check_build_belongs_here(self.build_dir)
        if os.path.isfile(os.path.join(self.build_dir, "CMakeCache.txt")) and os.path.isfile(self.table_path):
            # Declarations edited since (an exercise's starter, say) are read
            # again by this cheap build, which runs CMake when they changed.
            rc, out = Children.run(["cmake", "--build", self.build_dir, "--target", "ch12_table"], cwd=REPO)
            if rc != 0:
                raise Failure("cmake --build %s --target ch12_table failed:\n%s" % (self.build_dir, out))
            return
        self.check_cmake_for_presets()
        self.say("%sConfiguring (cmake --preset default -B %s)...%s" % (self.bold, self.build_dir, self.reset))
        rc, out = Children.run(["cmake", "--preset", "default", "-B", self.build_dir], cwd=REPO)
        if rc != 0:
            sys.stderr.write(out)
            raise Failure("configure failed (cmake --preset default -B %s): its messages are above" % self.build_dir)

    def check_cmake_for_presets(self):
        """The configure step uses CMakePresets.json, which an older CMake cannot
        read: say which version it is and what to do, before it fails in its own
        words."""
        want = presets_cmake_version()
        rc, out = Children.run(["cmake", "--version"], cwd=REPO)
        m = re.search(r"cmake version (\d+)\.(\d+)", out)
        if rc == 0 and m and (int(m.group(1)), int(m.group(2))) >= want:
            return
        have = "CMake %s.%s" % (m.group(1), m.group(2)) if m else "this cmake ('cmake --version' printed %r)" % out.strip()
        raise Failure("%s is too old: run_all.sh configures the build with CMake's presets (CMakePresets.json), "
                      "which need CMake %d.%d or newer. Install a newer CMake (https://cmake.org/download, or "
                      "'python3 -m pip install cmake'), or configure the build yourself (CMake 3.22 is enough): "
                      "cmake -S '%s' -B '%s' -DCMAKE_BUILD_TYPE=Release, then run run_all.sh again."
                      % (have, want[0], want[1], REPO, self.build_dir))

    def build(self, target):
        rc, out = Children.run(["cmake", "--build", self.build_dir, "--target", target], cwd=REPO)
        return rc == 0, out

    # -- one run of one row
    def run_one(self, label, row, mode):
        shown_kind = {"replay": "CPU", "web": "WEB", "sim": "SIM"}.get(mode, row["kind"])
        self.say()
        self.say("%s==== %s  Section %s (%s): %s ====%s"
                 % (self.bold, label, row["section"], shown_kind, row["what"], self.reset))
        start = time.monotonic()
        status, note, printed = self.check(row, mode)
        seconds = time.monotonic() - start
        if status == "FAIL":
            self.failed = True
            self.failures.append((label, printed))
        self.rows.append((label, row["section"], shown_kind, status, note, seconds))
        self.results.append({"label": label, "id": row["id"], "name": row["name"], "group": row["group"],
                             "mode": mode, "kind": shown_kind, "section": row["section"], "result": status,
                             "note": note or "", "message": self.verdict_line(printed) or self.expected_verdict(row, status)
                             or note or "",
                             "seconds": round(seconds, 3), "check_version": row.get("check_version") or None})

    def check(self, row, mode):
        """Builds what the row needs and runs its check: (status, note, what it printed)."""
        target, own = None, False
        for r in row["runs"]:  # this run's program (an exercise's GPU and simulator runs have one each)
            if r["mode"] == mode:
                target, own = r["record"].get("target"), True
        for r in row["runs"]:
            if not own:
                target = target or r["record"].get("target")
        if target and self.opts["build"]:
            ok, out = self.build(target)
            if not ok:
                self.say(out.rstrip("\n"))
                return "FAIL", "did not build (%s)" % self.see("the compiler's messages"), out
            row = self.row(row["name"]) or row   # the build may have configured again
        record = None
        for r in row["runs"]:
            if r["mode"] == mode:
                record = r["record"]
        if record is None:
            return "FAIL", "no %s check in the table" % mode, ""
        if record.get("unbuilt"):
            reason = record["unbuilt"]
            self.say("%s: %s" % (row["name"], reason))
            return "SKIP", re.sub(r"^[^ :]+: ", "", reason), ""
        program = record["program"]
        if record.get("target") and not os.access(program[0], os.X_OK):
            return "FAIL", "not built: %s is missing (build it, or drop --no-build)" % program[0], ""
        if not all(record.get(k) is not None for k in ("compare", "check", "args")) or not record["compare"]:
            return "FAIL", "the table holds no check for it (configure the build again)", ""
        compare = record["compare"]
        # An exercise's output is always captured: its verdict is what --json records.
        show = not self.opts["quiet"] or row["group"] == "exercise"
        argv = compare + (["--show"] if show else []) + record["check"] + ["--"] + program + record["args"]
        rc, out = Children.run(argv, cwd=REPO)
        self.say(out.rstrip("\n"))
        if rc == 0:
            return "PASS", self.pass_note(row, mode, out), out
        if rc == 77:
            skipped = [l[len("SKIPPED: "):] for l in out.splitlines() if l.startswith("SKIPPED: ")]
            reason = skipped[-1] if skipped else "the program says it cannot run here (exit 77)"
            return "SKIP", re.sub(r"^.*?: skipped: ", "", reason), out
        not_yet = self.not_yet_line(out)
        if not_yet:
            return "FAIL", "%s (%s)" % (not_yet, self.see("its check's output")), out
        return "FAIL", "differs from its golden or exited unexpectedly (%s)" % self.see("the difference"), out

    def see(self, what):
        return "%s: printed above" % what if not self.opts["quiet"] else "%s: printed below the table" % what

    @staticmethod
    def not_yet_line(out):
        for line in out.splitlines():
            if "NOT YET" in line:
                return line.strip()
        return None

    @staticmethod
    def verdict_line(out):
        """An exercise's first NOT YET line, else its PASS line (None for other programs)."""
        lines = [l.strip() for l in out.splitlines()]
        for line in lines:
            if re.match(r"check \d+, .*: NOT YET -- ", line):
                return line
        for line in lines:
            if re.match(r"exercise \d+: (PASS|NOT YET) -- ", line):
                return line
        return None

    @staticmethod
    def expected_verdict(row, status):
        """An exercise's PASS line, when it passed without showing its output (--quiet)."""
        if row["group"] == "exercise" and status == "PASS" and not row.get("starter_as_shipped"):
            return next((l for l in row.get("expect_lines") or [] if re.match(r"exercise \d+: PASS -- ", l)), None)
        return None

    def pass_note(self, row, mode, out):
        if row.get("starter_as_shipped"):
            return None  # the caller turns it into TODO
        if row["group"] == "trap":
            if row.get("errata"):
                return ("failed as it must (MISMATCH, exit 1), not quite as the book says: ch12/ERRATA.md, entry %s"
                        % row["errata"])
            return "failed as the book says (MISMATCH, exit 1)"
        if mode == "replay":
            if row["group"] in ("lesson", "trap"):
                return "the book's CPU replay; no GPU used"
            return "a CPU replay (a host loop plays the kernels' threads); no GPU used"
        if mode == "sim":
            return "the block simulator: every thread on the CPU, races checked; no GPU used"
        if mode == "web":
            return "the page's output, checked against the same golden"
        return ""

    def run_row(self, label, row, mode):
        self.run_one(label, row, mode)
        if row.get("starter_as_shipped") and self.rows[-1][3] == "PASS":
            # As shipped, a starter's check says NOT YET: that is what passed.
            l, section, kind, _, _, seconds = self.rows[-1]
            said = (row.get("expect_lines") or [""])[0]
            self.rows[-1] = (l, section, kind, "TODO",
                             "your exercise, as shipped -- its check said: %s" % said, seconds)
            self.results[-1].update(result="TODO", note=self.rows[-1][4], message=said)

    def summary(self):
        print()
        print("%sSummary%s" % (self.bold, self.reset))
        print("%-20s %-8s %-6s %-6s %8s  %s" % ("program", "section", "kind", "result", "time(s)", "note"))
        for label, section, kind, status, note, seconds in self.rows:
            c = self.colour.get(status, self.other)
            print("%-20s %-8s %-6s %s%-6s%s %8.2f  %s"
                  % (label, section, kind, c, status, self.reset if c else "", seconds, note or ""))
        if self.opts["quiet"] and self.failures:
            for label, printed in self.failures:
                print()
                print("%s---- %s: FAIL ----%s" % (self.bold, label, self.reset))
                print(printed.rstrip("\n") or "(it printed nothing)")
        sys.stdout.flush()


def presets_cmake_version():
    """The CMake that CMakePresets.json asks for, as (major, minor)."""
    try:
        with open(os.path.join(REPO, "CMakePresets.json"), encoding="utf-8") as f:
            v = json.load(f)["cmakeMinimumRequired"]
        return int(v["major"]), int(v["minor"])
    except (OSError, ValueError, KeyError, TypeError):
        return 3, 25


def need(command, what):
    if shutil.which(command) is None:
        raise Failure("'%s' was not found. Please install %s." % (command, what))


def select(table, opts):
    """The runs, in order: (label, row, mode)."""
    rows = table["rows"]
    wanted = opts["names"]
    named = lambda r: r["id"] in wanted or r["name"] in wanted
    default = not wanted and not opts["exercises"]
    runs = []
    for r in rows:
        if r["group"] in ("trap", "web"):
            continue
        selected = named(r) or (opts["exercises"] and r["group"] == "exercise") or \
            (default and r["group"] in ("lesson", "extra") and r.get("by_default", True))
        if selected:
            for run in r["runs"]:
                runs.append((r["id"] if run["mode"] == "run" else "%s (%s)" % (r["id"], run["mode"]), r, run["mode"]))
        for group, flag in (("web", "web"), ("trap", "traps")):
            for t in rows:
                if t["group"] == group and t["of"] == r["id"] and ((opts[flag] and selected) or named(t)):
                    for run in t["runs"]:
                        label = t["id"] if run["mode"] == "run" else "%s (%s)" % (t["id"], run["mode"])
                        if group == "web":
                            label = "%s (web)" % r["id"]
                        runs.append((label, t, run["mode"]))
    return runs


def parse(argv):
    opts = {"quiet": False, "traps": False, "web": False, "exercises": False, "build": True, "names": [],
            "json": None, "handout": None}
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("-h", "--help"):
            sys.stdout.write(USAGE)
            sys.exit(0)
        elif arg in ("-q", "--quiet"):
            opts["quiet"] = True
        elif arg == "--traps":
            opts["traps"] = True
        elif arg == "--web":
            opts["web"] = True
        elif arg == "--exercises":
            opts["exercises"] = True
        elif arg == "--no-build":
            opts["build"] = False
        elif arg.split("=", 1)[0] in ("--json", "--handout"):
            key = arg.split("=", 1)[0]
            if "=" in arg:
                value = arg.split("=", 1)[1]
            elif args:
                value = args.pop(0)
            else:
                bad_argument("option '%s' needs a value (%s)" % (key, "a file" if key == "--json" else "a folder"))
            if opts[key[2:]] is not None:
                bad_argument("option '%s' was given twice" % key)
            try:
                arguments.path(value)
            except arguments.ArgumentTypeError as e:
                bad_argument("option '%s' %s" % (key, e))
            opts[key[2:]] = value
        elif arg.startswith("-"):
            bad_argument("unknown option '%s'" % arg)
        else:
            opts["names"].append(arg)
    if opts["json"] is not None:
        path = arguments.absolute(opts["json"])   # ('link/../x': beside the link's target)
        if os.path.isdir(path):
            bad_argument("--json %s is a folder: give the file to write" % opts["json"])
        if not os.path.isdir(os.path.dirname(path)):
            bad_argument("--json %s: the folder %s does not exist" % (opts["json"], os.path.dirname(path)))
        opts["json"] = path   # (checked by the write rule in main(), with the build's files as inputs)
    if opts["handout"] is not None:
        path = arguments.absolute(opts["handout"])   # ('link/../x': beside the link's target)
        others = opts["names"] or opts["exercises"] or opts["traps"] or opts["web"] or opts["json"]
        if others:
            bad_argument("--handout makes the handout and runs nothing: give it without programs, "
                         "--exercises, --traps, --web or --json")
        if os.path.lexists(path):
            bad_argument("--handout %s already exists: give a new folder (nothing is written into, or over, "
                         "an existing one)" % opts["handout"])
        if not os.path.isdir(os.path.dirname(path)):
            bad_argument("--handout %s: the folder %s does not exist" % (opts["handout"], os.path.dirname(path)))
        parent, repo = os.path.realpath(os.path.dirname(path)), os.path.realpath(REPO)
        if parent == repo or parent.startswith(repo + os.sep):   # (through links too)
            bad_argument("--handout %s is inside this checkout: give a folder outside it" % opts["handout"])
        opts["handout"] = path
    return opts


def bad_argument(problem):
    say_err(problem)
    sys.stderr.write(USAGE)
    sys.exit(2)


def check_names(names, known):
    for w in names:
        if w not in known:
            bad_argument("no program '%s' (try 58 ... 63, claims, per_element, glsl, ex1 ... ex5, "
                         "or the name of a program in those rows)" % w)


def check_table_shape(table, path):
    """A table of the shape this run_all.sh reads, or a Failure saying so."""
    def wrong(what):
        raise Failure("the table %s is not one this run_all.sh can read (%s): configure the build again "
                      "(cmake -S '%s' -B '%s')" % (path, what, REPO, os.path.dirname(path)))
    if not isinstance(table, dict) or not isinstance(table.get("rows"), list):
        wrong("it holds no list of rows")
    for i, r in enumerate(table["rows"]):
        if not isinstance(r, dict):
            wrong("row %d is not an object" % i)
        for key in ("id", "name", "section", "kind", "group", "what"):
            if not isinstance(r.get(key), str):
                wrong("row %d has no text %r" % (i, key))
        if not isinstance(r.get("runs"), list) or not r["runs"]:
            wrong("row %s has no runs" % r["name"])
        for run in r["runs"]:
            record = run.get("record") if isinstance(run, dict) else None
            if not isinstance(record, dict) or not isinstance(run.get("mode"), str):
                wrong("a run of row %s has no mode and record" % r["name"])
            if record.get("unbuilt") is not None:
                if not isinstance(record["unbuilt"], str):
                    wrong("a run of row %s has an 'unbuilt' that is not text" % r["name"])
                continue  # not built: nothing of it runs
            for key in ("program", "compare", "check", "args"):
                if key not in record and key != "program":
                    continue  # (a record without its check is a FAIL of its row, said when it runs)
                if not isinstance(record.get(key), list) or not all(isinstance(x, str) for x in record[key]):
                    wrong("a run of row %s has no list %r" % (r["name"], key))
            if not record["program"]:
                wrong("a run of row %s has an empty program" % r["name"])


# ---- what --json writes ---------------------------------------------------------------------

def exercise_results(results):
    """One entry per exercise (and per reference solution) run: its rows
    (the GPU's, the simulator's) folded into one result. FAIL if any row
    failed; else TODO if any said TODO; else PASS if any passed; else SKIP."""
    entries = {}
    order = []
    for r in results:
        if r["group"] != "exercise":
            continue
        m = re.match(r"ex(\d+)( solution)?$", r["id"])
        if not m:
            continue
        if r["id"] not in entries:
            entries[r["id"]] = {"exercise": int(m.group(1)), "id": r["id"], "name": r["name"],
                                "solution": bool(m.group(2)), "check_version": r["check_version"], "runs": []}
            order.append(r["id"])
        entries[r["id"]]["runs"].append({k: r[k] for k in ("label", "mode", "kind", "result", "message", "seconds")})
    out = []
    for key in order:
        e = entries[key]
        runs = e["runs"]
        for status in ("FAIL", "TODO", "PASS", "SKIP"):
            chosen = [x for x in runs if x["result"] == status]
            if chosen:
                e["result"] = status
                e["message"] = chosen[0]["message"]
                break
        e["seconds"] = round(sum(x["seconds"] for x in runs), 3)
        out.append(e)
    return out


def write_json(path, runner, table, status):
    results = exercise_results(runner.results)
    data = {
        "format": "ch12-run-all-results 1",
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host": platform.node(),
        "source_dir": REPO,
        "build_dir": runner.build_dir,
        "cuda": {"configured": bool(table.get("cuda", {}).get("configured")),
                 "reason": table.get("cuda", {}).get("reason", "")},
        "exit_status": status,
        "exercises": [e for e in results if not e["solution"]],
        "solutions": [e for e in results if e["solution"]],
        "rows": runner.results,
    }
    try:   # (checked before the run; checked again here, as the run may have taken an hour)
        write_policy.write_bytes(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"), what="--json file")
    except write_policy.Refused as e:
        raise Failure(str(e))


# ---- the student handout --------------------------------------------------------------------

# What the handout leaves out: the exercises' reference solutions (with the
# simulator's tests that mutate them), the answers to the self-check
# questions, and the per-element extra, whose kernel is exercise 5's answer.
HANDOUT_LEFT_OUT = ("ch12/exercises/solutions/", "ch12/ANSWERS.md", "ch12/extras/per_element/")

HANDOUT_NOTE = """\
# The student handout of the Chapter 12 companion

This folder is the companion to Chapter 12 (Bitonic Sort) as handed out for a
course, made by `./run_all.sh --handout`. Left out: the exercises' reference
solutions (`ch12/exercises/solutions/`), the answers to the chapter's
self-check questions (`ch12/ANSWERS.md`) and the per-element extra
(`ch12/extras/per_element/`, whose kernel is exercise 5's answer); links to
them in the READMEs do not work here. Everything else is as in the companion.

Start with the exercises: `ch12/exercises/README.md`. To see where you are:

    ./run_all.sh --exercises

Every exercise starts as TODO, with the line its check prints. With a GPU and
nvcc each runs on the GPU; without, in the block simulator on the CPU (the
"(sim)" rows) -- a C++ compiler, CMake and Python 3 are all it needs.
"""


def source_files(repo):
    """The checkout's files, relative: git's list where it is a git checkout,
    else every file except build folders and dot folders."""
    if shutil.which("git") and os.path.exists(os.path.join(repo, ".git")):
        p = supervisor.run(["git", "-c", "safe.directory=*", "-C", repo, "ls-files", "-z"], timeout=120,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode == 0:
            return sorted(f for f in p.stdout.decode("utf-8", "surrogateescape").split("\0") if f)
    files = []
    for root, dirs, found in os.walk(repo):
        rel_root = os.path.relpath(root, repo)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (rel_root == "." and d.startswith("build"))
                         and d != "node_modules")
        files += [os.path.normpath(os.path.join(rel_root, f)) for f in sorted(found)]
    return files


def handout_files(repo):
    """The files of the student handout: the checkout's, less HANDOUT_LEFT_OUT."""
    return [f for f in source_files(repo) if not any(f == x or f.startswith(x) for x in HANDOUT_LEFT_OUT)]


def starter_rows(table):
    return [r for r in table["rows"] if r["group"] == "exercise" and re.match(r"ex\d+$", r["id"])]


def shipped_now(row):
    """Whether an exercise's starter, as it is on disk now, is the starter as
    shipped: its SHA-256 (CRLF read as LF, as CMake reads it) against the one
    recorded for it. The table says what it was when CMake last ran; this is
    what it is."""
    rel, want = row.get("starter"), row.get("shipped_sha256")
    if not isinstance(rel, str) or not rel or not isinstance(want, str) or not want:
        raise Failure("the build's table names no starter file for %s (a table of an older version): configure "
                      "the build again (run without --no-build)" % row["id"])
    try:
        with open(os.path.join(REPO, rel), "rb") as f:
            data = f.read()
    except OSError as e:
        raise Failure("cannot read %s, the starter of %s: %s" % (rel, row["id"], e.strerror))
    return hashlib.sha256(data.replace(b"\r\n", b"\n")).hexdigest() == want


def check_starters_fresh(table):
    """A Failure when a starter changed since the table was made (with
    --no-build, nothing configures again): the expectations of its tests
    (NOT YET as shipped, PASS once edited) would be the table's, not the
    file's."""
    now = [(r, shipped_now(r)) for r in starter_rows(table)]
    stale = [(r, shipped) for r, shipped in now if shipped != bool(r.get("starter_as_shipped"))]
    if stale:
        raise Failure("%s changed since the build's table was made (%s): the build's checks would judge it by "
                      "what it was; run without --no-build (its configure step reads the starters again)"
                      % (", ".join(r["starter"] for r, _ in stale),
                         "; ".join("%s: %s now" % (r["id"], "as shipped" if shipped else "edited")
                                   for r, shipped in stale)))


def make_handout(folder, table):
    starters = starter_rows(table)
    if not starters:
        raise Failure("the build's table lists no exercise: configure the build again (drop --no-build)")
    edited = [r["id"] for r in starters if not shipped_now(r)]   # (the files as they are, not the table)
    if edited:
        raise Failure("the starter of %s is not the starter as shipped: a "
                      "handout must hand out the starters as shipped -- 'git checkout' them first, or record "
                      "their new hashes in ch12/exercises/CMakeLists.txt" % ", ".join(edited))
    files = handout_files(REPO)
    # A new folder, made by this run (common/delete_policy.py): removed by it
    # -- and by nothing else -- if the run does not finish (an error, a signal).
    try:
        delete_policy.made_folder(folder, unfinished=True)
    except FileExistsError:
        raise Failure("--handout %s already exists: give a new folder (nothing is written into, or over, an existing "
                      "one)" % folder, status=2)
    except OSError as e:
        raise Failure("cannot make the handout folder %s: %s" % (folder, e.strerror))
    try:
        copied = 0
        for rel in files:
            src = os.path.join(REPO, rel)
            if not os.path.lexists(src) or os.path.isdir(src):
                continue  # listed by git, deleted in the working tree
            dst = os.path.join(folder, rel)
            parent = os.path.dirname(dst)
            if not os.path.isdir(parent):
                os.makedirs(parent)   # (inside the folder made above: its own)
            write_policy.new_file(dst, source=src)
            copied += 1
        write_policy.new_file(os.path.join(folder, "HANDOUT.md"), HANDOUT_NOTE.encode("utf-8"))
    except (OSError, write_policy.Refused) as e:
        delete_policy.remove(folder)
        raise Failure("the handout could not be made (%s): nothing of it is left" % e)
    except BaseException:
        delete_policy.remove(folder)
        raise
    delete_policy.finished(folder)
    print("the student handout is in %s: %d files of this checkout, and HANDOUT.md" % (folder, copied))
    print("left out: %s" % ", ".join(HANDOUT_LEFT_OUT))
    print("every exercise's starter is as shipped (%s); to see them as a student will:"
          % ", ".join(r["id"] for r in starters))
    print("  cd '%s' && ./run_all.sh --exercises" % folder.replace("'", "'\\''"))
    return 0


def build_inputs(build_dir):
    """The files of the build that a run reads: its table, CMake's cache, and
    every program the table names."""
    table = os.path.join(build_dir, "ch12_programs.json")
    found = [table, os.path.join(build_dir, "CMakeCache.txt")]
    try:
        with open(table, encoding="utf-8") as f:
            rows = json.load(f).get("rows", [])
        for r in rows:
            for run in r.get("runs", []):
                program = (run.get("record") or {}).get("program") or []
                found += [p for p in program[:1] if isinstance(p, str)]
    except (OSError, ValueError, AttributeError, TypeError):
        pass
    return found


def main(argv):
    opts = parse(argv)
    build_dir = os.environ.get("CH12_BUILD_DIR") or os.path.join(REPO, "build")
    build_dir = os.path.abspath(build_dir)
    if os.path.lexists(build_dir) and not os.path.isdir(build_dir):
        bad_argument("the build folder %s (CH12_BUILD_DIR) is not a folder" % build_dir)
    if opts["json"] is not None:
        try:   # (common/write_policy.py, before anything runs; the build's own files are inputs, never the output)
            write_policy.check(opts["json"], inputs=build_inputs(build_dir), what="--json file")
        except write_policy.Refused as e:
            bad_argument(str(e))
    return supervisor.main(lambda: run(opts, build_dir), NAME, "stopped what was running")


def run(opts, build_dir):
    runner = Runner(opts, build_dir)
    try:
        if opts["build"]:
            try:
                os.makedirs(build_dir, exist_ok=True)
            except OSError as e:
                raise Failure("cannot make the build folder %s: %s (a read-only checkout? give a folder you can "
                              "write: CH12_BUILD_DIR=<folder> %s/run_all.sh)" % (build_dir, e.strerror, REPO))
        elif not os.path.isfile(runner.table_path):
            runner.load_table()  # says there is no build
        with BuildLock(build_dir, exclusive=opts["build"]):
            if opts["build"]:
                runner.configure()
            table = runner.load_table()
            check_build_belongs_here(build_dir, table)
            check_names(opts["names"], {x for r in table["rows"] for x in (r["id"], r["name"])})
            if opts["handout"]:
                return make_handout(opts["handout"], table)
            check_starters_fresh(table)
            for label, row, mode in select(table, opts):
                runner.run_row(label, row, mode)
    except Failure as e:
        say_err(str(e))
        return e.status
    runner.summary()
    status = 1 if runner.failed else 0
    if opts["json"]:
        try:
            write_json(opts["json"], runner, table, status)
        except (Failure, OSError) as e:
            say_err("cannot write %s: %s" % (opts["json"], e))
            return 1
        print("results written to %s" % opts["json"])
    return status


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # ./run_all.sh | head: the reader left; stop quietly
        Children.stop()
        supervisor.quiet_exit(1)
