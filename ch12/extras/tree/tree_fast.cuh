// ch12/extras/tree/tree_fast.cuh -- tree_bitonic_gpu's fast kernel, its
// default: the waves runtime with the options of tree_waves_fast.h (--levels,
// --stores, --tasks, --joins) and dynamic dealing (--deal), each selectable so
// that one GPU run times them against each other and against the kernel they
// came from (--kernel classic). Included by tree_bitonic_gpu.cu after its
// Runtime, DeviceOps and load_task, which it reuses; the logic it runs is
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

// Tasks [0, n) of one wave, `threads` threads from `first_thread` on. A
// warp takes 32 consecutive tasks at a time, in a loop the whole warp runs
// together. Its first 32 are at its own place (with two tasks a thread, also
// the 32 that lie `threads` further on); then, with static dealing, every
// (two tasks: 2) * threads-th further on; with dynamic dealing (`taken`: the
// wave's counter, in a wave of more tasks than the first pass covers), the
// next 32 (64) not yet taken, from the counter. One copy of the call code
// serves both tasks of a thread (the loop over them is not unrolled).
template <int kMax>
__device__ void run_tasks(const Runtime& rt, uint32_t wave, const tree::waves::Task* list, uint32_t n,
                          uint32_t first_thread, uint32_t threads, uint32_t* taken, ulonglong2* smem) {
    const uint32_t lane = threadIdx.x & 31;
    const uint32_t stride = rt.fast.stage + 1;  // an odd number of 16-byte nodes: no bank conflicts
    ulonglong2* warp_stage = smem + (threadIdx.x - lane) * stride;
    FastOps ops{{rt, wave, rt.cutoff}, rt.fast, rt.fast.stage ? warp_stage + lane * stride : nullptr};
    const uint32_t per = fw::two_tasks(rt.fast, n, threads) ? 2 : 1;
    const uint32_t pass = per * threads;                      // the tasks of the first pass
    const bool dynamic = taken != nullptr && n > pass;
    uint32_t i0 = first_thread - lane, apart = threads;       // the same for the whole warp
    while (i0 < n) {
        uint32_t next = 0;
        if (dynamic && lane == 0) next = atomicAdd(taken, per * 32);  // the next chunk, asked for now, used below
        const bool has0 = i0 + lane < n, has1 = per == 2 && i0 + lane + apart < n;
        tree::waves::Task t0{}, t1{};
        if (has0) t0 = load_task(&list[i0 + lane]);
        if (has1) t1 = load_task(&list[i0 + lane + apart]);
        fw::Held<kMax> held;
        const bool holding = has0 && has1 && fw::hold<kMax>(ops, t0, t1, &held);
#pragma unroll 1
        for (uint32_t k = 0; k < per; ++k) {
            if (k == 1) t0 = t1;
            const bool has = k == 0 ? has0 : has1;
            tree::waves::Done done{};
            tree::waves::Where where{};
            bool ran = false;
            if (has) {
                if (holding) {
                    fw::run_held<kMax>(ops, t0, &held, &done, &where);
                    ran = true;
                } else {
                    ran = fw::start<kMax>(ops, t0, Kids{0, 0}, false, &done, &where);
                }
            }
            if (rt.fast.stage)
                flush(rt.heap, warp_stage, stride, ran ? fw::staged_nodes(t0, rt.fast.stage) : 0, has ? t0.base : 0);
            if (ran) fw::deliver<kMax>(ops, done, where);
        }
        if (dynamic) {
            i0 = pass + __shfl_sync(~0u, next, 0);
            apart = 32;
        } else {
            i0 += pass;
        }
    }
}

// The waves of evaluate() (tree_bitonic_gpu.cu), each wave's tasks run by
// run_tasks(), from one place in the code: a narrow wave by block 0 alone
// (the other blocks wait at the next grid barrier, block 0 goes on with the
// next wave while it is narrow), a wide one by the whole grid.
template <int kMax>
__global__ void __launch_bounds__(kThreads) evaluate_fast(const __grid_constant__ Runtime rt) {
    extern __shared__ ulonglong2 stage_smem[];
    cg::grid_group grid = cg::this_grid();
    const bool timer = rt.wave_start && blockIdx.x == 0 && threadIdx.x == 0;
    uint32_t wave = 0;
    while (wave < rt.max_waves) {
        const uint32_t n = __ldcg(&rt.wave_count[wave]);
        if (timer) trace_wave(rt, wave);
        if (n == 0) break;
        const bool narrow = n <= rt.narrow;
        if (narrow && blockIdx.x != 0) {
            grid.sync();
            wave = __ldcg(rt.wave_now);
            continue;
        }
        run_tasks<kMax>(rt, wave, rt.list[wave & 1], n, narrow ? threadIdx.x : grid.thread_rank(),
                        narrow ? blockDim.x : grid.size(), narrow || !rt.taken ? nullptr : &rt.taken[wave],
                        stage_smem);
        ++wave;
        if (!narrow) {
            grid.sync();
            continue;
        }
        // Block 0, after a narrow wave: all its threads read the next count
        // after the same barrier, so they agree on whether it is narrow too.
        __syncthreads();
        const uint32_t m = wave < rt.max_waves ? __ldcg(&rt.wave_count[wave]) : 0;
        if (m != 0 && m <= rt.narrow) continue;
        if (threadIdx.x == 0) *rt.wave_now = wave;
        grid.sync();
    }
}

constexpr int kFastMax = 4;  // the fast kernel's register calls: cutoffs up to 4

// The kernel (--kernel) and the fast kernel's options from the command line.
// Their defaults are the combination measured fastest on the H200 (NOTES.md):
// overlapped joins, warp stores, two tasks a thread in the waves of one to
// two tasks a thread, dynamic dealing, one level a split. Exits 2 on a bad
// value, as CommandLine does. *stores_asked: --stores warp was given (without
// it, a GPU with too little shared memory for it gets thread stores).
inline fw::Options options(const ch12::CommandLine& cl, bool* fast, bool* stores_asked) {
    static const char* const kernels[] = {"fast", "classic", nullptr};
    static const char* const stores[] = {"thread", "warp", nullptr};
    static const char* const tasks[] = {"1", "2", "auto", nullptr};
    static const char* const joins[] = {"serial", "overlapped", nullptr};
    static const char* const deals[] = {"static", "dynamic", nullptr};
    static const int task_modes[] = {fw::kTasksOne, fw::kTasksTwo, fw::kTasksAuto};
    *fast = cl.choice("--kernel", kernels, 0) == 0;
    *stores_asked = false;
    fw::Options o;
    if (!*fast) {
        for (const char* name : {"--levels", "--stores", "--tasks", "--joins", "--deal"})
            if (cl.has(name)) cl.fail(std::string(name) + " is an option of the fast kernel, not of --kernel classic");
        return o;
    }
    o.levels = (int)cl.number("--levels", 1, fw::kMaxLevels, 1);
    o.stage = cl.choice("--stores", stores, 1) == 1 ? 1 : 0;  // the size is set per device (stage_nodes)
    *stores_asked = o.stage && cl.has("--stores");
    o.tasks = task_modes[cl.choice("--tasks", tasks, 2)];
    o.overlap = cl.choice("--joins", joins, 1) == 1;
    o.dynamic = cl.choice("--deal", deals, 1) == 1;
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
