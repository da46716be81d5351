// Chapter 12 extra -- the tree formulation of bitonic sort on the GPU, by this
// project's own runtime: tasks above a cutoff, run in waves; the calls below
// it run in registers.
//
//   tree_bitonic_gpu --depth 20 [--cutoff C] [--narrow N] [--sequential]
//                                              (or: tree_bitonic_gpu 20)
//
// The program is fixed: warp, flow, down and sort exactly as in
// tree_bitonic.h, every Node(...) a new heap node. Only the runtime that
// evaluates them is ours -- the same pieces as the SEED / GROW / WORK
// evaluator (tree_seed_grow_work.cu), put together differently:
//
// * A cutoff. A call whose subtrees hold at most 2^C leaves runs on one
//   thread, in registers (reg::call in tree_calls.h: its input gathered
//   level by level, then the whole call unrolled, every node written). A
//   call above it is a TASK that SPLITS: it writes a continuation frame
//   (which join runs when its children are done, d, s, where its nodes go,
//   and who waits for its result) and pushes its child calls as new tasks.
//   The two PARALLEL calls become two tasks that run at the same time;
//   flow's two calls, which depend on each other, become a chain (warp, then
//   a frame that starts down). --sequential runs the calls below the cutoff
//   as the write-up's plain recursion instead (seq_*), as this runtime did
//   before: each of those is a chain of about a hundred dependent loads.
// * Joins in continuations. A finished call delivers its result into its
//   parent's frame and decrements the frame's counter (one atomic); the
//   thread that brings it to zero runs the join at once -- Node(l, r),
//   warp's three nodes, or the next call (flow after sort, down after warp)
//   -- and delivers that result further up, in a loop.
// * Waves, in one cooperative kernel. All ready tasks form a wave; the grid
//   runs it (a grid-stride loop), tasks created meanwhile go to the next
//   wave's list, and grid.sync() separates waves. A NARROW wave (at most N
//   tasks: the recursion's top levels, where a warp or a down has split only
//   a few times) is run by block 0 alone, with block barriers, wave after
//   wave, until a wave is wide again; the other blocks wait at the next
//   grid barrier. No host round trips.
// * Heap ranges reserved in advance (tree_bitonic.h): a split costs no
//   allocation, and every reserved node is checked afterwards.
// * Frame and list slots are taken with warp-aggregated atomics (one
//   atomicAdd per group of threads, not per thread).
//
// Where its time goes, and the designs measured against it, are in README.md
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
#include "tree_calls.h"
#include "tree_cli.h"
#include "tree_device.cuh"
#include "tree_harness.h"

namespace cg = cooperative_groups;
using namespace tree;

constexpr int kThreads = 256;

enum Kind : uint32_t { kRoot, kSortJoin, kFlowThenDown, kDownJoin, kWarpJoin };

struct Runtime {
    uint64_t* heap;
    Task* list[2];           // this wave's tasks and the next wave's (by wave parity)
    uint32_t* wave_count;    // wave_count[w]: tasks in wave w
    uint32_t max_waves;
    uint32_t* wave_now;      // where block 0 leaves the wave index after narrow waves
    Frame* frames;
    uint32_t* frame_count;
    int* error;              // [0] more waves than max_waves, [1] a call's input was not a full tree
    int cutoff;
    uint32_t narrow;         // waves of at most this many tasks run in block 0 alone (0: none)
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
    if (next >= rt.max_waves) { atomicExch(&rt.error[0], 1); return; }
    const uint32_t i = aggregated_add(&rt.wave_count[next], n);
    for (uint32_t k = 0; k < n; ++k) store_task(&rt.list[next & 1][i + k], tasks[k]);
}

// Is this call below the cutoff, to run on one thread?
template <int kRegMax>
__device__ __forceinline__ bool runs_alone(const Runtime& rt, const Task& t) {
    if (t.fn != kWarp && is_leaf(t.a)) return true;
    if constexpr (kRegMax == 0) return t.d <= rt.cutoff;           // the write-up's seq_*: depth <= C
    else return reg::fits((Fn)t.fn, t.d, rt.cutoff);                 // registers: at most 2^C leaves
}

// Starts a call: below the cutoff it runs right here and returns true with
// its result; above, it splits (frame + child tasks) and returns false.
template <int kRegMax>
__device__ bool start(const Runtime& rt, uint32_t wave, const Task& t, Tree* out) {
    const int d = t.d;
    const uint32_t s = t.s;
    const DeviceHeap mem{rt.heap};
    if (runs_alone<kRegMax>(rt, t)) {
        if constexpr (kRegMax == 0) {
            *out = seq_call(mem, (Fn)t.fn, d, s, t.a, t.b, t.base);
        } else {
            bool ok = true;
            *out = reg::call<kRegMax>(mem, (Fn)t.fn, d, s, t.a, t.b, t.base, &ok);
            if (!ok) atomicExch(&rt.error[1], 1);
        }
        return true;
    }
    Task kids[2];
    switch (t.fn) {
        case kSort: {  // [sort(d-1) | sort(d-1) | Node | flow(d)]
            const Kids c = mem.children(t.a);
            const uint32_t r = new_frame(rt, kSortJoin, d, s, 2, t.frame, t.slot, t.base + 2 * S(d - 1));
            kids[0] = make_task(kSort, d - 1, 0, c.l, 0, t.base, r, 0);
            kids[1] = make_task(kSort, d - 1, 1, c.r, 0, t.base + S(d - 1), r, 1);
            push(rt, wave, kids, 2);
            break;
        }
        case kFlow: {  // [warp(d-1) | down(d)]
            const Kids c = mem.children(t.a);
            const uint32_t r = new_frame(rt, kFlowThenDown, d, s, 1, t.frame, t.slot, t.base + W(d - 1));
            kids[0] = make_task(kWarp, d - 1, s, c.l, c.r, t.base, r, 0);
            push(rt, wave, kids, 1);
            break;
        }
        case kDown: {  // [flow(d-1) | flow(d-1) | Node]
            const Kids c = mem.children(t.a);
            const uint32_t r = new_frame(rt, kDownJoin, d, s, 2, t.frame, t.slot, t.base + 2 * F(d - 1));
            kids[0] = make_task(kFlow, d - 1, s, c.l, 0, t.base, r, 0);
            kids[1] = make_task(kFlow, d - 1, s, c.r, 0, t.base + F(d - 1), r, 1);
            push(rt, wave, kids, 2);
            break;
        }
        default: {  // warp: [warp(d-1) | warp(d-1) | 3 Nodes]
            const Kids ca = mem.children(t.a), cb = mem.children(t.b);
            const uint32_t r = new_frame(rt, kWarpJoin, d, s, 2, t.frame, t.slot, t.base + 2 * W(d - 1));
            kids[0] = make_task(kWarp, d - 1, s, ca.l, cb.l, t.base, r, 0);
            kids[1] = make_task(kWarp, d - 1, s, ca.r, cb.r, t.base + W(d - 1), r, 1);
            push(rt, wave, kids, 2);
            break;
        }
    }
    return false;
}

// Hands a finished call's result to the frame waiting for it; the thread
// that completes a frame runs its join, and so on up the chain.
template <int kRegMax>
__device__ void deliver(const Runtime& rt, uint32_t wave, Tree result, uint32_t cont, uint32_t slot, Tree* root) {
    const DeviceHeap mem{rt.heap};
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
                if (!start<kRegMax>(rt, wave, make_task(kFlow, d, s, n, 0, base + 1, cont, slot), &result)) return;
                break;
            }
            case kFlowThenDown:  // down(d, s, warp's result)
                if (!start<kRegMax>(rt, wave, make_task(kDown, d, s, x, 0, base, cont, slot), &result)) return;
                break;
            case kDownJoin:
                result = make_node(rt.heap, base, x, y);
                break;
            default: {  // warp: Node(Node(left l, left r), Node(right l, right r))
                const Kids cl = mem.children(x), cr = mem.children(y);
                const Tree nl = make_node(rt.heap, base, cl.l, cr.l);
                const Tree nr = make_node(rt.heap, base + 1, cl.r, cr.r);
                result = make_node(rt.heap, base + 2, nl, nr);
                break;
            }
        }
    }
}

template <int kRegMax>
__device__ __forceinline__ void run_task(const Runtime& rt, uint32_t wave, const Task* list, uint32_t i, Tree* root) {
    const Task t = load_task(&list[i]);
    Tree result;
    if (start<kRegMax>(rt, wave, t, &result)) deliver<kRegMax>(rt, wave, result, t.frame, t.slot, root);
}

// One cooperative kernel: wave after wave, until a wave creates no tasks.
// kRegMax: the largest register call compiled in (0: the sequential form).
template <int kRegMax>
__global__ void __launch_bounds__(kThreads) evaluate(Runtime rt, Tree* root) {
    cg::grid_group grid = cg::this_grid();
    uint32_t wave = 0;
    while (wave < rt.max_waves) {
        const uint32_t n = __ldcg(&rt.wave_count[wave]);
        if (n == 0) break;
        if (n <= rt.narrow) {
            // Narrow waves: block 0 alone, block barriers between them. All
            // its threads read each count after the same barrier, so they
            // agree on when to stop.
            if (blockIdx.x == 0) {
                for (;;) {
                    const uint32_t m = __ldcg(&rt.wave_count[wave]);
                    if (m == 0 || m > rt.narrow) break;
                    for (uint32_t i = threadIdx.x; i < m; i += blockDim.x)
                        run_task<kRegMax>(rt, wave, rt.list[wave & 1], i, root);
                    __syncthreads();
                    if (++wave >= rt.max_waves) break;
                }
                if (threadIdx.x == 0) *rt.wave_now = wave;
            }
            grid.sync();
            wave = __ldcg(rt.wave_now);
            continue;
        }
        const Task* list = rt.list[wave & 1];
        for (uint32_t i = grid.thread_rank(); i < n; i += grid.size()) run_task<kRegMax>(rt, wave, list, i, root);
        grid.sync();
        ++wave;
    }
}

// Host-side counts of what the runtime will create, for sizing its arrays.
struct Plan {
    int cutoff;
    bool registers;
    bool alone(Fn fn, int d) const { return registers ? reg::fits(fn, d, cutoff) : d <= cutoff; }
    // splits (frames) of a call of fn at depth d
    uint64_t splits(Fn fn, int d) const {
        if (alone(fn, d)) return 0;
        switch (fn) {
            case kSort: return 1 + 2 * splits(kSort, d - 1) + splits(kFlow, d);
            case kFlow: return 1 + splits(kWarp, d - 1) + splits(kDown, d);
            case kDown: return 1 + 2 * splits(kFlow, d - 1);
            default: return 1 + 2 * splits(kWarp, d - 1);
        }
    }
};

// The register calls compiled into the kernel: subtrees of up to 2^5 leaves
// (a kernel with 2^6 compiles for minutes and needs about twice the registers).
constexpr int kRegMax = 5;

constexpr int kDefaultCutoff = kRegMax;

int main(int argc, char** argv) {
    ch12::CommandLine cl(
        argc, argv, "[--depth] D [--cutoff C] [--narrow N] [--sequential]",
        "  the project's runtime on sort(D, 0, gen(D, 0)); D from 1 to 30, limited by GPU\n"
        "  memory (16 bytes a node: 6.4 GB at D = 20, 68 GB at D = 23; exit 77 above it)\n"
        "  --cutoff C     calls whose subtrees hold at most 2^C leaves run on one thread,\n"
        "                 in registers (1 .. 5, default 5); with --sequential: calls at\n"
        "                 depth <= C run as plain recursion (0 .. 20, default 4)\n"
        "  --narrow N     waves of at most N tasks run in one block, with block barriers\n"
        "                 (0 .. 256, default 256; 0: every wave on the whole grid)\n"
        "  --sequential   the calls below the cutoff as the write-up's sequential\n"
        "                 recursion (the runtime's earlier form, for comparison)\n");
    cl.option("--depth").option("--cutoff").option("--narrow").flag("--sequential").positionals(1);
    cl.parse();
    const int depth = tree::depth_argument(cl);
    const bool sequential = cl.has("--sequential");
    const int cutoff = sequential ? (int)cl.number("--cutoff", 0, 20, 4)
                                  : (int)cl.number("--cutoff", 1, kRegMax, kDefaultCutoff);
    const uint32_t narrow = (uint32_t)cl.number("--narrow", 0, kThreads, kThreads);

    const Plan plan{cutoff, !sequential};
    const uint64_t frames = plan.splits(kSort, depth) + 1;
    const uint64_t tasks = 2 * frames + 1;  // every task ever pushed fits in one wave's list
    ch12::require_cuda_device(cl.name());

    void (*kernel)(Runtime, Tree*) = sequential ? evaluate<0> : evaluate<kRegMax>;
    const uint32_t max_waves = 1u << 20;
    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
    if (per_sm < 1) {
        fprintf(stderr, "%s: the evaluator's kernel does not fit on an SM of this GPU\n", cl.name());
        return 1;
    }
    const size_t extra = frames * sizeof(Frame) + 2 * tasks * sizeof(Task) + max_waves * sizeof(uint32_t);

    std::string what = std::string("task runtime (waves in one cooperative kernel, calls below the cutoff ") +
                       (sequential ? "as sequential recursion)" : "in registers)");
    tree::Evaluation e{depth, cl.name(), what.c_str(), extra};
    return tree::run_evaluation(e, [&](uint64_t* heap, Tree input, uint64_t first_free, cudaEvent_t start,
                                       cudaEvent_t stop, std::vector<std::string>& notes, Tree* out) -> Status {
        // (Reached only when the GPU has the memory for it.)
        if (tasks >= (uint64_t(1) << 31))
            return {1, std::string(cl.name()) + ": depth " + std::to_string(depth) + " with cutoff " +
                           std::to_string(cutoff) + " makes more than 2^31 tasks, this runtime's limit: raise the cutoff"};
        Runtime rt{};
        rt.heap = heap;
        rt.cutoff = cutoff;
        rt.max_waves = max_waves;
        rt.narrow = narrow;
        DeviceArray<Task> list0, list1;
        DeviceArray<uint32_t> wave_count, frame_count, wave_now;
        DeviceArray<Frame> frame_array;
        DeviceArray<int> error;
        DeviceArray<Tree> d_root;
        TREE_TRY(list0.allocate(tasks));
        TREE_TRY(list1.allocate(tasks));
        TREE_TRY(wave_count.allocate(max_waves));
        TREE_TRY(frame_array.allocate(frames));
        TREE_TRY(frame_count.allocate(1));
        TREE_TRY(wave_now.allocate(1));
        TREE_TRY(error.allocate(2));
        TREE_TRY(d_root.allocate(1));
        rt.list[0] = list0.get();
        rt.list[1] = list1.get();
        rt.wave_count = wave_count.get();
        rt.frames = frame_array.get();
        rt.frame_count = frame_count.get();
        rt.wave_now = wave_now.get();
        rt.error = error.get();
        TREE_TRY(cudaMemset(rt.wave_count, 0, max_waves * sizeof(uint32_t)));
        TREE_TRY(cudaMemset(rt.error, 0, 2 * sizeof(int)));
        TREE_TRY(cudaMemset(rt.wave_now, 0, sizeof(uint32_t)));
        TREE_TRY(cudaMemset(d_root.get(), 0, sizeof(Tree)));
        // Frame 0 waits for the whole sort; wave 0 is sort(d, 0, input) alone.
        const Frame root_frame{kRoot, 0, 0, 1, 0, 0, 0, {0, 0}};
        Task first{};
        first.fn = kSort; first.d = (uint8_t)depth; first.a = input; first.base = first_free;
        const uint32_t one = 1;
        TREE_TRY(cudaMemcpy(rt.frames, &root_frame, sizeof root_frame, cudaMemcpyHostToDevice));
        TREE_TRY(cudaMemcpy(rt.frame_count, &one, sizeof one, cudaMemcpyHostToDevice));
        TREE_TRY(cudaMemcpy(rt.list[0], &first, sizeof first, cudaMemcpyHostToDevice));
        TREE_TRY(cudaMemcpy(rt.wave_count, &one, sizeof one, cudaMemcpyHostToDevice));
        // The sequential form recurses on the thread's stack: seq_sort ->
        // seq_flow -> seq_down -> ... is at most about 3 (C + 1) frames deep.
        if (sequential) TREE_TRY(cudaDeviceSetLimit(cudaLimitStackSize, 2048 + 256 * (cutoff + 1)));

        Tree* root_ptr = d_root.get();
        void* params[] = {&rt, &root_ptr};
        TREE_TRY(cudaEventRecord(start));
        TREE_TRY(cudaLaunchCooperativeKernel((void*)kernel, dim3(sms * per_sm), dim3(kThreads), params, 0, 0));
        TREE_TRY_LAUNCH();
        TREE_TRY(cudaEventRecord(stop));
        TREE_TRY(cudaEventSynchronize(stop));

        int errors[2] = {0, 0};
        uint32_t used_frames = 0;
        TREE_TRY(cudaMemcpy(out, d_root.get(), sizeof(Tree), cudaMemcpyDeviceToHost));
        TREE_TRY(cudaMemcpy(errors, rt.error, sizeof errors, cudaMemcpyDeviceToHost));
        TREE_TRY(cudaMemcpy(&used_frames, rt.frame_count, sizeof used_frames, cudaMemcpyDeviceToHost));
        if (errors[0]) return {1, std::string(cl.name()) + ": more than " + std::to_string(max_waves) +
                                      " waves (an internal limit)"};
        if (errors[1]) return {1, std::string(cl.name()) + ": a call below the cutoff got an input that is not a "
                                                           "full tree of its depth: BUG"};
        if (used_frames != frames)
            return {1, std::string(cl.name()) + ": the continuation frames differ from the plan: BUG"};
        std::vector<uint32_t> waves(max_waves);
        TREE_TRY(cudaMemcpy(waves.data(), rt.wave_count, max_waves * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        uint32_t nwaves = 0, widest = 0, narrow_waves = 0;
        uint64_t ran = 0;
        while (nwaves < max_waves && waves[nwaves]) {
            widest = std::max(widest, waves[nwaves]);
            ran += waves[nwaves];
            narrow_waves += waves[nwaves] <= narrow;
            nwaves++;
        }
        char line[320];
        snprintf(line, sizeof line,
                 "runtime: %llu tasks in %u waves (widest %u; %u narrow, in one block), %u continuation frames, "
                 "cutoff %d (%s), %d x %d threads",
                 (unsigned long long)ran, nwaves, widest, narrow_waves, used_frames, cutoff,
                 sequential ? "sequential recursion" : "registers", sms * per_sm, kThreads);
        notes.push_back(line);
        return {};
    });
}
