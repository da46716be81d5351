#!/usr/bin/env python3
"""The rules' one home, checked: every tool of this companion -- a Python
tool, a shell script, a JavaScript tool, a C++ program's output writer --
writes, deletes, renames, starts a program, sends a signal and reads its
command line only through common/'s modules (common/README.md, "The rules"):

    write_policy.py   writing a file           (Python: write_policy.check/Output/new_file/write_bytes;
                                                shell and JavaScript: `write_policy.py check|write`)
    delete_policy.py  deleting a file or folder
    supervisor.py     starting and stopping a program, sending it a signal
    arguments.py      the command line (argparse is built there, arguments.Parser)

    tool_rules.py [--repo DIR]

reads the files (not their output) and prints each place that goes around a
rule, as FILE:LINE: what; exit 1 if there is one, 0 if none, 2 on a bad
command line. ALLOWED lists the places that may, each with why; an entry that
no longer matches anything is a finding too (the list cannot go stale).

What is a tool: every Python program (a file with a __main__ block, and the
modules they import from ch12/web/tests/), every shell script, every
JavaScript file run by node (tools/, the tree's reference), and the C++
programs' support headers. Not a tool: the rules' own modules, and the test
drivers (test_*.py, testing_support.py), which start tools with subprocess on
purpose, to see what a TOOL leaves behind (testing_support.py says why).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import ast  # noqa: E402
import re  # noqa: E402

import arguments  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# The rules' homes: what they do is the rule.
HOMES = {"common/supervisor.py", "common/write_policy.py", "common/delete_policy.py", "common/arguments.py",
         "common/process_group.py", "common/tool_rules.py"}

# (file, what, text on the line) -> why. `what` is the finding's kind; the
# text must occur on the line found, so that an entry names one place.
ALLOWED = {
    ("ch12/web/tools/draw_pictures.js", "process start", "spawnSync(python"):
        "it starts the write rule's own command (common/write_policy.py write), the one way a JavaScript tool "
        "writes a file",
    ("ch12/extras/support/sort_programs.h", "file write", "std::fopen(path_.c_str(), \"w\")"):
        "SafeOutput, the C++ programs' one writer: a character device or a pipe (which common/write_rule.h, the "
        "write rule in C++, has let through) is written as it is, at commit",
    ("ch12/extras/support/sort_programs.h", "rename", "std::rename(g_temp"):
        "SafeOutput's rename of its own temporary file over the target",
    ("ch12/extras/support/sort_programs.h", "delete", "::unlink(g_temp)"):
        "SafeOutput removes its own temporary file (mkstemp's) when the write failed or the program ends",
    ("ch12/extras/sort/gpu_experiment.sh", "signal", "kill -TERM \"$p\""):
        "on the way out, the background test runs this script started itself (their pids, from $!)",
    ("ch12/extras/sort/gpu_experiment.sh", "delete", "rm -f \"${temporaries[@]}\""):
        "on the way out, the temporary files this script made itself with mktemp",
    ("common/run_all.py", "file write", "os.open(self.path, os.O_RDWR | os.O_CREAT"):
        "the build folder's lock, .run_all.lock: created empty and held (flock), never written, so that two "
        "runs do not build in one folder at once",
}

# ---- Python ---------------------------------------------------------------------------------

WRITE_MODES = re.compile(r"[wax+]")
PY_CALLS = {
    # module.function -> kind
    "os.remove": "delete", "os.unlink": "delete", "os.rmdir": "delete", "os.removedirs": "delete",
    "shutil.rmtree": "delete",
    "os.rename": "rename", "os.replace": "rename", "shutil.move": "rename", "os.renames": "rename",
    "shutil.copy": "file write", "shutil.copy2": "file write", "shutil.copyfile": "file write",
    "shutil.copytree": "file write", "os.symlink": "file write", "os.link": "file write",
    "os.truncate": "file write", "os.mkfifo": "file write",
    "subprocess.Popen": "process start", "subprocess.run": "process start", "subprocess.call": "process start",
    "subprocess.check_call": "process start", "subprocess.check_output": "process start",
    "subprocess.getoutput": "process start", "subprocess.getstatusoutput": "process start",
    "os.system": "process start", "os.popen": "process start", "os.fork": "process start",
    "os.forkpty": "process start", "os.posix_spawn": "process start", "os.posix_spawnp": "process start",
    "pty.spawn": "process start", "asyncio.create_subprocess_exec": "process start",
    "asyncio.create_subprocess_shell": "process start",
    "os.kill": "signal", "os.killpg": "signal", "signal.pthread_kill": "signal",
    "argparse.ArgumentParser": "argument parser",
    "multiprocessing.Process": "process start", "multiprocessing.Pool": "process start",
    "concurrent.futures.ProcessPoolExecutor": "process start", "pty.fork": "process start",
    "signal.raise_signal": "signal", "signal.signal": "signal handler",
    "codecs.open": "file write", "tempfile.mkstemp": "file write", "tempfile.mkdtemp": "file write",
    "tempfile.NamedTemporaryFile": "file write", "tempfile.TemporaryDirectory": "file write",
    "tempfile.TemporaryFile": "file write", "os.makedirs": None, "getattr": None, "__import__": "dynamic access",
}
DYNAMIC_MODULES = ("os", "shutil", "subprocess", "signal", "pty", "multiprocessing", "tempfile", "pathlib")
PY_PREFIXES = {"os.exec": "process start", "os.spawn": "process start"}
PY_METHODS = {"write_text": "file write", "write_bytes": "file write", "unlink": "delete", "rmdir": "delete",
              "send_signal": "signal", "terminate": "signal", "kill": "signal", "rename": "rename",
              "touch": "file write", "symlink_to": "file write", "hardlink_to": "file write",
              "rmtree": "delete"}


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _aliases(tree):
    """The names a file binds to modules and their functions by its imports:
    `import os as o` -> {o: os}, `from os import remove as r` -> {r: os.remove}."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    aliases[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                aliases[a.asname or a.name] = node.module + "." + a.name
    return aliases


def _resolved(name, aliases):
    if not name:
        return name
    head, _, rest = name.partition(".")
    if head in aliases:
        return aliases[head] + ("." + rest if rest else "")
    return name


def python_findings(rel, text):
    try:
        tree = ast.parse(text, rel)
    except SyntaxError as e:
        return [(e.lineno or 0, "syntax", "cannot be read: %s" % e.msg)]
    aliases = _aliases(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if any(n.split(".")[0] in ("argparse",) for n in names):
                found.append((node.lineno, "argument parser", "imports argparse (arguments.Parser is the one)"))
            continue
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Attribute, ast.Name)):
            target = _resolved(_dotted(node.value), aliases) or ""
            if target in PY_CALLS and PY_CALLS[target]:   # (p = subprocess.Popen; p(...))
                found.append((node.lineno, PY_CALLS[target], "%s bound to a name" % target))
            continue
        if not isinstance(node, ast.Call):
            continue
        name = _resolved(_dotted(node.func), aliases)
        if name in ("getattr", "builtins.getattr") and node.args:
            owner = _resolved(_dotted(node.args[0]), aliases) or ""
            if owner.split(".")[0] in DYNAMIC_MODULES:
                found.append((node.lineno, "dynamic access", "getattr(%s, ...)" % owner))
            continue
        if name == "open" or name == "io.open":
            mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"),
                                                                 None)
            if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and WRITE_MODES.search(mode.value):
                found.append((node.lineno, "file write", "open(..., %r)" % mode.value))
            elif mode is not None and not isinstance(mode, ast.Constant):
                found.append((node.lineno, "file write", "open() with a mode worked out at run time"))
            continue
        if name in PY_CALLS:
            if PY_CALLS[name]:
                found.append((node.lineno, PY_CALLS[name], name + "()"))
            continue
        if name and any(name.startswith(p) for p in PY_PREFIXES):
            found.append((node.lineno, PY_PREFIXES[next(p for p in PY_PREFIXES if name.startswith(p))], name + "()"))
            continue
        if name == "os.open":
            flags = ast.unparse(node.args[1]) if len(node.args) > 1 else ""
            if re.search(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND", flags):
                found.append((node.lineno, "file write", "os.open(..., %s)" % flags))
            elif flags and not re.fullmatch(r"[\w.|\s]+", flags.replace("os.", "")) or (
                    flags and not all(re.fullmatch(r"(os\.)?O_[A-Z]+", f.strip()) for f in flags.split("|"))):
                found.append((node.lineno, "file write", "os.open() with flags worked out at run time"))
            continue
        if isinstance(node.func, ast.Attribute) and node.func.attr == "open" and node.args:
            mode = node.args[0]   # (Path.open('w'))
            if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and WRITE_MODES.search(mode.value) \
                    and re.fullmatch(r"[rwabxt+]+", mode.value):
                found.append((node.lineno, "file write", ".open(%r)" % mode.value))
                continue
        if isinstance(node.func, ast.Attribute) and node.func.attr in PY_METHODS and name not in (
                "sys.stdout.write_bytes",):
            owner = _dotted(node.func.value) or ""
            if owner.split(".")[0] in ("supervisor", "write_policy", "delete_policy"):
                continue
            if node.func.attr in ("kill", "terminate", "send_signal") and owner.split(".")[0] in ("os",):
                continue
            found.append((node.lineno, PY_METHODS[node.func.attr], "%s.%s()" % (owner or "...", node.func.attr)))
    return sorted(found)


# ---- shell, JavaScript, C++ -------------------------------------------------------------------

# A shell command in command position: at the start of a line, after ; & | (
# or a keyword. (A shell script writes its files with redirections and tee
# into the output folder it was given, after `write_policy.py check` has
# allowed each of them: shell_writes_checked() below.)
_AT = (r"(?:^|[;&|({`]|\$\(|\bthen|\bdo|\belse|\bif|\bwhile|\buntil|\|\||&&|!)\s*"
       r"(?:\\|command\s+|exec\s+|builtin\s+|xargs\s+(?:-\S+\s+)*|nohup\s+|env\s+|/(?:usr/)?bin/)?")
SHELL = [
    (re.compile(_AT + r"(rm|rmdir|unlink|shred)\s"), "delete"),
    (re.compile(r"\bfind\b.*\s-delete\b"), "delete"),
    (re.compile(_AT + r"mv\s"), "rename"),
    (re.compile(_AT + r"(cp|ln|install|truncate|touch|dd)\s"), "file write"),
    (re.compile(r"\bsed\s+(-\w*\s+)*-i"), "file write"),
    (re.compile(_AT + r"(kill|pkill|killall)\s"), "signal"),
]
# A write by redirection or tee into a file (not /dev/null, not a descriptor).
SHELL_WRITE = re.compile(r"(?<![<0-9&=!])>>?(?!=)\s*(?!&|/dev/null\b|\s*$)\S|\|\s*tee\b")
ASKS_WRITE_RULE = re.compile(r"write_policy\.py[\"']?\s+check\b")
JS = [
    (re.compile(r"\b(writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|copyFileSync|copyFile|"
                r"cpSync|symlinkSync|truncateSync|openSync\([^)]*['\"][wa])\b"), "file write"),
    (re.compile(r"\b(writeSync|cp|link|linkSync|symlink|truncate|openSync|open|mkdtempSync)\s*\("), "file write"),
    (re.compile(r"\b(unlinkSync|unlink|rmSync|rmdirSync|rmdir|rm)\s*\("), "delete"),
    (re.compile(r"\b(renameSync|rename)\s*\("), "rename"),
    (re.compile(r"\b(spawnSync|spawn|execSync|execFileSync|execFile|exec|fork)\s*\("), "process start"),
    (re.compile(r"\.kill\s*\("), "signal"),
    (re.compile(r"\[\s*['\"`][^\]]*['\"`]\s*\+"), "dynamic access"),
]
CPP = [
    (re.compile(r"\bstd::ofstream\b|\bstd::fstream\b|\bfopen\s*\(.*,\s*\"[wa]|\bopen\s*\(.*O_(WRONLY|RDWR|CREAT)"),
     "file write"),
    (re.compile(r"\b(std::)?rename\s*\("), "rename"),
    (re.compile(r"\bfopen\s*\([^,]*,\s*[A-Za-z_]|\bfreopen\s*\(|\bcreat\s*\(|\bcopy_file\s*\("), "file write"),
    (re.compile(r"\b(std::remove|unlink|rmdir|(std::)?(filesystem|fs)::remove(_all)?)\s*\("), "delete"),
    (re.compile(r"\b(system|popen|fork|execv[pe]?|execl[pe]?|posix_spawnp?)\s*\("), "process start"),
    (re.compile(r"(::|\b)kill\s*\(|\braise\s*\(SIG"), "signal"),
]


def _strip_shell_comment(line):
    return "" if line.lstrip().startswith("#") else line


def _strip_c_comment(line):
    """The line without a // comment (one inside a string is no comment)."""
    quote = None
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif line.startswith("//", i):
            return line[:i]
        i += 1
    return line


def shell_writes_checked(text):
    """A shell script that writes files by redirection or tee asks the write
    rule first (`write_policy.py check`), or is a finding."""
    lines = [l for l in text.splitlines() if not l.lstrip().startswith("#")]
    for n, line in enumerate(text.splitlines(), 1):
        if not line.lstrip().startswith("#") and SHELL_WRITE.search(line.split(" #", 1)[0]):
            if not ASKS_WRITE_RULE.search("\n".join(lines)):
                return [(n, "file write", "writes by redirection, and never asks `write_policy.py check`")]
            return []
    return []


def text_findings(text, patterns, strip):
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        code = strip(line)
        for pattern, kind in patterns:
            m = pattern.search(code)
            if m:
                found.append((n, kind, m.group(0).strip()))
                break
    return found


# ---- which files ---------------------------------------------------------------------------

def project_files(repo):
    """The project's files, relative: build folders, dot folders and
    node_modules left out (the same in a copy without git)."""
    files = []
    for root, dirs, names in os.walk(repo):
        rel_root = os.path.relpath(root, repo)
        dirs[:] = sorted(d for d in dirs if (not d.startswith(".") or (rel_root == "." and d == ".ci"))
                         and d != "node_modules" and d != "__pycache__"
                         and not (rel_root == "." and (d.startswith("build") or d == "gpu-logs")))
        files += [os.path.normpath(os.path.join(rel_root, n)) for n in sorted(names)]
    return files


def is_test_driver(rel):
    base = os.path.basename(rel)
    return base.startswith("test_") or base == "testing_support.py"


def tools(repo):
    """(rel, language) of every file the rules hold for."""
    out = []
    for rel in project_files(repo):
        if rel in HOMES or is_test_driver(rel):
            continue
        path = os.path.join(repo, rel)
        if rel.endswith(".py"):
            out.append((rel, "python"))
        elif rel.endswith(".sh") or rel.startswith(".ci/"):
            out.append((rel, "shell"))
        elif rel.endswith(".js") and (rel.startswith("ch12/web/tools/") or rel.startswith("ch12/extras/")):
            out.append((rel, "javascript"))
        elif rel.endswith((".h", ".cuh", ".cpp", ".cu")) and os.path.isfile(path):
            out.append((rel, "c++"))
    return out


def findings(repo):
    """[(rel, line, kind, what, allowed-why or None)] of every tool."""
    result = []
    for rel, language in tools(repo):
        try:
            with open(os.path.join(repo, rel), encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as e:
            result.append((rel, 0, "unreadable", e.strerror, None))
            continue
        if language == "python":
            found = python_findings(rel, text)
        elif language == "shell":
            found = text_findings(text, SHELL, _strip_shell_comment) + shell_writes_checked(text)
        elif language == "javascript":
            found = text_findings(text, JS, _strip_c_comment)
        else:
            found = text_findings(text, CPP, _strip_c_comment)
        lines = text.splitlines()
        for line, kind, what in found:
            source = lines[line - 1] if 0 < line <= len(lines) else ""
            why = next((w for (f, k, t), w in ALLOWED.items() if f == rel and k == kind and t in source), None)
            result.append((rel, line, kind, what, why))
    return result


def report(repo):
    result = findings(repo)
    bad = [r for r in result if r[4] is None]
    used = {(f, k, t) for (f, k, t) in ALLOWED for (rel, line, kind, _, why) in result
            if why is not None and rel == f and kind == k}
    for rel, line, kind, what, _ in bad:
        print("%s:%d: %s outside common/'s rules: %s" % (rel, line, kind, what))
    stale = [key for key in ALLOWED if key not in used]
    for f, k, t in stale:
        print("%s: the allowed %s at %r is no longer there: take it off tool_rules.ALLOWED" % (f, k, t))
    allowed = len(result) - len(bad)
    print("tool_rules: %d tools read, %d places outside the rules%s, %d allowed (each says why)"
          % (len(tools(repo)), len(bad), "" if not stale else " and %d stale allowances" % len(stale), allowed))
    return 1 if bad or stale else 0


def main(argv):
    parser = arguments.Parser(prog="tool_rules.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", default=REPO, type=arguments.existing_folder if hasattr(arguments,
                        "existing_folder") else str, help="the checkout to read (default: this one)")
    a = parser.parse_args(argv)
    return supervisor.main(lambda: report(os.path.abspath(a.repo)), "tool_rules.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
