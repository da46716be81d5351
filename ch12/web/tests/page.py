"""The page's own controls, driven as a student would: tick a box, pick a
view, press a button -- and what the page then shows, read from its DOM.
Used by page_output.py and test_web.py."""

PROGRAM_NAMES = {
    ("59", False): "59_bitonic_split_kernel",
    ("61", False): "61_bitonic_merge_multipass",
    ("61", True): "61_trap_first_group_only",
    ("63", False): "63_bitonic_sort_iterative",
    ("63", True): "63_trap_no_pair_guard",
}


def open_page(page, webgpu=True):
    """Loads index.html (with ?webgpu=off when webgpu is False) and waits for
    it to say where its kernels run."""
    page.open("index.html" if webgpu else "index.html?webgpu=off")
    page.wait_for("return document.getElementById('gpu-status').dataset.state === 'done'",
                  what="the page to find (or not find) WebGPU")
    return gpu_status(page)


def gpu_status(page):
    return page.js("""
        const s = document.getElementById('gpu-status');
        return {source: s.dataset.source, vendor: s.dataset.vendor || '', architecture: s.dataset.architecture || '',
                text: s.textContent};""")


def set_checkbox(page, element_id, checked):
    """Clicks the checkbox when it is not already as wanted (the click fires 'change')."""
    page.js("""
        const box = document.getElementById(arguments[0]);
        if (box.checked !== arguments[1]) box.click();""", element_id, bool(checked))


def lesson(page, program, trap=False, timeout=120):
    """Program 59, 61 or 63 (its trap when trap) as the page printed it:
    {name, text, source, exit, ran_on}."""
    name = PROGRAM_NAMES[(program, trap)]
    if program in ("61", "63"):
        set_checkbox(page, f"trap-{program}", trap)
    value = page.wait_for("""
        const out = document.getElementById('out-' + arguments[0]);
        if (out.dataset.pending !== '0' || out.dataset.program !== arguments[1]
            || !['done', 'error'].includes(out.dataset.state)) return null;
        return {state: out.dataset.state, text: out.textContent, source: out.dataset.source || '',
                exit: out.dataset.exit || '', ran_on: document.getElementById('ran-' + arguments[0]).textContent};""",
                          program, name, timeout=timeout, what=f"the page to print {name}")
    value.update(name=name)
    return value


def network(page, view, trap61=False, trap63=False, timeout=120):
    """Shows network `view` ('59', '61', '63-8', '63-16', '63-32') with the
    traps as given; returns its comparators (one dict per drawn comparator,
    from the SVG's data- attributes), the number of passes and the source."""
    page.js("""
        const select = document.getElementById('net-view');
        if (select.value !== arguments[0]) {
            select.value = arguments[0];
            select.dispatchEvent(new Event('change'));
        }""", view)
    # (a view's trap box is enabled once the view is chosen)
    set_checkbox(page, "net-trap-61", trap61)
    set_checkbox(page, "net-trap-63", trap63)
    trap = (trap61 and view == "61") or (trap63 and view.startswith("63"))
    state = page.wait_for("""
        const holder = document.getElementById('net-svg');
        return holder.dataset.pending === '0' && holder.dataset.view === arguments[0]
               && holder.dataset.trap === arguments[1]
               && ['done', 'error'].includes(holder.dataset.state) && holder.dataset.state;""",
                          view, "true" if trap else "false", timeout=timeout, what=f"the network {view}")
    return page.js("""
        const holder = document.getElementById('net-svg');
        const svg = holder.querySelector('svg');
        const cmps = svg ? [...svg.querySelectorAll('g.cmp')].map(g => ({
            pass: +g.dataset.pass, thread: +g.dataset.thread, lo: +g.dataset.lo, hi: +g.dataset.hi,
            max: +g.dataset.max, dir: +g.dataset.dir, swapped: g.classList.contains('swapped')})) : [];
        return {state: arguments[0], source: holder.dataset.source || '', text: holder.textContent.slice(0, 2000),
                passes: svg ? +svg.dataset.passes : 0, n: svg ? +svg.dataset.n : 0, comparators: cmps};""", state)


def step_through(page):
    """Presses 'first' and then 'next' to the end; returns, for each step, the
    values the caption gives, the values drawn on the wires in that step's
    column, which passes are shown done/current, and the caption."""
    page.js("document.getElementById('step-first').click();")
    steps = []
    while True:
        steps.append(page.js("""
            const holder = document.getElementById('net-svg');
            const s = +holder.dataset.step;
            const n = +holder.querySelector('svg').dataset.n;
            const drawn = [];
            for (let w = 0; w < n; w++) drawn.push(document.getElementById(`net-v-${s}-${w}`).textContent);
            const visible = [...holder.querySelectorAll('g.values')].filter(g => !g.classList.contains('hidden'))
                                                                   .map(g => +g.dataset.after);
            const current = [...holder.querySelectorAll('g.pass.current')].map(g => +g.dataset.pass);
            const caption = document.getElementById('step-caption');
            return {step: s, values: caption.dataset.values, drawn: drawn.join(' '), visible, current,
                    caption: caption.textContent};"""))
        last = page.js("const r = document.getElementById('step'); return +r.value >= +r.max;")
        if last:
            return steps
        page.js("document.getElementById('step-next').click();")


def sort(page, log2n, kind="uniform", runs=1, timeout=600):
    """Presses Sort for 2^log2n floats of input `kind`: the result line and its data."""
    page.js("""
        document.getElementById('sort-log2n').value = String(arguments[0]);
        document.getElementById('sort-input').value = arguments[1];
        document.getElementById('sort-runs').value = String(arguments[2]);
        document.getElementById('sort-result').dataset.state = 'requested';
        document.getElementById('sort-run').click();""", log2n, kind, runs)
    page.wait_for("""
        const r = document.getElementById('sort-result');
        return r.dataset.n === String(2 ** arguments[0]) && !['requested', 'running'].includes(r.dataset.state);""",
                  log2n, timeout=timeout, poll=0.5, what=f"the sort of 2^{log2n} floats")
    return page.js("""
        const r = document.getElementById('sort-result');
        return {state: r.dataset.state, check: r.dataset.check || '', ms: r.dataset.ms || '',
                clock: r.dataset.clock || '', text: r.textContent};""")
