"""The page's own controls, driven as a student would: tick a box, pick a
view, press a button -- and what the page then shows, read from its DOM.
Used by page_output.py and test_web.py."""

import sys

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


# What the drawing shows now, read from the DOM: the step the page says it is
# at, the values drawn in that step's column, the columns shown, the pass
# drawn as current, the caption (and the values it gives).
SHOWN = """
    const holder = document.getElementById('net-svg');
    const s = +holder.dataset.step;
    const n = +holder.querySelector('svg').dataset.n;
    const drawn = [];
    for (let w = 0; w < n; w++) {
        const t = document.getElementById(`net-v-${s}-${w}`);
        drawn.push(t ? t.textContent : '?');
    }
    const visible = [...holder.querySelectorAll('g.values')].filter(g => !g.classList.contains('hidden'))
                                                           .map(g => +g.dataset.after);
    const current = [...holder.querySelectorAll('g.pass.current')].map(g => +g.dataset.pass);
    const caption = document.getElementById('step-caption');
    const slider = document.getElementById('step');
    return {step: s, values: caption.dataset.values, drawn: drawn.join(' '), visible, current,
            caption: caption.textContent, slider: +slider.value, valuetext: slider.getAttribute('aria-valuetext')};"""


def shown(page):
    return page.js(SHOWN)


def step_through(page):
    """Presses 'first' and then 'next' to the end; returns, for each step, the
    values the caption gives, the values drawn on the wires in that step's
    column, which passes are shown done/current, and the caption."""
    page.js("document.getElementById('step-first').click();")
    steps = []
    while True:
        steps.append(shown(page))
        last = page.js("const r = document.getElementById('step'); return +r.value >= +r.max;")
        if last:
            return steps
        page.js("document.getElementById('step-next').click();")


def record_steps(page):
    """From now on, every step the page draws is recorded as the DOM shows it
    (the 'ch12-step' event): read them with recorded_steps()."""
    page.js("""
        window.__steps = [];
        const read = new Function(arguments[0]);
        const holder = document.getElementById('net-svg');
        if (!window.__recording) {
            window.__recording = true;
            holder.addEventListener('ch12-step', () => window.__steps.push(read()));
        }""", SHOWN)


def recorded_steps(page):
    return page.js("return window.__steps;")


def sort(page, log2n, kind="uniform", runs=1, timeout=600):
    """Presses Sort for 2^log2n floats of input `kind`: the result line and its data."""
    page.js("""
        const size = document.getElementById('sort-log2n');
        if (![...size.options].some(o => o.value === String(arguments[0]))) {
            const box = document.getElementById('sort-larger');  // the sizes past 2^20 on a software adapter
            if (!box.checked) box.click();
        }
        size.value = String(arguments[0]);
        document.getElementById('sort-input').value = arguments[1];
        document.getElementById('sort-runs').value = String(arguments[2]);
        document.getElementById('sort-result').dataset.state = 'requested';
        document.getElementById('sort-run').click();""", log2n, kind, runs)
    page.wait_for("""
        const r = document.getElementById('sort-result');
        return !['requested', 'running'].includes(r.dataset.state);""",
                  log2n, timeout=timeout, poll=0.5, what=f"the sort of 2^{log2n} floats")
    return page.js("""
        const r = document.getElementById('sort-result');
        return {state: r.dataset.state, check: r.dataset.check || '', ms: r.dataset.ms || '',
                clock: r.dataset.clock || '', checked: r.dataset.checked || '', n: r.dataset.n || '',
                text: r.textContent};""")


# The test's own read-back of the sort's result: the GPU buffer the page
# sorted (window.ch12Sort.last), copied to a buffer of the test's and mapped
# here, and the input the page sorted, both as base64 of little-endian words.
READ_BACK = """
    const done = arguments[arguments.length - 1];
    (async () => {
        const last = window.ch12Sort && window.ch12Sort.last;
        if (!last) return done({error: 'the page kept no sort result on the GPU'});
        const {device, buffer, n, input} = last;
        const staging = device.createBuffer({size: n * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST});
        const encoder = device.createCommandEncoder();
        encoder.copyBufferToBuffer(buffer, 0, staging, 0, n * 4);
        device.queue.submit([encoder.finish()]);
        await staging.mapAsync(GPUMapMode.READ);
        const out = new Uint8Array(staging.getMappedRange().slice(0));
        staging.unmap();
        staging.destroy();
        const b64 = (u8) => {
            let s = '';
            for (let i = 0; i < u8.length; i += 0x8000) s += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000));
            return btoa(s);
        };
        done({n, output: b64(out), input: b64(new Uint8Array(input.buffer, input.byteOffset, input.byteLength))});
    })().catch(e => done({error: String(e)}));"""


def sort_result_on_gpu(page):
    """(n, input words, output words) as the GPU holds them, read by the test itself."""
    import array
    import base64
    value = page.js_async(READ_BACK)
    if value.get("error"):
        raise RuntimeError(value["error"])
    words = []
    for key in ("input", "output"):
        a = array.array("I")
        a.frombytes(base64.b64decode(value[key]))
        if sys.byteorder != "little":
            a.byteswap()
        words.append(a)
    return value["n"], words[0], words[1]
