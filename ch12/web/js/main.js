// ch12/web/js/main.js -- the page: finds WebGPU (or says why not), runs the
// three lessons, and starts the network panel (network_panel.js) and the
// sort panel (sort_panel.js).
//
// ?webgpu=off (the first checkbox) runs the book's replay in JavaScript
// instead of WebGPU, labelled as --replay labels its own output. The state of
// each panel is in data- attributes (data-state: running / done / error;
// data-source: webgpu / replay), which the tests in tests/ read.
//
// The panels never wait for each other: each keeps its own requests (the
// latest one wins) and shows a change at once; the GPU work of a long sort is
// cut into short pieces (sort.js), so the others' work runs between them.

import { PROGRAMS, lessonInput, programText } from "./programs.js";
import { replayMerge, replaySort, replaySplit } from "./replay.js";
import { describeAdapter, runMerge, runSort, runSplit } from "./webgpu.js";
import { backend, onDeviceLost, webgpuWanted } from "./backend.js";
import { initNetwork, redrawNetwork } from "./network_panel.js";
import { initSort, updateSortBackend } from "./sort_panel.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

// ---- where the kernels run ---------------------------------------------------------
async function showBackend() {
  const status = $("gpu-status");
  const box = $("use-webgpu");
  const gpu = await backend();
  if (gpu.error) {
    status.dataset.source = "replay";
    status.textContent = `No WebGPU here: ${gpu.error}. The kernels' output below is the book's CPU replay in ` +
      "JavaScript, labelled as --replay labels its own: no GPU was used.";
    if (!gpu.off) {  // nothing to switch on: say so, and leave the box unticked
      box.checked = false;
      box.disabled = true;
      $("use-webgpu-note").textContent = "(this browser offers no WebGPU adapter: the book's replay in JavaScript runs instead)";
    }
  } else {
    status.dataset.source = "webgpu";
    status.dataset.vendor = gpu.info.vendor;
    status.dataset.architecture = gpu.info.architecture;
    status.textContent = `WebGPU adapter: ${describeAdapter(gpu.info)}. The kernels below run on it.` +
      (gpu.software ? " It is a CPU doing a GPU's work (a software adapter): right, but slow." : "");
  }
  $("lessons-where").textContent = gpu.error ? "replayed on the CPU (no GPU is used)" : "on your GPU";
  $("sort-where").textContent = gpu.error ? "your own GPU (needs WebGPU)" : "your own GPU";
  status.dataset.software = String(Boolean(gpu.software));
  status.dataset.state = "done";
  updateSortBackend(gpu);
  return gpu;
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
// wait for the last one (a box ticked twice quickly makes two requests; only
// the last one's result is shown).
function pending(element, change) {
  element.dataset.pending = String(Number(element.dataset.pending || 0) + change);
}

const lessonRequest = {};
async function runLesson(id) {
  const out = $(`out-${id}`);
  const trapBox = $(`trap-${id}`);
  const trap = Boolean(trapBox && trapBox.checked);  // as it is when asked
  const request = (lessonRequest[id] || 0) + 1;
  lessonRequest[id] = request;
  const program = trap ? PROGRAMS[id].trap : PROGRAMS[id].name;
  // At once: the program asked for, and that it is running.
  pending(out, +1);
  $(`name-${id}`).textContent = program;
  out.dataset.state = "running";
  out.dataset.program = program;
  out.setAttribute("aria-busy", "true");
  delete out.dataset.exit;
  delete out.dataset.source;
  out.textContent = `running ${program}...`;
  try {
    const gpu = await backend();
    let shown;
    try {
      const result = await runProgram(gpu, id, trap);
      const { text, exitCode } = programText(id, trap, result, gpu.error ? "replay" : "gpu");
      shown = () => {
        out.textContent = text;
        out.dataset.source = gpu.error ? "replay" : "webgpu";
        out.dataset.exit = String(exitCode);
        ranOn($(`ran-${id}`), gpu);
        out.dataset.state = "done";
      };
    } catch (e) {
      shown = () => {
        out.textContent = `error: ${e.message}`;
        out.dataset.state = "error";
      };
    }
    if (lessonRequest[id] === request) {
      shown();
      out.removeAttribute("aria-busy");
    }
  } finally {
    pending(out, -1);
  }
}

// ---- wiring ------------------------------------------------------------------------
function runAll() {
  showBackend();
  for (const id of Object.keys(PROGRAMS)) runLesson(id);
  redrawNetwork();
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
  onDeviceLost((message) => {
    const status = $("gpu-status");
    status.dataset.state = "done";
    status.textContent = `The GPU device was lost (${message}); the next run opens a new one.`;
  });
  initNetwork();
  initSort();
  runAll();
  window.ch12Started = true;
}

init();
