// ch12/web/js/schedule.js -- which invocation compares which pair, pass by
// pass, in the chapter's three kernels. The page draws its networks from
// this module, and tools/draw_pictures.js draws the README's pictures from it.
// No DOM here: it runs in the browser and in node alike.
//
// A schedule is a list of passes, one per dispatch (63) or per pass between
// barriers (61). Each comparator is what ONE invocation does:
//   thread   the invocation (threadIdx.x in the CUDA kernels)
//   lo, hi   the two elements it compares, lo < hi
//   maxTo    the element that receives the larger value: the arrow's head
//   dirBit   the per-element direction bit of the block (the per_element
//            extra's floor(i / stage) % 2): 0 ascending, 1 descending

// Section 12.3 (63): for k = 2 .. n, for j = k/2 .. 1, invocation i compares
// i with l = i ^ j when l > i, ascending when (i & k) == 0.
// trap: 63_trap_no_pair_guard -- no `l > i`, so invocation l compares the
// same pair as invocation i, from the other side (both in the same dispatch).
export function sortSchedule(n, { trap = false } = {}) {
  checkPowerOfTwo(n);
  const passes = [];
  let stage = 0;
  for (let k = 2; k <= n; k *= 2, stage++) {
    for (let j = k / 2; j > 0; j >>= 1) {
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
      passes.push({ label: `k=${k}, j=${j}`, stage, stageLabel: `k=${k}`, k, j, comparators });
    }
  }
  return passes;
}

// Section 12.2 (61): one workgroup, dist = n/2 .. 1; invocation tid compares
// tid with tid + dist when (tid % (2 * dist)) < dist; ascending throughout.
// trap: 61_trap_first_group_only -- the active test is tid < dist.
export function mergeSchedule(n, { trap = false } = {}) {
  checkPowerOfTwo(n);
  const passes = [];
  for (let dist = n / 2; dist >= 1; dist >>= 1) {
    const comparators = [];
    for (let tid = 0; tid < n; tid++) {
      const active = trap ? tid < dist : tid % (2 * dist) < dist;
      if (!active) continue;
      comparators.push({ thread: tid, lo: tid, hi: tid + dist, maxTo: tid + dist, dirBit: 0 });
    }
    passes.push({ label: `dist=${dist}`, stage: 0, stageLabel: `merge of ${n}`, dist, comparators });
  }
  return passes;
}

// Section 12.1 (59): one split, dist = n/2 invocations, i with i + dist, ascending.
export function splitSchedule(n) {
  checkPowerOfTwo(n);
  const dist = n / 2;
  const comparators = [];
  for (let i = 0; i < dist; i++) comparators.push({ thread: i, lo: i, hi: i + dist, maxTo: i + dist, dirBit: 0 });
  return [{ label: `dist=${dist}`, stage: 0, stageLabel: `split of ${n}`, dist, comparators }];
}

// The views of the page's network panel, by name.
export const VIEWS = {
  "59": { title: "59: one split (Section 12.1)", n: 8, schedule: () => splitSchedule(8) },
  "61": { title: "61: the merge, one workgroup (Section 12.2)", n: 8, trap: "61",
          schedule: (trap) => mergeSchedule(8, { trap }) },
  "63-8": { title: "63: the sort, n = 8 (Section 12.3)", n: 8, trap: "63",
            schedule: (trap) => sortSchedule(8, { trap }) },
  "63-16": { title: "63: the sort, n = 16 (Section 12.3)", n: 16, trap: "63",
             schedule: (trap) => sortSchedule(16, { trap }) },
  "63-32": { title: "63: the sort, n = 32 (Section 12.3)", n: 32, trap: "63",
             schedule: (trap) => sortSchedule(32, { trap }) },
};

// The values a view starts from: the book's inputs (59 and 61: the bitonic
// 2 4 6 8 9 7 5 3; 63: a[i] = (i*13+5) mod n, the book's input at n = 16 and
// a permutation of 0..n-1 at every power of two, 13 being odd).
export function viewInput(name) {
  const n = VIEWS[name].n;
  if (name === "59" || name === "61") return [2, 4, 6, 8, 9, 7, 5, 3];
  return Array.from({ length: n }, (_, i) => (i * 13 + 5) % n);
}

// What a pass does to values when its comparators run one after another
// (in the order of the list): for the README's pictures of the correct
// networks, where every pair of a pass is disjoint and order cannot matter.
export function applyPass(values, pass) {
  const v = values.slice();
  for (const c of pass.comparators) {
    const other = c.maxTo === c.hi ? c.lo : c.hi;
    if (v[other] > v[c.maxTo]) [v[other], v[c.maxTo]] = [v[c.maxTo], v[other]];
  }
  return v;
}

function checkPowerOfTwo(n) {
  if (!Number.isInteger(n) || n < 2 || (n & (n - 1)) !== 0) throw new RangeError(`n must be a power of two >= 2, not ${n}`);
}
