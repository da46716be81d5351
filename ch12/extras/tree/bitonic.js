#!/usr/bin/env node
// ch12/extras/tree/bitonic.js -- the recursive tree formulation of bitonic
// sort in plain JavaScript: the four functions (warp, flow, down, sort) over
// immutable binary trees, written as the reference describes them, and the
// same job as the C++ reference (tree_bitonic_cpu.cpp):
// checksum(sort(d, 0, gen(d, 0))), which for d = 20 is 4027056128.
//
//   node bitonic.js [DEPTH]          (or --depth DEPTH; default 20)
//
// A tree is a number: a leaf holding the value v is 2v + 1, a node is 2i, i
// its index in the heap, where its children sit at heap[2i] and heap[2i + 1].
// The heap is one typed array, so depth 20 (402,653,180 nodes) takes 3.2 GB
// rather than tens of gigabytes of JavaScript objects. Nothing is ever
// modified: every Node(...) below is a new heap node.

"use strict";

const usage = "usage: bitonic.js [DEPTH | --depth DEPTH]\n" +
    "  DEPTH from 1 to 22 (default 20; the heap takes 8 bytes a node: 3.2 GB at 20)\n";

function fail(problem) {
    process.stderr.write("bitonic.js: " + problem + "\n" + usage);
    process.exit(2);
}

// A write error on stdout (a full disk, /dev/full) is an error: exit 1, said on stderr.
process.stdout.on("error", (e) => {
    process.stderr.write("bitonic.js: cannot write to standard output: " + e.message + "\n");
    process.exit(1);
});

// ---- the command line ------------------------------------------------------------
const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(usage);
    process.exit(0);
}
let depthText = null;
for (let a = 0; a < args.length; a++) {
    let value = args[a];
    if (value === "--depth") {
        if (a + 1 >= args.length) fail("option '--depth' needs a value");
        value = args[++a];
    } else if (value.startsWith("-") && !/^-?[0-9]/.test(value)) {
        fail("unknown option '" + value + "'");
    }
    if (depthText !== null) fail("the depth was given twice");
    depthText = value;
}
if (depthText === null) depthText = "20";
if (!/^[0-9]+$/.test(depthText) || Number(depthText) < 1 || Number(depthText) > 22)
    fail("the depth wants a whole number from 1 to 22, not '" + depthText + "'");
const depth = Number(depthText);

// Nodes of a full run: gen makes 2^d - 1; sort makes S(d), where
// W(0) = 1, W(d) = 2 W(d-1) + 3; D(d) = 2 F(d-1) + 1; F(d) = W(d-1) + D(d);
// S(d) = 2 S(d-1) + 1 + F(d). (The heap is sized from these.)
function counts(d) {
    const W = [1], D = [0], F = [0], S = [0];
    for (let i = 1; i <= d; i++) {
        W[i] = 2 * W[i - 1] + 3;
        D[i] = 2 * F[i - 1] + 1;
        F[i] = W[i - 1] + D[i];
        S[i] = 2 * S[i - 1] + 1 + F[i];
    }
    return (2 ** d - 1) + S[d];
}

let heap;
try {
    heap = new Uint32Array(2 * counts(depth));
} catch (e) {
    process.stderr.write("bitonic.js: skipped: depth " + depth + " needs " + (8 * counts(depth) / 1e9).toFixed(2) +
                         " GB of heap, which this JavaScript engine cannot allocate (" + e.message + ")\n");
    process.exit(77);
}
let next = 0;  // the next free node

// ---- trees -------------------------------------------------------------------------
const Leaf = (v) => 2 * v + 1;
const isLeaf = (t) => (t & 1) === 1;
const value = (t) => (t - 1) / 2;
const left = (t) => heap[t];
const right = (t) => heap[t + 1];
function Node(l, r) {
    const t = 2 * next++;
    heap[t] = l;
    heap[t + 1] = r;
    return t;
}

// ---- the four functions, as the reference writes them ----------------------------
function warp(d, s, a, b) {
    if (d === 0) {  // compare-and-swap the two leaves
        const av = value(a), bv = value(b);
        const swap = s ^ (av > bv ? 1 : 0);
        return swap === 0 ? Node(Leaf(av), Leaf(bv)) : Node(Leaf(bv), Leaf(av));
    }
    const l = warp(d - 1, s, left(a), left(b));    // PARALLEL
    const r = warp(d - 1, s, right(a), right(b));  // PARALLEL
    return Node(Node(left(l), left(r)), Node(right(l), right(r)));
}

function flow(d, s, t) {
    if (d === 0 || isLeaf(t)) return t;
    const w = warp(d - 1, s, left(t), right(t));
    return down(d, s, w);
}

function down(d, s, t) {
    if (d === 0 || isLeaf(t)) return t;
    const l = flow(d - 1, s, left(t));   // PARALLEL
    const r = flow(d - 1, s, right(t));  // PARALLEL
    return Node(l, r);
}

function sort(d, s, t) {
    if (d === 0 || isLeaf(t)) return t;
    const l = sort(d - 1, 0, left(t));   // PARALLEL
    const r = sort(d - 1, 1, right(t));  // PARALLEL
    return flow(d, s, Node(l, r));
}

// ---- the input and the checksum ----------------------------------------------------
// gen(d, x): 2^d leaves, left to right in descending order.
function gen(d, x) {
    if (d === 0) return Leaf(x);
    return Node(gen(d - 1, 2 * x + 1), gen(d - 1, 2 * x));
}

// The leaves left to right: r = r * 31 + value, in wrapping uint32 arithmetic.
function checksum(t) {
    let r = 0;
    const stack = [t];
    while (stack.length > 0) {
        const x = stack.pop();
        if (isLeaf(x)) {
            r = (Math.imul(r, 31) + value(x)) >>> 0;
        } else {
            stack.push(right(x));
            stack.push(left(x));
        }
    }
    return r;
}

// ---- the job ----------------------------------------------------------------------
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
console.log("tree bitonic sort, JavaScript reference (" + process.release.name + " " + process.version +
            ", one thread), depth " + depth + " (" + 2 ** depth + " leaves)");
let t0 = process.hrtime.bigint();
const input = gen(depth, 0);
const genMs = ms(t0);
const genNodes = next;
t0 = process.hrtime.bigint();
const sorted = sort(depth, 0, input);
const sortMs = ms(t0);
const sortNodes = next - genNodes;
t0 = process.hrtime.bigint();
const sum = checksum(sorted);
const sumMs = ms(t0);

console.log("checksum: " + sum);
console.log("nodes: gen " + genNodes + ", sort " + sortNodes + ", total " + (genNodes + sortNodes));
console.log("time (ms): gen " + genMs.toFixed(3) + ", sort " + sortMs.toFixed(3) + ", checksum " + sumMs.toFixed(3));
if (genNodes + sortNodes !== counts(depth)) {
    console.log("node count differs from the closed form (" + counts(depth) + "): BUG");
    process.exit(1);
}
