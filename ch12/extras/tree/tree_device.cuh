// ch12/extras/tree/tree_device.cuh -- the inline device code both GPU
// evaluators share: the heap as the GPU reads and writes it, and slots of a
// shared counter. Header-only and inline: no kernels and no device variables
// live here (those are in tree_harness.cu and in each evaluator's own file).
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
