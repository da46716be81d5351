// ch12/web/js/network_panel.js -- the network panel: the drawing of a view
// (schedule.js, network_svg.js), the values the kernel left after each pass
// (WebGPU, or the replay), stepping with the buttons, the slider, the keys
// and play; the student's own values; a comparator's details on hover or
// focus; the kernel's lines for the current pass (kernel_pane.js); and the
// pass as a table, for screen readers and for anyone.
//
// A change of view, trap or values is drawn at once (the structure and the
// input); the values after each pass follow when the kernel has run. The
// state is in #net-svg's data- attributes (view, trap, state, step, pending),
// which the tests read; every step also fires a "ch12-step" event there.

import { VIEWS, parseValues, viewInput } from "./schedule.js";
import { networkSvg } from "./network_svg.js";
import { replayMerge, replaySort, replaySplit } from "./replay.js";
import { describeAdapter, runMerge, runSort, runSplit, shaderSource } from "./webgpu.js";
import { backend } from "./backend.js";
import { cudaKernel, kernelKey, KERNEL_LINES, litLines, passNote, wgslKernel } from "./kernel_pane.js";

const $ = (id) => document.getElementById(id);
const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;

// The drawing now: { name, view, trap, n, passes, rows, did, source, request }.
let net = null;
let request = 0;
let step = 0;
let hot = null;  // the comparator pointed at or focused: { pass, thread }

// ---- drawing a view --------------------------------------------------------------
function viewTrap(name) {
  const which = VIEWS[name].trap;
  return which ? $(`net-trap-${which}`).checked : false;
}

async function runView(gpu, name, input, trap) {
  if (name === "59") return gpu.error ? replaySplit(input, 4) : runSplit(gpu, input, 4);
  if (name === "61") return gpu.error ? replayMerge(input, true, { trap }) : runMerge(gpu, input, { trap });
  return gpu.error ? replaySort(input, { trap }) : runSort(gpu, input, { trap });
}

// The values the view starts from; for "63-own", the student's (or null and a message).
function inputOf(name) {
  const field = $("net-values");
  if (!VIEWS[name].own) return viewInput(name);
  const parsed = parseValues(field.value);
  field.setAttribute("aria-invalid", String(Boolean(parsed.error)));
  $("net-values-error").textContent = parsed.error || "";
  return parsed.error ? null : parsed.values;
}

export function redrawNetwork() {
  const holder = $("net-svg");
  const name = $("net-view").value;
  const view = VIEWS[name];
  // A trap box that does not apply to this view is off, and says so.
  for (const which of ["61", "63"]) {
    const box = $(`net-trap-${which}`);
    box.disabled = view.trap !== which;
    if (box.disabled) box.checked = false;
  }
  if (!view.own) {
    $("net-values").setAttribute("aria-invalid", "false");
    $("net-values-error").textContent = "";
  }
  const trap = viewTrap(name);
  const mine = ++request;
  holder.dataset.view = name;
  holder.dataset.trap = String(trap);
  const input = inputOf(name);
  if (!input) {
    holder.dataset.state = "invalid";
    return Promise.resolve();
  }
  const n = input.length;
  let passes;
  try {
    passes = view.schedule(trap, n);
  } catch (e) {
    holder.dataset.state = "error";
    $("net-values-error").textContent = `cannot draw these values: ${e.message}`;
    return Promise.resolve();
  }
  const title = view.own ? `63: the sort of your ${n} values${trap ? ", with the trap" : ""}`
    : `${view.title}${trap ? ", with the trap" : ""}`;
  const keepStep = net && net.name === name && net.n === n ? step : 0;
  net = { name, view, trap, n, input, passes, rows: [input, ...passes.map(() => null)], did: null, title, request: mine };
  holder.dataset.state = "running";
  holder.dataset.n = String(n);
  pending(holder, +1);
  draw(keepStep);  // at once: the structure and the input
  const source = $("net-source");
  source.classList.remove("gpu", "replay");
  source.textContent = "values: on the way from the kernel...";
  return (async () => {
    try {
      const gpu = await backend();
      const result = await runView(gpu, name, input, trap);
      if (mine !== request) return;
      net.rows = [input, ...result.passes];
      net.did = result.did;
      holder.dataset.source = gpu.error ? "replay" : "webgpu";
      source.classList.toggle("gpu", !gpu.error);
      source.classList.toggle("replay", Boolean(gpu.error));
      source.textContent = gpu.error
        ? "values: the book's CPU replay in JavaScript, pass by pass; no GPU was used"
        : `values: what the WGSL kernel left in GPU memory after each ${name.startsWith("63") ? "dispatch" : "pass"}, ` +
          `on ${describeAdapter(gpu.info)}`;
      draw(step);
      holder.dataset.state = "done";
    } catch (e) {
      if (mine !== request) return;
      source.textContent = `error: ${e.message}`;
      holder.dataset.state = "error";
    } finally {
      pending(holder, -1);
    }
  })();
}

function pending(element, change) {
  element.dataset.pending = String(Number(element.dataset.pending || 0) + change);
}

function draw(atStep) {
  const holder = $("net-svg");
  const scroll = holder.scrollLeft;
  holder.innerHTML = networkSvg(net.passes, net.n, {
    values: net.rows, swapped: net.did, title: net.title, id: "net", interactive: true,
    description: "The network of the chosen view; the current pass is described below the drawing, and listed as a table.",
  });
  // Up to 1.5 times its own size where there is room; never smaller (the holder scrolls).
  const svg = holder.querySelector("svg");
  const natural = Number(svg.getAttribute("width"));
  svg.style.width = `${Math.min(natural * 1.5, Math.max(natural, holder.clientWidth - 12))}px`;
  holder.scrollLeft = scroll;
  $("step").max = String(net.passes.length);
  showCode();
  setStep(atStep, { keepPlaying: true });
  if (hot) setHot(holder.querySelector(`g.cmp[data-pass="${hot.pass}"][data-thread="${hot.thread}"]`));
}

// ---- stepping ----------------------------------------------------------------------
export function setStep(s, { keepPlaying = false } = {}) {
  if (!net) return;
  if (!keepPlaying) pause();
  const last = net.passes.length;
  step = Math.max(0, Math.min(last, Number.isFinite(s) ? s : 0));
  const holder = $("net-svg");
  holder.dataset.step = String(step);
  const slider = $("step");
  slider.value = String(step);
  const pass = step ? net.passes[step - 1] : null;
  slider.setAttribute("aria-valuetext", step ? `after pass ${step} of ${last} (${pass.label})` : "the input");
  for (const g of holder.querySelectorAll("g.pass")) {
    const p = Number(g.dataset.pass);
    g.classList.toggle("done", p <= step);
    g.classList.toggle("current", p === step);
    g.classList.toggle("future", p > step);
    if (p === step) g.removeAttribute("aria-hidden");
    else g.setAttribute("aria-hidden", "true");
    g.querySelectorAll("g.cmp").forEach((c, index) => {
      if (p === step) {
        c.setAttribute("tabindex", index === 0 ? "0" : "-1");
        c.setAttribute("role", "img");
        c.setAttribute("aria-label", comparatorText(p, Number(c.dataset.thread), { short: true }));
      } else {
        c.removeAttribute("tabindex");
        c.removeAttribute("role");
        c.removeAttribute("aria-label");
      }
    });
  }
  for (const r of holder.querySelectorAll("rect.lit")) r.classList.toggle("current", Number(r.dataset.pass) === step);
  for (const g of holder.querySelectorAll("g.values")) {
    const c = Number(g.dataset.after);
    g.classList.toggle("hidden", c > step);
    g.classList.toggle("current", c === step);
  }
  const values = net.rows[step];
  const caption = $("step-caption");
  if (!step) {
    caption.textContent = `the input: ${values.join(" ")}`;
  } else if (!values || !net.did) {
    caption.textContent = `after pass ${step} of ${last} (${pass.label}): waiting for the kernel's values...`;
  } else {
    const did = net.did[step - 1];
    const compared = did.filter((d) => d !== 0).length;
    const swaps = did.filter((d) => d === 2).length;
    caption.textContent = `after pass ${step} of ${last} (${pass.label}): ${plural(compared, "invocation")} compared a pair, ` +
      `${swaps} swapped: ${values.join(" ")}`;
  }
  caption.dataset.values = values ? values.join(" ") : "";
  const desc = holder.querySelector("desc");
  if (desc) desc.textContent = `${caption.textContent}. The pairs of this pass are in the table below the drawing.`;
  showTable();
  showLit(hot && hot.pass === step ? hot.thread : null);
  if (hot && hot.pass !== step) setHot(null);
  scrollToStep();
  holder.dispatchEvent(new CustomEvent("ch12-step", { detail: { step } }));
}

// On a narrow screen, the current pass stays in view.
function scrollToStep() {
  const holder = $("net-svg");
  const rect = holder.querySelector(`rect.lit[data-pass="${Math.max(step, 1)}"]`);
  const svg = holder.querySelector("svg");
  if (!rect || !svg) return;
  const scale = svg.getBoundingClientRect().width / Number(svg.getAttribute("width"));
  const x0 = (Number(rect.getAttribute("x")) - (step ? 0 : 60)) * scale;
  const x1 = x0 + (Number(rect.getAttribute("width")) + 40) * scale;
  const view0 = holder.scrollLeft;
  const view1 = view0 + holder.clientWidth;
  if (x0 < view0 || x1 > view1) holder.scrollLeft = Math.max(0, x0 - (holder.clientWidth - (x1 - x0)) / 2);
}

// ---- play ---------------------------------------------------------------------------
let timer = null;
function playing() {
  return timer !== null;
}
function play() {
  if (!net) return;
  if (step >= net.passes.length) setStep(0, { keepPlaying: true });
  const button = $("net-play");
  button.textContent = "Pause";
  button.setAttribute("aria-pressed", "true");
  const tick = () => {
    if (step >= net.passes.length) {
      pause();
      return;
    }
    setStep(step + 1, { keepPlaying: true });
    if (step >= net.passes.length) pause();
    else timer = setTimeout(tick, 1000 / Number($("net-speed").value));
  };
  timer = setTimeout(tick, 1000 / Number($("net-speed").value));
}
function pause() {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  const button = $("net-play");
  button.textContent = "Play";
  button.setAttribute("aria-pressed", "false");
}
function changeSpeed(delta) {
  const select = $("net-speed");
  select.selectedIndex = Math.max(0, Math.min(select.options.length - 1, select.selectedIndex + delta));
}

// ---- a comparator's details ---------------------------------------------------------
function comparatorOf(pass, thread) {
  return net.passes[pass - 1].comparators.find((c) => c.thread === thread);
}

function comparatorText(pass, thread, { short = false } = {}) {
  const c = comparatorOf(pass, thread);
  const p = net.passes[pass - 1];
  const direction = c.dirBit ? "descending" : "ascending";
  const head = `pass ${pass} (${p.label}), invocation ${thread}: elements ${c.lo} and ${c.hi}, direction bit ${c.dirBit} ` +
    `(${direction}: the larger value goes to ${c.maxTo})`;
  const before = net.rows[pass - 1];
  const after = net.rows[pass];
  const pair = (row) => `a[${c.lo}] = ${row[c.lo]}, a[${c.hi}] = ${row[c.hi]}`;
  if (!before || !after || !net.did) return `${head}.`;
  const did = net.did[pass - 1][thread] === 2 ? "swapped" : "kept";
  if (short) return `${head}; before ${before[c.lo]} and ${before[c.hi]}, after ${after[c.lo]} and ${after[c.hi]}, ${did}`;
  return `${head}. Before the pass: ${pair(before)}. After it: ${pair(after)} -- ${did}.`;
}

function setHot(target) {
  const holder = $("net-svg");
  for (const g of holder.querySelectorAll("g.cmp.hot")) g.classList.remove("hot");
  const detail = $("net-detail");
  if (!target) {
    hot = null;
    detail.textContent = "";
    delete detail.dataset.pass;
    delete detail.dataset.thread;
    showLit(null);
    return;
  }
  hot = { pass: Number(target.dataset.pass), thread: Number(target.dataset.thread) };
  target.classList.add("hot");
  detail.textContent = comparatorText(hot.pass, hot.thread);
  detail.dataset.pass = String(hot.pass);
  detail.dataset.thread = String(hot.thread);
  showLit(hot.pass === step ? hot.thread : null, hot.pass);
}

// ---- the kernel's lines ---------------------------------------------------------------
let code = null;  // { key, wgslLines, cudaLines }
async function showCode() {
  const key = kernelKey(net.view.program, net.trap);
  if (code && code.key === key) return;
  const spec = KERNEL_LINES[key];
  const cuda = cudaKernel(key);
  code = { key, cudaLines: cuda.lines, wgslLines: null };
  $("code-cuda-name").textContent = `CUDA: ${cuda.name} in ${cuda.file} (the book's kernel; lines marked companion are ours)`;
  fill($("code-cuda"), cuda.lines);
  $("code-wgsl-name").textContent = `WGSL: wgsl/${spec.wgsl}, the port the page runs`;
  try {
    const lines = wgslKernel(await shaderSource(spec.wgsl));
    if (code.key !== key) return;
    code.wgslLines = lines;
    fill($("code-wgsl"), lines);
  } catch (e) {
    $("code-wgsl").textContent = `could not load wgsl/${spec.wgsl}: ${e.message}`;
  }
  showLit(hot && hot.pass === step ? hot.thread : null);
}

function fill(pre, lines) {
  pre.textContent = "";
  lines.forEach((line, i) => {
    const span = document.createElement("span");
    span.className = "line";
    span.dataset.line = String(i + 1);
    span.textContent = line || " ";
    pre.appendChild(span);
  });
}

// Lights the lines the current pass runs (or pass `atPass`, pointed at).
function showLit(thread, atPass = step) {
  if (!code || !net) return;
  const key = code.key;
  const spec = KERNEL_LINES[key];
  const pass = atPass ? net.passes[atPass - 1] : null;
  for (const [id, lines, patterns] of [["code-wgsl", code.wgslLines, spec.wgslLines], ["code-cuda", code.cudaLines, spec.cudaLines]]) {
    const pre = $(id);
    for (const span of pre.querySelectorAll(".line.lit")) span.classList.remove("lit");
    if (!lines || !pass) {
      pre.dataset.lit = "";
      continue;
    }
    const lit = litLines(lines, patterns);
    pre.dataset.lit = lit.map((i) => i + 1).join(" ");
    for (const i of lit) {
      const span = i >= 0 ? pre.children[i] : null;
      if (span) span.classList.add("lit");
    }
    const first = pre.children[Math.max(0, lit[0])];
    if (first) pre.scrollTop = Math.max(0, first.offsetTop - pre.clientHeight / 3);
  }
  $("code-note").textContent = passNote(net.view.program, net.trap, pass, atPass === step ? thread : null);
}

// ---- the table of the current pass --------------------------------------------------
function showTable() {
  const holder = $("net-table");
  holder.textContent = "";
  const last = net.passes.length;
  if (!step) {
    const p = document.createElement("p");
    p.textContent = `No pass has run: the input is ${net.rows[0].join(" ")}. Step on to see the pairs of pass 1 of ${last}.`;
    holder.appendChild(p);
    return;
  }
  const pass = net.passes[step - 1];
  const before = net.rows[step - 1];
  const after = net.rows[step];
  const table = document.createElement("table");
  table.createCaption().textContent = `Pass ${step} of ${last} (${pass.label}): ${plural(pass.comparators.length, "comparator")}`;
  const head = table.createTHead().insertRow();
  for (const h of ["invocation", "pair", "direction bit", "larger value to", "before", "after", "swapped"]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = h;
    head.appendChild(th);
  }
  const body = table.createTBody();
  for (const c of pass.comparators) {
    const row = body.insertRow();
    const known = before && after && net.did;
    const cells = [c.thread, `${c.lo}, ${c.hi}`, `${c.dirBit} (${c.dirBit ? "descending" : "ascending"})`, c.maxTo,
      before ? `${before[c.lo]}, ${before[c.hi]}` : "...", known ? `${after[c.lo]}, ${after[c.hi]}` : "...",
      known ? (net.did[step - 1][c.thread] === 2 ? "yes" : "no") : "..."];
    cells.forEach((text, i) => {
      const cell = i === 0 ? document.createElement("th") : document.createElement("td");
      if (i === 0) cell.scope = "row";
      cell.textContent = String(text);
      row.appendChild(cell);
    });
  }
  holder.appendChild(table);
}

// ---- keys ---------------------------------------------------------------------------
function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey || !net) return;
  const t = e.target;
  const tag = t && t.tagName ? t.tagName.toLowerCase() : "";
  if (["input", "select", "textarea"].includes(tag) || (t && t.isContentEditable)) return;
  const onControl = ["button", "a", "summary"].includes(tag);
  const onComparator = t && t.classList && t.classList.contains("cmp");
  let handled = true;
  switch (e.key) {
    case "ArrowRight": setStep(step + 1); break;
    case "ArrowLeft": setStep(step - 1); break;
    case "Home": setStep(0); break;
    case "End": setStep(net.passes.length); break;
    case " ":
      if (onControl) return;
      if (playing()) pause();
      else play();
      break;
    case "+": case "=": changeSpeed(+1); break;
    case "-": case "_": changeSpeed(-1); break;
    case "ArrowDown": case "ArrowUp": {
      if (!onComparator) return;
      const list = [...$("net-svg").querySelectorAll("g.pass.current g.cmp")];
      const at = list.indexOf(t);
      const next = list[(at + (e.key === "ArrowDown" ? 1 : list.length - 1)) % list.length];
      list.forEach((c) => c.setAttribute("tabindex", c === next ? "0" : "-1"));
      next.focus();
      break;
    }
    default: handled = false;
  }
  if (handled) e.preventDefault();
}

// ---- wiring --------------------------------------------------------------------------
export function initNetwork() {
  for (const id of ["net-view", "net-trap-61", "net-trap-63"]) $(id).addEventListener("change", redrawNetwork);
  $("net-own").addEventListener("submit", (e) => {
    e.preventDefault();
    $("net-view").value = "63-own";
    redrawNetwork();
  });
  $("step").addEventListener("input", () => setStep(Number($("step").value)));
  $("step-first").addEventListener("click", () => setStep(0));
  $("step-prev").addEventListener("click", () => setStep(step - 1));
  $("step-next").addEventListener("click", () => setStep(step + 1));
  $("step-last").addEventListener("click", () => setStep(net ? net.passes.length : 0));
  $("net-play").addEventListener("click", () => (playing() ? pause() : play()));
  document.addEventListener("keydown", onKey);
  const holder = $("net-svg");
  const cmpOf = (e) => (e.target.closest ? e.target.closest("g.cmp") : null);
  holder.addEventListener("mouseover", (e) => {
    const c = cmpOf(e);
    if (c && (!hot || c !== holder.querySelector(`g.cmp.hot`))) setHot(c);
  });
  holder.addEventListener("mouseleave", () => {
    if (!holder.contains(document.activeElement) || !document.activeElement.classList.contains("cmp")) setHot(null);
  });
  holder.addEventListener("focusin", (e) => {
    const c = cmpOf(e);
    if (c) setHot(c);
  });
  holder.addEventListener("focusout", (e) => {
    if (!e.relatedTarget || !holder.contains(e.relatedTarget)) setHot(null);
  });
}
