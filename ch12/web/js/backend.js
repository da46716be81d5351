// ch12/web/js/backend.js -- where the kernels run: WebGPU, opened once, or
// (switched off, or none here) the book's replay in JavaScript. Every panel
// asks this module; none of them waits for another panel's work.

import { openGpu } from "./webgpu.js";

let gpuPromise = null;  // the WebGPU device, opened once
const lostListeners = [];

export function webgpuWanted() {
  return document.getElementById("use-webgpu").checked;
}

// { device, info, ... } or { error: why not, off: true when switched off here }.
export function backend() {
  if (!webgpuWanted()) return Promise.resolve({ error: "switched off on this page", off: true });
  if (!gpuPromise) {
    gpuPromise = openGpu().then((gpu) => {
      if (!gpu.error) {
        gpu.device.lost.then((info) => {
          if (info.reason === "destroyed") return;
          gpuPromise = null;  // the next request opens a new device
          for (const listener of lostListeners) listener(info.message || "no reason given");
        });
      }
      return gpu;
    });
  }
  return gpuPromise;
}

// Called with a message when the GPU device is lost (a driver reset, memory).
export function onDeviceLost(listener) {
  lostListeners.push(listener);
}
