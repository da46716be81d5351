#!/usr/bin/env python3
"""Run one program and check what it did: its stdout against a golden file,
byte for byte, and/or its exit status, lines, stderr.

    compare_output.py --golden expected_output/58_bitonic_split_cpu_baseline.txt \\
        -- build/58_bitonic_split_cpu_baseline [args...]

Exit status (what CTest sees):
    0   the program exited as expected and printed what was expected
    1   FAIL: a stdout difference (a unified diff is printed, with trailing
        spaces shown as '·', line ends as '$' and a missing final newline
        spelled out), an unexpected exit status, a death by signal, a timeout,
        or a missing line
    2   ERROR: bad arguments, a missing or unreadable golden, a program that
        cannot be started, an --update that is refused -- never a pass
    77  SKIPPED: the program itself exited 77 ("cannot run here": no usable
        GPU, no Vulkan device, too little memory), which the tests register
        with CTest as SKIP_RETURN_CODE

The program is started and stopped by common/supervisor.py: it runs in a
session (and process group) of its own; on a timeout, and when this tool gets
SIGINT, SIGTERM, SIGHUP or SIGQUIT (it then exits 128 + the signal: 130, 143,
129, 131), it gets SIGTERM and 10 seconds to stop what it started itself
(page_output.py closes its browser), then everything descended from it --
processes in sessions of their own too -- is stopped, so nothing it started
outlives this tool. A process it started that still holds its output open
2 s after it exited makes the verdict FAIL (and is stopped).

The output is checked as it streams: what is kept of it is bounded (8 MiB
beyond the golden's size, and its last 64 KiB), so a program that prints
without end costs a bounded amount of memory; a stdout larger than that
differs from any golden, and --update refuses it.

Byte for byte means it: a CRLF line end does not equal the golden's LF (the
diff shows a carriage return as '␍').

--update writes the golden from the program's stdout (masked as compared:
--mask-line-prefix lines are written 'TEXT*'), only after the expected
exit status (--expect-exit, default 0), through common/write_policy.py: a
temporary file beside it, renamed into place with the golden's old mode --
never over a golden named after a numbered listing or trap (NN_name.txt or
NN_name.replay.txt, in whatever folder, through whatever link): those hold the
book's sample output, or a trap's, which no tool may change; and never over a
file git tracks that is not a golden (a source, README.md).

Checks:
    --golden FILE              stdout must equal FILE
    --expect-exit N            the exit status that counts as success (default
                               0); with N = 77, exit 77 is a pass, not a skip
    --expect-line TEXT         stdout must contain this exact line (repeatable)
    --expect-line-prefix TEXT  stdout must contain a line starting with TEXT
    --expect-empty-stdout      stdout must be empty
    --expect-stderr-lines N    stderr must hold exactly N lines
    --expect-stderr-contains TEXT  stderr must contain TEXT (repeatable)
    --mask-line-prefix TEXT    before comparing, a line starting with TEXT is
                               cut after TEXT and '*' put in its place (in the
                               golden too): for lines that name the device
Running:
    --stdout-to FILE           send the program's stdout to FILE (not checked;
                               e.g. /dev/full to check write errors). A file
                               is written through the write policy: into a
                               temporary file, put in place once the program
                               has run to its end with the expected status
                               (not when it cannot start, fails -- a full disk,
                               SIGXFSZ -- times out or is interrupted); never a file git
                               tracks, a golden, the program itself or a file
                               named in its arguments (`bash SCRIPT`); a
                               descriptor (/dev/stdout, /dev/fd/N) is written
                               to as it is
    --env NAME=VALUE           set a variable for the program (repeatable)
    --limit-memory BYTES       cap the program's address space (RLIMIT_AS; > 0,
                               at most what setrlimit takes here)
    --timeout SECONDS          default 60 (> 0, finite, at most 24 days)
    --show                     print the program's output before the verdict
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import codecs
import difflib
import signal
import subprocess
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arguments  # noqa: E402
import write_policy  # noqa: E402
from write_policy import PROTECTED_NAME, book_golden_names, is_book_golden, is_protected_golden  # noqa: E402,F401

SKIP = 77
PASS, FAIL, ERROR = 0, 1, 2

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def mask(data: bytes, prefixes) -> bytes:
    if not prefixes:
        return data
    out = []
    for line in data.split(b"\n"):
        for p in prefixes:
            if line.startswith(p.encode()):
                line = p.encode() + b"*"
                break
        out.append(line)
    return b"\n".join(out)


def visible_lines(data: bytes):
    """Lines for the diff, with every invisible difference made visible."""
    text = data.decode("utf-8", errors="backslashreplace")
    out = []
    for line in text.splitlines(keepends=True):
        has_newline = line.endswith("\n")
        body = line[:-1] if has_newline else line
        stripped = body.rstrip(" ")
        body = stripped + "·" * (len(body) - len(stripped))
        body = body.replace("\t", "→").replace("\r", "␍")
        out.append(body + ("$\n" if has_newline else "   [no newline at end of file]\n"))
    return out


def describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "signal %d" % -returncode
        return "was killed by %s" % name
    return "exited with status %d" % returncode


def tail(data: bytes, lines: int = 20) -> str:
    text = data.decode("utf-8", errors="backslashreplace").rstrip("\n")
    if not text:
        return "    (nothing)"
    return "\n".join("    " + l for l in text.splitlines()[-lines:])


# The command line's numbers (common/arguments.py: the same rules in every tool).
positive_seconds = arguments.seconds
whole_number = arguments.whole()
positive_bytes = arguments.memory_bytes


class Parser(arguments.Parser):
    """Bad arguments are ERROR (2), with the usage and one line."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, error_prefix="compare_output: ERROR", **kwargs)


# After the program's process group is gone, how long its output may stay open
# (held by a process that left the group) before this tool stops waiting.
ESCAPED_GRACE = 2.0


# What is kept of a stream for the checks and the report: the first KEEP bytes
# beyond the golden's size (enough for any diff worth reading), the last TAIL
# bytes, and counts. A program that prints without end (`yes`) costs this tool
# a bounded amount of memory, never all it printed.
KEEP = 8 << 20
TAIL = 64 << 10


class Kept:
    """A stream as it arrives: its head (the first `limit` bytes), its tail,
    its size and its number of line ends; and, when asked for, whether some
    exact lines or line prefixes were seen -- checked line by line as they
    come (a line longer than the longest one looked for cannot be one of them,
    and is not held whole); and whether some texts occur anywhere in it --
    searched as it comes, across chunk boundaries, however long it is."""

    def __init__(self, limit, lines=(), prefixes=(), contains=()):
        self.limit = limit
        self.head = bytearray()
        self.tail = bytearray()
        self.size = 0
        self.newlines = 0
        self.wanted = {w.encode("utf-8", errors="surrogateescape"): w for w in lines}
        self.prefixes = {p.encode("utf-8", errors="surrogateescape"): p for p in prefixes}
        self.seen = set()
        self.longest = max([len(w) for w in self.wanted] + [len(p) for p in self.prefixes] + [0])
        self.line = bytearray()
        self.line_too_long = False
        # (searched in the text as it is decoded -- UTF-8, a byte that is not shown as \xNN -- as
        # the whole of it was before it streamed; an empty text is in any stream)
        self.needles = [c for c in contains if c]
        self.seen.update(c for c in contains if not c)
        self.overlap = max([len(n) for n in self.needles] + [1]) - 1
        self.carry = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="backslashreplace")

    def add(self, chunk):
        self.size += len(chunk)
        self.newlines += chunk.count(b"\n")
        if len(self.head) < self.limit:
            self.head += chunk[:self.limit - len(self.head)]
        self.tail += chunk
        if len(self.tail) > 2 * TAIL:
            del self.tail[:-TAIL]
        if self.wanted or self.prefixes:
            self._lines(chunk)
        if self.needles:
            self._search(self.decoder.decode(chunk))

    def _search(self, text):
        window = self.carry + text
        for needle in self.needles:
            if needle in window:
                self.seen.add(needle)
        self.carry = window[-self.overlap:] if self.overlap else ""

    def _lines(self, chunk):
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if not self.line_too_long:
                self.line += piece
                if len(self.line) > self.longest:   # (only a prefix can still match: judged now)
                    self._judge(bytes(self.line), whole=False)
                    self.line = bytearray()
                    self.line_too_long = True
            if end < 0:
                return
            if not self.line_too_long:
                self._judge(bytes(self.line), whole=True)
            self.line = bytearray()
            self.line_too_long = False
            start = end + 1

    def _judge(self, line, whole):
        if whole and line in self.wanted:
            self.seen.add(self.wanted[line])
        for p, text in self.prefixes.items():
            if line.startswith(p):
                self.seen.add(text)

    def finish(self):
        """The stream has ended: what follows its last line end is a line too."""
        if self.needles:
            self._search(self.decoder.decode(b"", final=True))
        if (self.wanted or self.prefixes) and not self.line_too_long:
            self._judge(bytes(self.line), whole=True)
        self.line = bytearray()
        self.line_too_long = False

    @property
    def whole(self):
        """Whether every byte is in head."""
        return self.size <= self.limit

    def last_lines(self):
        return bytes(self.head) if self.whole else bytes(self.tail[-TAIL:])


def _drain(pipe, kept):
    try:
        for chunk in iter(lambda: pipe.read1(65536), b""):
            kept.add(chunk)
    except (OSError, ValueError):
        pass
    kept.finish()


def run(command, env, timeout, out_file, limit_memory, stdout_kept=None, stderr_kept=None):
    """Runs the command through the supervisor; returns (rc, stdout, stderr,
    timed_out, escaped), stdout and stderr as Kept. On a timeout it is
    stopped (SIGTERM, a grace, then SIGKILL to all it started); after it
    ends, whatever it left is stopped too. escaped: a process it started
    still held its output open ESCAPED_GRACE seconds after it ended (that
    process is stopped as well). An interrupt (supervisor.Interrupted) goes
    up to main(), which stops it."""
    proc = supervisor.start(command, stdin=subprocess.DEVNULL,
                            stdout=out_file if out_file is not None else subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, limit_memory=limit_memory)
    outputs = [stdout_kept or Kept(KEEP), stderr_kept or Kept(KEEP)]
    readers = []
    for pipe, kept in zip((proc.stdout, proc.stderr), outputs):
        if pipe is not None:
            t = threading.Thread(target=_drain, args=(pipe, kept), daemon=True)
            t.start()
            readers.append(t)
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    escaped = False
    if not timed_out:
        deadline = time.monotonic() + ESCAPED_GRACE
        for t in readers:
            t.join(max(0.0, deadline - time.monotonic()))
        escaped = any(t.is_alive() for t in readers)
    # Nothing the program started may outlive it (nor a program that ran too long).
    supervisor.stop(proc)
    for t in readers:
        t.join(ESCAPED_GRACE)
    escaped = escaped or any(t.is_alive() for t in readers)
    return proc.returncode, outputs[0], outputs[1], timed_out, escaped


def main(argv=None) -> int:
    """Runs the check; SIGINT, SIGTERM, SIGHUP or SIGQUIT stops the program
    (and all it started) and makes it 128 + the signal."""
    return supervisor.main(lambda: check(argv), "compare_output",
                           "the program under test and everything it started were stopped")


def refuse(message):
    print("compare_output: ERROR: " + message, file=sys.stderr)
    return ERROR


def check(argv) -> int:
    parser = Parser(description="Run a program and check its output.",
                    usage="%(prog)s [options] -- PROGRAM [ARGS...]")
    parser.add_argument("--golden", help="the expected stdout, byte for byte")
    parser.add_argument("--timeout", type=positive_seconds, default=60.0, help="seconds (default 60)")
    parser.add_argument("--update", action="store_true",
                        help="write the golden from the program's stdout (only after the expected exit; "
                             "never a numbered listing's or trap's golden)")
    parser.add_argument("--expect-exit", type=arguments.exit_status, default=0, metavar="N")
    parser.add_argument("--expect-line", action="append", default=[], metavar="TEXT")
    parser.add_argument("--expect-line-prefix", action="append", default=[], metavar="TEXT")
    parser.add_argument("--expect-empty-stdout", action="store_true")
    parser.add_argument("--expect-stderr-lines", type=whole_number, metavar="N")
    parser.add_argument("--expect-stderr-contains", action="append", default=[], metavar="TEXT")
    parser.add_argument("--mask-line-prefix", action="append", default=[], metavar="TEXT")
    parser.add_argument("--stdout-to", metavar="FILE")
    parser.add_argument("--limit-memory", type=positive_bytes, metavar="BYTES")
    parser.add_argument("--show", action="store_true",
                        help="print the program's stdout (and stderr) before the verdict")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="set an environment variable for the program (repeatable)")
    parser.add_argument("command", nargs=arguments.REMAINDER)
    args = parser.parse_args(argv)

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no program to run")
    update_target = None
    if args.update:
        if not args.golden:
            parser.error("--update needs --golden")
        if is_protected_golden(args.golden):
            return refuse("refusing to --update %s: a golden named after a numbered listing or trap "
                          "(NN_name.txt, NN_name.replay.txt) holds the book's sample output or a trap's, "
                          "which no tool may change" % args.golden)
        if os.path.isdir(args.golden):
            return refuse("cannot --update %s: it is a folder, not a golden file" % args.golden)
        folder = os.path.dirname(arguments.absolute(args.golden))
        if not os.path.isdir(folder):
            return refuse("cannot --update %s: the folder %s does not exist" % (args.golden, folder))
        try:
            update_target = write_policy.check(args.golden, inputs=[program_path(command[0])],
                                               update_golden=True, what="golden")
        except write_policy.Refused as e:
            return refuse("refusing to --update: %s" % e)
    checks = (args.golden or args.expect_line or args.expect_line_prefix or args.expect_empty_stdout
              or args.expect_stderr_contains or args.expect_stderr_lines is not None
              or args.stdout_to is not None)
    if not checks:
        parser.error("nothing to check (give --golden, --expect-line, --expect-empty-stdout, ...)")
    if args.stdout_to is not None and (args.golden or args.expect_line or args.expect_line_prefix
                                        or args.expect_empty_stdout):
        parser.error("--stdout-to sends stdout elsewhere: it cannot also be checked")

    golden = None
    if args.golden and not args.update:
        try:
            with open(args.golden, "rb") as f:
                golden = f.read()
        except OSError as e:
            return refuse("cannot read golden %s: %s" % (args.golden, e.strerror))

    env = dict(os.environ)
    for item in args.env:
        name, sep, value = item.partition("=")
        if not sep or not name:
            parser.error("--env wants NAME=VALUE, got %r" % item)
        env[name] = value

    output = None
    if args.stdout_to is not None:
        try:
            target = write_policy.check(args.stdout_to, inputs=command_inputs(command), what="--stdout-to file")
        except write_policy.Refused as e:
            return refuse("cannot open --stdout-to %s for the program's output: %s" % (args.stdout_to, e))
        output = write_policy.Output(target, recheck={"inputs": command_inputs(command),
                                                      "what": "--stdout-to file"})
        try:
            output.open()
        except OSError as e:
            return refuse("cannot open --stdout-to %s for the program's output: %s" % (args.stdout_to, e.strerror))

    name = os.path.basename(command[0])
    stdout_kept = Kept(KEEP + (len(golden) if golden is not None else 0),
                       lines=args.expect_line, prefixes=args.expect_line_prefix)
    stderr_kept = Kept(KEEP, contains=args.expect_stderr_contains)
    try:
        try:
            rc, stdout_kept, stderr_kept, timed_out, escaped = run(command, env, args.timeout, output,
                                                                    args.limit_memory, stdout_kept, stderr_kept)
        except OSError as e:
            return refuse("cannot run %s: %s" % (command[0], e.strerror))
        if output is not None and not timed_out and rc == args.expect_exit:
            try:
                output.commit()   # the program ran to its end as it should: its output goes in place
            except (OSError, write_policy.Refused) as e:
                return refuse("cannot write --stdout-to %s: %s" % (args.stdout_to, getattr(e, "strerror", None) or e))
    finally:
        if output is not None:
            output.discard()

    stdout, stderr = stdout_kept.last_lines(), stderr_kept.last_lines()
    cut = "" if stdout_kept.whole else "  (%d bytes in all; only the last are shown)\n" % stdout_kept.size
    if args.show:
        sys.stdout.write(cut)
        sys.stdout.write(stdout.decode("utf-8", errors="backslashreplace"))
        if rc != SKIP:  # a skip's reason is printed once, on the SKIPPED line
            sys.stdout.write(stderr.decode("utf-8", errors="backslashreplace"))
        sys.stdout.flush()

    if timed_out:
        print("FAIL: %s ran past the %g s timeout; it and everything it started (in sessions of their own too) "
              "were stopped" % (name, args.timeout))
        print("  stdout so far:\n" + tail(stdout))
        return FAIL
    if escaped:
        print("FAIL: %s %s; but a process it started still held its output open %g s after it ended (it was "
              "stopped: a program must not leave processes behind); its output may be incomplete"
              % (name, describe_exit(rc), ESCAPED_GRACE))
        return FAIL

    if rc == SKIP and args.expect_exit != SKIP:
        reason = stderr.decode("utf-8", errors="backslashreplace").strip() or "exit 77"
        print("SKIPPED: %s" % reason)
        return SKIP

    if rc != args.expect_exit:
        print("FAIL: %s %s (expected status %d)" % (name, describe_exit(rc), args.expect_exit))
        print("  stderr:\n" + tail(stderr))
        print("  stdout (last lines):\n" + tail(stdout))
        return FAIL

    if args.update:
        if not stdout_kept.whole:
            return refuse("refusing to --update %s: the program printed %d bytes, more than the %d a golden may hold"
                          % (args.golden, stdout_kept.size, stdout_kept.limit))
        # (masked as it is compared: a masked line stays 'TEXT*' in the golden)
        return update(update_target, mask(stdout, args.mask_line_prefix))

    failures = []
    if golden is not None and not stdout_kept.whole:
        failures.append("stdout differs from the golden: it holds %d bytes, the golden %d (the last lines:)\n%s"
                        % (stdout_kept.size, len(golden), tail(stdout)))
    elif golden is not None:
        got, want = mask(stdout, args.mask_line_prefix), mask(golden, args.mask_line_prefix)
        if got != want:
            diff = difflib.unified_diff(visible_lines(want), visible_lines(got),
                                        fromfile="expected: %s" % args.golden,
                                        tofile="actual: stdout of %s" % name)
            crlf = ""
            if b"\r\n" in got and b"\r\n" not in want:
                crlf = "; the program ends its lines with CRLF, the golden with LF"
            failures.append("stdout differs from the golden "
                            "('·' = trailing space, '␍' = carriage return, '$' = end of line%s):\n" % crlf
                            + "".join(diff))
    for want in args.expect_line:
        if want not in stdout_kept.seen:
            failures.append("stdout has no line %r" % want)
    for want in args.expect_line_prefix:
        if want not in stdout_kept.seen:
            failures.append("stdout has no line starting with %r" % want)
    if args.expect_empty_stdout and stdout_kept.size:
        failures.append("stdout should be empty but holds %d bytes:\n%s" % (stdout_kept.size, tail(stdout)))
    err_text = stderr.decode("utf-8", errors="backslashreplace")
    if args.expect_stderr_lines is not None:
        err_lines = (len(err_text.splitlines()) if stderr_kept.whole else
                     stderr_kept.newlines + (0 if stderr.endswith(b"\n") else 1))
        if err_lines != args.expect_stderr_lines:
            failures.append("stderr should hold %d line(s) but holds %d:\n%s"
                            % (args.expect_stderr_lines, err_lines, tail(stderr)))
    for want in args.expect_stderr_contains:
        if want not in stderr_kept.seen:
            failures.append("stderr does not contain %r:\n%s" % (want, tail(stderr)))

    if failures:
        for f in failures:
            print("FAIL: " + f)
        return FAIL
    print("PASS: %s %s and printed what was expected" % (name, describe_exit(rc)))
    return PASS


def command_inputs(command):
    """The files a command reads that its output may not be: the program, and
    every existing file named among its arguments (`bash SCRIPT`, `python3
    tool.py`)."""
    return [program_path(command[0])] + [a for a in command[1:] if os.path.isfile(a)]


def program_path(program):
    """The file of the program to run (the output may not be it), or None."""
    if os.sep in program:
        return program
    import shutil
    return shutil.which(program)


def update(target, stdout):
    """Writes the golden through the write policy: a temporary file beside it,
    renamed into place with the golden's old mode (0644 for a new one); the
    temporary file never outlives a failure or an interrupt."""
    try:
        with write_policy.Output(target, recheck={"update_golden": True, "what": "golden"}) as out:
            out.file.write(stdout)
            out.commit()
    except OSError as e:
        return refuse("cannot --update %s: %s" % (target.given, e.strerror))
    except write_policy.Refused as e:
        return refuse("refusing to --update: %s" % e)
    print("UPDATED: %s (%d bytes)" % (target.given, len(stdout)))
    return PASS


if __name__ == "__main__":
    sys.exit(main())
