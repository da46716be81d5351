"""The page as a whole: what it says when it cannot run (opened from the disk,
a module missing or broken), its list of sort inputs against the C++
programs' list, and the CUDA kernels it shows against the .cu files.

Each check names, in its comment, the wrong page it catches; tests/
wrong_pages.py makes those pages and shows that the check fails on each."""

import os
import shlex
import shutil
import sys

import checklib
import page as ch12page
import webdriver
import delete_policy  # (common/, put on the path by webdriver)
import write_policy
from checklib import CPP_INPUT_KINDS, REPO, WEB, cpp_input_kinds, page_session

# The C++ header that defines the programs' kinds of input (--input KIND).
# If the list moves to another header, change this path.


def copy_of_page(dest, leave_out=()):
    """A copy of the page served now in dest, inside a folder made in this run
    (common/delete_policy.py), without the files named in leave_out."""
    skip = shutil.ignore_patterns("node_modules", "pictures", "tests", "tools", "__pycache__")
    root = os.path.realpath(checklib.SERVE_ROOT)
    def ignore(folder, names):
        rel = os.path.relpath(os.path.realpath(folder), root)
        return set(skip(folder, names)) | {n for n in names if os.path.normpath(os.path.join(rel, n)) in leave_out}
    write_policy.copy_tree(checklib.SERVE_ROOT, dest, ignore=ignore)


def load_problem(page):
    return page.wait_for("""const box = document.getElementById('load-problem');
        return !box.hidden && {text: box.textContent, command: (document.getElementById('load-command') || {}).textContent || '',
                               status: document.getElementById('gpu-status').textContent};""",
                         timeout=30, what="the page to say that it cannot run")


# Wrong pages caught: a page that, opened from the disk or with a module that
# does not load or does not parse, says "Looking for WebGPU..." forever and
# gives its reason only in the console; a command that serves another folder.
def check_load_failures(check):
    with page_session() as page:
        root = checklib.SERVE_ROOT
        page.open_url("file://" + os.path.join(root, "index.html"))
        got = load_problem(page)
        print(f"file:// -- the page says: {got['text']}")
        check.true("file://: the page says it was opened from the disk", "file://" in got["text"], got["text"])
        words = shlex.split(got["command"])
        check.equal("file://: the command is python3 -m http.server -d FOLDER 8000", words[:4] + words[5:],
                    ["python3", "-m", "http.server", "-d", "8000"])
        check.true("file://: the command serves the page's own folder",
                   len(words) == 6 and os.path.isdir(words[4]) and os.path.samefile(words[4], root), got["command"])
        check.true("file://: the status line no longer looks for WebGPU", "Looking for WebGPU" not in got["status"],
                   got["status"])
    scratch = delete_policy.temporary_folder("ch12-web-broken-")
    try:
        copy_of_page(os.path.join(scratch, "missing"), leave_out={os.path.join("js", "floats.js")})
        copy_of_page(os.path.join(scratch, "syntax"))
        broken = os.path.join(scratch, "syntax", "js", "schedule.js")
        with open(broken, "rb") as f:
            text = f.read()
        write_policy.write_bytes(broken, text + b"\nexport function broken( {\n", what="broken copy")
        with webdriver.Page(root=scratch) as page:
            for case, want in (("missing", "could not load js/floats.js: HTTP 404"), ("syntax", "js/schedule.js")):
                page.open(f"{case}/index.html")
                got = load_problem(page)
                print(f"{case}: the page says: {got['text']}")
                check.true(f"a module {'missing' if case == 'missing' else 'that does not parse'}: the page names it "
                           f"({want})", want in got["text"], got["text"])
                check.true(f"{case}: the page gives the command that serves the folder",
                           got["command"].startswith("python3 -m http.server -d ch12/web 8000"), got["command"])
    finally:
        delete_policy.remove(scratch)


# Wrong pages caught: a kind of input the C++ programs have and the page does
# not (or the other way round, or under another name, or in another order).
def check_input_kinds(check):
    want = cpp_input_kinds()
    print(f"{os.path.relpath(CPP_INPUT_KINDS, REPO)}: {', '.join(want)}")
    with page_session() as page:
        ch12page.open_page(page)
        got = page.js("return [...document.getElementById('sort-input').options].map(o => [o.value, o.textContent]);")
    check.equal("the page's kinds of input are the C++ programs' (names and order)", [v for v, _ in got], want)
    for value, text in got:
        check.true(f"the page's input {value}: its text starts with its name", text.startswith(value), text)


# Wrong pages caught: a CUDA kernel on the page that is not the .cu file's
# (edited by hand, or left behind when the .cu changed).
def check_kernel_text(check):
    sys.path.insert(0, os.path.join(WEB, "tools"))
    import kernel_text
    js = os.path.join(checklib.SERVE_ROOT, "js", "cuda_kernels.js")
    check.equal("js/cuda_kernels.js holds each kernel as its .cu file has it (tools/kernel_text.py --check)",
                kernel_text.main(["--check", "--js", js]), 0)
