// ch12/web/js/sort_worker.js -- the sort panel's CPU work, off the page's
// thread: making the input and checking the GPU's result against the
// JavaScript sort (2^24 floats take seconds). The page never waits on it to
// draw or to answer a click; Cancel ends the worker.
//   { id, op: "input", kind, n, seed }      -> { id, bits }
//   { id, op: "check", input, output }      -> { id, checked, firstDifference, got, want, ms }
//   any failure                             -> { id, error }

import { compareToReference, makeInput } from "./floats.js";

self.onmessage = ({ data }) => {
  try {
    if (data.op === "input") {
      const bits = makeInput(data.kind, data.n, data.seed);
      self.postMessage({ id: data.id, bits }, [bits.buffer]);
    } else if (data.op === "check") {
      const started = performance.now();
      const verdict = compareToReference(data.input, data.output);
      self.postMessage({ id: data.id, ...verdict, ms: performance.now() - started });
    } else {
      throw new Error(`unknown request ${data.op}`);
    }
  } catch (e) {
    self.postMessage({ id: data.id, error: e.message });
  }
};
