// ch12/web/js/main.js -- the page: finds WebGPU (or says why not), runs the
// three lessons, draws and steps the network, runs the sort panel.
//
// ?webgpu=off (the first checkbox) runs the book's replay in JavaScript
// instead of WebGPU, labelled as --replay labels its own output. The state of
// each panel is in data- attributes (data-state: running / done / error;
// data-source: webgpu / replay), which the tests in tests/ read.

import { PROGRAMS, lessonInput, programText } from "./programs.js";
import { replayMerge, replaySort, replaySplit } from "./replay.js";
import { VIEWS, viewInput } from "./schedule.js";
import { networkSvg } from "./network_svg.js";
import { describeAdapter, openGpu, runMerge, runSort, runSplit } from "./webgpu.js";
import { INPUTS, firstDifference, gpuSort, makeInput, median, referenceSort } from "./sort.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

// ---- where the kernels run ---------------------------------------------------------
let gpuPromise = null;  // the WebGPU device, opened once
function webgpuWanted() {
  return $("use-webgpu").checked;
}
async function backend() {
  if (!webgpuWanted()) return { error: "switched off on this page", off: true };
  if (!gpuPromise) gpuPromise = openGpu();
  return gpuPromise;
}

async function showBackend() {
  const status = $("gpu-status");
  const gpu = await backend();
  if (gpu.error) {
    status.dataset.source = "replay";
    status.textContent = `No WebGPU here: ${gpu.error}. The kernels' output below is the book's CPU replay in ` +
      "JavaScript, labelled as --replay labels its own: no GPU was used.";
  } else {
    status.dataset.source = "webgpu";
    status.dataset.vendor = gpu.info.vendor;
    status.dataset.architecture = gpu.info.architecture;
    status.textContent = `WebGPU adapter: ${describeAdapter(gpu.info)}. The kernels below run on it.`;
  }
  status.dataset.state = "done";
  return gpu;
}

// One piece of GPU work at a time.
let queue = Promise.resolve();
function serial(work) {
  const next = queue.then(work, work);
  queue = next.catch(() => {});
  return next;
}

// ---- the lessons ------------------------------------------------------------------
// What program `id` (its trap when `trap`) leaves behind, on the GPU or replayed.
async function runProgram(gpu, id, trap) {
  const input = lessonInput(id);
  if (gpu.error) {
    if (id === "59") return { ...replaySplit(input, 4), dist: 4 };
    if (id === "61") return replayMerge(input, true, { trap });
    return replaySort(input, { trap });
  }
  if (id === "59") return runSplit(gpu, input, 4);
  if (id === "61") return runMerge(gpu, input, { trap });
  return runSort(gpu, input, { trap });
}

function ranOn(element, gpu) {
  element.classList.toggle("gpu", !gpu.error);
  element.classList.toggle("replay", Boolean(gpu.error));
  element.textContent = gpu.error
    ? "the book's CPU replay, in JavaScript: a loop plays the kernel's threads; no GPU was used"
    : `computed by the WGSL kernel on the WebGPU adapter: ${describeAdapter(gpu.info)}`;
}

// Requests not yet finished, per element: data-pending, so that a reader can
// wait for the last one (a box ticked twice quickly queues two runs).
function pending(element, change) {
  element.dataset.pending = String(Number(element.dataset.pending || 0) + change);
}

function runLesson(id) {
  const out = $(`out-${id}`);
  const trapBox = $(`trap-${id}`);
  const trap = Boolean(trapBox && trapBox.checked);  // as it is when asked
  pending(out, +1);
  return serial(async () => {
    $(`name-${id}`).textContent = trap ? PROGRAMS[id].trap : PROGRAMS[id].name;
    out.dataset.state = "running";
    out.dataset.program = trap ? PROGRAMS[id].trap : PROGRAMS[id].name;
    delete out.dataset.exit;
    out.textContent = "running...";
    const gpu = await backend();
    try {
      const result = await runProgram(gpu, id, trap);
      const mode = gpu.error ? "replay" : "gpu";
      const { text, exitCode } = programText(id, trap, result, mode);
      out.textContent = text;
      out.dataset.source = gpu.error ? "replay" : "webgpu";
      out.dataset.exit = String(exitCode);
      ranOn($(`ran-${id}`), gpu);
      out.dataset.state = "done";
    } catch (e) {
      out.textContent = `error: ${e.message}`;
      out.dataset.state = "error";
    } finally {
      pending(out, -1);
    }
  });
}

// ---- the network --------------------------------------------------------------------
let net = null;  // { passes, rows, did, step }

async function runView(gpu, name, trap) {
  const input = viewInput(name);
  if (name === "59") return gpu.error ? replaySplit(input, 4) : runSplit(gpu, input, 4);
  if (name === "61") return gpu.error ? replayMerge(input, true, { trap }) : runMerge(gpu, input, { trap });
  return gpu.error ? replaySort(input, { trap }) : runSort(gpu, input, { trap });
}

function viewTrap(name) {
  const which = VIEWS[name].trap;
  return which ? $(`net-trap-${which}`).checked : false;
}

function drawNetwork() {
  const holder = $("net-svg");
  const name = $("net-view").value;
  const view = VIEWS[name];
  const trap = viewTrap(name);
  $("net-trap-61").disabled = view.trap !== "61";
  $("net-trap-63").disabled = view.trap !== "63";
  pending(holder, +1);
  return serial(async () => {
    holder.dataset.state = "running";
    holder.dataset.view = name;
    holder.dataset.trap = String(trap);
    const gpu = await backend();
    try {
      const passes = view.schedule(trap);
      const result = await runView(gpu, name, trap);
      const rows = [viewInput(name), ...result.passes];
      const title = `${view.title}${trap ? ", with the trap" : ""}`;
      holder.innerHTML = networkSvg(passes, view.n, { values: rows, swapped: result.did, title, id: "net" });
      // Up to 1.5 times its own size where there is room; never smaller (the holder scrolls).
      const svg = holder.querySelector("svg");
      const natural = Number(svg.getAttribute("width"));
      svg.style.width = `${Math.min(natural * 1.5, Math.max(natural, holder.clientWidth - 12))}px`;
      net = { passes, rows, did: result.did, name };
      holder.dataset.source = gpu.error ? "replay" : "webgpu";
      const source = $("net-source");
      source.classList.toggle("gpu", !gpu.error);
      source.classList.toggle("replay", Boolean(gpu.error));
      source.textContent = gpu.error
        ? "values: the book's CPU replay in JavaScript, pass by pass; no GPU was used"
        : `values: what the WGSL kernel left in GPU memory after each ${name.startsWith("63") ? "dispatch" : "pass"}, ` +
          `on ${describeAdapter(gpu.info)}`;
      const step = $("step");
      step.max = String(passes.length);
      setStep(0);
      holder.dataset.state = "done";
    } catch (e) {
      holder.textContent = `error: ${e.message}`;
      holder.dataset.state = "error";
    } finally {
      pending(holder, -1);
    }
  });
}

function setStep(s) {
  if (!net) return;
  const last = net.passes.length;
  s = Math.max(0, Math.min(last, s));
  $("step").value = String(s);
  const svg = $("net-svg");
  svg.dataset.step = String(s);
  for (const g of svg.querySelectorAll("g.pass")) {
    const p = Number(g.dataset.pass);
    g.classList.toggle("done", p <= s);
    g.classList.toggle("current", p === s);
    g.classList.toggle("future", p > s);
  }
  for (const g of svg.querySelectorAll("g.values")) {
    const c = Number(g.dataset.after);
    g.classList.toggle("hidden", c > s);
    g.classList.toggle("current", c === s);
  }
  const caption = $("step-caption");
  if (s === 0) {
    caption.textContent = `the input: ${net.rows[0].join(" ")}`;
  } else {
    const pass = net.passes[s - 1];
    const did = net.did[s - 1];
    const compared = did.filter((d) => d !== 0).length;
    const swaps = did.filter((d) => d === 2).length;
    caption.textContent = `after pass ${s} of ${last} (${pass.label}): ${compared} invocations compared a pair, ` +
      `${swaps} swapped: ${net.rows[s].join(" ")}`;
  }
  caption.dataset.values = net.rows[s].join(" ");
}

// ---- the sort panel -----------------------------------------------------------------
function runSortPanel() {
  return serial(async () => {
    const result = $("sort-result");
    const log2n = Number($("sort-log2n").value);
    const kind = $("sort-input").value;
    const runs = Number($("sort-runs").value);
    const n = 2 ** log2n;
    result.dataset.state = "running";
    result.dataset.n = String(n);
    delete result.dataset.check;
    delete result.dataset.ms;
    result.textContent = `sorting 2^${log2n} = ${n} floats...`;
    const gpu = await backend();
    if (gpu.error) {
      result.dataset.state = "unavailable";
      result.textContent = `This panel needs WebGPU (${gpu.error}).`;
      return;
    }
    try {
      const bits = makeInput(kind, n);
      const run = await gpuSort(gpu, bits, { runs });
      const started = performance.now();
      const want = referenceSort(bits);
      const jsMs = performance.now() - started;
      const diff = firstDifference(run.sorted, want);
      const ms = median(run.timesMs);
      const gkeys = n / (ms * 1e-3) / 1e9;
      result.dataset.check = diff < 0 ? "identical" : "different";
      result.dataset.ms = String(ms);
      result.dataset.clock = run.clock.startsWith("timestamp") ? "timestamp" : "wall";
      const hex = (x) => `0x${x.toString(16).padStart(8, "0")}`;
      result.textContent =
        `2^${log2n} = ${n} floats (${kind}), ${run.dispatches} dispatches, 1024-key tiles, ${run.workgroupSize} ` +
        `invocations per workgroup, on ${describeAdapter(gpu.info)}: ${ms.toFixed(3)} ms ` +
        `(${runs > 1 ? `median of ${runs} runs` : "one run"}, ${run.clock}) = ${gkeys.toPrecision(3)} Gkeys/s. ` +
        `Against the JavaScript sort (totalOrder, ${jsMs.toFixed(0)} ms): ` +
        (diff < 0 ? "identical, bit for bit." :
          `DIFFERENT at position ${diff}: GPU ${hex(run.sorted[diff])}, JavaScript ${hex(want[diff])}.`);
      result.dataset.state = "done";
    } catch (e) {
      result.textContent = `error: ${e.message}`;
      result.dataset.state = "error";
    }
  });
}

// ---- wiring ------------------------------------------------------------------------
function runAll() {
  showBackend();
  for (const id of Object.keys(PROGRAMS)) runLesson(id);
  drawNetwork();
}

function init() {
  $("use-webgpu").checked = params.get("webgpu") !== "off";
  $("use-webgpu").addEventListener("change", () => {
    const url = new URL(location.href);
    if (webgpuWanted()) url.searchParams.delete("webgpu");
    else url.searchParams.set("webgpu", "off");
    history.replaceState(null, "", url);
    $("gpu-status").dataset.state = "probing";
    runAll();
  });
  for (const id of ["61", "63"]) $(`trap-${id}`).addEventListener("change", () => runLesson(id));
  for (const id of ["net-view", "net-trap-61", "net-trap-63"]) $(id).addEventListener("change", drawNetwork);
  $("step").addEventListener("input", () => setStep(Number($("step").value)));
  $("step-first").addEventListener("click", () => setStep(0));
  $("step-prev").addEventListener("click", () => setStep(Number($("step").value) - 1));
  $("step-next").addEventListener("click", () => setStep(Number($("step").value) + 1));
  $("step-last").addEventListener("click", () => setStep(Number.MAX_SAFE_INTEGER));
  const log2n = $("sort-log2n");
  for (let k = 10; k <= 24; k++) log2n.add(new Option(`${k} (${(2 ** k).toLocaleString("en-US")} floats)`, String(k)));
  log2n.value = "16";
  if (!INPUTS.includes($("sort-input").value)) $("sort-input").value = "uniform";
  $("sort-run").addEventListener("click", runSortPanel);
  runAll();
}

init();
