// ch12/extras/tree/tree_bitonic.h -- the model that the C++ reference
// (tree_bitonic_cpu.cpp) and the GPU evaluators (tree_seed_grow_work.cu,
// tree_bitonic_gpu.cu) of Section 12.3's recursive formulation share: the
// tree word, the node counts, and where each call puts its nodes. Plain C++,
// usable on the host and (through TREE_HD) on the device; no command line.
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
// reference system counts them. Indices are 64-bit: depth 23 has 4.3e9 nodes.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define TREE_HD __host__ __device__ __forceinline__
#else
#define TREE_HD inline
#endif

namespace tree {

typedef uint64_t Tree;

TREE_HD Tree leaf(uint32_t v) { return ((uint64_t)v << 1) | 1; }
TREE_HD bool is_leaf(Tree t) { return (t & 1) != 0; }
TREE_HD uint32_t value(Tree t) { return (uint32_t)(t >> 1); }
TREE_HD Tree node_word(uint64_t index) { return index << 1; }

enum Fn : uint8_t { kSort, kFlow, kDown, kWarp };

// Nodes allocated by one call at depth d, on full trees of depth d (every
// call of the four functions sees full trees, so these are exact):
//   warp: W(0) = 1, W(d) = 2 W(d-1) + 3          = 2^(d+2) - 3
//   down: D(0) = 0, D(d) = 2 F(d-1) + 1
//   flow: F(0) = 0, F(d) = W(d-1) + D(d)         = (2d - 2) 2^d + 2
//   sort: S(0) = 0, S(d) = 2 S(d-1) + 1 + F(d)   = (d^2 - d + 3) 2^d - 3
//   gen:  G(d) = 2^d - 1
// The closed forms (checked against the recurrences by the tree tests) let
// device code compute them without a table.
TREE_HD uint64_t W(int d) { return (uint64_t(4) << d) - 3; }
TREE_HD uint64_t F(int d) { return d == 0 ? 0 : (uint64_t)(2 * d - 2) * (uint64_t(1) << d) + 2; }
TREE_HD uint64_t D(int d) { return d == 0 ? 0 : 2 * F(d - 1) + 1; }
TREE_HD uint64_t S(int d) { return (uint64_t)(d * d - d + 3) * (uint64_t(1) << d) - 3; }
TREE_HD uint64_t G(int d) { return (uint64_t(1) << d) - 1; }
TREE_HD uint64_t nodes_of(Fn fn, int d) {
    return fn == kSort ? S(d) : fn == kFlow ? F(d) : fn == kDown ? D(d) : W(d);
}

// Where a call's nodes go. A call at depth d is handed a contiguous heap
// range of nodes_of(fn, d) nodes, which it hands on, in order, to its
// sub-calls and its own nodes -- the order in which a plain recursive
// evaluation with one bump pointer allocates them:
//   sort(d): [sort(d-1) | sort(d-1) | 1 Node | flow(d)]
//   flow(d): [warp(d-1) | down(d)]
//   down(d): [flow(d-1) | flow(d-1) | 1 Node]
//   warp(d): [warp(d-1) | warp(d-1) | 3 Nodes]       warp(0): [1 Node]
// So a split call needs no allocator, and every runtime that respects this
// layout writes exactly the heap the reference writes, node for node.

constexpr int kMaxDepth = 30;  // leaf values gen(d, x) < 2^(d+1) must fit in uint32

}  // namespace tree
