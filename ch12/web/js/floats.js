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

// ---- the kinds of input: the C++ programs' one generator, for floats -------------
// The recipe of ch12/extras/support/input_kinds.h (its comment states it):
// key i of n depends on (kind, i, n, seed) only, so the page sorts the floats
// that the C++ programs sort for the same kind, n and seed. The test
// input_kinds_languages holds this to the C++, key for key.
function hash32(x) {  // lowbias32: a bijection of 32 bits
  x = (x ^ (x >>> 16)) >>> 0;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x = (x ^ (x >>> 15)) >>> 0;
  x = Math.imul(x, 0x846ca68b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}
function random(i, seed) {  // i: a whole number below 2^53
  const c = hash32((seed ^ hash32((Math.floor(i / 2 ** 32) ^ 0x85ebca6b) >>> 0)) >>> 0);
  return hash32((hash32(((i >>> 0) ^ c) >>> 0) + c) >>> 0);
}
function sortedOrder(i, n) {  // runs of three, straddling the middle of the order
  const last = n > 0 ? Math.floor((n - 1) / 3) : 0;
  let t = 0;
  while (Math.floor(last / 2 ** t) >= 2 ** 31) t++;
  const m = Math.floor(last / 2 ** t);
  return (0x80000000 - Math.floor((m + 1) / 2) + Math.floor(Math.floor(i / 3) / 2 ** t)) >>> 0;
}
// The floats every float sort must get right (the C++ list, in its order):
// +-0, +-inf, NaNs (quiet, signalling, the largest), the smallest and largest
// denormals and normals, the largest finite, 1 and -1, 1 again.
export const SPECIAL = [0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xffbfffff,
  0x7fffffff, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff,
  0x3f800000, 0xbf800000, 0x3f800000];

// Float i of n of one kind, as bits.
export function inputKey(kind, i, n, seed) {
  if (!Number.isSafeInteger(n) || n < 1 || !Number.isSafeInteger(i) || i < 0 || i >= n) {
    throw new RangeError(`key ${i} of ${n}: a whole number from 0 to n - 1, of a whole n >= 1`);
  }
  seed >>>= 0;
  switch (kind) {
    case "uniform": return fromKey(random(i, seed));
    case "sorted": return fromKey(sortedOrder(i, n));
    case "reverse": return fromKey(sortedOrder(n - 1 - i, n));
    case "equal": return fromKey(hash32((seed ^ 0x9e3779b9) >>> 0));
    case "few-unique": {
      const j = random(i, seed) % 8;
      let v = 0xffffffff;
      if (j < 7) {
        v = hash32((j ^ hash32((seed ^ 0x632be5ab) >>> 0)) >>> 0);
        if (v === 0xffffffff) v = 0xfffffffe;  // (never value 7's: eight keys, always)
      }
      return fromKey(v);
    }
    case "special": return SPECIAL[random(i, seed) % SPECIAL.length];
    default: throw new RangeError(`unknown input kind ${JSON.stringify(kind)}: one of ${INPUTS.join(", ")}`);
  }
}

// n floats of one kind, as bits, from a seed.
export function makeInput(kind, n, seed = 12) {
  const problem = sizeProblem(n);
  if (problem) throw new RangeError(problem);
  if (!INPUTS.includes(kind)) throw new RangeError(`unknown input kind ${JSON.stringify(kind)}: one of ${INPUTS.join(", ")}`);
  const bits = new Uint32Array(n);
  for (let i = 0; i < n; i++) bits[i] = inputKey(kind, i, n, seed);
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
