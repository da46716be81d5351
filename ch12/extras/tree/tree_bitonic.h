// ch12/extras/tree/tree_bitonic.h -- what the C++ reference
// (tree_bitonic_cpu.cpp) and the GPU evaluators (tree_seed_grow_work.cu,
// tree_bitonic_gpu.cu) of Section 12.3's recursive formulation share: the
// tree word, the node counts, the command line.
//
// The formulation comes from a write-up of a GPU evaluator for recursive
// functional programs, which uses bitonic sort as its test case: a runtime
// test for a future compiler, so the algorithm is fixed and must be computed
// exactly as written. It writes bitonic sort as four pure functions over
// immutable binary trees:
//
//   warp(d, s, a, b):  d == 0: compare-and-swap two leaves into a new node
//                      l = warp(d-1, s, left a, left b)   || PARALLEL
//                      r = warp(d-1, s, right a, right b) || PARALLEL
//                      Node(Node(left l, left r), Node(right l, right r))
//   flow(d, s, t):     d == 0 or leaf: t;  else down(d, s, warp(d-1, s, left t, right t))
//   down(d, s, t):     d == 0 or leaf: t;  else Node(flow(d-1, s, left t) ||, flow(d-1, s, right t) ||)
//   sort(d, s, t):     d == 0 or leaf: t;  else flow(d, s, Node(sort(d-1, 0, left t) ||, sort(d-1, 1, right t) ||))
//
// A tree is a 64-bit word: a leaf holds its uint32 value unboxed,
// (value << 1) | 1; a node is (index << 1), index into a heap of two-word
// nodes (left word, right word), so left(t) = heap[t] and right(t) =
// heap[t + 1]. Every Node(...) of the definitions allocates one heap node;
// at depth 20 that is 402,653,180 nodes = 8.05e8 heap words, as the
// reference system counts them.
#pragma once

#include <cstdint>

#include "cli.h"

namespace tree {

typedef uint64_t Tree;

// Nodes allocated by one call at depth d, on full trees of depth d (every
// call of the four functions sees full trees, so these are exact).
//   warp: W(0) = 1, W(d) = 2 W(d-1) + 3
//   down: D(0) = 0, D(d) = 2 F(d-1) + 1
//   flow: F(0) = 0, F(d) = W(d-1) + D(d)
//   sort: S(0) = 0, S(d) = 2 S(d-1) + 1 + F(d)
//   gen:  G(d) = 2^d - 1
struct Counts {
    uint64_t W[40], D[40], F[40], S[40];
    Counts() {
        W[0] = 1; D[0] = 0; F[0] = 0; S[0] = 0;
        for (int d = 1; d < 40; ++d) {
            W[d] = 2 * W[d - 1] + 3;
            D[d] = 2 * F[d - 1] + 1;
            F[d] = W[d - 1] + D[d];
            S[d] = 2 * S[d - 1] + 1 + F[d];
        }
    }
    static uint64_t G(int d) { return (uint64_t(1) << d) - 1; }
};

constexpr int kMaxDepth = 30;  // leaf values gen(d, x) < 2^(d+1) must fit in uint32

// The depth, as "--depth D" or as the reference programs take it, "<program> D":
// a whole number from 1 to kMaxDepth, given once.
inline int depth_argument(const ch12::CommandLine& cl) {
    const bool named = cl.has("--depth");
    const size_t positional = cl.positional_args().size();
    if (named && positional) cl.fail("the depth was given twice (as --depth and as '" +
                                     std::string(cl.positional_args()[0]) + "')");
    if (!named && !positional) cl.fail("the depth is missing: give --depth D, or D");
    const char* text = named ? cl.value("--depth") : cl.positional_args()[0];
    return (int)cl.to_number(text, "the depth", 1, kMaxDepth);
}

}  // namespace tree
