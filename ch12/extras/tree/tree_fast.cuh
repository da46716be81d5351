// ch12/extras/tree/tree_fast.cuh -- tree_bitonic_gpu's fast kernel: the waves
// runtime with the options of tree_waves_fast.h (--levels, --stores, --tasks,
// --joins), each selectable so that one GPU run times them all against the
// kernel they came from. Included by tree_bitonic_gpu.cu after its Runtime,
// DeviceOps and load_task, which it reuses; the logic it runs is
// tree_waves_fast.h's, checked on the CPU by test_tree_waves_fast.
//
// What is GPU-only here is the warp-cooperative store (--stores warp): each
// thread's register call writes its first `stage` nodes into the thread's
// slot of shared memory (StagedHeap); then the warp writes the slots one
// after the other, 32 consecutive nodes (512 bytes) per store instruction,
// instead of each thread writing its nodes one 16-byte store at a time, each
// to a sector of its own.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "cli.h"
#include "tree_waves_fast.h"

namespace fastk {

using tree::Kids;
using tree::Tree;
namespace fw = tree::waves::fast;

// A register call's stores: its first `limit` nodes to the thread's stage in
// shared memory, the rest straight to the heap.
struct StagedHeap {
    uint64_t* heap;
    ulonglong2* stage;
    uint64_t base;
    uint32_t limit;
    __device__ __forceinline__ Kids children(Tree t) const { return tree::DeviceHeap{heap}.children(t); }
    __device__ __forceinline__ void store(uint64_t i, Tree l, Tree r) const {
        const uint64_t k = i - base;
        if (k < limit) stage[k] = make_ulonglong2(l, r);
        else tree::DeviceHeap{heap}.store(i, l, r);
    }
};

struct FastOps : DeviceOps {
    fw::Options opt;
    ulonglong2* stage;  // this thread's stage (null without --stores warp)
    __device__ StagedHeap call_mem(uint64_t base) const { return StagedHeap{rt.heap, stage, base, opt.stage}; }
    __device__ void push_n(const tree::waves::Task* t, int n) const {
        if (wave + 1 >= rt.max_waves) { atomicExch(&rt.error[0], 1); return; }
        const uint32_t first = tree::aggregated_add(&rt.wave_count[wave + 1], (uint32_t)n);
        for (int i = 0; i < n; ++i) put(first + i, t[i]);
    }
};

// The warp writes every thread's staged nodes: thread j's `staged` nodes go
// to the heap from its `base`, 32 nodes per store instruction.
__device__ __forceinline__ void flush(uint64_t* heap, const ulonglong2* warp_stage, uint32_t stride, uint32_t staged,
                                      uint64_t base) {
    const uint32_t lane = threadIdx.x & 31;
    __syncwarp();  // every thread's stage written
    unsigned todo = __ballot_sync(~0u, staged != 0);
    while (todo) {
        const int j = __ffs(todo) - 1;
        todo &= todo - 1;
        const uint32_t n = __shfl_sync(~0u, staged, j);
        const uint64_t b = __shfl_sync(~0u, base, j);
        const ulonglong2* s = warp_stage + j * stride;
        for (uint32_t k = lane; k < n; k += 32) __stcg(reinterpret_cast<ulonglong2*>(heap + 2 * (b + k)), s[k]);
    }
    __syncwarp();  // every stage read before it is reused
}

// Tasks [0, n) of one wave, `threads` threads from `first_thread` on: each
// warp takes 32 consecutive tasks (and with --tasks 2 the 32 that lie
// `threads` further), in a loop the whole warp runs together.
template <int kMax>
__device__ void run_tasks(const Runtime& rt, uint32_t wave, const tree::waves::Task* list, uint32_t n,
                          uint32_t first_thread, uint32_t threads, ulonglong2* smem) {
    const uint32_t lane = threadIdx.x & 31;
    const uint32_t stride = rt.fast.stage + 1;  // an odd number of 16-byte nodes: no bank conflicts
    ulonglong2* warp_stage = smem + (threadIdx.x - lane) * stride;
    FastOps ops{{rt, wave, rt.cutoff}, rt.fast, rt.fast.stage ? warp_stage + lane * stride : nullptr};
    const uint32_t per = rt.fast.pairs ? 2 : 1;
    for (uint32_t i0 = first_thread - lane; i0 < n; i0 += per * threads) {  // the same for the whole warp
        const uint32_t i[2] = {i0 + lane, i0 + lane + threads};
        const bool has[2] = {i[0] < n, per == 2 && i[1] < n};
        tree::waves::Task t[2];
        if (has[0]) t[0] = load_task(&list[i[0]]);
        if (has[1]) t[1] = load_task(&list[i[1]]);
        fw::Held<kMax> held;
        const bool holding = has[0] && has[1] && fw::hold<kMax>(ops, t[0], t[1], &held);
#pragma unroll
        for (int k = 0; k < 2; ++k) {
            if (k == 1 && per == 1) break;
            tree::waves::Done done;
            tree::waves::Where where;
            bool ran = false;
            if (has[k]) {
                if (holding) {
                    fw::run_held<kMax>(ops, t[k], held, k, &done, &where);
                    ran = true;
                } else {
                    ran = fw::start<kMax>(ops, t[k], Kids{0, 0}, false, &done, &where);
                }
            }
            if (rt.fast.stage)
                flush(rt.heap, warp_stage, stride, ran ? fw::staged_nodes(t[k], rt.fast.stage) : 0, has[k] ? t[k].base : 0);
            if (ran) fw::deliver<kMax>(ops, done, where);
        }
    }
}

// The waves of evaluate() (tree_bitonic_gpu.cu), each wave's tasks run by run_tasks().
template <int kMax>
__global__ void __launch_bounds__(kThreads) evaluate_fast(const __grid_constant__ Runtime rt) {
    extern __shared__ ulonglong2 stage_smem[];
    cg::grid_group grid = cg::this_grid();
    const bool timer = rt.wave_start && blockIdx.x == 0 && threadIdx.x == 0;
    uint32_t wave = 0;
    while (wave < rt.max_waves) {
        const uint32_t n = __ldcg(&rt.wave_count[wave]);
        if (timer) rt.wave_start[wave] = global_ns();
        if (n == 0) break;
        if (n <= rt.narrow) {
            if (blockIdx.x == 0) {
                for (;;) {
                    const uint32_t m = __ldcg(&rt.wave_count[wave]);
                    if (m == 0 || m > rt.narrow) break;
                    run_tasks<kMax>(rt, wave, rt.list[wave & 1], m, threadIdx.x, blockDim.x, stage_smem);
                    __syncthreads();
                    if (++wave >= rt.max_waves) break;
                    if (timer) rt.wave_start[wave] = global_ns();
                }
                if (threadIdx.x == 0) *rt.wave_now = wave;
            }
            grid.sync();
            wave = __ldcg(rt.wave_now);
            continue;
        }
        run_tasks<kMax>(rt, wave, rt.list[wave & 1], n, grid.thread_rank(), grid.size(), stage_smem);
        grid.sync();
        ++wave;
    }
}

constexpr int kFastMax = 4;  // the fast kernel's register calls: cutoffs up to 4

// The fast kernel's options from the command line (all absent: the classic
// kernel runs). Exits 2 on a bad value, as CommandLine does.
inline fw::Options options(const ch12::CommandLine& cl, int cutoff, bool* fast) {
    static const char* const stores[] = {"thread", "warp", nullptr};
    static const char* const joins[] = {"serial", "overlapped", nullptr};
    fw::Options o;
    o.levels = (int)cl.number("--levels", 1, fw::kMaxLevels, 1);
    o.stage = cl.choice("--stores", stores, 0) == 1 ? 1 : 0;  // the size is set per device (stage_nodes)
    o.pairs = cl.number("--tasks", 1, 2, 1) == 2;
    o.overlap = cl.choice("--joins", joins, 0) == 1;
    *fast = o.levels != 1 || o.stage || o.pairs || o.overlap;
    if (*fast && cutoff > kFastMax)
        cl.fail("--cutoff " + std::to_string(cutoff) + ": --levels, --stores, --tasks and --joins run the fast kernel, "
                "whose register calls go up to --cutoff " + std::to_string(kFastMax));
    return o;
}

// Nodes a thread stages with --stores warp: 32 (a warp(3) call's 29 nodes
// and the first 32 of larger calls), fewer where this GPU's shared memory
// for `blocks_per_sm` blocks holds fewer; an even number, so that the stride
// (stage + 1 nodes) is odd. 0 if not even 2 fit.
inline uint32_t stage_nodes(int device, int blocks_per_sm, size_t* smem_bytes) {
    int per_block = 0, per_sm = 0;
    if (cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) != cudaSuccess)
        return 0;
    const int reserved = 1024;  // the runtime's own per block
    const int bytes = std::min(per_block, per_sm / blocks_per_sm - reserved);
    int nodes = bytes / (kThreads * 16) - 1;
    nodes = std::min(nodes, 32);
    nodes &= ~1;
    if (nodes < 2) return 0;
    *smem_bytes = (size_t)kThreads * (nodes + 1) * 16;
    return (uint32_t)nodes;
}

}  // namespace fastk
