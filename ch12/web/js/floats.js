// ch12/web/js/floats.js -- the sort panel's floats, with no GPU and no DOM
// (the page's worker, js/sort_worker.js, runs it too): the kinds of input,
// IEEE 754 totalOrder on a float's bits, the JavaScript reference sort, and
// the check of a result against it.

// The kinds of input, in the order and with the names of the C++ programs'
// list (the sort library's test and benchmark: --input KIND); the test
// web_input_kinds reads that list from its C++ header and compares.
export const INPUT_KINDS = [
  { name: "uniform", text: "uniform (random bits: every kind of float, NaNs and denormals too)" },
  { name: "sorted", text: "sorted (ascending, each value three times)" },
  { name: "reverse", text: "reverse (descending, each value three times)" },
  { name: "equal", text: "equal (one value, n times)" },
  { name: "few-unique", text: "few-unique (8 values, shuffled, the largest float of the order among them)" },
  { name: "special", text: "special (\u00b10, \u00b1\u221e, NaNs, denormals, extremes; repeats)" },
];
export const INPUTS = INPUT_KINDS.map((k) => k.name);

// The sizes the page sorts: 1 .. 2^24 floats (the panel offers 2^10 .. 2^24).
export const MAX_KEYS = 2 ** 24;

// A size the sort takes, or a sentence saying why not (never NaN, never 0).
export function sizeProblem(n) {
  if (typeof n !== "number" || !Number.isInteger(n)) return `the number of floats must be a whole number, not ${String(n)}`;
  if (n < 1) return `the number of floats must be at least 1, not ${n}`;
  if (n > MAX_KEYS) return `the number of floats must be at most 2^24 = ${MAX_KEYS}, not ${n}`;
  return "";
}

// ---- floats as bits, and totalOrder ---------------------------------------------
// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN, as one unsigned key.
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

// n floats of one kind, as bits, from a seed (xorshift32).
const SPECIAL = [0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x00000001,
  0x80000001, 0x007fffff, 0x807fffff, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x7fffffff];
export function makeInput(kind, n, seed = 12) {
  const problem = sizeProblem(n);
  if (problem) throw new RangeError(problem);
  let state = seed >>> 0 || 1;
  const next = () => {  // xorshift32
    state ^= state << 13; state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5; state >>>= 0;
    return state;
  };
  const bits = new Uint32Array(n);
  const floats = new Float32Array(bits.buffer);
  switch (kind) {
    case "uniform": for (let i = 0; i < n; i++) bits[i] = next(); break;
    case "sorted": for (let i = 0; i < n; i++) floats[i] = Math.floor(i / 3) - n / 6; break;
    case "reverse": for (let i = 0; i < n; i++) floats[i] = Math.floor((n - i) / 3) - n / 6; break;
    case "equal": bits.fill((0x9e3779b9 ^ seed) >>> 0); break;
    case "few-unique": {
      const values = Array.from({ length: 8 }, next);
      values[7] = fromKey(0xffffffff);  // the largest float of the order, as a real key
      for (let i = 0; i < n; i++) bits[i] = values[next() % 8];
      break;
    }
    case "special": for (let i = 0; i < n; i++) bits[i] = SPECIAL[next() % 16]; break;
    default: throw new RangeError(`unknown input kind ${JSON.stringify(kind)}: one of ${INPUTS.join(", ")}`);
  }
  return bits;
}

// The GPU's result against the reference: { checked, firstDifference, got, want }
// (firstDifference -1 when every bit agrees). A result of the wrong length
// differs at the first missing position; nothing is ever "identical" with
// no float checked.
export function compareToReference(input, output) {
  const want = referenceSort(input);
  const checked = Math.min(output.length, want.length);
  let diff = -1;
  for (let i = 0; i < checked; i++) {
    if (output[i] !== want[i]) {
      diff = i;
      break;
    }
  }
  if (diff < 0 && output.length !== want.length) diff = checked;
  if (want.length === 0) diff = 0;
  return { checked: diff < 0 ? checked : diff, firstDifference: diff, got: output[diff], want: want[diff] };
}

export function median(values) {
  const s = values.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

// "23.8 thousand keys/s", "412 Mkeys/s", "1.25 Gkeys/s": never 0.0000238 Gkeys/s.
export function formatRate(keysPerSecond) {
  const units = [[1e9, "Gkeys/s"], [1e6, "Mkeys/s"], [1e3, "thousand keys/s"]];
  for (const [scale, unit] of units) {
    if (keysPerSecond >= scale) return `${(keysPerSecond / scale).toPrecision(3)} ${unit}`;
  }
  return `${keysPerSecond.toPrecision(3)} keys/s`;
}

// "350 ms", "12.5 s", "4 min 10 s".
export function formatDuration(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toPrecision(3)} s`;
  const min = Math.floor(s / 60);
  return `${min} min ${Math.round(s - 60 * min)} s`;
}
