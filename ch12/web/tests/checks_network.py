"""The network panel, checked for what it shows: every stepping control, the
kernel's lines, the student's own values, a comparator's details, and a
phone's width. What the drawing must show is computed here, from the C++
kernels' loops (checklib.py), never taken from the page.

Each check names, in its comment, the wrong page it catches; tests/
wrong_pages.py makes those pages and shows that the check fails on each."""

import os
import sys

import page as ch12page
from checklib import (book_input, expected_59, expected_61, expected_63, page_session, passes_63,
                      require_webgpu, run_passes, WEB)

sys.path.insert(0, os.path.join(WEB, "tools"))
import kernel_text  # noqa: E402

KEY = {"right": "\ue014", "left": "\ue012", "home": "\ue011", "end": "\ue010", "up": "\ue013", "down": "\ue015",
       "space": " ", "plus": "+", "minus": "-"}
BITONIC = [2, 4, 6, 8, 9, 7, 5, 3]


def schedule_of(view, trap=False):
    """(comparators, input) of a view, from the C++ loops."""
    if view == "59":
        return expected_59(8), BITONIC
    if view == "61":
        return expected_61(8, trap), BITONIC
    n = int(view.split("-")[1])
    return expected_63(n, trap), book_input(n)


def rows_of(view):
    comparators, start = schedule_of(view)
    return run_passes(start, comparators, max(c[0] for c in comparators))


def expect_step(check, label, got, s, rows):
    """What the drawing must show at step s: the values after pass s (computed here), in
    column s, in the caption, columns 0..s shown, pass s drawn as current, the slider at s."""
    want = " ".join(map(str, rows[s]))
    ok = check.equal(f"{label}: the page is at step {s}", got["step"], s)
    ok &= check.equal(f"{label}, step {s}: the values drawn on the wires (computed here from the loop)", got["drawn"], want)
    ok &= check.equal(f"{label}, step {s}: the caption's values", got["values"], want)
    ok &= check.equal(f"{label}, step {s}: the value columns shown", got["visible"], list(range(s + 1)))
    ok &= check.equal(f"{label}, step {s}: the pass drawn as current", got["current"], [s] if s else [])
    ok &= check.equal(f"{label}, step {s}: the slider", got["slider"], s)
    ok &= check.true(f"{label}, step {s}: the slider's value text says the step in words",
                     got["valuetext"] == "the input" if s == 0 else got["valuetext"].startswith(f"after pass {s} of "),
                     got["valuetext"])
    return ok


# Wrong pages caught: a step control that moves the wrong way or by the wrong
# amount (◀ stepping forward, ▶| stopping short, the slider or a key off by
# one, play skipping a pass), a drawing that shows another step's values.
def every_control(page, check, view):
    ch12page.network(page, view)
    page.js("document.getElementById('net-speed').value = '2';")
    rows = rows_of(view)
    last = len(rows) - 1
    label = f"network {view}"

    # |◀ ◀ ▶ ▶|, clicked as a user clicks them.
    plan = [("first", 0)] + [("next", s) for s in range(1, last + 1)] + [("next", last)] + \
           [("prev", s) for s in range(last - 1, -1, -1)] + [("prev", 0), ("last", last), ("first", 0)]
    for button, s in plan:
        page.click(f"#step-{button}")
        if not expect_step(check, f"{label}, after {button}", ch12page.shown(page), s, rows):
            break

    # The slider, moved with its own keys (the browser's, not the page's).
    page.js("document.getElementById('step').focus();")
    plan = [("right", s) for s in range(1, last + 1)] + [("left", s) for s in range(last - 1, -1, -1)] + \
           [("end", last), ("home", 0)]
    for key, s in plan:
        page.keys(KEY[key])
        if not expect_step(check, f"{label}, slider {key}", ch12page.shown(page), s, rows):
            break

    # The page's keys, with nothing focused.
    page.js("document.activeElement.blur();")
    plan = [("right", s) for s in range(1, last + 1)] + [("right", last)] + \
           [("left", s) for s in range(last - 1, -1, -1)] + [("end", last), ("home", 0)]
    for key, s in plan:
        page.keys(KEY[key])
        if not expect_step(check, f"{label}, key {key}", ch12page.shown(page), s, rows):
            break
    page.keys(KEY["plus"])
    check.equal(f"{label}: + makes play faster", page.js("return document.getElementById('net-speed').value"), "4")
    page.keys(KEY["minus"])
    check.equal(f"{label}: - makes it slower again", page.js("return document.getElementById('net-speed').value"), "2")

    # Play, at 8 passes a second: every step it draws, recorded as the DOM shows it.
    page.js("document.getElementById('net-speed').value = '8';")
    page.click("#step-first")
    ch12page.record_steps(page)
    page.click("#net-play")
    check.equal(f"{label}: Play says it plays", page.js("return document.getElementById('net-play').getAttribute('aria-pressed')"),
                "true")
    page.wait_for("""const b = document.getElementById('net-play');
        return b.getAttribute('aria-pressed') === 'false' && +document.getElementById('net-svg').dataset.step === +arguments[0];""",
                  last, timeout=60, what="play to reach the last pass")
    played = ch12page.recorded_steps(page)
    check.equal(f"{label}: play visits every pass in order", [s["step"] for s in played], list(range(1, last + 1)))
    for s, got in enumerate(played, start=1):
        if not expect_step(check, f"{label}, played", got, s, rows):
            break

    # Space plays and pauses, from the keyboard (at half a pass a second, so it pauses well before the end).
    page.js("document.getElementById('net-speed').value = '0.5';")
    page.click("#step-first")
    ch12page.record_steps(page)
    page.js("document.activeElement.blur();")
    page.keys(KEY["space"])
    page.wait_for("return window.__steps.length >= 1", timeout=120, what="Space to start play")
    page.keys(KEY["space"])
    paused = page.js("""const b = document.getElementById('net-play');
        return {pressed: b.getAttribute('aria-pressed'), text: b.textContent, step: +document.getElementById('net-svg').dataset.step};""")
    check.equal(f"{label}: Space pauses play", (paused["pressed"], paused["text"]), ("false", "Play"))
    played = ch12page.recorded_steps(page)
    check.equal(f"{label}: Space-played steps run from pass 1 to where it paused", [s["step"] for s in played],
                list(range(1, paused["step"] + 1)))
    for s, got in enumerate(played, start=1):
        expect_step(check, f"{label}, Space-played", got, s, rows)
    page.click("#step-first")


def lit_of(page):
    return page.js("""
        const lit = (id) => [...document.querySelectorAll('#' + id + ' .line.lit')].map(l => l.textContent.trim());
        return {wgsl: lit('code-wgsl'), cuda: lit('code-cuda'), note: document.getElementById('code-note').textContent,
                cudaText: [...document.querySelectorAll('#code-cuda .line')].map(l => l.textContent).join('\\n')};""")


def go_to(page, s):
    page.js("const r = document.getElementById('step'); r.value = String(arguments[0]); r.dispatchEvent(new Event('input'));", s)


# Wrong pages caught: the kernel pane lighting another line than the one that
# picks this pass's pairs (or none), its note giving another pass's k and j or
# dist, the CUDA kernel shown differing from the .cu file's.
def lit_lines(page, check):
    cases = [("63-16", False, "63"), ("63-8", True, "63-trap"), ("61", False, "61"), ("61", True, "61-trap"), ("59", False, "59")]
    for view, trap, key in cases:
        ch12page.network(page, view, trap61=trap and view == "61", trap63=trap and view.startswith("63"))
        label = f"network {view}{' with its trap' if trap else ''}: the kernel's lines"
        page.wait_for("return document.querySelectorAll('#code-wgsl .line').length > 0", what="the WGSL kernel's lines")
        path, name = kernel_text.KERNELS[key]
        shown = lit_of(page)
        check.equal(f"{label}: the CUDA kernel shown is {name} of {path}, as the file has it",
                    shown["cudaText"] + "\n", kernel_text.extract(path, name).replace("\n\n", "\n \n"))
        go_to(page, 0)
        shown = lit_of(page)
        check.equal(f"{label}: nothing lit for the input", (shown["wgsl"], shown["cuda"]), ([], []))
        if view.startswith("63"):
            n = int(view.split("-")[1])
            for s, (k, j) in enumerate(passes_63(n), start=1):
                go_to(page, s)
                shown = lit_of(page)
                want_cuda = ["int l = i ^ j;", "{  // <-- THE TRAP: the book's `if (l > i) {` -- one writer per pair"
                             if trap else "if (l > i) {", "bool ascending = ((i & k) == 0);"]
                check.equal(f"{label}, pass {s}: the CUDA lines lit", shown["cuda"], want_cuda)
                check.true(f"{label}, pass {s}: the WGSL lines lit pair i with i ^ j, guard and direction",
                           len(shown["wgsl"]) == 3 and "i ^ args.j" in shown["wgsl"][0] and "l > i" in shown["wgsl"][1]
                           and "(i & args.k)" in shown["wgsl"][2], shown["wgsl"])
                check.true(f"{label}, pass {s}: the note gives k = {k}, j = {j}", f"k = {k}, j = {j};" in shown["note"],
                           shown["note"])
        elif view == "61":
            for s, dist in enumerate((4, 2, 1), start=1):
                go_to(page, s)
                shown = lit_of(page)
                test = "if (tid < dist) {  // <-- THE TRAP: the book's test is (tid % (2 * dist)) < dist" if trap \
                    else "if ((tid % (2 * dist)) < dist) {"
                check.equal(f"{label}, pass {s}: the CUDA lines lit", shown["cuda"],
                            ["for (int dist = cnt / 2; dist >= 1; dist /= 2) {", test])
                check.true(f"{label}, pass {s}: the WGSL lines lit: the loop and the active test",
                           len(shown["wgsl"]) == 2 and "for (var dist" in shown["wgsl"][0]
                           and ("tid < dist" if trap else "(tid % (2u * dist)) < dist") in shown["wgsl"][1], shown["wgsl"])
                check.true(f"{label}, pass {s}: the note gives dist = {dist}", f"dist = {dist};" in shown["note"], shown["note"])
        else:
            go_to(page, 1)
            shown = lit_of(page)
            check.equal(f"{label}, the split: the CUDA lines lit", shown["cuda"],
                        ["int hi = g_a[i + dist];", "bool should_swap = ascending ? (lo > hi) : (lo < hi);"])
            check.true(f"{label}, the split: the note gives dist = 4", "dist = 4," in shown["note"], shown["note"])
    ch12page.network(page, "63-16")


# Wrong pages caught: a disabled trap box that keeps its tick; a key that
# lists a direction the drawing does not have (merge_61.svg's "descending").
def small_items(page, check):
    ch12page.network(page, "61", trap61=True)
    ch12page.network(page, "63-8")
    box = page.js("const b = document.getElementById('net-trap-61'); return {disabled: b.disabled, checked: b.checked};")
    check.equal("61's trap box, on a view without 61's trap: off and unticked", box, {"disabled": True, "checked": False})
    for view, words in (("61", ["ascending block"]), ("63-8", ["ascending block", "descending block"])):
        ch12page.network(page, view)
        key = page.js("return [...document.querySelectorAll('#net-svg g.key text')].map(t => t.textContent.split(' (')[0]);")
        check.equal(f"network {view}: its key names the directions it draws, and no other",
                    [k for k in key if k.endswith("block")], words)


# ---- the student's own values -------------------------------------------------------------
def own(page, text):
    page.js("document.getElementById('net-values').value = arguments[0];"
            "document.getElementById('net-svg').dataset.state = 'requested';", text)
    page.click("#net-values-draw")
    return page.wait_for("""const h = document.getElementById('net-svg');
        return h.dataset.view === '63-own' && h.dataset.pending === '0' && ['done', 'error', 'invalid'].includes(h.dataset.state)
               && {state: h.dataset.state, n: h.dataset.n, error: document.getElementById('net-values-error').textContent,
                   invalid: document.getElementById('net-values').getAttribute('aria-invalid')};""",
                         what="the network of the values typed")


# Wrong pages caught: the student's values ignored (the book's input drawn
# instead), values sorted anywhere but by the kernel's passes, a count that is
# not a power of two or a value that is not an int accepted (or refused with
# no reason), "1 invocations".
def check_network_input(check):
    with page_session() as page:
        require_webgpu(ch12page.open_page(page))
        cases = [[40, -7, 13, 0, 99, 13, -250, 8],
                 [3, 1],
                 [(i * 7919 + 13) % 1000 - 500 for i in range(32)],
                 [2147483647, -2147483648, 0, -1]]
        for values in cases:
            n = len(values)
            label = f"your {n} values {' '.join(map(str, values[:8]))}{' ...' if n > 8 else ''}"
            got = own(page, "  ".join(map(str, values)) if n != 4 else ", ".join(map(str, values)))
            if not check.equal(f"{label}: drawn", (got["state"], got["n"], got["error"]), ("done", str(n), "")):
                continue
            comparators = expected_63(n)
            rows = run_passes(values, comparators, max(c[0] for c in comparators))
            steps = ch12page.step_through(page)
            check.equal(f"{label}: the drawing steps through every pass", [s["step"] for s in steps], list(range(len(rows))))
            for s, got_step in enumerate(steps):
                expect_step(check, label, got_step, s, rows)
            last = [int(v) for v in steps[-1]["drawn"].split()]
            check.equal(f"{label}: the last column is the values sorted", last, sorted(values))
            check.equal(f"{label}: the values come from WebGPU",
                        page.js("return document.getElementById('net-svg').dataset.source"), "webgpu")
            if n == 2:
                check.true(f"{label}: the caption says 1 invocation, not 1 invocations",
                           "1 invocation compared a pair" in steps[-1]["caption"], steps[-1]["caption"])
        # The trap, on the student's values: drawn (a race: no values to predict).
        ch12page.set_checkbox(page, "net-trap-63", True)
        got = page.wait_for("""const h = document.getElementById('net-svg');
            return h.dataset.trap === 'true' && h.dataset.pending === '0' && h.dataset.state;""", what="the trap on your values")
        check.equal("your values with 63's trap: drawn", got, "done")
        ch12page.set_checkbox(page, "net-trap-63", False)
        # What is refused, and why.
        bad = [("", "Type 2, 4, 8, 16 or 32 whole numbers"),
               ("5 1 4", "3 values: the network needs a power of two from 2 to 32"),
               ("1 2 x 4", '"x" is not a whole number'),
               ("1.5 2", '"1.5" is not a whole number'),
               ("99999999999 1", "99999999999 does not fit the kernel's int"),
               (" ".join(["1"] * 64), "64 values: the drawing takes at most 32"),
               ("7", "1 value: the network needs a power of two")]
        for text, reason in bad:
            got = own(page, text)
            check.equal(f"your values {text[:20]!r}: refused", got["state"], "invalid")
            check.true(f"your values {text[:20]!r}: the message says why ({reason})", reason in got["error"], got["error"])
            check.equal(f"your values {text[:20]!r}: the field is marked invalid", got["invalid"], "true")
        got = own(page, "4 3 2 1")
        check.equal("corrected values: drawn, the message gone", (got["state"], got["error"], got["invalid"]),
                    ("done", "", "false"))


# ---- a comparator's details --------------------------------------------------------------
def detail(page):
    return page.js("""const d = document.getElementById('net-detail');
        return {text: d.textContent, pass: d.dataset.pass || '', thread: d.dataset.thread || '',
                note: document.getElementById('code-note').textContent,
                focused: document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.thread || '' : ''};""")


def expect_detail(check, label, got, c, rows, pass_jk=None):
    p, thread, lo, hi, mx, d = c
    before, after = rows[p - 1], rows[p]
    check.equal(f"{label}: the comparator shown", (got["pass"], got["thread"]), (str(p), str(thread)))
    text = got["text"]
    wants = [f"invocation {thread}: elements {lo} and {hi}", f"direction bit {d} ({'descending' if d else 'ascending'}: "
             f"the larger value goes to {mx})", f"Before the pass: a[{lo}] = {before[lo]}, a[{hi}] = {before[hi]}.",
             f"After it: a[{lo}] = {after[lo]}, a[{hi}] = {after[hi]} -- "
             f"{'swapped' if before[lo] != after[lo] else 'kept'}."]
    for want in wants:
        check.true(f"{label}: the details say '{want}'", want in text, text)


# Wrong pages caught: details of another comparator than the one pointed at
# or focused, the values before and after swapped or from another pass, a
# wrong direction bit; comparators that keyboard users cannot reach.
def check_comparator(check):
    with page_session() as page:
        require_webgpu(ch12page.open_page(page))
        view = "63-16"
        ch12page.network(page, view)
        rows = rows_of(view)
        comparators = expected_63(16)
        (k, j) = passes_63(16)[2]
        page.click("#step-first")
        for _ in range(3):
            page.click("#step-next")
        # Pointing at each comparator of pass 3, and at two of passes still to come.
        chosen = [c for c in comparators if c[0] == 3] + [c for c in comparators if c[0] == 7][:2]
        for c in chosen:
            page.hover(f'#net-svg g.cmp[data-pass="{c[0]}"][data-thread="{c[1]}"]')
            got = detail(page)
            expect_detail(check, f"pointing at pass {c[0]}, invocation {c[1]}", got, c, rows)
            if c[0] == 3:
                want = f"Invocation {c[1]}: l = {c[1]} ^ {j} = {c[1] ^ j}"
                check.true(f"pointing at pass 3, invocation {c[1]}: the kernel note works it out ({want})",
                           want in got["note"], got["note"])
        # Focus: one tab stop in the current pass, then the arrows.
        stops = page.js("return [...document.querySelectorAll('#net-svg g.pass.current g.cmp')].map(g => g.getAttribute('tabindex'));")
        check.equal("the current pass's comparators: one tab stop (roving)", sorted(s or "none" for s in stops),
                    ["-1"] * (len(stops) - 1) + ["0"])
        hidden = page.js("return [...document.querySelectorAll('#net-svg g.cmp[tabindex]')].filter(g => g.closest('[aria-hidden=true]')).length;")
        check.equal("no focusable comparator is hidden from screen readers", hidden, 0)
        page.js("document.querySelector('#net-svg g.pass.current g.cmp[tabindex=\"0\"]').focus();")
        current = [c for c in comparators if c[0] == 3]
        for index in list(range(len(current))) + [0]:
            got = detail(page)
            c = current[index]
            check.equal(f"focus on pass 3: invocation {c[1]} has focus", got["focused"], str(c[1]))
            expect_detail(check, f"focus on pass 3, invocation {c[1]}", got, c, rows)
            page.keys(KEY["down"])
        label = page.js("return document.activeElement.getAttribute('aria-label') || ''")
        c = current[1]
        check.true("a focused comparator is named for screen readers (pair, direction bit, values)",
                   f"elements {c[2]} and {c[3]}" in label and f"direction bit {c[5]}" in label, label)


# ---- a phone -------------------------------------------------------------------------------
# Wrong pages caught: at a phone's width, the current pass scrolled out of
# view; the drawing moving up or down between steps (a caption above it that
# wraps); the page wider than the screen. The drawing's place is measured
# from the top of its own section: the lessons above it print when their
# kernels finish, on a loaded machine while the steps are taken, and that
# move is not the stepping's.
def check_phone(check):
    with page_session() as page:
        page.set_window(400, 860)
        require_webgpu(ch12page.open_page(page))
        width = page.js("return window.innerWidth")
        print(f"window inner width: {width} px")
        for view in ("63-16", "63-32"):
            ch12page.network(page, view)
            page.js("document.getElementById('net-svg').scrollIntoView();")
            page.click("#step-first")
            tops = []
            last = int(page.js("return +document.getElementById('step').max"))
            for s in range(last + 1):
                if s:
                    page.click("#step-next")
                where = page.js("""
                    const holder = document.getElementById('net-svg');
                    const svg = holder.querySelector('svg');
                    const s = +holder.dataset.step;
                    const box = holder.getBoundingClientRect();
                    const section = document.getElementById('network').getBoundingClientRect();
                    const lit = holder.querySelector(`rect.lit[data-pass="${Math.max(s, 1)}"]`).getBoundingClientRect();
                    return {top: Math.round(svg.getBoundingClientRect().top - section.top), left: lit.left, right: lit.right,
                            boxLeft: box.left, boxRight: box.right, step: s};""")
                tops.append(where["top"])
                check.true(f"phone, network {view}, step {s}: the current pass is in view",
                           where["left"] >= where["boxLeft"] - 1 and where["right"] <= where["boxRight"] + 1, where)
            check.equal(f"phone, network {view}: the drawing stays where it is from step to step", sorted(set(tops)), [tops[0]])
        overflow = page.js("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        check.true("phone: the page is no wider than the screen", overflow <= 0, f"{overflow} px wider")
