// Chapter 12 extra -- the tree formulation of bitonic sort on the GPU, by the
// evaluator design of the write-up it comes from: SEED / GROW / WORK.
//
//   tree_seed_grow_work 20          (or --depth 20)
//
// The write-up describes a runtime meant as the back end of a compiler for
// recursive functional programs. Each function with a PARALLEL annotation
// compiles into three pieces:
//   seq_<name>     the sequential recursion (tree_calls.h), run when a call is
//                  small enough to be one thread's share;
//   par_<name>_0   the splitter: returns SPLIT (the parallel sub-calls, and a
//                  frame that waits for their results) or VALUE;
//   par_<name>_1   the joiner: given the sub-calls' results, returns VALUE, or
//                  CALL -- a tail call, a new task whose result is this call's.
// flow has no PARALLEL line: it calls warp, then down on warp's result. Its
// pieces are the same three, its splitter handing on ONE sub-call (warp) and
// its joiner tail-calling down.
//
// The runtime is one cooperative kernel of rounds, with grid.sync() between
// phases, no queues, no work stealing and no host synchronisation:
//   SEED  block 0 takes the round's tasks (round 1: sort(d) alone) and splits
//         them, level by level, until there is at least one task per block;
//   GROW  each block splits its share of the tasks, in shared memory, until
//         there is at least one task per thread;
//   WORK  each thread runs its task(s) with seq_<name>. A result goes to its
//         frame; the thread that brings the last one runs the joiner, whose
//         VALUE goes on up, and whose CALL becomes a task of the next round.
// The sequential cutoff is not a parameter: it emerges from the number of
// slots, blocks x threads (one block of 256 threads per SM: 132 x 256 =
// 33,792 slots on an H200), because splitting stops once every slot has a task.
// Allocation: every call's nodes go to a heap range reserved for it in
// advance (the layout in tree_bitonic.h), so Node(...) needs no atomic.

#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cli.h"
#include "cuda_check.h"  // require_cuda_device(): no GPU, exit 77
#include "tree_bitonic.h"
#include "tree_calls.h"
#include "tree_cli.h"
#include "tree_device.cuh"
#include "tree_harness.h"

namespace cg = cooperative_groups;
using namespace tree;

// ---- tasks and frames ----------------------------------------------------------------------
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

constexpr int kThreads = 256;

enum Kind : uint32_t { kRootFrame, kSortJoin, kFlowJoin, kDownJoin, kWarpJoin };

struct Runtime {
    uint64_t* heap;
    Frame* frames;
    uint32_t* frame_count;
    uint32_t frame_capacity;
    Task* list[2];          // this round's tasks and the next round's (by round parity)
    Task* seed_scratch;     // SEED's other buffer
    uint32_t* list_count;   // [2]
    uint32_t list_capacity;
    uint32_t* stats;        // [0] rounds, [1] tasks run, [2] largest round, [3] overflow
};

// ---- what the pieces return -----------------------------------------------------------
struct Step {
    enum { kValue, kSplit, kCall } what;
    Tree value;
    int children;           // SPLIT: 1 or 2 sub-calls
    Task child[2];
    uint32_t join_kind, d, s;
    uint64_t join_base;
    Task call;              // CALL
};

__device__ __forceinline__ Step value_step(Tree v) { Step st; st.what = Step::kValue; st.value = v; return st; }
__device__ __forceinline__ Step call_step(const Task& t) { Step st; st.what = Step::kCall; st.call = t; return st; }
__device__ __forceinline__ Step split_step(uint32_t kind, int d, uint32_t s, uint64_t join_base, int children) {
    Step st;
    st.what = Step::kSplit; st.join_kind = kind; st.d = d; st.s = s; st.join_base = join_base; st.children = children;
    return st;
}

// ---- the compiled pieces, function by function ---------------------------------------
// sort(d, s, t) = d == 0 or leaf(t) ? t
//               : flow(d, s, Node(sort(d-1, 0, left t) ||, sort(d-1, 1, right t) ||))
__device__ Step par_sort_0(const uint64_t* heap, const Task& t) {
    if (t.d == 0 || is_leaf(t.a)) return value_step(t.a);
    const Kids c = DeviceHeap{const_cast<uint64_t*>(heap)}.children(t.a);
    Step st = split_step(kSortJoin, t.d, t.s, t.base + 2 * S(t.d - 1), 2);
    st.child[0] = make_task(kSort, t.d - 1, 0, c.l, 0, t.base);
    st.child[1] = make_task(kSort, t.d - 1, 1, c.r, 0, t.base + S(t.d - 1));
    return st;
}
__device__ Step par_sort_1(uint64_t* heap, const Frame& f, Tree l, Tree r) {
    const Tree n = make_node(heap, f.base, l, r);
    return call_step(make_task(kFlow, f.d, f.s, n, 0, f.base + 1));  // flow(d, s, Node(l, r))
}

// flow(d, s, t) = d == 0 or leaf(t) ? t : down(d, s, warp(d-1, s, left t, right t))
__device__ Step par_flow_0(const uint64_t* heap, const Task& t) {
    if (t.d == 0 || is_leaf(t.a)) return value_step(t.a);
    const Kids c = DeviceHeap{const_cast<uint64_t*>(heap)}.children(t.a);
    Step st = split_step(kFlowJoin, t.d, t.s, t.base + W(t.d - 1), 1);
    st.child[0] = make_task(kWarp, t.d - 1, t.s, c.l, c.r, t.base);
    return st;
}
__device__ Step par_flow_1(const Frame& f, Tree w) {
    return call_step(make_task(kDown, f.d, f.s, w, 0, f.base));  // down(d, s, w)
}

// down(d, s, t) = d == 0 or leaf(t) ? t : Node(flow(d-1, s, left t) ||, flow(d-1, s, right t) ||)
__device__ Step par_down_0(const uint64_t* heap, const Task& t) {
    if (t.d == 0 || is_leaf(t.a)) return value_step(t.a);
    const Kids c = DeviceHeap{const_cast<uint64_t*>(heap)}.children(t.a);
    Step st = split_step(kDownJoin, t.d, t.s, t.base + 2 * F(t.d - 1), 2);
    st.child[0] = make_task(kFlow, t.d - 1, t.s, c.l, 0, t.base);
    st.child[1] = make_task(kFlow, t.d - 1, t.s, c.r, 0, t.base + F(t.d - 1));
    return st;
}
__device__ Step par_down_1(uint64_t* heap, const Frame& f, Tree l, Tree r) {
    return value_step(make_node(heap, f.base, l, r));
}

// warp(d, s, a, b) = d == 0 ? compare-and-swap the leaves
//                  : Node(Node(left l, left r), Node(right l, right r)),
//                    l = warp(d-1, s, left a, left b) ||, r = warp(d-1, s, right a, right b) ||
__device__ Step par_warp_0(uint64_t* heap, const Task& t) {
    if (t.d == 0) {
        Bump<DeviceHeap> h{DeviceHeap{heap}, t.base};
        return value_step(seq_warp(h, 0, t.s, t.a, t.b));
    }
    const DeviceHeap mem{heap};
    const Kids ca = mem.children(t.a), cb = mem.children(t.b);
    Step st = split_step(kWarpJoin, t.d, t.s, t.base + 2 * W(t.d - 1), 2);
    st.child[0] = make_task(kWarp, t.d - 1, t.s, ca.l, cb.l, t.base);
    st.child[1] = make_task(kWarp, t.d - 1, t.s, ca.r, cb.r, t.base + W(t.d - 1));
    return st;
}
__device__ Step par_warp_1(uint64_t* heap, const Frame& f, Tree l, Tree r) {
    const DeviceHeap mem{heap};
    const Kids cl = mem.children(l), cr = mem.children(r);
    const Tree nl = make_node(heap, f.base, cl.l, cr.l);
    const Tree nr = make_node(heap, f.base + 1, cl.r, cr.r);
    return value_step(make_node(heap, f.base + 2, nl, nr));
}

// ---- the runtime ----------------------------------------------------------------------
// Would par_<fn>_0 split this call (rather than return a value)?
__device__ __forceinline__ bool splits(const Task& t) {
    return t.d > 0 && (t.fn == kWarp || !is_leaf(t.a));
}

// Splits a call: its frame goes to global memory, its sub-calls are returned
// in `out` (1 or 2 of them). Returns their number.
__device__ int split(const Runtime& rt, const Task& t, Task out[2]) {
    Step st;
    switch (t.fn) {
        case kSort: st = par_sort_0(rt.heap, t); break;
        case kFlow: st = par_flow_0(rt.heap, t); break;
        case kDown: st = par_down_0(rt.heap, t); break;
        default: st = par_warp_0(rt.heap, t); break;
    }
    const uint32_t id = atomicAdd(rt.frame_count, 1u);
    if (id >= rt.frame_capacity) { atomicExch(&rt.stats[3], 1u); return 0; }
    Frame f;
    f.kind = st.join_kind; f.d = st.d; f.s = st.s; f.pending = (uint32_t)st.children;
    f.parent = t.frame; f.parent_slot = t.slot; f.base = st.join_base;
    f.result[0] = f.result[1] = 0;
    rt.frames[id] = f;
    for (int c = 0; c < st.children; ++c) {
        out[c] = st.child[c];
        out[c].frame = id;
        out[c].slot = (uint8_t)c;
    }
    return st.children;
}

__device__ void append_next(const Runtime& rt, uint32_t next, const Task& t) {
    const uint32_t i = atomicAdd(&rt.list_count[next], 1u);
    if (i >= rt.list_capacity) { atomicExch(&rt.stats[3], 1u); return; }
    store_task(&rt.list[next][i], t);
}

// Hands a call's result to its frame; the thread that brings the last result
// runs the joiner, and so on up, until a joiner makes a tail call (a task of
// the next round) or a sub-call is still running.
__device__ void finish(const Runtime& rt, uint32_t next, Tree result, uint32_t frame, uint32_t slot, Tree* root) {
    for (;;) {
        Frame* F = &rt.frames[frame];
        __stcg(&F->result[slot], result);
        __threadfence();
        if (atomicSub(&F->pending, 1u) != 1u) return;  // the other sub-call is still running
        __threadfence();
        const Frame f = load_frame(F);
        const Tree l = f.result[0], r = f.result[1];
        Step st;
        switch (f.kind) {
            case kRootFrame: *root = l; return;
            case kSortJoin: st = par_sort_1(rt.heap, f, l, r); break;
            case kFlowJoin: st = par_flow_1(f, l); break;
            case kDownJoin: st = par_down_1(rt.heap, f, l, r); break;
            default: st = par_warp_1(rt.heap, f, l, r); break;
        }
        if (st.what == Step::kCall) {
            Task t = st.call;
            t.frame = f.parent;
            t.slot = (uint8_t)f.parent_slot;
            append_next(rt, next, t);
            return;
        }
        result = st.value;
        frame = f.parent;
        slot = f.parent_slot;
    }
}

// WORK's sequential call. kRegisters (an experiment, --registers): a call
// whose subtrees hold at most 2^5 leaves runs in registers (reg::call, as in
// the project's runtime); any other as the write-up's seq_*.
template <bool kRegisters>
__device__ __forceinline__ Tree work_call(const Runtime& rt, const Task& t) {
    const DeviceHeap mem{rt.heap};
    if constexpr (kRegisters) {
        if (reg::fits((Fn)t.fn, t.d, 5)) {
            bool ok = true;
            Kids kids;
            const Tree r = reg::call<5>(mem, (Fn)t.fn, t.d, t.s, t.a, t.b, t.base, &kids, &ok);
            if (!ok) atomicExch(&rt.stats[3], 2u);
            return r;
        }
    }
    return seq_call(mem, (Fn)t.fn, t.d, t.s, t.a, t.b, t.base);
}

template <bool kRegisters>
__global__ void __launch_bounds__(kThreads, kRegisters ? 2 : 1) seed_grow_work(Runtime rt, Tree* root) {
    cg::grid_group grid = cg::this_grid();
    __shared__ Task s_tasks[2][2 * kThreads];
    __shared__ uint32_t s_count[2];
    const uint32_t blocks = gridDim.x, tid = threadIdx.x;

    for (uint32_t round = 0;; ++round) {
        const uint32_t cur = round & 1, next = cur ^ 1;
        // ---- SEED: block 0 splits until there is a task per block ----------------
        if (blockIdx.x == 0) {
            if (tid == 0) {
                rt.list_count[next] = 0;
                rt.stats[0] = round + 1;
            }
            Task* from = rt.list[cur];
            Task* to = rt.seed_scratch;
            uint32_t m = __ldcg(&rt.list_count[cur]);
            for (;;) {
                if (m >= blocks) break;
                if (tid == 0) s_count[0] = 0;
                __syncthreads();
                int did_split = 0;
                for (uint32_t i = tid; i < m; i += kThreads) {
                    const Task t = load_task(&from[i]);
                    Task kids[2];
                    int n = 1;
                    kids[0] = t;
                    if (splits(t)) { n = split(rt, t, kids); did_split = 1; }
                    const uint32_t at = atomicAdd(&s_count[0], (uint32_t)n);
                    for (int c = 0; c < n; ++c) store_task(&to[at + c], kids[c]);
                }
                __threadfence_block();
                const int progress = __syncthreads_or(did_split);
                m = s_count[0];
                Task* swap = from; from = to; to = swap;
                __syncthreads();  // everyone has read the count before it is reset
                if (!progress) break;
            }
            if (from != rt.list[cur]) {  // the split list ended in the scratch buffer
                for (uint32_t i = tid; i < m; i += kThreads) store_task(&rt.list[cur][i], load_task(&from[i]));
            }
            if (tid == 0) rt.list_count[cur] = m;
            __threadfence();
        }
        grid.sync();

        // ---- GROW: this block's share, split in shared memory to a task per thread
        const uint32_t m = __ldcg(&rt.list_count[cur]);
        const uint32_t lo = (uint32_t)((uint64_t)m * blockIdx.x / blocks);
        const uint32_t hi = (uint32_t)((uint64_t)m * (blockIdx.x + 1) / blocks);
        const uint32_t mine = hi - lo;
        if (blockIdx.x == 0 && tid == 0 && m > rt.stats[2]) rt.stats[2] = m;
        if (mine > 0 && mine < kThreads) {
            int buf = 0;
            if (tid < mine) s_tasks[0][tid] = load_task(&rt.list[cur][lo + tid]);
            if (tid == 0) s_count[0] = mine;
            __syncthreads();
            for (;;) {
                const uint32_t c = s_count[buf];
                if (c >= (uint32_t)kThreads) break;
                if (tid == 0) s_count[buf ^ 1] = 0;
                __syncthreads();
                int did_split = 0;
                if (tid < c) {
                    const Task t = s_tasks[buf][tid];
                    Task kids[2];
                    int n = 1;
                    kids[0] = t;
                    if (splits(t)) { n = split(rt, t, kids); did_split = 1; }
                    const uint32_t at = atomicAdd(&s_count[buf ^ 1], (uint32_t)n);
                    for (int k = 0; k < n; ++k) s_tasks[buf ^ 1][at + k] = kids[k];
                }
                const int progress = __syncthreads_or(did_split);
                buf ^= 1;
                if (!progress) break;
            }
            // ---- WORK: every thread runs its task(s) sequentially
            const uint32_t c = s_count[buf];
            for (uint32_t i = tid; i < c; i += kThreads) {
                const Task t = s_tasks[buf][i];
                const Tree result = work_call<kRegisters>(rt, t);
                finish(rt, next, result, t.frame, t.slot, root);
            }
            if (tid == 0) atomicAdd(&rt.stats[1], c);
        } else {
            // ---- WORK, more tasks than threads: straight from the round's list
            for (uint32_t i = lo + tid; i < hi; i += kThreads) {
                const Task t = load_task(&rt.list[cur][i]);
                const Tree result = work_call<kRegisters>(rt, t);
                finish(rt, next, result, t.frame, t.slot, root);
            }
            if (tid == 0) atomicAdd(&rt.stats[1], mine);
        }
        __threadfence();
        grid.sync();
        if (__ldcg(&rt.list_count[next]) == 0) break;  // nothing left for another round: done
    }
}

// What the sort phase needs to know: the kernel, its grid, and the
// capacities of its frames and task lists.
struct Shape {
    void (*kernel)(Runtime, Tree*);
    bool registers;
    uint32_t blocks;
    uint32_t list_capacity, frame_capacity;
};

// The evaluator's sort phase (tree_harness.h's SortPhase): its frames and
// task lists, round 1's one task, the cooperative kernel, its counts.
static Status sort_phase(const Shape& sh, int depth, uint64_t* heap, Tree input, uint64_t first_free,
                         cudaEvent_t start, cudaEvent_t stop, std::vector<std::string>& notes, Tree* out) {
    Runtime rt{};
    rt.heap = heap;
    rt.frame_capacity = sh.frame_capacity;
    rt.list_capacity = sh.list_capacity;
    ch12::DeviceBuffer<Frame> frames;
    ch12::DeviceBuffer<Task> list0, list1, scratch;
    ch12::DeviceBuffer<uint32_t> frame_count, list_count, stats;
    ch12::DeviceBuffer<Tree> d_root;
    CH12_TRY(frames.allocate(sh.frame_capacity));
    CH12_TRY(frame_count.allocate(1));
    CH12_TRY(list0.allocate(sh.list_capacity));
    CH12_TRY(list1.allocate(sh.list_capacity));
    CH12_TRY(scratch.allocate(sh.list_capacity));
    CH12_TRY(list_count.allocate(2));
    CH12_TRY(stats.allocate(4));
    CH12_TRY(d_root.allocate(1));
    rt.frames = frames.get();
    rt.frame_count = frame_count.get();
    rt.list[0] = list0.get();
    rt.list[1] = list1.get();
    rt.seed_scratch = scratch.get();
    rt.list_count = list_count.get();
    rt.stats = stats.get();
    CH12_TRY(cudaMemset(rt.stats, 0, 4 * sizeof(uint32_t)));
    CH12_TRY(cudaMemset(d_root.get(), 0, sizeof(Tree)));
    // Frame 0 waits for the whole sort; round 1's one task is sort(d, 0, input).
    Frame root_frame{kRootFrame, 0, 0, 1, 0, 0, 0, {0, 0}};
    Task first{};
    first.fn = kSort; first.d = (uint8_t)depth; first.s = 0; first.slot = 0; first.frame = 0;
    first.a = input; first.b = 0; first.base = first_free;
    const uint32_t counts[2] = {1, 0}, one = 1;
    CH12_TRY(cudaMemcpy(rt.frames, &root_frame, sizeof root_frame, cudaMemcpyHostToDevice));
    CH12_TRY(cudaMemcpy(rt.frame_count, &one, sizeof one, cudaMemcpyHostToDevice));
    CH12_TRY(cudaMemcpy(rt.list[0], &first, sizeof first, cudaMemcpyHostToDevice));
    CH12_TRY(cudaMemcpy(rt.list_count, counts, sizeof counts, cudaMemcpyHostToDevice));
    // seq_* recursion runs on the thread's stack: a task is at most about
    // ten calls deep, three frames a level.
    CH12_TRY(cudaDeviceSetLimit(cudaLimitStackSize, 4096));

    Tree* root_ptr = d_root.get();
    void* params[] = {&rt, &root_ptr};
    CH12_TRY(cudaEventRecord(start));
    CH12_TRY(cudaLaunchCooperativeKernel((void*)sh.kernel, dim3(sh.blocks), dim3(kThreads), params, 0, 0));
    CH12_TRY(ch12::kernel_launch("seed_grow_work launch"));
    CH12_TRY(cudaEventRecord(stop));
    CH12_TRY(cudaEventSynchronize(stop));

    uint32_t st[4], used = 0;
    CH12_TRY(cudaMemcpy(out, d_root.get(), sizeof(Tree), cudaMemcpyDeviceToHost));
    CH12_TRY(cudaMemcpy(st, rt.stats, sizeof st, cudaMemcpyDeviceToHost));
    CH12_TRY(cudaMemcpy(&used, rt.frame_count, sizeof used, cudaMemcpyDeviceToHost));
    if (st[3] == 2) return ch12::failure(ch12::Errc::failed, "a register call got an input that is not a full tree: BUG");
    if (st[3]) return ch12::failure(ch12::Errc::failed, "the evaluator ran out of frames or task-list space (internal limits)");
    char line[256];
    snprintf(line, sizeof line, "runtime: %u rounds, %u tasks run (at most %u in one round), %u frames, "
             "%u blocks x %d threads = %u slots%s", st[0], st[1], st[2], used - 1, sh.blocks, kThreads,
             sh.blocks * kThreads, sh.registers ? ", WORK in registers" : "");
    notes.push_back(line);
    return {};
}

// The SMs of the current device, and how many blocks of the kernel fit on one.
static Status occupancy(void (*kernel)(Runtime, Tree*), int* sms, int* per_sm) {
    int device = 0;
    CH12_TRY(cudaGetDevice(&device));
    CH12_TRY(cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, device));
    CH12_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, kThreads, 0));
    if (*per_sm < 1) return ch12::failure(ch12::Errc::failed, "the evaluator's kernel does not fit on an SM of this GPU");
    return {};
}

int main(int argc, char** argv) {
    ch12::CommandLine cl(argc, argv, "[--depth] D [--blocks N] [--registers]",
                         "  the SEED / GROW / WORK evaluator on sort(D, 0, gen(D, 0)); D from 1 to 30, limited\n"
                         "  by GPU memory (16 bytes a node: 6.4 GB at D = 20; exit 77 above it)\n"
                         "  --blocks N   blocks of 256 threads (default: one per SM; the write-up's RTX 4090\n"
                         "               setting is 128); at most as many as the GPU runs at once\n"
                         "  --registers  (an experiment, not the write-up's design) WORK runs calls of up\n"
                         "               to 2^5 leaves in registers, as the project's runtime does\n");
    cl.option("--depth").option("--blocks").flag("--registers").positionals(1);
    cl.parse();
    const int depth = tree::depth_argument(cl);
    const uint64_t blocks_asked = cl.number("--blocks", 1, 1u << 20, 0);
    ch12::require_cuda_device(cl.name());

    Shape sh;
    sh.registers = cl.has("--registers");
    sh.kernel = sh.registers ? seed_grow_work<true> : seed_grow_work<false>;
    int sms = 0, per_sm = 0;
    const Status fits = occupancy(sh.kernel, &sms, &per_sm);
    if (!fits.ok()) return ch12::exit_status(fits, cl.name());
    // One block of 256 threads per SM unless asked otherwise: the slots the
    // cutoff emerges from. A cooperative kernel's blocks must all run at once.
    const uint64_t most = (uint64_t)sms * per_sm;
    if (blocks_asked > most)
        cl.fail("--blocks " + std::to_string(blocks_asked) + ": this GPU runs at most " + std::to_string(most) +
                " blocks of this kernel at once (" + std::to_string(sms) + " SMs x " + std::to_string(per_sm) + ")");
    sh.blocks = blocks_asked ? (uint32_t)blocks_asked : (uint32_t)sms;
    // Frames and task lists, sized for the depth: a frame is a call that
    // split, and no evaluation makes more calls than its nodes and leaves
    // (S(d) + 2^d); past that, the fixed caps that reach depth 23 on the
    // H200 (the kernel reports an overflow rather than write past them).
    const uint64_t calls = tree::S(depth) + (uint64_t(1) << depth) + 1;
    sh.list_capacity = (uint32_t)std::min<uint64_t>(calls, 1u << 22);
    sh.frame_capacity = (uint32_t)std::min<uint64_t>(calls, 1u << 26);
    const size_t extra = 3ull * sh.list_capacity * sizeof(Task) + (size_t)sh.frame_capacity * sizeof(Frame);

    tree::Evaluation e{depth, cl.name(), "SEED / GROW / WORK evaluator", extra};
    bool all_written = false;
    const Status s = tree::run_evaluation(
        e,
        [&](uint64_t* heap, Tree input, uint64_t first_free, cudaEvent_t start, cudaEvent_t stop,
            std::vector<std::string>& notes, Tree* out) {
            return sort_phase(sh, depth, heap, input, first_free, start, stop, notes, out);
        },
        &all_written);
    return ch12::exit_status(s, cl.name(), all_written ? 0 : 1);
}
