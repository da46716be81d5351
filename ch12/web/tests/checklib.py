"""What the page's checks share: the Check tally, the goldens, the schedules
enumerated here from the C++ kernels' own loops (never from the page's
JavaScript), the sort's inputs and totalOrder written again in Python, and
the browser session (on the page's folder, or on a copy of it that
tests/wrong_pages.py has broken on purpose)."""

import difflib
import os
import re
import sys

import webdriver

TESTS = os.path.dirname(os.path.abspath(__file__))
WEB = os.path.dirname(TESTS)
REPO = os.path.dirname(os.path.dirname(WEB))
GOLDEN = os.path.join(REPO, "expected_output")

# The folder the browser is served: the page, or a broken copy of it.
SERVE_ROOT = WEB


class Check:
    """Collects failures; each check says what it compared."""

    def __init__(self, quiet=False):
        self.failures = []
        self.passed = 0
        self.quiet = quiet

    def say(self, text):
        if not self.quiet:
            print(text)

    def equal(self, what, got, want):
        if got == want:
            self.passed += 1
            return True
        self.failures.append(what)
        self.say(f"FAIL: {what}")
        if isinstance(got, str) and isinstance(want, str):
            show = lambda t: [line.replace(" ", "·") + "$" for line in t.split("\n")]  # noqa: E731
            for line in difflib.unified_diff(show(want), show(got), "expected", "page", lineterm="", n=2):
                self.say("  " + line)
        else:
            self.say(f"  expected: {want!r}\n  page:     {got!r}"[:3000])
        return False

    def true(self, what, condition, detail=""):
        if condition:
            self.passed += 1
            return True
        self.failures.append(what)
        self.say(f"FAIL: {what}" + (f"\n  {str(detail)[:3000]}" if detail != "" else ""))
        return False


def golden(name):
    with open(os.path.join(GOLDEN, name), encoding="utf-8", newline="") as f:
        return f.read().replace("\r\n", "\n")


def page_session(webgpu=True):
    return webdriver.Page(webgpu=webgpu, root=SERVE_ROOT)


def require_webgpu(status):
    if status["source"] != "webgpu":
        print(f"SKIPPED: the browser offered no WebGPU adapter: {status['text']}")
        sys.exit(webdriver.SKIP)
    print(f"WebGPU adapter: vendor '{status['vendor']}', architecture '{status['architecture']}'")


# ---- the schedules, enumerated here from the C++ kernels' own loops ---------------------
# Each comparator: (pass, thread, lo, hi, element that gets the max, direction bit).
def expected_63(n, trap=False):
    """63_bitonic_sort_iterative.cu: for k, for j, thread i with l = i ^ j works
    when l > i (63_trap_no_pair_guard: always); it swaps when ascending
    ((i & k) == 0) and a[i] > a[l] -- the max goes to l -- or descending and
    a[i] < a[l] -- the max goes to i."""
    out, p, k = [], 0, 2
    while k <= n:
        j = k // 2
        while j > 0:
            p += 1
            for i in range(n):
                l = i ^ j
                if l > i or trap:
                    ascending = (i & k) == 0
                    out.append((p, i, min(i, l), max(i, l), l if ascending else i, 0 if ascending else 1))
            j //= 2
        k *= 2
    return sorted(out)


def passes_63(n):
    """The (k, j) of each pass of 63's loop, in order."""
    out, k = [], 2
    while k <= n:
        j = k // 2
        while j > 0:
            out.append((k, j))
            j //= 2
        k *= 2
    return out


def expected_61(n, trap=False):
    """61_bitonic_merge_multipass.cu: dist = n/2 .. 1, thread tid compares tid and
    tid + dist when (tid % (2*dist)) < dist (the trap: tid < dist), ascending."""
    out, p, dist = [], 0, n // 2
    while dist >= 1:
        p += 1
        for tid in range(n):
            if (tid < dist) if trap else (tid % (2 * dist) < dist):
                out.append((p, tid, tid, tid + dist, tid + dist, 0))
        dist //= 2
    return sorted(out)


def expected_59(n):
    dist = n // 2
    return sorted((1, i, i, i + dist, i + dist, 0) for i in range(dist))


def run_passes(values, comparators, passes):
    """The array after each pass (the pairs of a correct pass are disjoint)."""
    rows, a = [list(values)], list(values)
    for p in range(1, passes + 1):
        for (_, _, lo, hi, mx, _) in (c for c in comparators if c[0] == p):
            other = lo if mx == hi else hi
            if a[other] > a[mx]:
                a[other], a[mx] = a[mx], a[other]
        rows.append(list(a))
    return rows


def book_input(n):
    return [(i * 13 + 5) % n for i in range(n)]


# ---- the sort panel's floats, written again here -------------------------------------
def order_key(bits):
    """IEEE 754 totalOrder as an unsigned key: -NaN < -inf < .. < -0 < +0 < .. < +inf < +NaN."""
    return bits ^ 0xFFFFFFFF if bits & 0x80000000 else bits | 0x80000000


CPP_INPUT_KINDS = os.path.join(REPO, "ch12", "extras", "support", "input_kinds.h")


def cpp_input_kinds(path=CPP_INPUT_KINDS):
    """The kinds' names, read from the header's one table: each line
    X(enumerator, "name", "what it is") of the CH12_INPUT_KINDS macro, in order."""
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"//[^\n]*", "", f.read())
    names = re.findall(r'\bX\(\s*\w+\s*,\s*"([^"\\]*)"', text)
    if len(names) >= 2 and all(re.fullmatch(r"[a-z][a-z0-9-]*", n) for n in names):
        return names
    raise SystemExit(f"FAIL: {os.path.relpath(path, REPO)}: no table of input kinds (lines X(id, \"name\", \"what\"))")



def from_order_key(key):
    """The float's bits of a totalOrder key (order_key's inverse)."""
    return key & 0x7FFFFFFF if key & 0x80000000 else key ^ 0xFFFFFFFF


# The C++ programs' one generator of the input kinds, for floats (the recipe
# in ch12/extras/support/input_kinds.h; the page's js/floats.js has it too):
# key i of n depends on (kind, i, n, seed) only. input_kinds_languages holds
# this to the C++, key for key.
SPECIAL = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFBFFFFF,
           0x7FFFFFFF, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF,
           0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x3F800000]
M32 = 0xFFFFFFFF


def _hash32(x):   # lowbias32
    x ^= x >> 16
    x = (x * 0x7FEB352D) & M32
    x ^= x >> 15
    x = (x * 0x846CA68B) & M32
    return x ^ (x >> 16)


def _random(i, seed):
    c = _hash32(seed ^ _hash32((i >> 32) ^ 0x85EBCA6B))
    return _hash32((_hash32((i & M32) ^ c) + c) & M32)


def _sorted_order(i, n):
    last = (n - 1) // 3 if n > 0 else 0
    t = 0
    while last >> t >= 1 << 31:
        t += 1
    m = last >> t
    return (0x80000000 - (m + 1) // 2 + ((i // 3) >> t)) & M32


def input_key(kind, i, n, seed):
    """Float i of n of one kind, as bits."""
    seed &= M32
    if kind == "uniform":
        return from_order_key(_random(i, seed))
    if kind == "sorted":
        return from_order_key(_sorted_order(i, n))
    if kind == "reverse":
        return from_order_key(_sorted_order(n - 1 - i, n))
    if kind == "equal":
        return from_order_key(_hash32(seed ^ 0x9E3779B9))
    if kind == "few-unique":
        j = _random(i, seed) % 8
        v = M32
        if j < 7:
            v = _hash32(j ^ _hash32(seed ^ 0x632BE5AB))
            if v == M32:
                v = M32 - 1   # (never value 7's: eight keys, always)
        return from_order_key(v)
    if kind == "special":
        return SPECIAL[_random(i, seed) % len(SPECIAL)]
    raise ValueError(f"no input kind {kind}")


def make_input(kind, n, seed=12):
    """The floats (as bits) the page says it sorts, made here by the same
    recipe (seed 12, as the page), so the test knows what went in."""
    return [input_key(kind, i, n, seed) for i in range(n)]


# ---- contrast (WCAG 2) -------------------------------------------------------------------
def parse_color(text):
    """'rgb(1, 2, 3)', 'rgba(..)' or '#abcdef' -> (r, g, b, alpha)."""
    import re
    text = text.strip()
    m = re.match(r"rgba?\(([\d.]+)[ ,]+([\d.]+)[ ,]+([\d.]+)(?:[ ,/]+([\d.]+))?\)", text)
    if m:
        return tuple(float(m.group(i)) for i in (1, 2, 3)) + (float(m.group(4)) if m.group(4) else 1.0,)
    m = re.match(r"#([0-9a-f]{6})$", text, re.I)
    if m:
        h = m.group(1)
        return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4)) + (1.0,)
    raise ValueError(f"not a colour: {text!r}")


def luminance(rgb):
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = rgb[:3]
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(fg, bg):
    a, b = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)
