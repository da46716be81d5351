#!/usr/bin/env python3
"""The sort library's house rules, read from its sources (any machine).

    library_rules.py

The library -- every file under ch12/extras/sort/include/ (its API) and
ch12/extras/sort/src/ (its own), plus the headers of common/ it includes
(ch12/status.h, cuda_status.h, device_buffer.h) -- must never end the
process and never read the environment:
  * no exit(), std::exit, _exit, quick_exit, abort(), no CUDA_CHECK (which
    exits) and no cuda_check.h: errors are returned as a bitonic::Status;
  * no getenv / secure_getenv / environ: a profile reaches the library
    through its API, never through a variable.
Comments are ignored. Prints each finding as FILE:LINE: what; exit 1 if any.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
LIBRARY = ("include", "src")
COMMON = ("include/ch12/status.h", "cuda_status.h", "device_buffer.h")
SOURCES = (".cu", ".cuh", ".h", ".cpp")

RULES = [
    (re.compile(r"(?<![\w.>])(std::)?(exit|_Exit|_exit|quick_exit|abort)\s*\("), "ends the process"),
    (re.compile(r"\bCUDA_CHECK(_LAUNCH)?\b|cuda_check\.h"), "uses the exiting CUDA_CHECK"),
    (re.compile(r"\b(secure_)?getenv\b|\benviron\b"), "reads the environment"),
]


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


def library_files():
    files = []
    for folder in LIBRARY:
        for top, dirs, names in os.walk(os.path.join(HERE, folder)):
            dirs.sort()
            files += [os.path.join(top, f) for f in sorted(names) if f.endswith(SOURCES)]
    return files + [os.path.join(ROOT, "common", f) for f in COMMON]


def main():
    findings, files = [], library_files()
    for path in files:
        with open(path, encoding="utf-8") as f:
            code = strip_comments(f.read())
        for number, line in enumerate(code.splitlines(), 1):
            for pattern, what in RULES:
                if pattern.search(line):
                    findings.append("%s:%d: %s: %s" % (os.path.relpath(path, ROOT), number, what, line.strip()))
    for f in findings:
        print(f)
    print("%d library files read, %d findings" % (len(files), len(findings)))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
