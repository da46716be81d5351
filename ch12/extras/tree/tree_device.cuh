// ch12/extras/tree/tree_device.cuh -- the inline device code both GPU
// evaluators share: the heap as the GPU reads and writes it, and the tasks and
// continuation frames a runtime passes around. Header-only and inline: no
// kernels and no device variables live here (those are in tree_harness.cu and
// in each evaluator's own file).
#pragma once

#include <cstdint>

#include "tree_bitonic.h"
#include "tree_calls.h"

namespace tree {

// The heap on the GPU. Nodes are read and written through L2 (.cg): a node
// may have been written moments ago by a thread on another SM, whose write
// L1 would not see. Both children come in one 16-byte load.
struct DeviceHeap {
    uint64_t* heap;
    __device__ __forceinline__ Kids children(Tree t) const {
        const ulonglong2 c = __ldcg(reinterpret_cast<const ulonglong2*>(heap + t));
        return {c.x, c.y};
    }
    __device__ __forceinline__ void store(uint64_t i, Tree l, Tree r) const {
        __stcg(reinterpret_cast<ulonglong2*>(heap + 2 * i), make_ulonglong2(l, r));
    }
};

__device__ __forceinline__ Tree make_node(uint64_t* heap, uint64_t i, Tree l, Tree r) {
    DeviceHeap{heap}.store(i, l, r);
    return node_word(i);
}

// ---- tasks and frames -----------------------------------------------------------------
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

}  // namespace tree
