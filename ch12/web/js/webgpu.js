// ch12/web/js/webgpu.js -- the chapter's kernels on this machine's GPU,
// through WebGPU: the WGSL ports in ../wgsl/, launched with the CUDA
// programs' shapes (one workgroup of dist or n invocations; 63: one dispatch
// per (k, j)), and what they left behind read back. The passes' loops come
// from schedule.js.

import { mergeDistances, sortPasses } from "./schedule.js";

// ---- the adapter and the device -------------------------------------------------

// { adapter, device, info, timestamps, sortWorkgroupSize } or { error: why not }.
export async function openGpu() {
  if (!("gpu" in navigator) || !navigator.gpu) {
    return { error: "this browser has no WebGPU (navigator.gpu is missing)" };
  }
  let adapter;
  try {
    adapter = await navigator.gpu.requestAdapter();
  } catch (e) {
    return { error: `requestAdapter() failed: ${e.message}` };
  }
  if (!adapter) return { error: "WebGPU found no adapter (requestAdapter() returned null)" };
  const timestamps = adapter.features.has("timestamp-query");
  // The sort's tiles want 512 invocations (the GLSL design); WebGPU's default
  // limit is 256: ask for 512 where the adapter has it.
  const sortWorkgroupSize =
    adapter.limits.maxComputeInvocationsPerWorkgroup >= 512 && adapter.limits.maxComputeWorkgroupSizeX >= 512 ? 512 : 256;
  const requiredLimits = {};
  if (sortWorkgroupSize === 512) {
    requiredLimits.maxComputeInvocationsPerWorkgroup = 512;
    requiredLimits.maxComputeWorkgroupSizeX = 512;
  }
  // 2^24 floats are 64 MiB (within the defaults, 128 MiB bindings and 256 MiB buffers).
  let device;
  try {
    device = await adapter.requestDevice({ requiredFeatures: timestamps ? ["timestamp-query"] : [], requiredLimits });
  } catch (e) {
    return { error: `requestDevice() failed: ${e.message}` };
  }
  const raw = adapter.info || {};
  const info = {
    vendor: raw.vendor || "",
    architecture: raw.architecture || "",
    device: raw.device || "",
    description: raw.description || "",
    fallback: Boolean(raw.isFallbackAdapter),
  };
  return { adapter, device, info, timestamps, sortWorkgroupSize, software: isSoftware(info) };
}

// A CPU standing in for a GPU: WebGPU's fallback adapter, or a software
// rasterizer by name (SwiftShader, llvmpipe/lavapipe, Microsoft's WARP).
export function isSoftware(info) {
  const words = `${info.vendor} ${info.architecture} ${info.device} ${info.description}`;
  return info.fallback || /swiftshader|llvmpipe|lavapipe|software|\bwarp\b|basic render/i.test(words);
}

// "vendor google, architecture swiftshader" and the rest WebGPU tells.
export function describeAdapter(info) {
  const parts = [`vendor ${info.vendor || "(not given)"}`, `architecture ${info.architecture || "(not given)"}`];
  if (info.device) parts.push(`device ${info.device}`);
  if (info.description) parts.push(`"${info.description}"`);
  if (info.fallback) parts.push("a fallback adapter (software)");
  return parts.join(", ");
}

// ---- shaders, pipelines, buffers -----------------------------------------------

const sources = new Map();
export async function shaderSource(file) {
  if (!sources.has(file)) {
    const response = await fetch(new URL(`../wgsl/${file}`, import.meta.url));
    if (!response.ok) throw new Error(`could not load wgsl/${file}: HTTP ${response.status}`);
    sources.set(file, await response.text());
  }
  return sources.get(file);
}

// Runs `work` -- synchronous WebGPU calls: creating, encoding, submitting --
// inside validation and out-of-memory error scopes, and returns a promise of
// its value: a WebGPU error becomes a rejection here, not a line in the
// console. The scopes are pushed and popped with no await between them, so
// two panels whose GPU work interleaves never catch each other's errors.
export function guarded(device, what, work) {
  device.pushErrorScope("out-of-memory");
  device.pushErrorScope("validation");
  let value, thrown;
  try {
    value = work();
  } catch (e) {
    thrown = e;
  }
  const scopes = [device.popErrorScope(), device.popErrorScope()];
  return Promise.all(scopes).then(([validation, memory]) => {
    const error = validation || memory;
    if (error) throw new Error(`${what}: ${error.message}`);
    if (thrown) throw thrown;
    return value;
  });
}

// A compute pipeline with an explicit layout: `bindings` lists each binding's
// buffer type ("storage" or "uniform"), "uniform-dynamic" for a uniform read
// at a dynamic offset (one slot per dispatch).
export async function makePipeline(device, file, entryPoint, constants, bindings) {
  const code = await shaderSource(file);
  const { module, layout } = await guarded(device, `the shader wgsl/${file}`, () => ({
    module: device.createShaderModule({ label: file, code }),
    layout: device.createBindGroupLayout({
      entries: bindings.map((type, binding) => ({
        binding,
        visibility: GPUShaderStage.COMPUTE,
        buffer: type === "uniform-dynamic" ? { type: "uniform", hasDynamicOffset: true } : { type },
      })),
    }),
  }));
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === "error");
  if (errors.length) {
    throw new Error(`wgsl/${file}: ${errors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join("; ")}`);
  }
  // createComputePipelineAsync rejects by itself when the pipeline is invalid.
  const pipeline = await device.createComputePipelineAsync({
    label: `${file} ${JSON.stringify(constants)}`,
    layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
    compute: { module, entryPoint, constants },
  });
  return { pipeline, layout };
}

export function makeBuffer(device, size, usage, data) {
  const buffer = device.createBuffer({ size: Math.max(16, Math.ceil(size / 16) * 16), usage, mappedAtCreation: Boolean(data) });
  if (data) {
    new Uint8Array(buffer.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    buffer.unmap();
  }
  return buffer;
}

const STORAGE = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
const UNIFORM = () => GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST;

// Copies `bytes` of each buffer back to the CPU, after everything submitted so far.
export async function readBack(device, pairs) {
  const staging = await guarded(device, "the read-back", () => {
    const encoder = device.createCommandEncoder();
    const list = pairs.map(([buffer, bytes]) => {
      const s = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      encoder.copyBufferToBuffer(buffer, 0, s, 0, bytes);
      return s;
    });
    device.queue.submit([encoder.finish()]);
    return list;
  });
  const out = [];
  for (const s of staging) {
    await s.mapAsync(GPUMapMode.READ);
    out.push(s.getMappedRange().slice(0));
    s.unmap();
    s.destroy();
  }
  return out;
}

const rows = (flat, n) => Array.from({ length: flat.length / n }, (_, p) => Array.from(flat.slice(p * n, (p + 1) * n)));

// ---- 59: one split, one workgroup of dist invocations --------------------------
export async function runSplit(gpu, input, dist) {
  const { device } = gpu;
  const n = input.length;
  const { pipeline, layout } = await makePipeline(device, "59_split.wgsl", "compare_exchange_kernel",
    { THREADS: dist }, ["storage", "uniform", "storage"]);
  const buffers = await guarded(device, "59's kernel", () => {
    const a = makeBuffer(device, n * 4, STORAGE(), Int32Array.from(input));
    const args = makeBuffer(device, 8, UNIFORM(), Uint32Array.from([dist, 1]));
    const did = makeBuffer(device, n * 4, STORAGE(), new Uint32Array(n));
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup(device, layout, [a, args, did]));
    pass.dispatchWorkgroups(1);  // <<<1, dist>>>
    pass.end();
    device.queue.submit([encoder.finish()]);
    return { a, args, did };
  });
  try {
    const [aBytes, didBytes] = await readBack(device, [[buffers.a, n * 4], [buffers.did, n * 4]]);
    const after = Array.from(new Int32Array(aBytes));
    return { after, dist, passes: [after], did: [Array.from(new Uint32Array(didBytes))] };
  } finally {
    destroy(buffers);
  }
}

// ---- 61: every pass in one workgroup of n invocations, with barriers -----------
export async function runMerge(gpu, input, { trap = false } = {}) {
  const { device } = gpu;
  const n = input.length;
  const numPasses = mergeDistances(n).length;
  const { pipeline, layout } = await makePipeline(device, "61_merge.wgsl", "bitonic_merge_kernel",
    { CNT: n, TRAP_FIRST_GROUP_ONLY: trap ? 1 : 0 }, ["storage", "uniform", "storage", "storage", "storage"]);
  const buffers = await guarded(device, "61's kernel", () => {
    const a = makeBuffer(device, n * 4, STORAGE(), Int32Array.from(input));
    const args = makeBuffer(device, 4, UNIFORM(), Uint32Array.from([1]));  // ascending
    const trace = makeBuffer(device, numPasses * n * 4, STORAGE());
    const active = makeBuffer(device, numPasses * 4, STORAGE(), new Uint32Array(numPasses));
    const did = makeBuffer(device, numPasses * n * 4, STORAGE(), new Uint32Array(numPasses * n));
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup(device, layout, [a, args, trace, active, did]));
    pass.dispatchWorkgroups(1);  // <<<1, n>>>
    pass.end();
    device.queue.submit([encoder.finish()]);
    return { a, args, trace, active, did };
  });
  try {
    const [traceBytes, activeBytes, didBytes] = await readBack(device,
      [[buffers.trace, numPasses * n * 4], [buffers.active, numPasses * 4], [buffers.did, numPasses * n * 4]]);
    return {
      passes: rows(new Int32Array(traceBytes), n),
      active: Array.from(new Uint32Array(activeBytes)),
      did: rows(new Uint32Array(didBytes), n),
    };
  } finally {
    destroy(buffers);
  }
}

// ---- 63: one dispatch of one workgroup of n invocations per (k, j) -------------
export async function runSort(gpu, input, { trap = false } = {}) {
  const { device } = gpu;
  const n = input.length;
  const schedule = sortPasses(n);
  const slot = Math.max(256, device.limits.minUniformBufferOffsetAlignment);
  const { pipeline, layout } = await makePipeline(device, "63_sort_pass.wgsl", "bitonic_sort_kernel",
    { N: n, TRAP_NO_PAIR_GUARD: trap ? 1 : 0 }, ["storage", "uniform-dynamic", "storage"]);
  let passCount = 0;
  const buffers = await guarded(device, "63's kernel", () => {
    const a = makeBuffer(device, n * 4, STORAGE(), Int32Array.from(input));
    const argWords = new Uint32Array((schedule.length * slot) / 4);
    schedule.forEach(({ k, j }, p) => argWords.set([n, k, j, p], (p * slot) / 4));
    const args = makeBuffer(device, argWords.byteLength, UNIFORM(), argWords);
    const trace = makeBuffer(device, schedule.length * n * 4, STORAGE());
    const did = makeBuffer(device, schedule.length * n * 4, STORAGE(), new Uint32Array(schedule.length * n));
    const group = device.createBindGroup({
      layout,
      entries: [
        { binding: 0, resource: { buffer: a } },
        { binding: 1, resource: { buffer: args, size: 16 } },
        { binding: 2, resource: { buffer: did } },
      ],
    });
    const encoder = device.createCommandEncoder();
    schedule.forEach((_, p) => {
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group, [p * slot]);
      pass.dispatchWorkgroups(1);  // <<<1, n>>>, for this (k, j)
      pass.end();
      passCount++;
      // What this dispatch left behind, copied aside before the next one runs.
      encoder.copyBufferToBuffer(a, 0, trace, p * n * 4, n * 4);
    });
    device.queue.submit([encoder.finish()]);
    return { a, args, trace, did };
  });
  try {
    const [aBytes, traceBytes, didBytes] = await readBack(device,
      [[buffers.a, n * 4], [buffers.trace, schedule.length * n * 4], [buffers.did, schedule.length * n * 4]]);
    return {
      after: Array.from(new Int32Array(aBytes)),
      passes: rows(new Int32Array(traceBytes), n),
      did: rows(new Uint32Array(didBytes), n),
      passCount,
    };
  } finally {
    destroy(buffers);
  }
}

function bindGroup(device, layout, buffers) {
  return device.createBindGroup({ layout, entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })) });
}

function destroy(buffers) {
  for (const b of Object.values(buffers)) b.destroy();
}
