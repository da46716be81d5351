// ch12/web/js/sort.js -- sorting up to 2^24 floats on this machine's GPU with
// the GLSL extra's workgroup design in WGSL (../wgsl/sort_local.wgsl,
// ../wgsl/sort_global.wgsl), timed with timestamp queries where the adapter
// has them. The inputs, totalOrder and the JavaScript check are in floats.js.
//
// The dispatches are schedule.js's tiledSortDispatches(): one local dispatch
// that sorts every 1024-key tile through the stages k = 2 .. 1024; then for
// each stage k = 2048 .. P one global dispatch per distance j = k/2 .. 1024 and
// one local dispatch for the tail (j = 512 .. 1). P is n rounded up to a power
// of two >= 1024; the padding holds the largest float of the order (bits
// 0x7fffffff, a NaN), so it ends up at the end and is cut off.
//
// The page must never stop answering, and a sort must stop soon after Cancel:
// so the work is submitted in pieces of about `budgetMs` each (a piece is a
// dispatch, part of one -- a range of its workgroups -- or several), one
// piece in flight at a time. Each piece is timed and the next one sized from
// what the pieces before it took; between two pieces the sort reports its
// progress (passes done of all) and looks at its AbortSignal. On a fast GPU a
// whole sort fits in one piece after the first few.

import { guarded, makeBuffer, makePipeline, readBack } from "./webgpu.js";
import { tiledSortDispatches } from "./schedule.js";
import { sizeProblem } from "./floats.js";

const TILE = 1024;             // keys per workgroup tile (sort_local.wgsl's NUM_ELEMENTS)
const GLOBAL_WORKGROUP = 256;  // sort_global.wgsl's @workgroup_size
const PAD = 0x7fffffff;        // the largest float of totalOrder (+NaN, all payload bits)
const SLOTS = 64;              // uniform slots: the most dispatches one piece holds

// Thrown when the AbortSignal stops a sort: how far it got.
export class SortCancelled extends Error {
  constructor(passesDone, passesTotal) {
    super(`cancelled after ${passesDone} of ${passesTotal} passes`);
    this.name = "SortCancelled";
    this.passesDone = passesDone;
    this.passesTotal = passesTotal;
  }
}

export function paddedSize(n) {
  let padded = TILE;
  while (padded < n) padded *= 2;
  return padded;
}

// How many (k, j) passes the network of a padded size has: log2(P)(log2(P)+1)/2.
export function passCount(padded) {
  return tiledSortDispatches(padded, TILE).reduce((sum, d) => sum + d.passes.length, 0);
}

// Sorts `bits` (a Uint32Array of float bits) `runs` times from the same input.
// options: runs (1..9), signal (an AbortSignal: Cancel), onProgress({ run,
// runs, passesDone, passesTotal }), budgetMs (the target time of one piece).
// Returns { sorted, buffer, timesMs, clock, padded, dispatches, passes,
// pieces, workgroupSize }; `buffer` holds the result on the GPU (the first n
// words) and belongs to the caller, who destroys it.
export async function gpuSort(gpu, bits, { runs = 1, signal = null, onProgress = () => {}, budgetMs = 100 } = {}) {
  if (!(bits instanceof Uint32Array)) throw new TypeError("gpuSort takes the floats' bits as a Uint32Array");
  const problem = sizeProblem(bits.length);
  if (problem) throw new RangeError(problem);
  if (!Number.isInteger(runs) || runs < 1 || runs > 9) throw new RangeError(`runs must be 1 to 9, not ${runs}`);
  const { device } = gpu;
  const n = bits.length;
  const padded = paddedSize(n);
  const wg = gpu.sortWorkgroupSize;
  const local = await makePipeline(device, "sort_local.wgsl", "bitonic_local", { WORKGROUP_SIZE: wg },
    ["storage", "uniform-dynamic"]);
  const global = await makePipeline(device, "sort_global.wgsl", "bitonic_global", {}, ["storage", "uniform-dynamic"]);
  const dispatches = tiledSortDispatches(padded, TILE).map((d) => ({
    ...d,
    groups: d.kind === "local" ? padded / TILE : padded / 2 / GLOBAL_WORKGROUP,
    cost: d.kind === "global" ? "global" : d.k === 0 ? "tiles" : "tails",
  }));
  const passesTotal = dispatches.reduce((sum, d) => sum + d.passes.length, 0);
  const slot = Math.max(256, device.limits.minUniformBufferOffsetAlignment);
  const input = new Uint32Array(padded);
  input.fill(PAD);
  input.set(bits);

  const res = await guarded(device, "the sort's buffers", () => {
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const data = makeBuffer(device, padded * 4, usage);
    const args = makeBuffer(device, SLOTS * slot, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
    const groups = [local, global].map(({ layout }) => device.createBindGroup({
      layout,
      entries: [{ binding: 0, resource: { buffer: data } }, { binding: 1, resource: { buffer: args, size: 16 } }],
    }));
    const querySet = gpu.timestamps ? device.createQuerySet({ type: "timestamp", count: 2 }) : null;
    const resolve = querySet &&
      device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    return { data, args, groups, querySet, resolve };
  });
  const release = (keepData) => {
    if (!keepData) res.data.destroy();
    res.args.destroy();
    if (res.querySet) {
      res.querySet.destroy();
      res.resolve.destroy();
    }
  };

  // Milliseconds per workgroup, by kind of dispatch, learnt from the pieces.
  const perGroup = { tiles: null, tails: null, global: null };
  const PROBE = { tiles: 2, tails: 2, global: 32 };
  const timesMs = [];
  try {
    for (let run = 0; run < runs; run++) {
      device.queue.writeBuffer(res.data, 0, input);
      let d = 0, g = 0, passesDone = 0, gpuMs = 0, wallMs = 0;
      onProgress({ run, runs, passesDone, passesTotal });
      while (d < dispatches.length) {
        if (signal && signal.aborted) throw new SortCancelled(Math.floor(passesDone), passesTotal);
        // The next piece: whole dispatches and parts of them, about budgetMs in all.
        const piece = [];
        let predicted = 0;
        while (d < dispatches.length && piece.length < SLOTS) {
          const disp = dispatches[d];
          const rate = perGroup[disp.cost];
          let count = disp.groups - g;
          if (rate === null) {
            if (piece.length) break;  // a kind not timed yet goes alone, a few workgroups
            count = Math.min(count, PROBE[disp.cost]);
          } else {
            count = Math.min(count, Math.max(1, Math.floor((budgetMs - predicted) / rate)));
            if (piece.length && count * rate > budgetMs - predicted) break;
          }
          piece.push({ disp, first: g, count });
          predicted += (rate || 0) * count;
          g += count;
          if (g === disp.groups) {
            d++;
            g = 0;
          }
          if (rate === null || predicted >= budgetMs) break;
        }
        const stamps = await guarded(device, "the sort", () => {
          piece.forEach(({ disp, first }, p) => {
            const words = disp.kind === "local" ? [disp.k, first] : [disp.k, disp.j, first * GLOBAL_WORKGROUP];
            device.queue.writeBuffer(res.args, p * slot, Uint32Array.from(words));
          });
          const encoder = device.createCommandEncoder();
          const pass = encoder.beginComputePass(res.querySet
            ? { timestampWrites: { querySet: res.querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } }
            : {});
          piece.forEach(({ disp, count }, p) => {
            // Each dispatch sees every write of the one before it.
            pass.setPipeline(disp.kind === "local" ? local.pipeline : global.pipeline);
            pass.setBindGroup(0, disp.kind === "local" ? res.groups[0] : res.groups[1], [p * slot]);
            pass.dispatchWorkgroups(count);
          });
          pass.end();
          let readable = null;
          if (res.querySet) {
            encoder.resolveQuerySet(res.querySet, 0, 2, res.resolve, 0);
            readable = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
            encoder.copyBufferToBuffer(res.resolve, 0, readable, 0, 16);
          }
          device.queue.submit([encoder.finish()]);
          return readable;
        });
        const started = performance.now();
        await device.queue.onSubmittedWorkDone();
        const took = performance.now() - started;
        wallMs += took;
        if (stamps) {
          await stamps.mapAsync(GPUMapMode.READ);
          const [begin, end] = new BigUint64Array(stamps.getMappedRange());
          gpuMs += Number(end - begin) / 1e6;
          stamps.unmap();
          stamps.destroy();
        }
        learn(perGroup, piece, predicted, took);
        for (const { disp, count } of piece) passesDone += (disp.passes.length * count) / disp.groups;
        onProgress({ run, runs, passesDone: Math.min(passesTotal, Math.round(passesDone * 1000) / 1000), passesTotal });
      }
      timesMs.push(res.querySet ? gpuMs : wallMs);
    }
    const [out] = await readBack(device, [[res.data, n * 4]]);
    release(true);
    return {
      sorted: new Uint32Array(out),
      buffer: res.data,
      timesMs,
      clock: res.querySet ? "timestamp queries around the dispatches" : "wall clock around each submit (no timestamp queries)",
      padded,
      dispatches: dispatches.length,
      passes: passesTotal,
      workgroupSize: wg,
    };
  } catch (e) {
    release(false);
    throw e;
  }
}

// What a piece took teaches the rate of each kind of dispatch in it.
function learn(perGroup, piece, predicted, took) {
  const kinds = new Set(piece.map(({ disp }) => disp.cost));
  if (kinds.size === 1 && perGroup[piece[0].disp.cost] === null) {
    const groups = piece.reduce((sum, p) => sum + p.count, 0);
    perGroup[piece[0].disp.cost] = Math.max(took, 0.01) / groups;
    return;
  }
  const ratio = Math.min(4, Math.max(0.25, Math.max(took, 0.01) / Math.max(predicted, 0.01)));
  for (const kind of kinds) perGroup[kind] *= ratio;
}
