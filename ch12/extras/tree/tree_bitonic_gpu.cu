// Chapter 12 extra -- the tree formulation of bitonic sort on the GPU, by this
// project's own runtime: tasks above a cutoff, run in waves; calls below it
// run in registers; joins meet in one atomic.
//
//   tree_bitonic_gpu --depth 20 [--cutoff C] [--narrow N] [--blocks-per-sm N] [--blocks B]
//   [--kernel fast|classic] [--levels L] [--stores thread|warp] [--tasks 1|2|auto]
//   [--joins serial|overlapped] [--deal static|dynamic] [--trace-waves]
//   (or: tree_bitonic_gpu 20)
//
// The program is fixed: warp, flow, down and sort exactly as in
// tree_bitonic.h, every Node(...) a new heap node, at the index the
// sequential form gives it. Only the runtime that evaluates them is ours. Its
// logic -- how a task starts, splits, and how its sub-calls' results are
// joined -- is in tree_waves.h (and checked on the CPU by test_tree_waves);
// this file runs it on the GPU:
//
// * Waves, in one cooperative kernel. All ready tasks form a wave; the grid
//   runs it (a grid-stride loop), tasks created meanwhile go to the next
//   wave's list, and grid.sync() separates waves. A NARROW wave (at most N
//   tasks: the recursion's top levels) is run by block 0 alone, with block
//   barriers, wave after wave, until a wave is wide again; the other blocks
//   wait at the next grid barrier. No host round trips.
// * The calls below the cutoff (at most 2^C leaves) run on one thread, in
//   registers (reg::call in tree_calls.h: the input gathered level by level,
//   then the whole call unrolled, every node written).
// * A join happens where the second of two sub-calls finishes: both meet in
//   one 64-bit atomic on their frame, and no join reads the heap; nothing is
//   read in the wave that wrote it (tree_waves.h says how).
// * Heap nodes and frames have ranges reserved in advance; the next wave's
//   list slots are taken with warp-aggregated atomics.
//
// That is the classic kernel (evaluate, below: --kernel classic). The default
// is its fast kernel (tree_fast.cuh): the same runtime with the options that
// the measurements kept -- joins overlapped, warp-cooperative stores, two
// tasks a thread where a wave holds one to two a thread, and dynamic dealing
// (in a wave of several passes, a warp that finishes early takes the next
// tasks not yet taken). Where the time goes,
// and every design measured, are in README.md and NOTES.md beside this file.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <cooperative_groups.h>

#include "cli.h"
#include "cuda_check.h"  // require_cuda_device(): no GPU, exit 77
#include "tree_bitonic.h"
#include "tree_calls.h"
#include "tree_cli.h"
#include "tree_device.cuh"
#include "tree_harness.h"
#include "tree_waves.h"
#include "tree_waves_fast.h"

namespace cg = cooperative_groups;
using namespace tree;
using waves::Frame;
using waves::FrameHead;

constexpr int kThreads = 256;
// The register calls compiled in: subtrees of up to 2^4 leaves. (A kernel
// for cutoff 5 ran slower on the H200 -- 154 registers, 20.6 ms against 19.1
// at depth 20 -- and took two thirds of this file's compile time: removed.)
constexpr int kRegMax = 4;

// frames_of(fn, d) for this run's cutoff (tree_waves.h), read by every split.
__constant__ uint32_t c_frames_of[4][32];

struct Runtime {
    uint64_t* heap;
    waves::Task* list[2];    // this wave's tasks and the next wave's (by wave parity)
    uint32_t* wave_count;    // wave_count[w]: tasks in wave w
    uint32_t max_waves;
    uint32_t* wave_now;      // where block 0 leaves the wave index after narrow waves
    Frame* frames;
    int* error;              // [0] more waves than max_waves, [1] a call saw an input that is not a full tree
    Tree* root;
    int cutoff;
    uint32_t narrow;         // waves of at most this many tasks run in block 0 alone (0: none)
    unsigned long long* wave_start;  // --trace-waves: when each wave started (ns), else null
    uint32_t* wave_call;             // --trace-waves, fast kernel: each wave's first task's first 4 bytes
    uint32_t* taken;                 // --deal dynamic: tasks taken from each wave's counter, else null
    waves::fast::Options fast;       // the fast kernel's options (tree_fast.cuh)
};

__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
    return t;
}

// --trace-waves, in the fast kernel: when wave w starts, and which call it
// runs (fn and d of its first task: all tasks of a wave are alike). (The
// classic kernel records the time only: the call's load cost it registers.)
__device__ __forceinline__ void trace_wave(const Runtime& rt, uint32_t w) {
    rt.wave_start[w] = global_ns();
    rt.wave_call[w] = __ldcg(reinterpret_cast<const unsigned int*>(rt.list[w & 1]));
}

__device__ __forceinline__ waves::Task load_task(const waves::Task* p) {
    const ulonglong2* q = reinterpret_cast<const ulonglong2*>(p);
    waves::Task t;
    ulonglong2* o = reinterpret_cast<ulonglong2*>(&t);
    o[0] = __ldcg(q);
    o[1] = __ldcg(q + 1);
    o[2] = __ldcg(q + 2);
    return t;
}

// The operations tree_waves.h needs, on the GPU: the heap and frames through
// L2 (.cg: written by threads on other SMs), results meeting in one atomic.
struct DeviceOps {
    const Runtime& rt;
    uint32_t wave;
    int cutoff;

    __device__ DeviceHeap mem() const { return DeviceHeap{rt.heap}; }
    __device__ Kids children(Tree t) const { return mem().children(t); }
    __device__ void store(uint64_t i, Tree l, Tree r) const { mem().store(i, l, r); }
    __device__ void store_half(uint64_t i, int side, Tree w) const { __stcg(rt.heap + 2 * i + side, w); }
    __device__ FrameHead head(uint32_t f) const {
        const ulonglong2 v = __ldcg(reinterpret_cast<const ulonglong2*>(&rt.frames[f].head));
        FrameHead h;
        *reinterpret_cast<ulonglong2*>(&h) = v;
        return h;
    }
    __device__ void write_frame(uint32_t f, const FrameHead& h) const {
        __stcg(reinterpret_cast<ulonglong2*>(&rt.frames[f].head), *reinterpret_cast<const ulonglong2*>(&h));
        __stcg(&rt.frames[f].results, (uint64_t)0);
    }
    // Relaxed: nothing is read in the wave that wrote it (tree_waves.h), so
    // the two results meeting need atomicity, not ordering.
    __device__ uint64_t meet(uint32_t f, uint64_t bits) const {
        return atomicOr(reinterpret_cast<unsigned long long*>(&rt.frames[f].results), (unsigned long long)bits);
    }
    __device__ void put(uint32_t slot, const waves::Task& t) const {
        ulonglong2* o = reinterpret_cast<ulonglong2*>(&rt.list[(wave + 1) & 1][slot]);
        const ulonglong2* from = reinterpret_cast<const ulonglong2*>(&t);
        __stcg(o, from[0]);
        __stcg(o + 1, from[1]);
        __stcg(o + 2, from[2]);
    }
    __device__ void push(const waves::Task& a) const {
        if (wave + 1 >= rt.max_waves) { atomicExch(&rt.error[0], 1); return; }
        put(aggregated_add(&rt.wave_count[wave + 1], 1), a);
    }
    __device__ void push(const waves::Task& a, const waves::Task& b) const {
        if (wave + 1 >= rt.max_waves) { atomicExch(&rt.error[0], 1); return; }
        const uint32_t i = aggregated_add(&rt.wave_count[wave + 1], 2);
        put(i, a);
        put(i + 1, b);
    }
    __device__ uint64_t frames_of(Fn fn, int d) const { return c_frames_of[fn][d]; }
    __device__ void set_root(Tree t) const { *rt.root = t; }
    __device__ void fail() const { atomicExch(&rt.error[1], 1); }
};

template <int kMax>
__device__ __forceinline__ void run_task(const Runtime& rt, uint32_t wave, const waves::Task* list, uint32_t i) {
    DeviceOps ops{rt, wave, rt.cutoff};
    waves::run<kMax>(ops, load_task(&list[i]));
}

// One cooperative kernel: wave after wave, until a wave creates no tasks.
template <int kMax>
__global__ void __launch_bounds__(kThreads) evaluate(Runtime rt) {
    cg::grid_group grid = cg::this_grid();
    const bool timer = rt.wave_start && blockIdx.x == 0 && threadIdx.x == 0;
    uint32_t wave = 0;
    while (wave < rt.max_waves) {
        const uint32_t n = __ldcg(&rt.wave_count[wave]);
        if (timer) rt.wave_start[wave] = global_ns();
        if (n == 0) break;
        if (n <= rt.narrow) {
            // Narrow waves: block 0 alone, block barriers between them. All
            // its threads read each count after the same barrier, so they
            // agree on when to stop.
            if (blockIdx.x == 0) {
                for (;;) {
                    const uint32_t m = __ldcg(&rt.wave_count[wave]);
                    if (m == 0 || m > rt.narrow) break;
                    for (uint32_t i = threadIdx.x; i < m; i += blockDim.x) run_task<kMax>(rt, wave, rt.list[wave & 1], i);
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
        const waves::Task* list = rt.list[wave & 1];
        for (uint32_t i = grid.thread_rank(); i < n; i += grid.size()) run_task<kMax>(rt, wave, list, i);
        grid.sync();
        ++wave;
    }
}

#include "tree_fast.cuh"

constexpr int kDefaultCutoff = 4;

// --trace-waves, fast kernel: the time in waves by the call they run -- the
// calls in registers (the widest waves) by call and depth, and the splits.
// count[w]: wave w's tasks; t0[w]: when it started; call[w]: its first task's
// first 4 bytes (fn, d, s, flags).
static std::string waves_by_call(const std::vector<uint32_t>& count, uint32_t nwaves,
                                 const std::vector<unsigned long long>& t0, const std::vector<uint32_t>& call,
                                 uint64_t threads, int cutoff) {
    uint32_t in_regs[4][32] = {}, split = 0, split_wide = 0;
    double regs_ms[4][32] = {}, split_ms = 0, split_wide_ms = 0;
    for (uint32_t w = 0; w < nwaves && w + 1 < count.size(); ++w) {
        const uint32_t fn = call[w] & 0xFF, d = (call[w] >> 8) & 0xFF;
        const double dt = (t0[w + 1] - t0[w]) / 1e6;
        if (fn < 4 && d < 32 && reg::fits((Fn)fn, (int)d, cutoff)) {
            in_regs[fn][d]++;
            regs_ms[fn][d] += dt;
        } else {
            split++;
            split_ms += dt;
            split_wide += count[w] > threads;
            split_wide_ms += count[w] > threads ? dt : 0;
        }
    }
    const char* fn_name[4] = {"sort", "flow", "down", "warp"};
    std::string text = "waves by call: in registers:";
    char line[160];
    for (int fn = 0; fn < 4; ++fn)
        for (int d = 0; d < 32; ++d)
            if (in_regs[fn][d]) {
                snprintf(line, sizeof line, " %s(%d) %u waves, %.2f ms;", fn_name[fn], d, in_regs[fn][d], regs_ms[fn][d]);
                text += line;
            }
    snprintf(line, sizeof line, " splits: %u waves, %.2f ms (wider than the grid's threads: %u waves, %.2f ms)", split,
             split_ms, split_wide, split_wide_ms);
    return text + line;
}

// The command line.
struct Options {
    int depth = 0, cutoff = kDefaultCutoff, blocks_per_sm = 1;
    uint32_t narrow = kThreads;
    uint32_t blocks = 0;             // --blocks: the grid (0: every block that fits)
    bool trace = false;
    bool fast = true;                // --kernel fast (the default) or classic
    bool stores_asked = false;       // --stores warp was given (without it, a GPU short of shared memory gets thread stores)
    waves::fast::Options fast_opt;   // the fast kernel's options (tree_fast.cuh)
};

// What the sort phase runs: the options, the kernel and its grid, and the
// sizes of the runtime's frames, task lists and wave counts.
struct Shape {
    Options o;
    void (*kernel)(Runtime);
    int sms = 0, per_sm = 0;
    uint32_t grid_blocks = 0;
    size_t smem = 0;  // the fast kernel's stages (--stores warp), bytes a block
    uint64_t frames = 0, tasks = 0;
    uint32_t max_waves = 1u << 20;
};

// The runtime's device memory (alive until the sort phase returns).
struct RuntimeMemory {
    ch12::DeviceBuffer<waves::Task> list0, list1;
    ch12::DeviceBuffer<uint32_t> wave_count, wave_now;
    ch12::DeviceBuffer<Frame> frame_array;
    ch12::DeviceBuffer<int> error;
    ch12::DeviceBuffer<Tree> d_root;
    ch12::DeviceBuffer<unsigned long long> wave_start;
    ch12::DeviceBuffer<uint32_t> wave_call, taken;
};

// The runtime's memory, zeroed where it must be, and rt pointing at it.
static Status allocate_runtime(const Shape& sh, uint64_t* heap, RuntimeMemory* m, Runtime* rt) {
    *rt = Runtime{};
    rt->heap = heap;
    rt->cutoff = sh.o.cutoff;
    rt->max_waves = sh.max_waves;
    rt->narrow = sh.o.narrow;
    rt->fast = sh.o.fast_opt;
    if (sh.o.trace) {
        CH12_TRY(m->wave_start.allocate(sh.max_waves));
        CH12_TRY(cudaMemset(m->wave_start.get(), 0, sh.max_waves * sizeof(unsigned long long)));
        CH12_TRY(m->wave_call.allocate(sh.max_waves));
    }
    if (sh.o.fast_opt.dynamic) {
        CH12_TRY(m->taken.allocate(sh.max_waves));
        CH12_TRY(cudaMemset(m->taken.get(), 0, sh.max_waves * sizeof(uint32_t)));
    }
    CH12_TRY(m->list0.allocate(sh.tasks));
    CH12_TRY(m->list1.allocate(sh.tasks));
    CH12_TRY(m->wave_count.allocate(sh.max_waves));
    CH12_TRY(m->frame_array.allocate(sh.frames));
    CH12_TRY(m->wave_now.allocate(1));
    CH12_TRY(m->error.allocate(2));
    CH12_TRY(m->d_root.allocate(1));
    rt->wave_start = m->wave_start.get();
    rt->wave_call = m->wave_call.get();
    rt->taken = m->taken.get();
    rt->list[0] = m->list0.get();
    rt->list[1] = m->list1.get();
    rt->wave_count = m->wave_count.get();
    rt->frames = m->frame_array.get();
    rt->wave_now = m->wave_now.get();
    rt->error = m->error.get();
    rt->root = m->d_root.get();
    CH12_TRY(cudaMemset(rt->wave_count, 0, sh.max_waves * sizeof(uint32_t)));
    CH12_TRY(cudaMemset(rt->error, 0, 2 * sizeof(int)));
    CH12_TRY(cudaMemset(rt->wave_now, 0, sizeof(uint32_t)));
    CH12_TRY(cudaMemset(rt->root, 0, sizeof(Tree)));
    return {};
}

// The fast kernel's line: the options it ran with.
static std::string fast_note(const waves::fast::Options& f) {
    const char* tasks_mode[] = {"auto (2 in the waves of 1-2 a thread)", "1", "2"};
    const std::string stores = f.stage ? "warp (" + std::to_string(f.stage) + " nodes staged)" : "thread";
    char line[320];
    snprintf(line, sizeof line, "fast kernel: levels %d, stores %s, tasks a thread %s, joins %s, dealing %s", f.levels,
             stores.c_str(), tasks_mode[f.tasks], f.overlap ? "overlapped" : "serial", f.dynamic ? "dynamic" : "static");
    return line;
}

// The lines the runtime adds: tasks and waves, the fast kernel's options,
// and (--trace-waves) the time spent in waves by how many tasks they hold
// and (fast kernel) by the call they run.
static Status wave_notes(const Shape& sh, const Runtime& rt, std::vector<std::string>& notes) {
    const uint32_t max_waves = sh.max_waves;
    std::vector<uint32_t> waves(max_waves);
    CH12_TRY(cudaMemcpy(waves.data(), rt.wave_count, max_waves * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    uint32_t nwaves = 0, widest = 0, narrow_waves = 0;
    uint64_t ran = 0;
    while (nwaves < max_waves && waves[nwaves]) {
        widest = std::max(widest, waves[nwaves]);
        ran += waves[nwaves];
        narrow_waves += waves[nwaves] <= sh.o.narrow;
        nwaves++;
    }
    char line[320];
    snprintf(line, sizeof line,
             "runtime: %llu tasks in %u waves (widest %u; %u narrow, in one block), %llu frames, cutoff %d, "
             "%d x %d threads",
             (unsigned long long)ran, nwaves, widest, narrow_waves, (unsigned long long)sh.frames - 1, sh.o.cutoff,
             (int)sh.grid_blocks, kThreads);
    notes.push_back(line);
    if (sh.o.fast) notes.push_back(fast_note(sh.o.fast_opt));
    if (!sh.o.trace) return {};
    // time by wave width: 1 task, up to a block, up to the grid's threads, more
    std::vector<unsigned long long> t0(max_waves);
    CH12_TRY(cudaMemcpy(t0.data(), rt.wave_start, max_waves * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    const uint64_t threads = (uint64_t)sh.grid_blocks * kThreads;
    const uint64_t edge[4] = {1, (uint64_t)kThreads, threads, ~0ull};
    const char* label[4] = {"1 task", "2-256", "257-grid", "more than the grid's threads"};
    uint32_t count[4] = {0, 0, 0, 0};
    double ms[4] = {0, 0, 0, 0};
    for (uint32_t w = 0; w < nwaves && w + 1 < max_waves; ++w) {
        int b = 0;
        while (waves[w] > edge[b]) ++b;
        count[b]++;
        ms[b] += (t0[w + 1] - t0[w]) / 1e6;
    }
    std::string traced = "waves by width:";
    for (int b = 0; b < 4; ++b) {
        snprintf(line, sizeof line, " %s: %u waves, %.2f ms;", label[b], count[b], ms[b]);
        traced += line;
    }
    notes.push_back(traced);
    if (sh.o.fast) {
        std::vector<uint32_t> call(max_waves);
        CH12_TRY(cudaMemcpy(call.data(), rt.wave_call, max_waves * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        notes.push_back(waves_by_call(waves, nwaves, t0, call, threads, sh.o.cutoff));
    }
    return {};
}

// The runtime's sort phase (tree_harness.h's SortPhase): its memory, wave 0,
// the cooperative kernel, its error flags and its lines.
static Status sort_phase(const Shape& sh, uint64_t* heap, Tree input, uint64_t first_free, cudaEvent_t start,
                         cudaEvent_t stop, std::vector<std::string>& notes, Tree* out) {
    const int depth = sh.o.depth;
    // (Reached only when the GPU has the memory for it: depth 24 and up,
    // on a GPU of more than about 150 GB.) Results meet as 32-bit node
    // indices; frames and list slots are 32-bit too: it cannot run here.
    if (G(depth) + S(depth) >= (uint64_t(1) << 32) || sh.frames >= (uint64_t(1) << 32) || sh.tasks >= (uint64_t(1) << 31))
        return ch12::failure(ch12::Errc::cannot_run_here,
                             "skipped: depth " + std::to_string(depth) + " has " + std::to_string(G(depth) + S(depth)) +
                                 " nodes, beyond this runtime's 32-bit node indices (depth 23 at most)");
    uint32_t table[4][32] = {};
    for (int fn = 0; fn < 4; ++fn)
        for (int d = 0; d < 32; ++d) table[fn][d] = (uint32_t)std::min<uint64_t>(waves::frames_of((Fn)fn, d, sh.o.cutoff), ~0u);
    CH12_TRY(cudaMemcpyToSymbol(c_frames_of, table, sizeof table));

    Runtime rt;
    RuntimeMemory memory;
    CH12_TRY(allocate_runtime(sh, heap, &memory, &rt));
    // Frame 0 waits for the whole sort; wave 0 is sort(d, 0, input) alone,
    // its frames from 1 on.
    Frame root_frame{};
    root_frame.head.kind = waves::kRoot;
    const waves::Task first = waves::make_task(kSort, depth, 0, 0, 0, 1, input, 0, first_free);
    const uint32_t one = 1;
    CH12_TRY(cudaMemcpy(rt.frames, &root_frame, sizeof root_frame, cudaMemcpyHostToDevice));
    CH12_TRY(cudaMemcpy(rt.list[0], &first, sizeof first, cudaMemcpyHostToDevice));
    CH12_TRY(cudaMemcpy(rt.wave_count, &one, sizeof one, cudaMemcpyHostToDevice));

    void* params[] = {&rt};
    CH12_TRY(cudaEventRecord(start));
    CH12_TRY(cudaLaunchCooperativeKernel((void*)sh.kernel, dim3(sh.grid_blocks), dim3(kThreads), params, sh.smem, 0));
    CH12_TRY(ch12::kernel_launch("evaluate launch"));
    CH12_TRY(cudaEventRecord(stop));
    CH12_TRY(cudaEventSynchronize(stop));

    int errors[2] = {0, 0};
    CH12_TRY(cudaMemcpy(out, rt.root, sizeof(Tree), cudaMemcpyDeviceToHost));
    CH12_TRY(cudaMemcpy(errors, rt.error, sizeof errors, cudaMemcpyDeviceToHost));
    if (errors[0])
        return ch12::failure(ch12::Errc::failed, "more than " + std::to_string(sh.max_waves) + " waves (an internal limit)");
    if (errors[1])
        return ch12::failure(ch12::Errc::failed, "a call below the cutoff got an input that is not a full tree of its depth: BUG");
    return wave_notes(sh, rt, notes);
}

// The kernel (the fast one with its shared-memory stages, or the classic
// one), the SMs of the current device, and how many blocks of it fit on one.
static Status occupancy(Shape* sh) {
    int device = 0;
    CH12_TRY(cudaGetDevice(&device));
    CH12_TRY(cudaDeviceGetAttribute(&sh->sms, cudaDevAttrMultiProcessorCount, device));
    sh->kernel = evaluate<kRegMax>;
    sh->smem = 0;
    if (sh->o.fast) {
        sh->kernel = fastk::evaluate_fast<fastk::kFastMax>;
        waves::fast::Options& f = sh->o.fast_opt;
        if (f.stage && (f.stage = fastk::stage_nodes(device, sh->o.blocks_per_sm, &sh->smem)) == 0 && sh->o.stores_asked)
            return ch12::failure(ch12::Errc::cannot_run_here,
                                 "skipped: --stores warp needs more shared memory than this GPU has for " +
                                     std::to_string(sh->o.blocks_per_sm) + " block(s) per SM");
        CH12_TRY(cudaFuncSetAttribute(sh->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh->smem));
    }
    CH12_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&sh->per_sm, sh->kernel, kThreads, sh->smem));
    if (sh->per_sm < 1) return ch12::failure(ch12::Errc::failed, "the evaluator's kernel does not fit on an SM of this GPU");
    return {};
}

static const char kUsage[] =
    "[--depth] D [--cutoff C] [--narrow N] [--blocks-per-sm N] [--blocks B] [--kernel fast|classic]\n"
    "       [--levels L] [--stores thread|warp] [--tasks 1|2|auto] [--joins serial|overlapped]\n"
    "       [--deal static|dynamic] [--trace-waves]";
static const char kHelp[] =
    "  the project's runtime on sort(D, 0, gen(D, 0)); D from 1 to 30, limited by GPU\n"
    "  memory (16 bytes a node: 6.4 GB at D = 20, 68 GB at D = 23; exit 77 above it)\n"
    "  --cutoff C     calls whose subtrees hold at most 2^C leaves run on one thread,\n"
    "                 in registers (1 .. 4, default 4)\n"
    "  --narrow N     waves of at most N tasks run in one block, with block barriers\n"
    "                 (0 .. 256, default 256; 0: every wave on the whole grid)\n"
    "  --blocks-per-sm N   blocks per SM, up to as many as fit (1 .. 32; default 1, the\n"
    "                      fastest on the H200: more blocks made every wide wave slower)\n"
    "  --blocks B     the grid: B blocks (1 .. 1048576, at most as many as fit at once;\n"
    "                 default all: blocks-per-sm x the SMs). Fewer give small depths\n"
    "                 waves of several tasks a thread, as the tests want\n"
    "  --kernel fast|classic   the fast kernel (default) with the options below, or the\n"
    "                 classic one it came from (no options)\n"
    "  --levels L     a warp too large for registers splits L tree levels at once (1 .. 3,\n"
    "                 default 1)\n"
    "  --stores thread|warp   a call in registers writes its nodes itself, or its warp\n"
    "                 writes them, 32 nodes a store, through shared memory (default,\n"
    "                 where the GPU's shared memory holds it)\n"
    "  --tasks 1|2|auto   tasks a thread holds at once (2: the inputs of two calls in\n"
    "                 registers gathered together); auto (default): 2 in the waves of\n"
    "                 one to two tasks a thread, else 1\n"
    "  --joins serial|overlapped   a finished call reads its frame, then meets its\n"
    "                 sibling, or both at once (default)\n"
    "  --deal static|dynamic   in a wave of more tasks than one pass of the grid\n"
    "                 covers, a warp's next 32 tasks are the next 32 not yet taken (a\n"
    "                 counter: dynamic, default), or a grid further on (static)\n"
    "  --trace-waves  also print the time spent in waves, by how many tasks they hold\n"
    "                 and by the call they run\n";

int main(int argc, char** argv) {
    ch12::CommandLine cl(argc, argv, kUsage, kHelp);
    cl.option("--depth").option("--cutoff").option("--narrow").option("--blocks-per-sm").option("--blocks")
        .flag("--trace-waves").option("--kernel").option("--levels").option("--stores").option("--tasks")
        .option("--joins").option("--deal").positionals(1);
    cl.parse();
    Shape sh;
    sh.o.depth = tree::depth_argument(cl);
    sh.o.cutoff = (int)cl.number("--cutoff", 1, kRegMax, kDefaultCutoff);
    sh.o.narrow = (uint32_t)cl.number("--narrow", 0, kThreads, kThreads);
    sh.o.blocks_per_sm = (int)cl.number("--blocks-per-sm", 1, 32, 1);
    sh.o.blocks = (uint32_t)cl.number("--blocks", 1, 1u << 20, 0);  // 0: all that fit
    sh.o.trace = cl.has("--trace-waves");
    sh.o.fast_opt = fastk::options(cl, &sh.o.fast, &sh.o.stores_asked);

    sh.frames = 1 + waves::frames_of(kSort, sh.o.depth, sh.o.cutoff);
    sh.tasks = 2 * sh.frames + 1;  // every task ever pushed fits in one wave's list
    ch12::require_cuda_device(cl.name());

    const Status fits = occupancy(&sh);
    if (!fits.ok()) return ch12::exit_status(fits, cl.name());
    if (sh.o.blocks_per_sm > sh.per_sm)
        cl.fail("--blocks-per-sm " + std::to_string(sh.o.blocks_per_sm) + ": at most " + std::to_string(sh.per_sm) +
                " blocks of this kernel fit on an SM of this GPU");
    sh.per_sm = sh.o.blocks_per_sm;
    if (sh.o.blocks > (uint32_t)(sh.sms * sh.per_sm))
        cl.fail("--blocks " + std::to_string(sh.o.blocks) + ": at most " + std::to_string(sh.sms * sh.per_sm) +
                " blocks of this kernel run at once on this GPU");
    sh.grid_blocks = sh.o.blocks ? sh.o.blocks : (uint32_t)(sh.sms * sh.per_sm);
    const size_t extra = sh.frames * sizeof(Frame) + 2 * sh.tasks * sizeof(waves::Task) +
                         (sh.o.fast_opt.dynamic ? 2 : 1) * sh.max_waves * sizeof(uint32_t);

    tree::Evaluation e{sh.o.depth, cl.name(), "task runtime (waves in one cooperative kernel, registers below the cutoff)",
                       extra};
    bool all_written = false;
    const Status s = tree::run_evaluation(
        e,
        [&](uint64_t* heap, Tree input, uint64_t first_free, cudaEvent_t start, cudaEvent_t stop,
            std::vector<std::string>& notes, Tree* out) {
            return sort_phase(sh, heap, input, first_free, start, stop, notes, out);
        },
        &all_written);
    return ch12::exit_status(s, cl.name(), all_written ? 0 : 1);
}
