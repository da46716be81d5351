// Chapter 12 extra -- the recursive tree formulation of bitonic sort,
// evaluated on the GPU by a task-parallel runtime.
//
//   tree_bitonic_gpu --depth 20 [--cutoff C]
//
// The program is fixed: warp, flow, down and sort exactly as in
// tree_bitonic.h and tree_bitonic_cpu.cpp, every Node(...) a new heap node.
// Only the runtime that evaluates them is ours. Its design:
//
// * Tasks and continuations. A call whose depth is above the cutoff C is a
//   TASK. Running it does not recurse: it SPLITS -- writes a continuation
//   record (what to do when the children are done: which join, d, s, where
//   its own nodes go, and who is waiting for its result) and pushes its
//   child calls as new tasks. The two calls marked PARALLEL become two tasks
//   that run at the same time on different threads; flow's two calls, which
//   depend on each other, become a chain (warp, then a continuation that
//   starts down).
// * Joins in continuations. A finished call delivers its result into its
//   parent's record and decrements the record's counter (one atomic). The
//   thread that brings the counter to zero runs the join right away --
//   Node(l, r) for sort and down, the three nodes of warp, or the next call
//   for flow -- and delivers that result further up, in a loop.
// * Sequential cutoff. A call at depth <= C runs as plain recursion on one
//   thread (the seq_* functions, the four functions written out as in the
//   CPU reference) and delivers its result.
// * Waves, in one cooperative kernel. All ready tasks form a wave; the grid
//   runs it (a grid-stride loop), tasks created meanwhile go to the next
//   wave's queue, and grid.sync() separates waves. No host round trips.
// * Heap allocation without atomics. Every call on full trees of depth d
//   allocates a number of nodes known in advance (tree::Counts). So a call
//   gets a contiguous range of the heap, and hands its children the first
//   parts of it: a split costs no allocation at all, and a sequential call
//   bumps a private pointer through its own range. Every reserved node is
//   written exactly once (checked after the run: the heap starts poisoned).
// * Record and queue slots are taken with warp-aggregated atomics (one
//   atomicAdd per warp, not per thread).
//
// Measured with ncu on the H100/H200 (see README): the waves at the cutoff are
// memory-bound (node writes), the waves above it are short; grid.sync()
// costs a few microseconds per wave.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cooperative_groups.h>

#include "cuda_check.h"
#include "tree_bitonic.h"

namespace cg = cooperative_groups;
using tree::Tree;

enum Fn : uint8_t { kSort, kFlow, kDown, kWarp };
enum Kind : uint32_t { kRoot, kSortJoin, kFlowThenDown, kDownJoin, kWarpJoin };

struct Task {          // 32 bytes
    uint8_t fn, d, s, slot;
    uint32_t cont;     // record waiting for this call's result
    Tree a, b;         // arguments (b: warp's second tree)
    uint64_t base;     // first heap node of this call's range
};

struct Record {        // a continuation
    uint32_t kind, d, s, pending;
    uint32_t parent, parent_slot;
    uint64_t base;     // where the join's own nodes (or down's range) start
    Tree result[2];
};

struct Runtime {
    uint64_t* heap;
    Task* queue[2];
    uint32_t* wave_count;   // wave_count[w]: tasks in wave w
    Record* records;
    uint32_t* record_count;
    uint32_t max_waves;
    int cutoff;
    int* overflow;
};

__constant__ uint64_t cW[40], cD[40], cF[40], cS[40];

// ---- trees ---------------------------------------------------------------
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

// ---- the four functions, sequential (calls at or below the cutoff) --------
struct Bump {
    uint64_t* heap;
    uint64_t next;
    __device__ Tree node(Tree l, Tree r) { return make_node(heap, next++, l, r); }
};

__device__ Tree seq_warp(Bump& h, int d, uint32_t s, Tree a, Tree b) {
    if (d == 0) {
        const uint32_t av = value(a), bv = value(b);
        const uint32_t swap = s ^ (av > bv ? 1u : 0u);
        return swap == 0 ? h.node(leaf(av), leaf(bv)) : h.node(leaf(bv), leaf(av));
    }
    const ulonglong2 ca = children(h.heap, a), cb = children(h.heap, b);
    const Tree l = seq_warp(h, d - 1, s, ca.x, cb.x);
    const Tree r = seq_warp(h, d - 1, s, ca.y, cb.y);
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
    const Tree l = seq_flow(h, d - 1, s, c.x);
    const Tree r = seq_flow(h, d - 1, s, c.y);
    return h.node(l, r);
}

__device__ Tree seq_sort(Bump& h, int d, uint32_t s, Tree t) {
    if (d == 0 || is_leaf(t)) return t;
    const ulonglong2 c = children(h.heap, t);
    const Tree l = seq_sort(h, d - 1, 0, c.x);
    const Tree r = seq_sort(h, d - 1, 1, c.y);
    return seq_flow(h, d, s, h.node(l, r));
}

// ---- the runtime -----------------------------------------------------------
// n consecutive slots of a counter, one atomicAdd per group of converged threads.
__device__ __forceinline__ uint32_t aggregated_add(uint32_t* counter, uint32_t n) {
    const unsigned mask = __activemask();
    const int lane = threadIdx.x & 31;
    const int leader = __ffs(mask) - 1;
    // every active thread asks for the same n here (1 or 2 is per call site)
    const unsigned same = __match_any_sync(mask, n);
    const int my_leader = __ffs(same) - 1;
    uint32_t first = 0;
    if (lane == my_leader) first = atomicAdd(counter, n * __popc(same));
    first = __shfl_sync(same, first, my_leader);
    (void)leader;
    return first + n * __popc(same & ((1u << lane) - 1));
}

__device__ uint32_t new_record(const Runtime& rt, uint32_t kind, int d, uint32_t s, uint32_t pending,
                               uint32_t parent, uint32_t parent_slot, uint64_t base) {
    const uint32_t i = aggregated_add(rt.record_count, 1);
    Record r;
    r.kind = kind; r.d = d; r.s = s; r.pending = pending;
    r.parent = parent; r.parent_slot = parent_slot; r.base = base;
    r.result[0] = r.result[1] = 0;
    rt.records[i] = r;
    return i;
}

__device__ void push(const Runtime& rt, uint32_t wave, const Task* tasks, uint32_t n) {
    const uint32_t next = wave + 1;
    if (next >= rt.max_waves) { *rt.overflow = 1; return; }
    const uint32_t i = aggregated_add(&rt.wave_count[next], n);
    Task* q = rt.queue[next & 1];
    for (uint32_t k = 0; k < n; ++k) q[i + k] = tasks[k];
}

__device__ __forceinline__ Task make_task(Fn fn, int d, uint32_t s, Tree a, Tree b, uint64_t base, uint32_t cont,
                                          uint32_t slot) {
    Task t;
    t.fn = fn; t.d = (uint8_t)d; t.s = (uint8_t)s; t.slot = (uint8_t)slot;
    t.cont = cont; t.a = a; t.b = b; t.base = base;
    return t;
}

// Starts a call: at or below the cutoff it runs right here and returns true
// with its result; above, it splits (record + child tasks) and returns false.
__device__ bool start(const Runtime& rt, uint32_t wave, const Task& t, Tree* out) {
    const int d = t.d;
    const uint32_t s = t.s;
    if (d <= rt.cutoff || ((t.fn != kWarp) && is_leaf(t.a))) {
        Bump h{rt.heap, t.base};
        switch (t.fn) {
            case kSort: *out = seq_sort(h, d, s, t.a); break;
            case kFlow: *out = seq_flow(h, d, s, t.a); break;
            case kDown: *out = seq_down(h, d, s, t.a); break;
            default: *out = seq_warp(h, d, s, t.a, t.b); break;
        }
        return true;
    }
    Task kids[2];
    switch (t.fn) {
        case kSort: {  // [sort(d-1) | sort(d-1) | Node | flow(d)]
            const ulonglong2 c = children(rt.heap, t.a);
            const uint32_t r = new_record(rt, kSortJoin, d, s, 2, t.cont, t.slot, t.base + 2 * cS[d - 1]);
            kids[0] = make_task(kSort, d - 1, 0, c.x, 0, t.base, r, 0);
            kids[1] = make_task(kSort, d - 1, 1, c.y, 0, t.base + cS[d - 1], r, 1);
            push(rt, wave, kids, 2);
            break;
        }
        case kFlow: {  // [warp(d-1) | down(d)]
            const ulonglong2 c = children(rt.heap, t.a);
            const uint32_t r = new_record(rt, kFlowThenDown, d, s, 1, t.cont, t.slot, t.base + cW[d - 1]);
            kids[0] = make_task(kWarp, d - 1, s, c.x, c.y, t.base, r, 0);
            push(rt, wave, kids, 1);
            break;
        }
        case kDown: {  // [flow(d-1) | flow(d-1) | Node]
            const ulonglong2 c = children(rt.heap, t.a);
            const uint32_t r = new_record(rt, kDownJoin, d, s, 2, t.cont, t.slot, t.base + 2 * cF[d - 1]);
            kids[0] = make_task(kFlow, d - 1, s, c.x, 0, t.base, r, 0);
            kids[1] = make_task(kFlow, d - 1, s, c.y, 0, t.base + cF[d - 1], r, 1);
            push(rt, wave, kids, 2);
            break;
        }
        default: {  // warp: [warp(d-1) | warp(d-1) | 3 Nodes]
            const ulonglong2 ca = children(rt.heap, t.a), cb = children(rt.heap, t.b);
            const uint32_t r = new_record(rt, kWarpJoin, d, s, 2, t.cont, t.slot, t.base + 2 * cW[d - 1]);
            kids[0] = make_task(kWarp, d - 1, s, ca.x, cb.x, t.base, r, 0);
            kids[1] = make_task(kWarp, d - 1, s, ca.y, cb.y, t.base + cW[d - 1], r, 1);
            push(rt, wave, kids, 2);
            break;
        }
    }
    return false;
}

// Hands a finished call's result to the record waiting for it; the thread
// that completes a record runs its join, and so on up the chain.
__device__ void deliver(const Runtime& rt, uint32_t wave, Tree result, uint32_t cont, uint32_t slot, Tree* root) {
    for (;;) {
        Record* R = &rt.records[cont];
        __stcg(&R->result[slot], result);
        __threadfence();
        if (atomicSub(&R->pending, 1) != 1) return;  // the other child is still running
        __threadfence();
        const Tree x = __ldcg(&R->result[0]);
        const Tree y = __ldcg(&R->result[1]);
        const uint32_t kind = R->kind, d = R->d, s = R->s;
        const uint64_t base = R->base;
        cont = R->parent;
        slot = R->parent_slot;
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
__global__ void __launch_bounds__(256) evaluate(Runtime rt, Tree* root) {
    cg::grid_group grid = cg::this_grid();
    for (uint32_t wave = 0; wave < rt.max_waves; ++wave) {
        const uint32_t n = __ldcg(&rt.wave_count[wave]);
        if (n == 0) break;
        const Task* q = rt.queue[wave & 1];
        for (uint32_t i = grid.thread_rank(); i < n; i += grid.size()) {
            const Task t = q[i];
            Tree result;
            if (start(rt, wave, t, &result)) deliver(rt, wave, result, t.cont, t.slot, root);
        }
        grid.sync();
    }
}

// ---- input, checksum, and the check that every node was written ------------
// gen(d, 0) in heap order: node p has children 2p+1, 2p+2; the path from the
// root picks 2x+1 going left and 2x going right, as gen does.
__global__ void gen_kernel(uint64_t* heap, int d) {
    const uint64_t p = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= (uint64_t(1) << d) - 1) return;
    const int level = 63 - __clzll((long long)(p + 1));
    const uint64_t path = (p + 1) - (uint64_t(1) << level);        // 0 = left
    const uint32_t x = (uint32_t)(~path & ((uint64_t(1) << level) - 1));
    Tree l, r;
    if (level < d - 1) { l = (2 * p + 1) << 1; r = (2 * p + 2) << 1; }
    else { l = leaf(2 * x + 1); r = leaf(2 * x); }
    make_node(heap, p, l, r);
}

// Subtree j of the 2^k at depth k: its leaves' r = r * 31 + v, left to right.
__global__ void checksum_kernel(const uint64_t* heap, Tree root, int depth, int k, uint32_t* out) {
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
    (void)depth;
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

// Host-side counts of what the runtime will create, for sizing its arrays.
struct Plan {
    const tree::Counts& c;
    int cutoff;
    // splits (records) of a call of fn at depth d
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

static int usage(const char* prog) {
    fprintf(stderr,
            "usage: %s --depth D [--cutoff C]\n"
            "  D from 1 to %d, limited by GPU memory (16 bytes per node: 6.4 GB at depth 20)\n"
            "  C: calls at depth <= C run sequentially on one thread (0 .. 20, default 4)\n",
            prog, tree::kMaxDepth);
    return 2;
}

int main(int argc, char** argv) {
    int depth = 0, cutoff = 4;
    std::vector<char*> args = {argv[0]};
    for (int a = 1; a < argc; ++a) {
        if (std::strcmp(argv[a], "--cutoff") == 0) {
            if (a + 1 >= argc) return usage(argv[0]);
            const char* s = argv[++a];
            if (!*s || std::strlen(s) > 2 || std::strspn(s, "0123456789") != std::strlen(s)) return usage(argv[0]);
            cutoff = std::atoi(s);
            if (cutoff > 20) return usage(argv[0]);
        } else {
            args.push_back(argv[a]);
        }
    }
    if (!tree::parse_depth((int)args.size(), args.data(), &depth)) return usage(argv[0]);
    ch12::require_cuda_device("tree_bitonic_gpu");

    const tree::Counts counts;
    const uint64_t gen_nodes = tree::Counts::G(depth), sort_nodes = counts.S[depth];
    const uint64_t nodes = gen_nodes + sort_nodes;
    const Plan plan{counts, cutoff};
    const uint64_t records = plan.splits(kSort, depth) + 1;
    const uint64_t queue = 2 * records + 1;  // every task ever pushed fits in one wave's queue
    const uint32_t max_waves = 1u << 16;
    const uint64_t bytes = nodes * 16 + records * sizeof(Record) + 2 * queue * sizeof(Task) + max_waves * 4ull;
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes + (256ull << 20) > free_bytes) {
        fprintf(stderr, "tree_bitonic_gpu: depth %d needs %.2f GB of GPU memory (%llu nodes), but only %.2f GB are free\n",
                depth, bytes / 1e9, (unsigned long long)nodes, free_bytes / 1e9);
        return 1;
    }

    CUDA_CHECK(cudaMemcpyToSymbol(cW, counts.W, sizeof(counts.W)));
    CUDA_CHECK(cudaMemcpyToSymbol(cD, counts.D, sizeof(counts.D)));
    CUDA_CHECK(cudaMemcpyToSymbol(cF, counts.F, sizeof(counts.F)));
    CUDA_CHECK(cudaMemcpyToSymbol(cS, counts.S, sizeof(counts.S)));
    // Recursion below the cutoff runs on the thread's stack: seq_sort -> seq_flow
    // -> seq_down -> ... is at most about 3 (C + 1) frames deep.
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 2048 + 256 * (cutoff + 1)));

    Runtime rt{};
    Tree* d_root = nullptr;
    unsigned long long* d_unwritten = nullptr;
    CUDA_CHECK(cudaMalloc(&rt.heap, nodes * 16));
    CUDA_CHECK(cudaMalloc(&rt.queue[0], queue * sizeof(Task)));
    CUDA_CHECK(cudaMalloc(&rt.queue[1], queue * sizeof(Task)));
    CUDA_CHECK(cudaMalloc(&rt.wave_count, max_waves * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&rt.records, records * sizeof(Record)));
    CUDA_CHECK(cudaMalloc(&rt.record_count, sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&rt.overflow, sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_root, sizeof(Tree)));
    CUDA_CHECK(cudaMalloc(&d_unwritten, sizeof(unsigned long long)));
    rt.max_waves = max_waves;
    rt.cutoff = cutoff;
    CUDA_CHECK(cudaMemset(rt.heap, 0xFF, nodes * 16));  // poison: ~0 is no valid tree word
    CUDA_CHECK(cudaMemset(rt.wave_count, 0, max_waves * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemset(rt.overflow, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(d_unwritten, 0, sizeof(unsigned long long)));

    cudaEvent_t e0, e1, e2, e3;
    CUDA_CHECK(cudaEventCreate(&e0)); CUDA_CHECK(cudaEventCreate(&e1));
    CUDA_CHECK(cudaEventCreate(&e2)); CUDA_CHECK(cudaEventCreate(&e3));

    // gen: the input tree, nodes [0, 2^d - 1), root = node 0
    CUDA_CHECK(cudaEventRecord(e0));
    gen_kernel<<<(unsigned)((gen_nodes + 255) / 256), 256>>>(rt.heap, depth);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(e1));

    // sort: one task, sort(d, 0, input), whose result goes to the root record
    const Tree input = 0;
    Record root_record{kRoot, 0, 0, 1, 0, 0, 0, {0, 0}};
    Task first = {kSort, (uint8_t)depth, 0, 0, 0, input, 0, gen_nodes};
    uint32_t one = 1;
    CUDA_CHECK(cudaMemcpy(rt.records, &root_record, sizeof root_record, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(rt.record_count, &one, sizeof one, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(rt.queue[0], &first, sizeof first, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(rt.wave_count, &one, sizeof one, cudaMemcpyHostToDevice));

    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, evaluate, 256, 0));
    void* params[] = {&rt, &d_root};
    CUDA_CHECK(cudaEventRecord(e1));
    CUDA_CHECK(cudaLaunchCooperativeKernel((void*)evaluate, dim3(sms * per_sm), dim3(256), params, 0, 0));
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(e2));

    Tree root = 0;
    int overflow = 0;
    CUDA_CHECK(cudaMemcpy(&root, d_root, sizeof root, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&overflow, rt.overflow, sizeof overflow, cudaMemcpyDeviceToHost));
    if (overflow) {
        fprintf(stderr, "tree_bitonic_gpu: more than %u waves -- internal limit\n", max_waves);
        return 1;
    }

    // checksum: 2^k subtrees in parallel, combined on the host in order
    const int k = std::min(depth, 14);
    uint32_t* d_parts = nullptr;
    CUDA_CHECK(cudaMalloc(&d_parts, (1u << k) * sizeof(uint32_t)));
    checksum_kernel<<<((1u << k) + 255) / 256, 256>>>(rt.heap, root, depth, k, d_parts);
    CUDA_CHECK_LAUNCH();
    std::vector<uint32_t> parts(1u << k);
    CUDA_CHECK(cudaMemcpy(parts.data(), d_parts, parts.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    uint32_t pow31 = 1;  // 31^(leaves per subtree)
    for (uint64_t i = 0; i < (uint64_t(1) << (depth - k)); ++i) pow31 *= 31u;
    uint32_t sum = 0;
    for (uint32_t p : parts) sum = sum * pow31 + p;
    CUDA_CHECK(cudaEventRecord(e3));
    CUDA_CHECK(cudaEventSynchronize(e3));

    count_unwritten<<<1024, 256>>>(rt.heap, nodes, d_unwritten);
    CUDA_CHECK_LAUNCH();
    unsigned long long unwritten = 0;
    uint32_t used_records = 0;
    CUDA_CHECK(cudaMemcpy(&unwritten, d_unwritten, sizeof unwritten, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&used_records, rt.record_count, sizeof used_records, cudaMemcpyDeviceToHost));
    std::vector<uint32_t> waves(max_waves);
    CUDA_CHECK(cudaMemcpy(waves.data(), rt.wave_count, max_waves * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    uint32_t nwaves = 0, widest = 0;
    uint64_t tasks = 0;
    while (nwaves < max_waves && waves[nwaves]) { widest = std::max(widest, waves[nwaves]); tasks += waves[nwaves]; nwaves++; }

    float gen_ms = 0, sort_ms = 0, sum_ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&gen_ms, e0, e1));
    CUDA_CHECK(cudaEventElapsedTime(&sort_ms, e1, e2));
    CUDA_CHECK(cudaEventElapsedTime(&sum_ms, e2, e3));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));

    printf("tree bitonic sort, GPU task runtime on %s, depth %d (%llu leaves), cutoff %d\n", prop.name, depth,
           (unsigned long long)(uint64_t(1) << depth), cutoff);
    printf("checksum: %u\n", sum);
    printf("nodes: gen %llu, sort %llu, total %llu\n", (unsigned long long)gen_nodes,
           (unsigned long long)sort_nodes, (unsigned long long)nodes);
    printf("time (ms): gen %.3f, sort %.3f, checksum %.3f\n", gen_ms, sort_ms, sum_ms);
    printf("runtime: %llu tasks in %u waves (widest %u), %u continuation records, %d x 256 threads\n",
           (unsigned long long)tasks, nwaves, widest, used_records, sms * per_sm);
    printf("every reserved heap node written: %s\n", unwritten == 0 ? "yes" : "NO");

    CUDA_CHECK(cudaFree(d_parts));
    CUDA_CHECK(cudaFree(d_unwritten)); CUDA_CHECK(cudaFree(d_root)); CUDA_CHECK(cudaFree(rt.overflow));
    CUDA_CHECK(cudaFree(rt.record_count)); CUDA_CHECK(cudaFree(rt.records)); CUDA_CHECK(cudaFree(rt.wave_count));
    CUDA_CHECK(cudaFree(rt.queue[1])); CUDA_CHECK(cudaFree(rt.queue[0])); CUDA_CHECK(cudaFree(rt.heap));
    return (unwritten == 0 && used_records == records) ? 0 : 1;
}
