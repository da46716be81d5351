// ch12/web/js/sort.js -- sorting 2^10 .. 2^24 floats on this machine's GPU
// with the GLSL extra's workgroup design in WGSL (../wgsl/sort_local.wgsl,
// ../wgsl/sort_global.wgsl), checked bit for bit against a JavaScript sort by
// IEEE 754 totalOrder, and timed with timestamp queries where the adapter has
// them.
//
// The schedule, as the GLSL host program records it: one dispatch of the
// local shader (every stage up to 1024, in each 1024-key tile); then for each
// stage k = 2048 .. P one global dispatch per distance j = k/2 .. 1024 and
// one local dispatch for the tail (j = 512 .. 1). P is n rounded up to a
// power of two >= 1024; the padding holds the largest float of the order
// (bits 0x7fffffff, a NaN), so it ends up at the end and is cut off.

import { checked, makeBuffer, makePipeline, readBack } from "./webgpu.js";

export const INPUTS = ["uniform", "special", "sorted", "reverse"];
const PAD = 0x7fffffff;

// ---- floats as bits, and totalOrder ---------------------------------------------
export function orderKey(bits) {
  return (bits & 0x80000000 ? ~bits : bits | 0x80000000) >>> 0;
}
export function fromKey(key) {
  return (key & 0x80000000 ? key & 0x7fffffff : ~key) >>> 0;
}

// The JavaScript reference: the same bits in totalOrder (a typed array sorts numerically).
export function referenceSort(bits) {
  const keys = new Uint32Array(bits.length);
  for (let i = 0; i < bits.length; i++) keys[i] = orderKey(bits[i]);
  keys.sort();
  for (let i = 0; i < keys.length; i++) keys[i] = fromKey(keys[i]);
  return keys;
}

// n floats, as bits: uniform (random bits: every class of float, NaNs and
// denormals included), special (+-0, +-inf, NaNs, denormals, extremes, with
// repeats), sorted, reverse (runs of three equal values) -- the GLSL program's inputs.
const SPECIAL = [0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x00000001,
  0x80000001, 0x007fffff, 0x807fffff, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x7fffffff];
export function makeInput(kind, n, seed = 12) {
  let state = seed >>> 0 || 1;
  const next = () => {  // xorshift32
    state ^= state << 13; state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5; state >>>= 0;
    return state;
  };
  const bits = new Uint32Array(n);
  const floats = new Float32Array(bits.buffer);
  for (let i = 0; i < n; i++) {
    switch (kind) {
      case "uniform": bits[i] = next(); break;
      case "special": bits[i] = SPECIAL[next() % 16]; break;
      case "sorted": floats[i] = Math.floor(i / 3) - n / 6; break;
      case "reverse": floats[i] = Math.floor((n - i) / 3) - n / 6; break;
      default: throw new RangeError(`unknown input ${kind}`);
    }
  }
  return bits;
}

// ---- the sort on the GPU --------------------------------------------------------
export function sortSchedule(padded) {
  const dispatches = [{ kind: "local", k: 0 }];
  for (let k = 2048; k <= padded; k *= 2) {
    for (let j = k / 2; j >= 1024; j >>= 1) dispatches.push({ kind: "global", k, j });
    dispatches.push({ kind: "local", k });
  }
  return dispatches;
}

// Sorts `bits` (a Uint32Array of float bits) `runs` times from the same input.
// Returns { sorted, timesMs, clock, padded, dispatches, workgroupSize }.
export async function gpuSort(gpu, bits, { runs = 1 } = {}) {
  const { device } = gpu;
  const n = bits.length;
  let padded = 1024;
  while (padded < n) padded *= 2;
  const wg = gpu.sortWorkgroupSize;
  const local = await makePipeline(device, "sort_local.wgsl", "bitonic_local", { WORKGROUP_SIZE: wg },
    ["storage", "uniform-dynamic"]);
  const global = await makePipeline(device, "sort_global.wgsl", "bitonic_global", {}, ["storage", "uniform-dynamic"]);
  const dispatches = sortSchedule(padded);
  const slot = Math.max(256, device.limits.minUniformBufferOffsetAlignment);

  return checked(device, "the sort", async () => {
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const data = makeBuffer(device, padded * 4, usage);
    const words = new Uint32Array((dispatches.length * slot) / 4);
    dispatches.forEach((d, p) => words.set(d.kind === "local" ? [d.k] : [d.k, d.j], (p * slot) / 4));
    const args = makeBuffer(device, words.byteLength, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, words);
    const groups = [local, global].map(({ layout }) => device.createBindGroup({
      layout,
      entries: [{ binding: 0, resource: { buffer: data } }, { binding: 1, resource: { buffer: args, size: 16 } }],
    }));
    const input = new Uint32Array(padded);
    input.fill(PAD);
    input.set(bits);
    const querySet = gpu.timestamps ? device.createQuerySet({ type: "timestamp", count: 2 }) : null;
    const resolve = querySet && device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });

    const timesMs = [];
    for (let run = 0; run < runs; run++) {
      device.queue.writeBuffer(data, 0, input);
      await device.queue.onSubmittedWorkDone();
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass(
        querySet ? { timestampWrites: { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } } : {});
      dispatches.forEach((d, p) => {
        // Each dispatch sees every write of the one before it.
        pass.setPipeline(d.kind === "local" ? local.pipeline : global.pipeline);
        pass.setBindGroup(0, d.kind === "local" ? groups[0] : groups[1], [p * slot]);
        pass.dispatchWorkgroups(d.kind === "local" ? padded / 1024 : padded / 2 / 256);
      });
      pass.end();
      if (querySet) encoder.resolveQuerySet(querySet, 0, 2, resolve, 0);
      const started = performance.now();
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
      const wall = performance.now() - started;
      if (querySet) {
        const [stamps] = await readBack(device, [[resolve, 16]]);
        const [begin, end] = new BigUint64Array(stamps);
        timesMs.push(Number(end - begin) / 1e6);
      } else {
        timesMs.push(wall);
      }
    }
    const [out] = await readBack(device, [[data, n * 4]]);
    data.destroy();
    args.destroy();
    if (querySet) {
      querySet.destroy();
      resolve.destroy();
    }
    return {
      sorted: new Uint32Array(out),
      timesMs,
      clock: querySet ? "timestamp queries around the dispatches" : "wall clock around submit (no timestamp queries)",
      padded,
      dispatches: dispatches.length,
      workgroupSize: wg,
    };
  });
}

// The first position where the GPU's bits differ from the reference, or -1.
export function firstDifference(got, want) {
  if (got.length !== want.length) return Math.min(got.length, want.length);
  for (let i = 0; i < got.length; i++) if (got[i] !== want[i]) return i;
  return -1;
}

export function median(values) {
  const s = values.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
