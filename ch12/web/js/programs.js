// ch12/web/js/programs.js -- what 59, 61 and 63 (and the traps of 61 and 63)
// print, given what their kernels left behind: the same text, line for line,
// as the C++ programs' printf calls, so that on a GPU the page prints the
// book's sample output byte for byte. The numbers come from a run: WebGPU
// (webgpu.js) or, without it, the book's replay in JavaScript (replay.js),
// whose text is labelled as --replay labels its own (replay_label.js).
// No DOM here.

import { labelReplay } from "./replay_label.js";

export const PROGRAMS = {
  "59": { name: "59_bitonic_split_kernel", section: "12.1", trap: null },
  "61": { name: "61_bitonic_merge_multipass", section: "12.2", trap: "61_trap_first_group_only" },
  "63": { name: "63_bitonic_sort_iterative", section: "12.3", trap: "63_trap_no_pair_guard" },
};

// The inputs of the programs, as in their main().
export function lessonInput(id) {
  if (id === "63") return Array.from({ length: 16 }, (_, i) => (i * 13 + 5) % 16);
  return [2, 4, 6, 8, 9, 7, 5, 3];
}

// printf("%d ", v) for each v
const row = (v) => v.map((x) => `${x} `).join("");
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const isSorted = (a) => a.every((x, i) => i === 0 || a[i - 1] <= x);
const numeric = (a) => a.slice().sort((x, y) => x - y);

// The text of program `id` (its trap when `trap`), from a run's result.
// mode: "gpu" (a kernel ran) or "replay". Returns { text, exitCode }, the
// exit status the C++ program would have: 0 when its self-check passes.
export function programText(id, trap, result, mode) {
  const printer = { "59": text59, "61": trap ? text61Trap : text61, "63": trap ? text63Trap : text63 }[id];
  if (!printer || (trap && !PROGRAMS[id].trap)) throw new Error(`no program ${id}${trap ? " trap" : ""}`);
  const { text, ok } = printer(result, mode);
  return { text: mode === "replay" ? labelReplay(text) : text, exitCode: ok ? 0 : 1 };
}

// ---- 59_bitonic_split_kernel: result { after, dist }
function text59({ after: a, dist }) {
  let s = "=== Section 12.1 main: compare-exchange split as a CUDA kernel ===\n\n";
  s += `input (up-then-down bitonic): ${row(lessonInput("59"))}\n\n`;
  s += `after one ascending compare-exchange split (distance ${dist}, ${dist} threads): ${row(a)}\n\n`;
  const left = a.slice(0, 4), right = a.slice(4);
  const leftMax = Math.max(...left), rightMin = Math.min(...right);
  s += `left half:  ${row(left)}\nright half: ${row(right)}\n\n`;
  s += `left half's max (${leftMax}) <= right half's min (${rightMin}): ${leftMax <= rightMin ? "yes" : "NO -- BUG"}\n`;
  const ok = same(a, [2, 4, 5, 3, 9, 7, 6, 8]) && leftMax <= rightMin;
  s += "\nexpected: 2 4 5 3 9 7 6 8\n";
  s += `\nthis matches the CPU baseline exactly: ${dist} independent threads did the\n`;
  s += `same ${dist} comparisons the CPU loop did sequentially, in parallel, with no\n`;
  s += "shared state and no synchronization needed within this single pass.\n";
  s += `\nself-check: kernel result matches CPU baseline: ${ok ? "confirmed" : "MISMATCH"}\n`;
  return { text: s, ok };
}

// 61 and its trap: the array after each pass, and the pairs each pass
// compared, as the kernel counted them.
function passLines(passes, n) {
  let s = "";
  for (let dist = n / 2, p = 0; dist >= 1; dist >>= 1, p++) s += `pass ${p + 1} (dist=${dist}): ${row(passes[p])}\n`;
  return s + "\n";
}
const halfEveryPass = (active, n) => active.every((c) => c === n / 2);
function activePairsLine(active, n) {
  if (halfEveryPass(active, n)) return `exactly n/2 = ${n / 2} independent pairs are active at every single pass,\n`;
  return `the pairs active in each pass were${active.map((c) => ` ${c}`).join("")}, not n/2 = ${n / 2} at every single pass -- BUG\n`;
}

// ---- 61_bitonic_merge_multipass: result { passes, active }
function text61({ passes, active }) {
  const n = 8;
  let s = "=== Section 12.2 main: iterative multi-pass bitonic merge kernel ===\n\n";
  s += `input (up-then-down bitonic): ${row(lessonInput("61"))}\n\n`;
  s += passLines(passes, n);
  const a = passes[passes.length - 1];
  const ok = isSorted(a) && same(a, [2, 3, 4, 5, 6, 7, 8, 9]) && halfEveryPass(active, n);
  s += "expected: 2 3 4 5 6 7 8 9\n\n";
  s += activePairsLine(active, n);
  s += "regardless of dist -- the group-based condition (tid % (2*dist)) < dist\n";
  s += "is what keeps every group correctly paired as dist shrinks, matching the\n";
  s += "recursive CPU baseline's own pass-by-pass results exactly.\n";
  s += `\nself-check: iterative kernel matches recursive CPU baseline: ${ok ? "confirmed" : "MISMATCH"}\n`;
  return { text: s, ok };
}

// ---- 61_trap_first_group_only: result { passes, active }. 61's text with
// the trap's lines: which group pass 2 (dist = 2) left out.
function text61Trap({ passes, active }) {
  const n = 8;
  let s = "=== Section 12.2 COMMON TRAP on the GPU: tid < dist on every pass ===\n\n";
  s += `input (up-then-down bitonic): ${row(lessonInput("61"))}\n\n`;
  s += passLines(passes, n);
  const a = passes[passes.length - 1];
  const p1 = passes[0], p2 = passes[1];
  const unchanged = same(p1.slice(4), p2.slice(4));
  s += `at dist=2 the groups are {0,1,2,3} and {4,5,6,7}; ${active[1]} pair(s) were compared\n`;
  s += `positions 4..7 after pass 1: ${p1.slice(4).join(" ")}, after pass 2: ${p2.slice(4).join(" ")}${
    unchanged ? " (unchanged): group {4,5,6,7} was never compared" : ""}\n`;
  s += "(compare 61's own pass 2 line: its group-aware test compares this group too)\n\n";
  const ok = isSorted(a) && same(a, [2, 3, 4, 5, 6, 7, 8, 9]) && halfEveryPass(active, n);
  s += "expected: 2 3 4 5 6 7 8 9\n\n";
  s += activePairsLine(active, n);
  s += "tid < dist is only the first pass's condition: from dist=2 on it activates\n";
  s += "the first group alone, and every later group is silently left out.\n";
  s += `\nself-check: iterative kernel matches recursive CPU baseline: ${ok ? "confirmed" : "MISMATCH"}\n`;
  return { text: s, ok };
}

// 63 and its trap: from the input to the pass count, what both print.
function sortBody(a, passCount) {
  let s = `input (fixed permutation of 0..15, a[i] = (i*13+5) mod 16):\n  ${row(lessonInput("63"))}\n\n`;
  s += `after iterative bitonic sort (${passCount} passes total): \n  ${row(a)}\n\n`;
  const reference = numeric(lessonInput("63"));
  s += "reference (via std::sort, independent check -- 16 elements/10 passes\n";
  s += `is too large to hand-trace fully):\n  ${row(reference)}\n\n`;
  s += "total passes = sum over stages k=2,4,8,16 of log2(k) passes each\n";
  s += `             = 1 + 2 + 3 + 4 = 10, confirmed: ${passCount === 10 ? "yes" : "NO -- BUG"}\n`;
  return { text: s, sorted: isSorted(a), reference };
}

// ---- 63_bitonic_sort_iterative: result { after, passCount }
function text63({ after: a, passCount }) {
  let s = "=== Section 12.3 main: iterative double-loop bitonic sort kernel ===\n\n";
  const { text, sorted, reference } = sortBody(a, passCount);
  s += text;
  const ok = sorted && same(a, reference);
  s += `\nself-check: iterative kernel result matches std::sort reference: ${ok ? "confirmed" : "MISMATCH"}\n`;
  return { text: s, ok: ok && passCount === 10 };
}

// ---- 63_trap_no_pair_guard: result { after, passCount }. 63's text with the
// trap's lines. On a GPU the outcome is a data race's: the text says so, and
// prints what the GPU left. The CUDA program says "same launch" and "CUDA
// does not define"; here it is a WGSL dispatch (README.md says so).
function text63Trap({ after: a, passCount }, mode) {
  const replay = mode === "replay";
  let s = "=== Section 12.3 COMMON TRAP on the GPU: the kernel without if (l > i) ===\n\n";
  if (replay) {
    s += "in the replay one thread visits each pair twice, one visit after the\n";
    s += "other: the outcome is fixed (see 62_trap_no_pair_guard).\n\n";
  } else {
    s += "threads i and i^j now both read and write the same two elements in the\n";
    s += "same dispatch: a DATA RACE. WGSL does not define its outcome; what follows\n";
    s += "is what this GPU happened to produce on this run.\n\n";
  }
  const { text, sorted, reference } = sortBody(a, passCount);
  s += text;
  const ok = sorted && same(a, reference);
  const kept = same(numeric(a), reference);
  s += `\nis the result sorted: ${sorted ? "yes" : "no"}; are the input's 16 keys all still there: ${
    kept ? "yes" : "no -- keys were lost or duplicated"}\n`;
  if (replay) {
    s += "each pair is ordered by i, then swapped straight back by l: every\n";
    s += "comparison comes out reversed -- not half of them, as the book says (see\n";
    s += "ch12/ERRATA.md).\n";
  }
  s += "only the guard if (l > i) -- one writer per pair -- makes the outcome fixed,\n";
  s += "and right.\n";
  s += `\nself-check: iterative kernel result matches std::sort reference: ${ok ? "confirmed" : "MISMATCH"}\n`;
  return { text: s, ok: ok && passCount === 10 };
}
