#!/usr/bin/env python3
"""The sort library's house rules, read from its sources (any machine) and
from its compiled objects (where CUDA built them).

    library_rules.py [--objects OBJ...] [--library-dir DIR] [--also FILE]...

The library must never end the process and never read the environment.

Its sources: every source file under ch12/extras/sort/include/ (its API)
and ch12/extras/sort/src/ (its own), subfolders included, plus the headers
of common/ it includes (ch12/status.h, cuda_status.h, device_buffer.h).
What they include with #include "..." must be one of these files (checked:
the programs' support/ headers, common/cuda_check.h or cli.h stay out). In
them, comments ignored:
  * no exit(), std::exit, _exit, _Exit, quick_exit, abort(), std::terminate,
    raise(), kill(), killpg(), pthread_kill(), tgkill(), __builtin_trap(),
    __trap() or asm trap, no CUDA_CHECK (which exits) and no cuda_check.h:
    errors are returned as a bitonic::Status;
  * no getenv / secure_getenv / environ: a profile reaches the library
    through its API, never through a variable.
Its objects (--objects: the compiled library's object files, which CMake
passes): `nm -u` must name none of the C library's or C++ runtime's ways to
end a process (exit, _exit, _Exit, quick_exit, abort, std::terminate, raise,
kill, killpg, pthread_kill, tgkill, __assert_fail), nor getenv/secure_getenv/
environ; and `objdump -d` must hold no ud2 (the host's trap instruction).

EXEMPT lists the lines that break a source rule on purpose, each with why.
Prints each finding as FILE:LINE: what; exit 1 if any, 2 on a bad command line.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import re  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
import arguments  # noqa: E402

# The library's folders under its folder: its API and its own sources.
LIBRARY = ("include", "src")
# The headers of common/ that the library includes (ch12_bitonic_sort's
# include path has common/ and common/include/).
COMMON = ("include/ch12/status.h", "cuda_status.h", "device_buffer.h")
SOURCES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".cxx", ".c")
COMPILED = (".cu", ".cpp", ".cc", ".cxx", ".c")

ENDS = r"exit|_Exit|_exit|quick_exit|abort|terminate|raise|kill|killpg|pthread_kill|tgkill"
RULES = [
    (re.compile(r"(?<![\w.>])(std::|::)?(%s)\s*\(" % ENDS), "ends the process"),
    (re.compile(r"\b__builtin_trap\s*\(|\b__trap\s*\(|\basm\b[^;]*\btrap\b"), "traps (ends the process or the kernel)"),
    (re.compile(r"\bCUDA_CHECK(_LAUNCH)?\b|cuda_check\.h"), "uses the exiting CUDA_CHECK"),
    (re.compile(r"\b(secure_)?getenv\b|\benviron\b"), "reads the environment"),
]
# Symbols that a compiled object must not need (nm -u), and what they do.
SYMBOLS = {
    "exit": "ends the process", "_exit": "ends the process", "_Exit": "ends the process",
    "quick_exit": "ends the process", "abort": "ends the process", "_ZSt9terminatev": "ends the process (std::terminate)",
    "raise": "sends a signal to the process", "kill": "sends a signal", "killpg": "sends a signal",
    "pthread_kill": "sends a signal", "tgkill": "sends a signal",
    "__assert_fail": "ends the process (assert)", "getenv": "reads the environment",
    "secure_getenv": "reads the environment", "environ": "reads the environment",
    "__environ": "reads the environment",
}
# (file relative to the repository, the line as it stands): why it may break a rule.
#
# design_fast.cuh's __trap(): the cluster tile kernels (tiles of 2..16
# blocks) are compiled for every GPU, but their body needs Hopper's clusters;
# for code of an older GPU (__CUDA_ARCH__ < 900) the body is replaced by
# __trap(). The host never launches those tiles there: tuning's fast_cluster
# is 16 only on compute capability 9.0 and up with 16-block clusters
# (sort_request.cpp), and a cluster launch is refused by the driver before
# Hopper anyway. The one way to reach it is a build that carries no sm_90
# code (say CMAKE_CUDA_ARCHITECTURES=80) run on a Hopper GPU: then the trap
# ends the kernel, the launch fails, and the library returns that failure as
# a Status (the process lives on) -- where an empty body would hand back
# unsorted keys as sorted. The trap is the guard against that silent wrong
# result, so it stays, and only this one line is exempt.
EXEMPT = {
    ("ch12/extras/sort/src/design_fast.cuh", "__trap();"):
        "device code for GPUs before Hopper, in a cluster tile that is never launched there (see above)",
}


def strip_comments(text):
    """The text with // and /* */ comments blanked (line numbers kept); strings kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def library_files(folder, also):
    """Every source file under folder's include/ and src/ (subfolders too), and also."""
    files = []
    for part in LIBRARY:
        for top, dirs, names in os.walk(os.path.join(folder, part)):
            dirs.sort()
            files += [os.path.normpath(os.path.join(top, f)) for f in sorted(names) if f.endswith(SOURCES)]
    return files + [a for a in also if a]


def include_dirs(folder):
    """Where the library's #include "..." are found (ch12_bitonic_sort's include path)."""
    return [os.path.join(folder, "include"), os.path.join(folder, "src"),
            os.path.join(ROOT, "common"), os.path.join(ROOT, "common", "include")]


def includes(path, folder):
    """The files path includes with #include "..." (found beside it, or on the
    library's include path), each as (name, the file or None)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = strip_comments(f.read())
    except OSError:
        return []
    found = []
    for name in re.findall(r'^\s*#\s*include\s*"([^"]+)"', text, re.M):
        for d in [os.path.dirname(path)] + include_dirs(folder):
            p = os.path.join(d, name)
            if os.path.isfile(p):
                found.append((name, os.path.realpath(p)))
                break
        else:
            found.append((name, None))
    return found


def shown(path):
    return os.path.relpath(path, ROOT) if os.path.commonpath([os.path.abspath(path), ROOT]) == ROOT else path


def check_sources(folder, also):
    findings, files = [], library_files(folder, also)
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                code = strip_comments(f.read())
        except OSError as e:
            findings.append("%s: cannot read: %s" % (shown(path), e.strerror))
            continue
        for number, line in enumerate(code.splitlines(), 1):
            for pattern, what in RULES:
                if pattern.search(line) and (shown(path), line.strip()) not in EXEMPT:
                    findings.append("%s:%d: %s: %s" % (shown(path), number, what, line.strip()))
    # What the library includes is the library: no file that these rules do
    # not read (a program's support/ header, common/cuda_check.h or cli.h).
    read = {os.path.realpath(f) for f in files}
    for path in files:
        for name, inc in includes(path, folder):
            if inc is not None and inc not in read:
                findings.append("%s: includes \"%s\" (%s), which is not one of the library's files that these "
                                "rules read" % (shown(path), name, shown(inc)))
    return findings, len(files)


def tool(name):
    found = shutil.which(name)
    if found:
        return found
    for d in ("/usr/bin", "/usr/local/bin"):
        if os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
    return None


def output_of(command):
    try:
        proc = supervisor.run(command, timeout=120, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    except subprocess.TimeoutExpired:
        return None, "%s ran past 120 s" % command[0]
    if proc.returncode != 0:
        return None, proc.stderr.decode(errors="replace").strip()
    return proc.stdout.decode(errors="replace"), ""


def check_objects(objects, folder):
    findings = []
    compiled = {os.path.basename(f) for f in library_files(folder, ()) if f.endswith(COMPILED)}
    nm, objdump = tool("nm"), tool("objdump")
    if objects and nm is None:
        return ["nm was not found (GNU binutils): the compiled library's symbols cannot be read"]
    for obj in objects:
        base = os.path.basename(obj)
        if base.endswith(".o") and base[:-2] not in compiled:
            findings.append("%s: the library compiles %s, which these rules do not know as its source"
                            % (shown(obj), base[:-2]))
        out, err = output_of([nm, "-u", obj])
        if out is None:
            findings.append("%s: nm -u failed: %s" % (shown(obj), err))
            continue
        for line in out.splitlines():
            symbol = line.split()[-1] if line.split() else ""
            plain = symbol.split("@")[0]
            if plain in SYMBOLS:
                findings.append("%s: needs %s: %s" % (shown(obj), plain, SYMBOLS[plain]))
        if objdump:
            out, err = output_of([objdump, "-d", "--no-show-raw-insn", obj])
            if out is None:
                findings.append("%s: objdump -d failed: %s" % (shown(obj), err))
            elif re.search(r"\bud2\b", out):
                findings.append("%s: holds ud2, the host's trap instruction (__builtin_trap): ends the process"
                                % shown(obj))
    return findings


def main(argv):
    ap = arguments.Parser(prog="library_rules.py", description="The sort library's house rules.")
    ap.add_argument("--objects", nargs="+", default=[], type=arguments.path,
                    help="the compiled library's object files (nm -u is read; a ;-separated list too)")
    ap.add_argument("--library-dir", default=HERE, type=arguments.path,
                    help="the library's folder (its include/ and src/ are read)")
    ap.add_argument("--also", action="append", type=arguments.path,
                    help="another file of the library (default: the headers of common/ it includes: "
                         + ", ".join(COMMON) + ")")
    a = ap.parse_args(argv)
    a.objects = [o for arg in a.objects for o in arg.split(";") if o]  # CMake's $<TARGET_OBJECTS>: one list
    for obj in a.objects:
        if not os.path.isfile(obj):
            ap.error("--objects: no file %s" % obj)
    if not os.path.isdir(a.library_dir):
        ap.error("--library-dir: no folder %s" % a.library_dir)
    also = a.also if a.also is not None else [os.path.join(ROOT, "common", f) for f in COMMON]
    folder = os.path.abspath(a.library_dir)
    return supervisor.main(lambda: report(folder, also, a.objects), "library_rules.py")


def report(folder, also, objects):
    findings, count = check_sources(folder, also)
    findings += check_objects(objects, folder)
    for f in findings:
        print(f)
    print("%d library files read, %d compiled objects read (nm -u%s), %d findings"
          % (count, len(objects), ", objdump -d" if objects and tool("objdump") else "", len(findings)))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
