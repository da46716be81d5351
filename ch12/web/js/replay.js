// ch12/web/js/replay.js -- the book's host replays, in JavaScript: the loops
// that 59, 61 and 63 (and the traps) run with --replay, one thread's work per
// loop iteration, on the CPU. The page runs them when there is no WebGPU, and
// labels their output as --replay labels its own (programs.js): NO GPU RAN.
// Each returns the same kind of result as the WebGPU runs (webgpu.js), so one
// text function prints either. The loops over the passes come from
// schedule.js (the one place that writes them); the loop bodies are the book's.

import { mergeDistances, sortPasses } from "./schedule.js";

// 59: the split, dist threads; did[i] = 0 idle, 1 compared and kept, 2 swapped.
export function replaySplit(input, dist) {
  const a = input.slice();
  const did = new Array(a.length).fill(0);
  for (let i = 0; i < dist; i++) {
    const lo = a[i];
    const hi = a[i + dist];
    const shouldSwap = lo > hi;
    if (shouldSwap) {
      a[i] = hi;
      a[i + dist] = lo;
    }
    did[i] = shouldSwap ? 2 : 1;
  }
  return { after: a, passes: [a.slice()], did: [did] };
}

// 61 (and 61's trap): every pass reads the array the previous pass finished
// (next_a), which is what __syncthreads() gives on the GPU.
export function replayMerge(input, ascending, { trap = false } = {}) {
  let a = input.slice();
  const n = a.length;
  const passes = [], active = [], did = [];
  for (const dist of mergeDistances(n)) {
    const nextA = a.slice();
    const row = new Array(n).fill(0);
    let pairs = 0;
    for (let tid = 0; tid < n; tid++) {
      const isActive = trap ? tid < dist : tid % (2 * dist) < dist;
      if (isActive) {
        pairs++;
        const i = tid;
        const j = tid + dist;
        const shouldSwap = ascending ? a[i] > a[j] : a[i] < a[j];
        if (shouldSwap) {
          nextA[i] = a[j];
          nextA[j] = a[i];
        }
        row[tid] = shouldSwap ? 2 : 1;
      }
    }
    a = nextA;
    passes.push(a.slice());
    active.push(pairs);
    did.push(row);
  }
  return { passes, active, did };
}

// 63 (and 63's trap, without `l > i`): the double loop, in place; each pass
// is one launch on the GPU.
export function replaySort(input, { trap = false } = {}) {
  const a = input.slice();
  const n = a.length;
  const passes = [], did = [];
  let passCount = 0;
  for (const { k, j } of sortPasses(n)) {
    const row = new Array(n).fill(0);
    for (let i = 0; i < n; i++) {
      const l = i ^ j;
      if (l > i || trap) {
        const ascending = (i & k) === 0;
        const shouldSwap = ascending ? a[i] > a[l] : a[i] < a[l];
        if (shouldSwap) [a[i], a[l]] = [a[l], a[i]];
        row[i] = shouldSwap ? 2 : 1;
      }
    }
    passCount++;
    passes.push(a.slice());
    did.push(row);
  }
  return { after: a, passes, did, passCount };
}
