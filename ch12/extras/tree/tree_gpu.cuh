// ch12/extras/tree/tree_gpu.cuh -- what the two GPU evaluators of the tree
// formulation share: trees on the device, the four functions as plain
// sequential recursion (seq_*), the input, the checksum, the check that every
// reserved heap node was written, and the host harness that runs one
// evaluation and prints it like the C++ reference does.
//
// Allocation without atomics: every call on full trees of depth d allocates a
// number of nodes known in advance (tree::Counts), so a call is handed a
// contiguous range of the heap and hands its children the first parts of it.
// The layout of a call's range:
//   sort(d): [sort(d-1) | sort(d-1) | 1 Node | flow(d)]
//   flow(d): [warp(d-1) | down(d)]
//   down(d): [flow(d-1) | flow(d-1) | 1 Node]
//   warp(d): [warp(d-1) | warp(d-1) | 3 Nodes]       warp(0): [1 Node]
#pragma once

#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "tree_bitonic.h"

namespace tree {

enum Fn : uint8_t { kSort, kFlow, kDown, kWarp };

__constant__ uint64_t cW[40], cD[40], cF[40], cS[40];

__device__ __forceinline__ Tree leaf(uint32_t v) { return ((uint64_t)v << 1) | 1; }
__device__ __forceinline__ bool is_leaf(Tree t) { return t & 1; }
__device__ __forceinline__ uint32_t value(Tree t) { return (uint32_t)(t >> 1); }
// Both children of a node in one 16-byte load, from L2 (.cg): a node may have
// been written moments ago by a thread on another SM, which L1 would not see.
__device__ __forceinline__ ulonglong2 children(const uint64_t* heap, Tree t) {
    return __ldcg(reinterpret_cast<const ulonglong2*>(heap + t));
}
__device__ __forceinline__ Tree make_node(uint64_t* heap, uint64_t i, Tree l, Tree r) {
    __stcg(reinterpret_cast<ulonglong2*>(heap + 2 * i), make_ulonglong2(l, r));
    return i << 1;
}

// A private bump pointer through one call's reserved range.
struct Bump {
    uint64_t* heap;
    uint64_t next;
    __device__ Tree node(Tree l, Tree r) { return make_node(heap, next++, l, r); }
};

// ---- the four functions, as written: the sequential form (seq_*) -----------------
__device__ Tree seq_warp(Bump& h, int d, uint32_t s, Tree a, Tree b) {
    if (d == 0) {  // compare-and-swap the two leaves
        const uint32_t av = value(a), bv = value(b);
        const uint32_t swap = s ^ (av > bv ? 1u : 0u);
        return swap == 0 ? h.node(leaf(av), leaf(bv)) : h.node(leaf(bv), leaf(av));
    }
    const ulonglong2 ca = children(h.heap, a), cb = children(h.heap, b);
    const Tree l = seq_warp(h, d - 1, s, ca.x, cb.x);  // PARALLEL
    const Tree r = seq_warp(h, d - 1, s, ca.y, cb.y);  // PARALLEL
    const ulonglong2 cl = children(h.heap, l), cr = children(h.heap, r);
    const Tree nl = h.node(cl.x, cr.x);
    const Tree nr = h.node(cl.y, cr.y);
    return h.node(nl, nr);
}

__device__ Tree seq_down(Bump& h, int d, uint32_t s, Tree t);

__device__ Tree seq_flow(Bump& h, int d, uint32_t s, Tree t) {
    if (d == 0 || is_leaf(t)) return t;
    const ulonglong2 c = children(h.heap, t);
    const Tree w = seq_warp(h, d - 1, s, c.x, c.y);
    return seq_down(h, d, s, w);
}

__device__ Tree seq_down(Bump& h, int d, uint32_t s, Tree t) {
    if (d == 0 || is_leaf(t)) return t;
    const ulonglong2 c = children(h.heap, t);
    const Tree l = seq_flow(h, d - 1, s, c.x);  // PARALLEL
    const Tree r = seq_flow(h, d - 1, s, c.y);  // PARALLEL
    return h.node(l, r);
}

__device__ Tree seq_sort(Bump& h, int d, uint32_t s, Tree t) {
    if (d == 0 || is_leaf(t)) return t;
    const ulonglong2 c = children(h.heap, t);
    const Tree l = seq_sort(h, d - 1, 0, c.x);  // PARALLEL
    const Tree r = seq_sort(h, d - 1, 1, c.y);  // PARALLEL
    return seq_flow(h, d, s, h.node(l, r));
}

// One call, run sequentially in its reserved range starting at `base`.
__device__ __forceinline__ Tree seq_call(uint64_t* heap, Fn fn, int d, uint32_t s, Tree a, Tree b, uint64_t base) {
    Bump h{heap, base};
    switch (fn) {
        case kSort: return seq_sort(h, d, s, a);
        case kFlow: return seq_flow(h, d, s, a);
        case kDown: return seq_down(h, d, s, a);
        default: return seq_warp(h, d, s, a, b);
    }
}

// ---- tasks and frames: what both runtimes pass around ---------------------------------
// A task is one call waiting to run; a frame is a call that has split,
// waiting for its sub-calls' results (a continuation).
struct alignas(16) Task {  // 32 bytes
    uint8_t fn, d, s, slot;
    uint32_t frame;        // the frame waiting for this call's result, in result[slot]
    Tree a, b;             // arguments (b: warp's second tree)
    uint64_t base;         // the call's reserved heap range
};

struct alignas(16) Frame {  // 48 bytes
    uint32_t kind, d, s, pending;
    uint32_t parent, parent_slot;
    uint64_t base;          // where the join's own nodes (or its tail call's range) start
    Tree result[2];
};

__device__ __forceinline__ Task make_task(Fn fn, int d, uint32_t s, Tree a, Tree b, uint64_t base,
                                          uint32_t frame = 0, uint32_t slot = 0) {
    Task t;
    t.fn = fn; t.d = (uint8_t)d; t.s = (uint8_t)s; t.slot = (uint8_t)slot;
    t.frame = frame; t.a = a; t.b = b; t.base = base;
    return t;
}

// Tasks and frames are written and read by threads on different SMs: through
// L2 (.cg), never a stale L1 line.
__device__ __forceinline__ Task load_task(const Task* p) {
    const ulonglong2* q = reinterpret_cast<const ulonglong2*>(p);
    Task t;
    reinterpret_cast<ulonglong2*>(&t)[0] = __ldcg(q);
    reinterpret_cast<ulonglong2*>(&t)[1] = __ldcg(q + 1);
    return t;
}
__device__ __forceinline__ void store_task(Task* p, const Task& t) {
    __stcg(reinterpret_cast<ulonglong2*>(p), reinterpret_cast<const ulonglong2*>(&t)[0]);
    __stcg(reinterpret_cast<ulonglong2*>(p) + 1, reinterpret_cast<const ulonglong2*>(&t)[1]);
}
// A completed frame, as the thread that brought its last result reads it.
__device__ __forceinline__ Frame load_frame(const Frame* F) {
    Frame f;
    f.kind = __ldcg(&F->kind); f.d = __ldcg(&F->d); f.s = __ldcg(&F->s); f.pending = 0;
    f.parent = __ldcg(&F->parent); f.parent_slot = __ldcg(&F->parent_slot); f.base = __ldcg(&F->base);
    f.result[0] = __ldcg(&F->result[0]);
    f.result[1] = __ldcg(&F->result[1]);
    return f;
}

// n consecutive slots of a counter for each thread that asks, one atomicAdd
// per group of converged threads asking for the same n.
__device__ __forceinline__ uint32_t aggregated_add(uint32_t* counter, uint32_t n) {
    const unsigned mask = __activemask();
    const int lane = threadIdx.x & 31;
    const unsigned same = __match_any_sync(mask, n);
    const int leader = __ffs(same) - 1;
    uint32_t first = 0;
    if (lane == leader) first = atomicAdd(counter, n * __popc(same));
    first = __shfl_sync(same, first, leader);
    return first + n * __popc(same & ((1u << lane) - 1));
}

// ---- input, checksum, and the check that every node was written --------------------
// gen(d, 0) in heap order: node p has children 2p+1, 2p+2; the path from the
// root picks 2x+1 going left and 2x going right, as gen does.
__global__ void gen_kernel(uint64_t* heap, int d) {
    const uint64_t p = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= (uint64_t(1) << d) - 1) return;
    const int level = 63 - __clzll((long long)(p + 1));
    const uint64_t path = (p + 1) - (uint64_t(1) << level);  // 0 = left
    const uint32_t x = (uint32_t)(~path & ((uint64_t(1) << level) - 1));
    Tree l, r;
    if (level < d - 1) { l = (2 * p + 1) << 1; r = (2 * p + 2) << 1; }
    else { l = leaf(2 * x + 1); r = leaf(2 * x); }
    make_node(heap, p, l, r);
}

// Subtree j of the 2^k at depth k: its leaves' r = r * 31 + v, left to right.
__global__ void checksum_kernel(const uint64_t* heap, Tree root, int k, uint32_t* out) {
    const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= (1u << k)) return;
    Tree t = root;
    for (int level = k - 1; level >= 0; --level) {
        const ulonglong2 c = children(heap, t);
        t = ((j >> level) & 1) ? c.y : c.x;
    }
    Tree stack[64];
    int top = 0;
    uint32_t r = 0;
    stack[top++] = t;
    while (top > 0) {
        const Tree x = stack[--top];
        if (is_leaf(x)) { r = r * 31u + value(x); continue; }
        const ulonglong2 c = children(heap, x);
        stack[top++] = c.y;
        stack[top++] = c.x;
    }
    out[j] = r;
}

__global__ void count_unwritten(const uint64_t* heap, uint64_t nodes, unsigned long long* count) {
    unsigned long long mine = 0;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nodes; i += (uint64_t)gridDim.x * blockDim.x)
        if (heap[2 * i] == ~0ull || heap[2 * i + 1] == ~0ull) mine++;
    if (mine) atomicAdd(count, mine);
}

// ---- the host harness -----------------------------------------------------------------
// Runs gen, then `sort_phase(heap, input root, first free node)` -- which
// launches the evaluator, returns the sorted tree's root and may print lines
// of its own into `notes` -- then the checksum and the heap check, and prints
// the reference's lines. Returns the exit status.
struct Evaluation {
    int depth;
    const char* name;     // the program's name
    const char* what;     // e.g. "SEED / GROW / WORK evaluator"
    size_t extra_bytes;   // GPU memory the evaluator needs besides the heap
};

template <typename SortPhase>
int run_evaluation(const Evaluation& e, SortPhase sort_phase) {
    const Counts counts;
    const int depth = e.depth;
    const uint64_t gen_nodes = Counts::G(depth), sort_nodes = counts.S[depth];
    const uint64_t nodes = gen_nodes + sort_nodes;
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (nodes * 16 + e.extra_bytes + (256ull << 20) > free_bytes) {
        fprintf(stderr, "%s: depth %d needs %.2f GB of GPU memory (%llu nodes), but only %.2f GB are free\n", e.name,
                depth, (nodes * 16 + e.extra_bytes) / 1e9, (unsigned long long)nodes, free_bytes / 1e9);
        return 1;
    }
    CUDA_CHECK(cudaMemcpyToSymbol(cW, counts.W, sizeof(counts.W)));
    CUDA_CHECK(cudaMemcpyToSymbol(cD, counts.D, sizeof(counts.D)));
    CUDA_CHECK(cudaMemcpyToSymbol(cF, counts.F, sizeof(counts.F)));
    CUDA_CHECK(cudaMemcpyToSymbol(cS, counts.S, sizeof(counts.S)));

    uint64_t* heap = nullptr;
    unsigned long long* d_unwritten = nullptr;
    CUDA_CHECK(cudaMalloc(&heap, nodes * 16));
    CUDA_CHECK(cudaMalloc(&d_unwritten, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(heap, 0xFF, nodes * 16));  // poison: ~0 is no valid tree word
    CUDA_CHECK(cudaMemset(d_unwritten, 0, sizeof(unsigned long long)));
    cudaEvent_t e0, e1, e2, e3, e4;
    for (cudaEvent_t* ev : {&e0, &e1, &e2, &e3, &e4}) CUDA_CHECK(cudaEventCreate(ev));

    // gen: the input tree, nodes [0, 2^d - 1), root = node 0
    CUDA_CHECK(cudaEventRecord(e0));
    gen_kernel<<<(unsigned)((gen_nodes + 255) / 256), 256>>>(heap, depth);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(e1));
    CUDA_CHECK(cudaEventSynchronize(e1));

    // sort: the evaluator (its own setup copies come before e2 is recorded)
    std::vector<std::string> notes;
    const Tree root = sort_phase(heap, Tree(0), gen_nodes, e2, e3, notes);

    // checksum: 2^k subtrees in parallel, combined on the host in order
    const int k = std::min(depth, 14);
    uint32_t* d_parts = nullptr;
    CUDA_CHECK(cudaMalloc(&d_parts, (1u << k) * sizeof(uint32_t)));
    checksum_kernel<<<((1u << k) + 255) / 256, 256>>>(heap, root, k, d_parts);
    CUDA_CHECK_LAUNCH();
    std::vector<uint32_t> parts(1u << k);
    CUDA_CHECK(cudaMemcpy(parts.data(), d_parts, parts.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    uint32_t pow31 = 1;  // 31^(leaves per subtree)
    for (uint64_t i = 0; i < (uint64_t(1) << (depth - k)); ++i) pow31 *= 31u;
    uint32_t sum = 0;
    for (uint32_t p : parts) sum = sum * pow31 + p;
    CUDA_CHECK(cudaEventRecord(e4));
    CUDA_CHECK(cudaEventSynchronize(e4));

    count_unwritten<<<1024, 256>>>(heap, nodes, d_unwritten);
    CUDA_CHECK_LAUNCH();
    unsigned long long unwritten = 0;
    CUDA_CHECK(cudaMemcpy(&unwritten, d_unwritten, sizeof unwritten, cudaMemcpyDeviceToHost));

    float gen_ms = 0, sort_ms = 0, sum_ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&gen_ms, e0, e1));
    CUDA_CHECK(cudaEventElapsedTime(&sort_ms, e2, e3));
    CUDA_CHECK(cudaEventElapsedTime(&sum_ms, e3, e4));
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));

    printf("tree bitonic sort, %s on %s, depth %d (%llu leaves)\n", e.what, prop.name, depth,
           (unsigned long long)(uint64_t(1) << depth));
    printf("checksum: %u\n", sum);
    printf("nodes: gen %llu, sort %llu, total %llu\n", (unsigned long long)gen_nodes, (unsigned long long)sort_nodes,
           (unsigned long long)nodes);
    printf("time (ms): gen %.3f, sort %.3f, checksum %.3f\n", gen_ms, sort_ms, sum_ms);
    for (const std::string& n : notes) printf("%s\n", n.c_str());
    printf("every reserved heap node written: %s\n", unwritten == 0 ? "yes" : "NO");

    CUDA_CHECK(cudaFree(d_parts));
    for (cudaEvent_t ev : {e0, e1, e2, e3, e4}) CUDA_CHECK(cudaEventDestroy(ev));
    CUDA_CHECK(cudaFree(d_unwritten));
    CUDA_CHECK(cudaFree(heap));
    return unwritten == 0 ? 0 : 1;
}

}  // namespace tree
