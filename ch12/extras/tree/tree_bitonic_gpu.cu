// Chapter 12 extra -- the tree formulation of bitonic sort on the GPU, by this
// project's own runtime: tasks above a cutoff, run in waves; calls below it
// run in registers; joins meet in one atomic.
//
//   tree_bitonic_gpu --depth 20 [--cutoff C] [--narrow N] [--blocks-per-sm N]
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
// Where its time goes, and the designs measured against it, are in README.md
// and NOTES.md beside this file.

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

namespace cg = cooperative_groups;
using namespace tree;
using waves::Frame;
using waves::FrameHead;

constexpr int kThreads = 256;
// The register calls compiled in: subtrees of up to 2^5 leaves (a kernel
// with 2^6 compiles for minutes and needs about twice the registers). Two
// kernels: one for cutoff 5, and a smaller one (fewer registers, no local
// memory) for cutoffs up to 4, the faster of the two on the H200.
constexpr int kRegMax = 5;

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
};

__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
    return t;
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

constexpr int kDefaultCutoff = 4;

struct Options {
    int depth = 0, cutoff = kDefaultCutoff, blocks_per_sm = 1;
    uint32_t narrow = kThreads;
    bool trace = false;
};

// What the sort phase runs: the options, the kernel and its grid, and the
// sizes of the runtime's frames, task lists and wave counts.
struct Shape {
    Options o;
    void (*kernel)(Runtime);
    int sms = 0, per_sm = 0;
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
};

// The runtime's memory, zeroed where it must be, and rt pointing at it.
static Status allocate_runtime(const Shape& sh, uint64_t* heap, RuntimeMemory* m, Runtime* rt) {
    *rt = Runtime{};
    rt->heap = heap;
    rt->cutoff = sh.o.cutoff;
    rt->max_waves = sh.max_waves;
    rt->narrow = sh.o.narrow;
    if (sh.o.trace) {
        CH12_TRY(m->wave_start.allocate(sh.max_waves));
        CH12_TRY(cudaMemset(m->wave_start.get(), 0, sh.max_waves * sizeof(unsigned long long)));
    }
    CH12_TRY(m->list0.allocate(sh.tasks));
    CH12_TRY(m->list1.allocate(sh.tasks));
    CH12_TRY(m->wave_count.allocate(sh.max_waves));
    CH12_TRY(m->frame_array.allocate(sh.frames));
    CH12_TRY(m->wave_now.allocate(1));
    CH12_TRY(m->error.allocate(2));
    CH12_TRY(m->d_root.allocate(1));
    rt->wave_start = m->wave_start.get();
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

// The lines the runtime adds: tasks and waves, and (--trace-waves) the time
// spent in waves by how many tasks they hold.
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
             sh.sms * sh.per_sm, kThreads);
    notes.push_back(line);
    if (!sh.o.trace) return {};
    // time by wave width: 1 task, up to a block, up to the grid's threads, more
    std::vector<unsigned long long> t0(max_waves);
    CH12_TRY(cudaMemcpy(t0.data(), rt.wave_start, max_waves * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    const uint64_t threads = (uint64_t)sh.sms * sh.per_sm * kThreads;
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
    CH12_TRY(cudaLaunchCooperativeKernel((void*)sh.kernel, dim3(sh.sms * sh.per_sm), dim3(kThreads), params, 0, 0));
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

// The SMs of the current device, and how many blocks of the kernel fit on one.
static Status occupancy(Shape* sh) {
    int device = 0;
    CH12_TRY(cudaGetDevice(&device));
    CH12_TRY(cudaDeviceGetAttribute(&sh->sms, cudaDevAttrMultiProcessorCount, device));
    CH12_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&sh->per_sm, sh->kernel, kThreads, 0));
    if (sh->per_sm < 1) return ch12::failure(ch12::Errc::failed, "the evaluator's kernel does not fit on an SM of this GPU");
    return {};
}

int main(int argc, char** argv) {
    ch12::CommandLine cl(
        argc, argv, "[--depth] D [--cutoff C] [--narrow N] [--blocks-per-sm N] [--trace-waves]",
        "  the project's runtime on sort(D, 0, gen(D, 0)); D from 1 to 30, limited by GPU\n"
        "  memory (16 bytes a node: 6.4 GB at D = 20, 68 GB at D = 23; exit 77 above it)\n"
        "  --cutoff C     calls whose subtrees hold at most 2^C leaves run on one thread,\n"
        "                 in registers (1 .. 5, default 4)\n"
        "  --narrow N     waves of at most N tasks run in one block, with block barriers\n"
        "                 (0 .. 256, default 256; 0: every wave on the whole grid)\n"
        "  --blocks-per-sm N   blocks per SM, up to as many as fit (1 .. 32; default 1, the\n"
        "                      fastest on the H200: more blocks made every wide wave slower)\n"
        "  --trace-waves  also print the time spent in waves, by how many tasks they hold\n");
    cl.option("--depth").option("--cutoff").option("--narrow").option("--blocks-per-sm").flag("--trace-waves")
        .positionals(1);
    cl.parse();
    Shape sh;
    sh.o.depth = tree::depth_argument(cl);
    sh.o.cutoff = (int)cl.number("--cutoff", 1, kRegMax, kDefaultCutoff);
    sh.o.narrow = (uint32_t)cl.number("--narrow", 0, kThreads, kThreads);
    sh.o.blocks_per_sm = (int)cl.number("--blocks-per-sm", 1, 32, 1);
    sh.o.trace = cl.has("--trace-waves");

    sh.frames = 1 + waves::frames_of(kSort, sh.o.depth, sh.o.cutoff);
    sh.tasks = 2 * sh.frames + 1;  // every task ever pushed fits in one wave's list
    ch12::require_cuda_device(cl.name());

    sh.kernel = sh.o.cutoff <= 4 ? evaluate<4> : evaluate<kRegMax>;
    const Status fits = occupancy(&sh);
    if (!fits.ok()) return ch12::exit_status(fits, cl.name());
    if (sh.o.blocks_per_sm > sh.per_sm)
        cl.fail("--blocks-per-sm " + std::to_string(sh.o.blocks_per_sm) + ": at most " + std::to_string(sh.per_sm) +
                " blocks of this kernel fit on an SM of this GPU");
    sh.per_sm = sh.o.blocks_per_sm;
    const size_t extra = sh.frames * sizeof(Frame) + 2 * sh.tasks * sizeof(waves::Task) + sh.max_waves * sizeof(uint32_t);

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
