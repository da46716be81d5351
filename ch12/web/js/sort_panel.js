// ch12/web/js/sort_panel.js -- the sort panel: the size, the input and the
// runs, checked before anything runs; the sort on the GPU (sort.js) with its
// progress, passes done of all; Cancel, which stops it between two pieces of
// GPU work; the Sort button off while one runs; the check against the
// JavaScript sort in a worker (sort_worker.js), so the page never stops
// answering; and, on a software adapter, the sizes past 2^20 behind a box,
// with the time they would take here.
//
// The last sort's result stays on the GPU (window.ch12Sort.last: device,
// buffer, n, input), so a test can read it back itself rather than trust
// what the page says of it.

import { INPUT_KINDS, INPUTS, compareToReference, formatDuration, formatRate, makeInput, median } from "./floats.js";
import { SortCancelled, gpuSort, paddedSize, passCount } from "./sort.js";
import { backend } from "./backend.js";
import { describeAdapter } from "./webgpu.js";

const $ = (id) => document.getElementById(id);
const MIN_LOG2 = 10;
const MAX_LOG2 = 24;
const SOFTWARE_MAX_LOG2 = 20;  // offered on a software adapter without asking

let gpuNow = null;     // the backend, once known
let job = null;        // the sort running: { controller, clickedAt }
let last = null;       // the last sort's result, on the GPU
let msPerCompare = null;  // measured here: wall milliseconds per compare-exchange
let calibrating = null;
let started = 0;          // sorts started on this page

window.ch12Sort = {
  get last() { return last; },
  get started() { return started; },
};

// ---- the CPU's part, in a worker ------------------------------------------------
class CpuHelper {
  constructor() {
    this.worker = null;
    this.broken = false;
    this.waiting = new Map();
    this.next = 1;
  }
  start() {
    try {
      this.worker = new Worker(new URL("./sort_worker.js", import.meta.url), { type: "module" });
    } catch {
      this.broken = true;
      return;
    }
    this.worker.onmessage = ({ data }) => {
      const entry = this.waiting.get(data.id);
      if (!entry) return;
      this.waiting.delete(data.id);
      if (data.error) entry.reject(new Error(data.error));
      else entry.resolve(data);
    };
    this.worker.onerror = (e) => {  // no worker here: do the work on the page's thread
      e.preventDefault();
      this.broken = true;
      this.worker = null;
      for (const [, entry] of this.waiting) entry.resolve(here(entry.message));
      this.waiting.clear();
    };
  }
  call(message) {
    if (!this.worker && !this.broken) this.start();
    if (this.broken) return Promise.resolve().then(() => here(message));
    return new Promise((resolve, reject) => {
      const id = this.next++;
      this.waiting.set(id, { resolve, reject, message });
      this.worker.postMessage({ ...message, id });
    });
  }
  stop() {  // Cancel: whatever it was doing is dropped
    if (this.worker) this.worker.terminate();
    this.worker = null;
    for (const [, entry] of this.waiting) entry.reject(new SortCancelled(0, 0));
    this.waiting.clear();
  }
}
function here(message) {
  if (message.op === "input") return { bits: makeInput(message.kind, message.n, message.seed) };
  const t0 = performance.now();
  return { ...compareToReference(message.input, message.output), ms: performance.now() - t0 };
}
const cpu = new CpuHelper();

// ---- sizes ----------------------------------------------------------------------
const compares = (n) => (paddedSize(n) / 2) * passCount(paddedSize(n));
function maxLog2() {
  return gpuNow && gpuNow.software && !$("sort-larger").checked ? SOFTWARE_MAX_LOG2 : MAX_LOG2;
}
function fillSizes() {
  const select = $("sort-log2n");
  const keep = select.value || "16";
  select.textContent = "";
  for (let k = MIN_LOG2; k <= maxLog2(); k++) {
    let text = `${k} (${(2 ** k).toLocaleString("en-US")} floats)`;
    if (gpuNow && gpuNow.software && k > SOFTWARE_MAX_LOG2 && msPerCompare) {
      text += `, about ${formatDuration(msPerCompare * compares(2 ** k))} here`;
    }
    select.add(new Option(text, String(k)));
  }
  select.value = Number(keep) <= maxLog2() ? keep : String(maxLog2());
  showEstimate();
}

// The size asked for, checked: { log2n, n } or { error }.
function askedSize() {
  const raw = $("sort-log2n").value;
  const limit = maxLog2();
  if (!/^\d+$/.test(raw)) return { error: `"${raw}" is not a size: choose k from ${MIN_LOG2} to ${limit} (n = 2^k floats)` };
  const log2n = Number(raw);
  if (log2n < MIN_LOG2 || log2n > MAX_LOG2) return { error: `2^${log2n}: this panel sorts 2^${MIN_LOG2} to 2^${MAX_LOG2} floats` };
  if (log2n > limit) {
    return { error: `2^${log2n} on this software adapter would take minutes: tick "offer 2^21 to 2^24 floats" first` };
  }
  return { log2n, n: 2 ** log2n };
}

function showEstimate() {
  const note = $("sort-estimate");
  const size = askedSize();
  if (!gpuNow || !gpuNow.software || size.error || size.log2n <= SOFTWARE_MAX_LOG2) {
    note.hidden = true;
    note.textContent = "";
    return;
  }
  note.hidden = false;
  note.textContent = msPerCompare
    ? `2^${size.log2n} = ${size.n.toLocaleString("en-US")} floats on this software adapter: expected to take about ` +
      `${formatDuration(msPerCompare * compares(size.n))} (from the sorts measured here). Cancel stops it at any time.`
    : `2^${size.log2n} on this software adapter takes minutes; measuring how fast it is here...`;
}

// A 2^16 sort, timed, for the estimates (on a software adapter, when the
// larger sizes are asked for); a 2^10 one first, so that compiling the
// pipelines is not counted.
function calibrate() {
  if (msPerCompare || calibrating || !gpuNow || gpuNow.error) return;
  calibrating = (async () => {
    try {
      (await gpuSort(gpuNow, makeInput("uniform", 2 ** 10, 7))).buffer.destroy();
      const n = 2 ** 16;
      const bits = makeInput("uniform", n, 7);
      const t0 = performance.now();
      const run = await gpuSort(gpuNow, bits);
      run.buffer.destroy();
      if (!msPerCompare) msPerCompare = (performance.now() - t0) / compares(n);
    } catch {
      // no estimate: the note says the size takes minutes
    } finally {
      calibrating = null;
      fillSizes();
    }
  })();
}

// ---- running --------------------------------------------------------------------
function setRunning(running) {
  $("sort-run").disabled = running;
  $("sort-cancel").disabled = !running;
  $("sort-progress-row").hidden = !running && !$("sort-progress").dataset.shown;
}

function progress({ run, runs, passesDone, passesTotal }) {
  const bar = $("sort-progress");
  bar.max = passesTotal * runs;
  bar.value = run * passesTotal + passesDone;
  bar.dataset.shown = "1";
  const done = Math.floor(passesDone);
  $("sort-status").textContent = `${runs > 1 ? `run ${run + 1} of ${runs}: ` : ""}${done} of ${passesTotal} passes done`;
  $("sort-result").dataset.passesDone = String(run * passesTotal + passesDone);
}

async function runSortPanel() {
  if (job) return;  // one sort at a time (the button is off while one runs)
  const result = $("sort-result");
  const size = askedSize();
  const kind = $("sort-input").value;
  const runs = Number($("sort-runs").value);
  delete result.dataset.check;
  delete result.dataset.ms;
  delete result.dataset.checked;
  delete result.dataset.passesDone;
  const problem = size.error || (!INPUTS.includes(kind) ? `"${kind}" is not an input this panel makes: ${INPUTS.join(", ")}` : "") ||
    (![1, 3, 5].includes(runs) ? `runs must be 1, 3 or 5, not "${$("sort-runs").value}"` : "");
  if (problem) {
    result.dataset.state = "invalid";
    result.dataset.n = "";
    result.textContent = `Nothing was sorted: ${problem}.`;
    return;
  }
  const { log2n, n } = size;
  const controller = new AbortController();
  job = { controller };
  started++;
  const startedAt = performance.now();
  result.dataset.state = "running";
  result.dataset.n = String(n);
  result.textContent = `sorting 2^${log2n} = ${n.toLocaleString("en-US")} floats (${kind})...`;
  $("sort-status").textContent = "making the input...";
  $("sort-progress").value = 0;
  setRunning(true);
  try {
    const gpu = await backend();
    if (gpu.error) {
      result.dataset.state = "unavailable";
      result.textContent = `This panel needs WebGPU (${gpu.error}).`;
      return;
    }
    const { bits } = await cpu.call({ op: "input", kind, n, seed: 12 });
    if (controller.signal.aborted) throw new SortCancelled(0, passCount(paddedSize(n)));
    const gpuStarted = performance.now();
    const run = await gpuSort(gpu, bits, { runs, signal: controller.signal, onProgress: progress });
    const gpuWall = (performance.now() - gpuStarted) / runs;
    if (last) last.buffer.destroy();
    last = { device: gpu.device, buffer: run.buffer, n, input: bits, kind, log2n };
    if (gpu.software && n >= 2 ** 14) msPerCompare = gpuWall / compares(n);
    $("sort-status").textContent = "checking against the JavaScript sort...";
    const verdict = await cpu.call({ op: "check", input: bits, output: run.sorted });
    const ms = median(run.timesMs);
    const identical = verdict.firstDifference < 0 && verdict.checked === n && n > 0;
    result.dataset.check = identical ? "identical" : "different";
    result.dataset.ms = String(ms);
    result.dataset.checked = String(verdict.checked);
    result.dataset.clock = run.clock.startsWith("timestamp") ? "timestamp" : "wall";
    const hex = (x) => (x === undefined ? "(none)" : `0x${x.toString(16).padStart(8, "0")}`);
    result.textContent =
      `2^${log2n} = ${n.toLocaleString("en-US")} floats (${kind}): ${run.dispatches} dispatches, ${run.passes} passes of the ` +
      `network, 1024-key tiles, ${run.workgroupSize} invocations per workgroup, on ${describeAdapter(gpu.info)}: ` +
      `${ms < 1000 ? `${ms.toFixed(3)} ms` : formatDuration(ms)} (${runs > 1 ? `median of ${runs} runs` : "one run"}, ` +
      `${run.clock}) = ${formatRate(n / (ms * 1e-3))}. Against the JavaScript sort (totalOrder, ${formatDuration(verdict.ms)}): ` +
      (identical ? `identical, bit for bit: all ${n.toLocaleString("en-US")} floats checked.`
        : `DIFFERENT at position ${verdict.firstDifference}: GPU ${hex(verdict.got)}, JavaScript ${hex(verdict.want)}.`);
    result.dataset.state = "done";
    $("sort-status").textContent = `done in ${formatDuration(performance.now() - startedAt)}`;
  } catch (e) {
    if (e instanceof SortCancelled) {
      result.dataset.state = "cancelled";
      const how = e.passesTotal ? ` after ${e.passesDone} of ${e.passesTotal} passes` : "";
      result.textContent = `Cancelled${how} (${formatDuration(performance.now() - startedAt)} in): 2^${log2n} floats, ` +
        "nothing checked, no time reported.";
      $("sort-status").textContent = "cancelled";
    } else {
      result.dataset.state = "error";
      result.textContent = `error: ${e.message}`;
    }
  } finally {
    job = null;
    setRunning(false);
    fillSizes();
  }
}

function cancel() {
  if (!job) return;
  job.controller.abort();
  cpu.stop();
  $("sort-status").textContent = "cancelling...";
}

// ---- wiring ---------------------------------------------------------------------
export function updateSortBackend(gpu) {
  gpuNow = gpu;
  const note = $("sort-adapter-note");
  const software = Boolean(gpu && gpu.software);
  note.hidden = !software && !(gpu && gpu.error);
  note.textContent = gpu && gpu.error
    ? `This panel needs WebGPU (${gpu.error}).`
    : software
      ? `This adapter is a CPU doing a GPU's work (${describeAdapter(gpu.info)}): the sizes offered stop at ` +
        `2^${SOFTWARE_MAX_LOG2}; the larger ones are behind the box below, with the time they would take here.`
      : "";
  $("sort-larger-row").hidden = !software;
  fillSizes();
}

export function initSort() {
  const input = $("sort-input");
  for (const kind of INPUT_KINDS) input.add(new Option(kind.text, kind.name));
  input.value = "uniform";
  fillSizes();
  $("sort-log2n").value = "16";
  $("sort-log2n").addEventListener("change", showEstimate);
  $("sort-larger").addEventListener("change", () => {
    fillSizes();
    if ($("sort-larger").checked) calibrate();
  });
  $("sort-run").addEventListener("click", runSortPanel);
  $("sort-cancel").addEventListener("click", cancel);
}
