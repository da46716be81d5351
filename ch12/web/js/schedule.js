// ch12/web/js/schedule.js -- who compares what, pass by pass: the one
// schedule module of the page. Every panel (the lessons' WebGPU runs and
// replays, the network, the sort of up to 2^24 floats) and the picture tool
// (tools/draw_pictures.js) take their loops from here; the (k, j) double loop
// of Section 12.3 is written once, in sortPasses(). No DOM: it runs in the
// browser and in node alike.
//
// A network schedule is a list of passes, one per dispatch (63) or per pass
// between barriers (61). Each comparator is what ONE invocation does:
//   thread   the invocation (threadIdx.x in the CUDA kernels)
//   lo, hi   the two elements it compares, lo < hi
//   maxTo    the element that receives the larger value: the arrow's head
//   dirBit   the per-element direction bit of the block (the per_element
//            extra's floor(i / stage) % 2): 0 ascending, 1 descending

// ---- the loops ------------------------------------------------------------------

// Section 12.3's double loop: for k = 2 .. n (the size of the bitonic runs
// being built), for j = k/2 .. 1 (the distance). One entry per pass, in order;
// `stage` counts the k's from 0.
export function sortPasses(n) {
  checkPowerOfTwo(n);
  const passes = [];
  let stage = 0;
  for (let k = 2; k <= n; k *= 2, stage++) {
    for (let j = k / 2; j > 0; j >>= 1) passes.push({ k, j, stage });
  }
  return passes;
}

// Section 12.2's passes: dist = n/2, n/4, .., 1.
export function mergeDistances(n) {
  checkPowerOfTwo(n);
  const distances = [];
  for (let dist = n / 2; dist >= 1; dist >>= 1) distances.push(dist);
  return distances;
}

// ---- the networks ---------------------------------------------------------------

// Section 12.3 (63): invocation i compares i with l = i ^ j when l > i,
// ascending when (i & k) == 0.
// trap: 63_trap_no_pair_guard -- no `l > i`, so invocation l compares the
// same pair as invocation i, from the other side (both in the same dispatch).
export function sortSchedule(n, { trap = false } = {}) {
  return sortPasses(n).map(({ k, j, stage }) => {
    const comparators = [];
    for (let i = 0; i < n; i++) {
      const l = i ^ j;
      if (!(l > i) && !trap) continue;
      const ascending = (i & k) === 0;
      comparators.push({
        thread: i,
        lo: Math.min(i, l),
        hi: Math.max(i, l),
        maxTo: ascending ? l : i,
        dirBit: ascending ? 0 : 1,
      });
    }
    return { label: `k=${k}, j=${j}`, stage, stageLabel: `k=${k}`, k, j, comparators };
  });
}

// Section 12.2 (61): one workgroup; invocation tid compares tid with
// tid + dist when (tid % (2 * dist)) < dist; ascending throughout.
// trap: 61_trap_first_group_only -- the active test is tid < dist.
export function mergeSchedule(n, { trap = false } = {}) {
  return mergeDistances(n).map((dist) => {
    const comparators = [];
    for (let tid = 0; tid < n; tid++) {
      const active = trap ? tid < dist : tid % (2 * dist) < dist;
      if (!active) continue;
      comparators.push({ thread: tid, lo: tid, hi: tid + dist, maxTo: tid + dist, dirBit: 0 });
    }
    return { label: `dist=${dist}`, stage: 0, stageLabel: `merge of ${n}`, dist, comparators };
  });
}

// Section 12.1 (59): one split, dist = n/2 invocations, i with i + dist, ascending.
// trap: 58/59_trap_adjacent_pairs -- invocation i compares 2i and 2i + 1.
export function splitSchedule(n, { trap = false } = {}) {
  checkPowerOfTwo(n);
  const dist = n / 2;
  const comparators = [];
  for (let i = 0; i < dist; i++) {
    const lo = trap ? 2 * i : i;
    const hi = trap ? 2 * i + 1 : i + dist;
    comparators.push({ thread: i, lo, hi, maxTo: hi, dirBit: 0 });
  }
  const label = trap ? "adjacent pairs" : `dist=${dist}`;
  return [{ label, stage: 0, stageLabel: `split of ${n}`, dist, adjacent: trap, comparators }];
}

// ---- the sort of the sort panel: 1024-key tiles ---------------------------------

// The dispatches of the tiled design (sort.js, the GLSL extra's): the passes
// of sortPasses(padded), grouped as the shaders run them. Every pass with
// k <= tile runs in the first local dispatch (k: 0, each tile sorted from
// scratch); a pass whose distance spans tiles (j >= tile) is a global
// dispatch of its own; the rest of a stage (j < tile) is one local dispatch
// (k: the stage). `passes` lists the (k, j) passes each dispatch runs.
export function tiledSortDispatches(padded, tile = 1024) {
  if (!Number.isInteger(padded) || padded < tile) throw new RangeError(`the sort pads to at least ${tile} keys, not ${padded}`);
  const dispatches = [{ kind: "local", k: 0, passes: [] }];
  for (const pass of sortPasses(padded)) {
    const last = dispatches[dispatches.length - 1];
    if (pass.k <= tile) last.passes.push(pass);
    else if (pass.j >= tile) dispatches.push({ kind: "global", k: pass.k, j: pass.j, passes: [pass] });
    else if (last.kind === "local" && last.k === pass.k) last.passes.push(pass);
    else dispatches.push({ kind: "local", k: pass.k, passes: [pass] });
  }
  return dispatches;
}

// ---- Section 12.3's recursion (62), for its picture -----------------------------

// The calls of 62's bitonic_sort_cpu on `values`, in the order they finish:
// { lo, cnt, ascending, depth, before, after } for every call with cnt >= 2,
// and the leaves (cnt = 1). The left child is built ascending, the right one
// descending; the node's own direction only governs its final merge.
export function recursionTree(values) {
  checkPowerOfTwo(values.length);
  const a = values.slice();
  const nodes = [];
  const sort = (lo, cnt, ascending, depth) => {
    const before = a.slice(lo, lo + cnt);
    if (cnt > 1) {
      const half = cnt / 2;
      sort(lo, half, true, depth + 1);
      sort(lo + half, half, false, depth + 1);
      merge(lo, cnt, ascending);
    }
    nodes.push({ lo, cnt, ascending, depth, before, after: a.slice(lo, lo + cnt) });
  };
  const merge = (lo, cnt, ascending) => {
    if (cnt <= 1) return;
    const dist = cnt / 2;
    for (let i = lo; i < lo + dist; i++) {
      const swap = ascending ? a[i] > a[i + dist] : a[i] < a[i + dist];
      if (swap) [a[i], a[i + dist]] = [a[i + dist], a[i]];
    }
    merge(lo, dist, ascending);
    merge(lo + dist, dist, ascending);
  };
  sort(0, values.length, true, 0);
  return nodes;
}

// ---- values through a network, on the CPU ---------------------------------------

// What a pass does to values when its comparators run one after another, in
// the order of the list (by invocation): for a correct network every pair of
// a pass is disjoint and the order cannot matter; for 63's trap it is the
// book's one-thread replay (each pair ordered, then swapped straight back).
export function applyPass(values, pass) {
  const v = values.slice();
  for (const c of pass.comparators) {
    const other = c.maxTo === c.hi ? c.lo : c.hi;
    if (v[other] > v[c.maxTo]) [v[other], v[c.maxTo]] = [v[c.maxTo], v[other]];
  }
  return v;
}

// The values before the first pass and after each, and what each invocation
// did in each pass (0 idle, 1 compared and kept, 2 swapped): what the
// pictures draw.
export function tracePasses(passes, input) {
  const values = [input.slice()];
  const swapped = [];
  for (const pass of passes) {
    const before = values[values.length - 1];
    const row = new Array(input.length).fill(0);
    let v = before.slice();
    for (const c of pass.comparators) {
      const next = applyPass(v, { comparators: [c] });
      row[c.thread] = next[c.lo] !== v[c.lo] ? 2 : 1;
      v = next;
    }
    values.push(v);
    swapped.push(row);
  }
  return { values, swapped };
}

// ---- the page's network panel ---------------------------------------------------

// The views, by name. "63-own" is the sort on the student's own values.
export const VIEWS = {
  "59": { title: "59: one split (Section 12.1)", n: 8, program: "59", schedule: () => splitSchedule(8) },
  "61": { title: "61: the merge, one workgroup (Section 12.2)", n: 8, program: "61", trap: "61",
          schedule: (trap) => mergeSchedule(8, { trap }) },
  "63-8": { title: "63: the sort, n = 8 (Section 12.3)", n: 8, program: "63", trap: "63",
            schedule: (trap) => sortSchedule(8, { trap }) },
  "63-16": { title: "63: the sort, n = 16 (Section 12.3)", n: 16, program: "63", trap: "63",
             schedule: (trap) => sortSchedule(16, { trap }) },
  "63-32": { title: "63: the sort, n = 32 (Section 12.3)", n: 32, program: "63", trap: "63",
             schedule: (trap) => sortSchedule(32, { trap }) },
  "63-own": { title: "63: the sort, your own values (Section 12.3)", n: null, program: "63", trap: "63", own: true,
              schedule: (trap, n) => sortSchedule(n, { trap }) },
};

// The values a view starts from: the book's inputs (59 and 61: the bitonic
// 2 4 6 8 9 7 5 3; 63: a[i] = (i*13+5) mod n, the book's input at n = 16 and
// a permutation of 0..n-1 at every power of two, 13 being odd).
export function viewInput(name) {
  if (name === "59" || name === "61") return [2, 4, 6, 8, 9, 7, 5, 3];
  return bookSortInput(VIEWS[name].n);
}
export function bookSortInput(n) {
  return Array.from({ length: n }, (_, i) => (i * 13 + 5) % n);
}

// The student's own values for 63's network: 2, 4, 8, 16 or 32 whole numbers
// that fit the kernel's int (32 bits), separated by spaces or commas.
// Returns { values } or { error: a sentence saying what to change }.
export const OWN_SIZES = [2, 4, 8, 16, 32];
export function parseValues(text) {
  const tokens = String(text).trim().split(/[\s,;]+/).filter((t) => t !== "");
  if (tokens.length === 0) return { error: "Type 2, 4, 8, 16 or 32 whole numbers, separated by spaces or commas." };
  const values = [];
  for (const t of tokens) {
    if (!/^[+-]?\d+$/.test(t)) {
      return { error: `"${t.length > 20 ? `${t.slice(0, 20)}…` : t}" is not a whole number: the kernel sorts ints ` +
        "(write 7 or -3, not 1.5 or seven)." };
    }
    const v = Number(t);
    if (v < -2147483648 || v > 2147483647) {
      return { error: `${t} does not fit the kernel's int: keep each value from -2147483648 to 2147483647.` };
    }
    values.push(v === 0 ? 0 : v);  // no -0
  }
  const n = values.length;
  if (!OWN_SIZES.includes(n)) {
    if (n > 32) return { error: `${n} values: the drawing takes at most 32; remove ${n - 32}.` };
    const up = OWN_SIZES.find((s) => s > n);
    const down = [...OWN_SIZES].reverse().find((s) => s < n);
    const hint = down ? `add ${up - n} or remove ${n - down}` : `add ${up - n}`;
    return { error: `${n} value${n === 1 ? "" : "s"}: the network needs a power of two from 2 to 32 ` +
      `(2, 4, 8, 16 or 32); ${hint}.` };
  }
  return { values };
}

function checkPowerOfTwo(n) {
  if (!Number.isInteger(n) || n < 2 || (n & (n - 1)) !== 0) throw new RangeError(`n must be a power of two >= 2, not ${n}`);
}
