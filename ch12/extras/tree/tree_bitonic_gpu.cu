// Chapter 12 extra -- the tree formulation of bitonic sort on the GPU, by this
// project's own runtime: tasks with a fixed cutoff, run in waves.
//
//   tree_bitonic_gpu --depth 20 [--cutoff C]      (or: tree_bitonic_gpu 20)
//
// The program is fixed: warp, flow, down and sort exactly as in
// tree_bitonic.h, every Node(...) a new heap node. Only the runtime that
// evaluates them is ours -- the same pieces as the SEED / GROW / WORK
// evaluator (tree_seed_grow_work.cu), put together differently:
//
// * A fixed cutoff. A call at depth <= C runs as plain recursion on one
//   thread (the seq_* functions of tree_gpu.cuh). A call above it is a TASK
//   that SPLITS: it writes a continuation frame (which join runs when its
//   children are done, d, s, where its nodes go, and who waits for its
//   result) and pushes its child calls as new tasks. The two PARALLEL calls
//   become two tasks that run at the same time; flow's two calls, which
//   depend on each other, become a chain (warp, then a frame that starts down).
// * Joins in continuations. A finished call delivers its result into its
//   parent's frame and decrements the frame's counter (one atomic); the
//   thread that brings it to zero runs the join at once -- Node(l, r),
//   warp's three nodes, or the next call (flow after sort, down after warp)
//   -- and delivers that result further up, in a loop.
// * Waves, in one cooperative kernel. All ready tasks form a wave; the grid
//   runs it (a grid-stride loop), tasks created meanwhile go to the next
//   wave's list, and grid.sync() separates waves. No host round trips.
// * Heap ranges reserved in advance (tree_gpu.cuh): a split costs no
//   allocation, and every reserved node is checked afterwards.
// * Frame and list slots are taken with warp-aggregated atomics (one
//   atomicAdd per group of threads, not per thread).
//
// Where its time goes, and the designs tried against it, are in README.md
// and NOTES.md beside this file.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <cooperative_groups.h>

#include "cli.h"
#include "cuda_check.h"
#include "tree_bitonic.h"
#include "tree_gpu.cuh"

namespace cg = cooperative_groups;
using namespace tree;

constexpr int kThreads = 256;

enum Kind : uint32_t { kRoot, kSortJoin, kFlowThenDown, kDownJoin, kWarpJoin };

struct Runtime {
    uint64_t* heap;
    Task* list[2];           // this wave's tasks and the next wave's (by wave parity)
    uint32_t* wave_count;    // wave_count[w]: tasks in wave w
    uint32_t max_waves;
    Frame* frames;
    uint32_t* frame_count;
    int* overflow;
    int cutoff;
};

__device__ uint32_t new_frame(const Runtime& rt, uint32_t kind, int d, uint32_t s, uint32_t pending,
                               uint32_t parent, uint32_t parent_slot, uint64_t base) {
    const uint32_t i = aggregated_add(rt.frame_count, 1);
    Frame r;
    r.kind = kind; r.d = d; r.s = s; r.pending = pending;
    r.parent = parent; r.parent_slot = parent_slot; r.base = base;
    r.result[0] = r.result[1] = 0;
    rt.frames[i] = r;
    return i;
}

// Puts n tasks in the next wave's list.
__device__ void push(const Runtime& rt, uint32_t wave, const Task* tasks, uint32_t n) {
    const uint32_t next = wave + 1;
    if (next >= rt.max_waves) { *rt.overflow = 1; return; }
    const uint32_t i = aggregated_add(&rt.wave_count[next], n);
    for (uint32_t k = 0; k < n; ++k) store_task(&rt.list[next & 1][i + k], tasks[k]);
}

// Starts a call: at or below the cutoff it runs right here and returns true
// with its result; above, it splits (frame + child tasks) and returns false.
__device__ bool start(const Runtime& rt, uint32_t wave, const Task& t, Tree* out) {
    const int d = t.d;
    const uint32_t s = t.s;
    if (d <= rt.cutoff || ((t.fn != kWarp) && is_leaf(t.a))) {
        *out = seq_call(rt.heap, (Fn)t.fn, d, s, t.a, t.b, t.base);
        return true;
    }
    Task kids[2];
    switch (t.fn) {
        case kSort: {  // [sort(d-1) | sort(d-1) | Node | flow(d)]
            const ulonglong2 c = children(rt.heap, t.a);
            const uint32_t r = new_frame(rt, kSortJoin, d, s, 2, t.frame, t.slot, t.base + 2 * cS[d - 1]);
            kids[0] = make_task(kSort, d - 1, 0, c.x, 0, t.base, r, 0);
            kids[1] = make_task(kSort, d - 1, 1, c.y, 0, t.base + cS[d - 1], r, 1);
            push(rt, wave, kids, 2);
            break;
        }
        case kFlow: {  // [warp(d-1) | down(d)]
            const ulonglong2 c = children(rt.heap, t.a);
            const uint32_t r = new_frame(rt, kFlowThenDown, d, s, 1, t.frame, t.slot, t.base + cW[d - 1]);
            kids[0] = make_task(kWarp, d - 1, s, c.x, c.y, t.base, r, 0);
            push(rt, wave, kids, 1);
            break;
        }
        case kDown: {  // [flow(d-1) | flow(d-1) | Node]
            const ulonglong2 c = children(rt.heap, t.a);
            const uint32_t r = new_frame(rt, kDownJoin, d, s, 2, t.frame, t.slot, t.base + 2 * cF[d - 1]);
            kids[0] = make_task(kFlow, d - 1, s, c.x, 0, t.base, r, 0);
            kids[1] = make_task(kFlow, d - 1, s, c.y, 0, t.base + cF[d - 1], r, 1);
            push(rt, wave, kids, 2);
            break;
        }
        default: {  // warp: [warp(d-1) | warp(d-1) | 3 Nodes]
            const ulonglong2 ca = children(rt.heap, t.a), cb = children(rt.heap, t.b);
            const uint32_t r = new_frame(rt, kWarpJoin, d, s, 2, t.frame, t.slot, t.base + 2 * cW[d - 1]);
            kids[0] = make_task(kWarp, d - 1, s, ca.x, cb.x, t.base, r, 0);
            kids[1] = make_task(kWarp, d - 1, s, ca.y, cb.y, t.base + cW[d - 1], r, 1);
            push(rt, wave, kids, 2);
            break;
        }
    }
    return false;
}

// Hands a finished call's result to the frame waiting for it; the thread
// that completes a frame runs its join, and so on up the chain.
__device__ void deliver(const Runtime& rt, uint32_t wave, Tree result, uint32_t cont, uint32_t slot, Tree* root) {
    for (;;) {
        Frame* R = &rt.frames[cont];
        __stcg(&R->result[slot], result);
        __threadfence();
        if (atomicSub(&R->pending, 1u) != 1u) return;  // the other child is still running
        __threadfence();
        const Frame f = load_frame(R);
        const Tree x = f.result[0], y = f.result[1];
        const uint32_t kind = f.kind, d = f.d, s = f.s;
        const uint64_t base = f.base;
        cont = f.parent;
        slot = f.parent_slot;
        switch (kind) {
            case kRoot:
                *root = x;
                return;
            case kSortJoin: {  // flow(d, s, Node(l, r))
                const Tree n = make_node(rt.heap, base, x, y);
                if (!start(rt, wave, make_task(kFlow, d, s, n, 0, base + 1, cont, slot), &result)) return;
                break;
            }
            case kFlowThenDown:  // down(d, s, warp's result)
                if (!start(rt, wave, make_task(kDown, d, s, x, 0, base, cont, slot), &result)) return;
                break;
            case kDownJoin:
                result = make_node(rt.heap, base, x, y);
                break;
            default: {  // warp: Node(Node(left l, left r), Node(right l, right r))
                const ulonglong2 cl = children(rt.heap, x), cr = children(rt.heap, y);
                const Tree nl = make_node(rt.heap, base, cl.x, cr.x);
                const Tree nr = make_node(rt.heap, base + 1, cl.y, cr.y);
                result = make_node(rt.heap, base + 2, nl, nr);
                break;
            }
        }
    }
}

// One cooperative kernel: wave after wave, until a wave creates no tasks.
__global__ void __launch_bounds__(kThreads) evaluate(Runtime rt, Tree* root) {
    cg::grid_group grid = cg::this_grid();
    for (uint32_t wave = 0; wave < rt.max_waves; ++wave) {
        const uint32_t n = __ldcg(&rt.wave_count[wave]);
        if (n == 0) break;
        const Task* list = rt.list[wave & 1];
        for (uint32_t i = grid.thread_rank(); i < n; i += grid.size()) {
            const Task t = load_task(&list[i]);
            Tree result;
            if (start(rt, wave, t, &result)) deliver(rt, wave, result, t.frame, t.slot, root);
        }
        grid.sync();
    }
}

// Host-side counts of what the runtime will create, for sizing its arrays.
struct Plan {
    int cutoff;
    // splits (frames) of a call of fn at depth d
    uint64_t splits(Fn fn, int d) const {
        if (d <= cutoff) return 0;
        switch (fn) {
            case kSort: return 1 + 2 * splits(kSort, d - 1) + splits(kFlow, d);
            case kFlow: return 1 + splits(kWarp, d - 1) + splits(kDown, d);
            case kDown: return 1 + 2 * splits(kFlow, d - 1);
            default: return 1 + 2 * splits(kWarp, d - 1);
        }
    }
};

int main(int argc, char** argv) {
    ch12::CommandLine cl(argc, argv, "[--depth] D [--cutoff C]",
                         "  the project's runtime on sort(D, 0, gen(D, 0)); D from 1 to 30\n"
                         "  (limited by GPU memory: 16 bytes a node, 6.4 GB at D = 20)\n"
                         "  --cutoff C   calls at depth <= C run sequentially on one thread (0 .. 20, default 4)\n");
    cl.option("--depth").option("--cutoff").positionals(1);
    cl.parse();
    const int depth = tree::depth_argument(cl);
    const int cutoff = (int)cl.number("--cutoff", 0, 20, 4);
    ch12::require_cuda_device(cl.name());

    const Plan plan{cutoff};
    const uint64_t frames = plan.splits(kSort, depth) + 1;
    const uint64_t tasks = 2 * frames + 1;  // every task ever pushed fits in one wave's list
    const uint32_t max_waves = 1u << 16;
    if (tasks >= (uint64_t(1) << 31)) {
        fprintf(stderr, "%s: depth %d with cutoff %d makes too many tasks for this runtime; raise the cutoff\n",
                cl.name(), depth, cutoff);
        return 1;
    }
    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, evaluate, kThreads, 0));
    const size_t extra = frames * sizeof(Frame) + 2 * tasks * sizeof(Task) + max_waves * sizeof(uint32_t);

    tree::Evaluation e{depth, cl.name(), "task runtime (waves in one cooperative kernel)", extra};
    return tree::run_evaluation(e, [&](uint64_t* heap, Tree input, uint64_t first_free, cudaEvent_t start,
                                       cudaEvent_t stop, std::vector<std::string>& notes) {
        Runtime rt{};
        rt.heap = heap;
        rt.cutoff = cutoff;
        rt.max_waves = max_waves;
        Tree* d_root = nullptr;
        CUDA_CHECK(cudaMalloc(&rt.list[0], tasks * sizeof(Task)));
        CUDA_CHECK(cudaMalloc(&rt.list[1], tasks * sizeof(Task)));
        CUDA_CHECK(cudaMalloc(&rt.wave_count, max_waves * sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc(&rt.frames, frames * sizeof(Frame)));
        CUDA_CHECK(cudaMalloc(&rt.frame_count, sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc(&rt.overflow, sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_root, sizeof(Tree)));
        CUDA_CHECK(cudaMemset(rt.wave_count, 0, max_waves * sizeof(uint32_t)));
        CUDA_CHECK(cudaMemset(rt.overflow, 0, sizeof(int)));
        CUDA_CHECK(cudaMemset(d_root, 0, sizeof(Tree)));
        // Frame 0 waits for the whole sort; wave 0 is sort(d, 0, input) alone.
        const Frame root_frame{kRoot, 0, 0, 1, 0, 0, 0, {0, 0}};
        const Task first = {kSort, (uint8_t)depth, 0, 0, 0, input, 0, first_free};
        const uint32_t one = 1;
        CUDA_CHECK(cudaMemcpy(rt.frames, &root_frame, sizeof root_frame, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(rt.frame_count, &one, sizeof one, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(rt.list[0], &first, sizeof first, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(rt.wave_count, &one, sizeof one, cudaMemcpyHostToDevice));
        // Recursion below the cutoff runs on the thread's stack: seq_sort ->
        // seq_flow -> seq_down -> ... is at most about 3 (C + 1) frames deep.
        CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 2048 + 256 * (cutoff + 1)));

        void* params[] = {&rt, &d_root};
        CUDA_CHECK(cudaEventRecord(start));
        CUDA_CHECK(cudaLaunchCooperativeKernel((void*)evaluate, dim3(sms * per_sm), dim3(kThreads), params, 0, 0));
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));

        Tree root = 0;
        int overflow = 0;
        uint32_t used_frames = 0;
        CUDA_CHECK(cudaMemcpy(&root, d_root, sizeof root, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&overflow, rt.overflow, sizeof overflow, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&used_frames, rt.frame_count, sizeof used_frames, cudaMemcpyDeviceToHost));
        std::vector<uint32_t> waves(max_waves);
        CUDA_CHECK(cudaMemcpy(waves.data(), rt.wave_count, max_waves * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        if (overflow || used_frames != frames) {
            fprintf(stderr, "%s: %s\n", cl.name(), overflow ? "more than 65536 waves (an internal limit)"
                                                              : "the continuation frames differ from the plan: BUG");
            exit(1);
        }
        uint32_t nwaves = 0, widest = 0;
        uint64_t ran = 0;
        while (nwaves < max_waves && waves[nwaves]) { widest = std::max(widest, waves[nwaves]); ran += waves[nwaves]; nwaves++; }
        char line[256];
        snprintf(line, sizeof line, "runtime: %llu tasks in %u waves (widest %u), %u continuation frames, cutoff %d, "
                 "%d x %d threads", (unsigned long long)ran, nwaves, widest, used_frames, cutoff, sms * per_sm, kThreads);
        notes.push_back(line);
        CUDA_CHECK(cudaFree(d_root));
        CUDA_CHECK(cudaFree(rt.overflow));
        CUDA_CHECK(cudaFree(rt.frame_count));
        CUDA_CHECK(cudaFree(rt.frames));
        CUDA_CHECK(cudaFree(rt.wave_count));
        CUDA_CHECK(cudaFree(rt.list[1]));
        CUDA_CHECK(cudaFree(rt.list[0]));
        return root;
    });
}
