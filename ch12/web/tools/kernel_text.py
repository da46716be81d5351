#!/usr/bin/env python3
"""The CUDA kernels that the page shows beside its drawing, line by line
(js/cuda_kernels.js), taken from the programs' .cu files: the page cannot read
files outside ch12/web/, so it carries a copy, and this tool keeps the copy
true.

    kernel_text.py --check     exit 0 when js/cuda_kernels.js holds each
                               kernel exactly as its .cu file has it, 1 when
                               one differs (the test web_kernel_text)
    kernel_text.py --write     writes js/cuda_kernels.js from the .cu files

A kernel is the text from the line `__global__ void NAME(` to the first line
that is `}` alone: the .cu file's lines, companion comments included.
"""

import argparse
import json
import os
import sys
import tempfile

WEB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(WEB))
OUT = os.path.join(WEB, "js", "cuda_kernels.js")

# The kernels, by the page's name for them: (the .cu file, from the repository root; the kernel's name).
# If a lesson's kernel moves to another file, change its path here.
KERNELS = {
    "59": ("ch12/59_bitonic_split_kernel.cu", "compare_exchange_kernel"),
    "61": ("ch12/61_bitonic_merge_multipass.cu", "bitonic_merge_kernel"),
    "61-trap": ("ch12/traps/61_trap_first_group_only.cu", "bitonic_merge_kernel"),
    "63": ("ch12/63_bitonic_sort_iterative.cu", "bitonic_sort_kernel"),
    "63-trap": ("ch12/traps/63_trap_no_pair_guard.cu", "bitonic_sort_kernel"),
}

HEADER = """// ch12/web/js/cuda_kernels.js -- the CUDA kernels of 59, 61 and 63 (and of
// the traps of 61 and 63), as their .cu files have them, for the page's
// kernel pane. WRITTEN BY tools/kernel_text.py --write; the test
// web_kernel_text fails when a .cu file's kernel and this copy differ.
"""


class Problem(Exception):
    pass


def extract(path, name):
    try:
        with open(os.path.join(REPO, path), encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise Problem(f"{path}: cannot read it ({e.strerror})") from None
    start = next((i for i, line in enumerate(lines) if line.startswith(f"__global__ void {name}(")), None)
    if start is None:
        raise Problem(f"{path}: no line starts with '__global__ void {name}('")
    end = next((i for i in range(start, len(lines)) if lines[i] == "}"), None)
    if end is None:
        raise Problem(f"{path}: the kernel {name} has no closing '}}' on a line of its own")
    return "\n".join(lines[start:end + 1]) + "\n"


def render():
    body = {key: {"file": path, "kernel": name, "text": extract(path, name)} for key, (path, name) in KERNELS.items()}
    return HEADER + "\nexport const CUDA_KERNELS = " + json.dumps(body, indent=2, ensure_ascii=False) + ";\n"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="kernel_text.py", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    parser.add_argument("--js", default=OUT, help="the file to check (default: js/cuda_kernels.js)")
    args = parser.parse_args(argv)
    try:
        text = render()
    except Problem as e:
        print(f"FAIL: {e}")
        return 1
    if args.write:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(OUT), prefix=".cuda_kernels.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            os.chmod(tmp, 0o644)
            os.replace(tmp, OUT)
        except BaseException:
            os.unlink(tmp)
            raise
        print(f"wrote {os.path.relpath(OUT, REPO)}")
        return 0
    try:
        with open(args.js, encoding="utf-8", newline="") as f:
            current = f.read()
    except OSError:
        current = ""
    if current != text:
        print(f"FAIL: {args.js} is not the kernels of today's .cu files; "
              "run `python3 ch12/web/tools/kernel_text.py --write` and commit the result")
        import difflib
        for line in list(difflib.unified_diff(current.splitlines(), text.splitlines(), "committed", "from the .cu files",
                                              lineterm="", n=1))[:40]:
            print("  " + line)
        return 1
    for key, (path, name) in KERNELS.items():
        print(f"{key}: {name} of {path}: as in js/cuda_kernels.js")
    return 0


if __name__ == "__main__":
    sys.exit(main())
