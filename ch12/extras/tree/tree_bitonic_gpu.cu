// Chapter 12 extra -- the tree formulation of bitonic sort on the GPU, by this
// project's own runtime: persistent threads and a task queue, no barriers.
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
//   that SPLITS: it writes a continuation record (which join runs when its
//   children are done, d, s, where its nodes go, and who waits for its
//   result) and pushes its child calls. The two PARALLEL calls become two
//   tasks; flow's two calls, which depend on each other, become a chain.
// * Joins in continuations. A finished call delivers its result into its
//   parent's record and decrements the record's counter; the thread that
//   brings it to zero runs the join at once -- Node(l, r), warp's three
//   nodes, or the next call (flow after sort, down after warp) -- and
//   delivers that result further up, in a loop.
// * No waves. The first version ran the ready tasks in waves separated by
//   grid.sync(): about 970 waves at depth 20, each as slow as its slowest
//   task, mostly narrow. Here every thread of a persistent kernel takes the
//   next task from one queue as soon as it is idle, so a task starts the
//   moment its inputs exist. The queue is a ticket queue: an idle group of
//   threads claims the next slots with one atomic add, and each thread waits
//   on its slot's ready flag until a producer has written a task there (or
//   the sort is done). Producers reserve slots with one atomic per warp too.
//   Slots are never reused (every task of the run gets its own).
// * Heap ranges reserved in advance (tree_gpu.cuh): a split costs no
//   allocation, and the runtime checks afterwards that every reserved node
//   was written exactly as planned.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cli.h"
#include "cuda_check.h"
#include "tree_bitonic.h"
#include "tree_gpu.cuh"

using namespace tree;

constexpr int kThreads = 256;

enum Kind : uint32_t { kRoot, kSortJoin, kFlowThenDown, kDownJoin, kWarpJoin };

struct alignas(16) Task {  // 32 bytes
    uint8_t fn, d, s, slot;
    uint32_t cont;         // the record waiting for this call's result
    Tree a, b;             // arguments (b: warp's second tree)
    uint64_t base;         // first heap node of this call's range
};

struct alignas(16) Record {  // a continuation: 48 bytes
    uint32_t kind, d, s, pending;
    uint32_t parent, parent_slot;
    uint64_t base;           // where the join's own nodes (or down's range) start
    Tree result[2];
};

struct Runtime {
    uint64_t* heap;
    Task* queue;
    uint32_t* ready;         // ready[i] = 1 once queue[i] holds a task
    uint32_t* head;          // the next slot to claim
    uint32_t* tail;          // the next slot to fill
    uint32_t capacity;
    Record* records;
    uint32_t* record_count;
    uint32_t* done;
    int cutoff;
};

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

__device__ __forceinline__ void store_task(Task* p, const Task& t) {
    __stcg(reinterpret_cast<ulonglong2*>(p), reinterpret_cast<const ulonglong2*>(&t)[0]);
    __stcg(reinterpret_cast<ulonglong2*>(p) + 1, reinterpret_cast<const ulonglong2*>(&t)[1]);
}
__device__ __forceinline__ Task load_task(const Task* p) {
    const ulonglong2* q = reinterpret_cast<const ulonglong2*>(p);
    Task t;
    reinterpret_cast<ulonglong2*>(&t)[0] = __ldcg(q);
    reinterpret_cast<ulonglong2*>(&t)[1] = __ldcg(q + 1);
    return t;
}

// Puts n tasks in the queue: reserve, write, then raise each slot's flag.
__device__ void push(const Runtime& rt, const Task* tasks, uint32_t n) {
    const uint32_t i = aggregated_add(rt.tail, n);
    for (uint32_t k = 0; k < n; ++k) store_task(&rt.queue[i + k], tasks[k]);
    __threadfence();
    for (uint32_t k = 0; k < n; ++k) atomicExch(&rt.ready[i + k], 1u);
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
__device__ bool start(const Runtime& rt, const Task& t, Tree* out) {
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
            const uint32_t r = new_record(rt, kSortJoin, d, s, 2, t.cont, t.slot, t.base + 2 * cS[d - 1]);
            kids[0] = make_task(kSort, d - 1, 0, c.x, 0, t.base, r, 0);
            kids[1] = make_task(kSort, d - 1, 1, c.y, 0, t.base + cS[d - 1], r, 1);
            push(rt, kids, 2);
            break;
        }
        case kFlow: {  // [warp(d-1) | down(d)]
            const ulonglong2 c = children(rt.heap, t.a);
            const uint32_t r = new_record(rt, kFlowThenDown, d, s, 1, t.cont, t.slot, t.base + cW[d - 1]);
            kids[0] = make_task(kWarp, d - 1, s, c.x, c.y, t.base, r, 0);
            push(rt, kids, 1);
            break;
        }
        case kDown: {  // [flow(d-1) | flow(d-1) | Node]
            const ulonglong2 c = children(rt.heap, t.a);
            const uint32_t r = new_record(rt, kDownJoin, d, s, 2, t.cont, t.slot, t.base + 2 * cF[d - 1]);
            kids[0] = make_task(kFlow, d - 1, s, c.x, 0, t.base, r, 0);
            kids[1] = make_task(kFlow, d - 1, s, c.y, 0, t.base + cF[d - 1], r, 1);
            push(rt, kids, 2);
            break;
        }
        default: {  // warp: [warp(d-1) | warp(d-1) | 3 Nodes]
            const ulonglong2 ca = children(rt.heap, t.a), cb = children(rt.heap, t.b);
            const uint32_t r = new_record(rt, kWarpJoin, d, s, 2, t.cont, t.slot, t.base + 2 * cW[d - 1]);
            kids[0] = make_task(kWarp, d - 1, s, ca.x, cb.x, t.base, r, 0);
            kids[1] = make_task(kWarp, d - 1, s, ca.y, cb.y, t.base + cW[d - 1], r, 1);
            push(rt, kids, 2);
            break;
        }
    }
    return false;
}

// Hands a finished call's result to the record waiting for it; the thread
// that completes a record runs its join, and so on up the chain.
__device__ void deliver(const Runtime& rt, Tree result, uint32_t cont, uint32_t slot, Tree* root) {
    for (;;) {
        Record* R = &rt.records[cont];
        __stcg(&R->result[slot], result);
        __threadfence();
        if (atomicSub(&R->pending, 1u) != 1u) return;  // the other child is still running
        __threadfence();
        const Tree x = __ldcg(&R->result[0]);
        const Tree y = __ldcg(&R->result[1]);
        const uint32_t kind = __ldcg(&R->kind), d = __ldcg(&R->d), s = __ldcg(&R->s);
        const uint64_t base = __ldcg(&R->base);
        cont = __ldcg(&R->parent);
        slot = __ldcg(&R->parent_slot);
        switch (kind) {
            case kRoot:
                *root = x;
                __threadfence();
                atomicExch(rt.done, 1u);
                return;
            case kSortJoin: {  // flow(d, s, Node(l, r))
                const Tree n = make_node(rt.heap, base, x, y);
                if (!start(rt, make_task(kFlow, d, s, n, 0, base + 1, cont, slot), &result)) return;
                break;
            }
            case kFlowThenDown:  // down(d, s, warp's result)
                if (!start(rt, make_task(kDown, d, s, x, 0, base, cont, slot), &result)) return;
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

// Every thread: claim the next slot, wait for its task (or the end), run it.
__global__ void __launch_bounds__(kThreads) evaluate(Runtime rt, Tree* root) {
    for (;;) {
        const uint32_t slot = aggregated_add(rt.head, 1);
        if (slot >= rt.capacity) return;  // more claims than the run has tasks: only at the end
        for (;;) {
            if (*(volatile uint32_t*)&rt.ready[slot]) break;
            if (*(volatile uint32_t*)rt.done) return;
            __nanosleep(64);
        }
        __threadfence();
        const Task t = load_task(&rt.queue[slot]);
        Tree result;
        if (start(rt, t, &result)) deliver(rt, result, t.cont, t.slot, root);
    }
}

// Host-side counts of what the runtime will create, for sizing its arrays.
struct Plan {
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
    const uint64_t records = plan.splits(kSort, depth) + 1;
    const uint64_t tasks = 2 * records + 1;  // every task ever pushed has a slot of its own
    if (tasks >= (uint64_t(1) << 31)) {
        fprintf(stderr, "%s: depth %d with cutoff %d makes too many tasks for this runtime; raise the cutoff\n",
                cl.name(), depth, cutoff);
        return 1;
    }
    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, evaluate, kThreads, 0));
    const size_t extra = records * sizeof(Record) + tasks * (sizeof(Task) + sizeof(uint32_t));

    tree::Evaluation e{depth, cl.name(), "task runtime (persistent threads, one queue)", extra};
    return tree::run_evaluation(e, [&](uint64_t* heap, Tree input, uint64_t first_free, cudaEvent_t start,
                                       cudaEvent_t stop, std::vector<std::string>& notes) {
        Runtime rt{};
        rt.heap = heap;
        rt.cutoff = cutoff;
        rt.capacity = (uint32_t)tasks;
        Tree* d_root = nullptr;
        CUDA_CHECK(cudaMalloc(&rt.queue, tasks * sizeof(Task)));
        CUDA_CHECK(cudaMalloc(&rt.ready, tasks * sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc(&rt.head, sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc(&rt.tail, sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc(&rt.records, records * sizeof(Record)));
        CUDA_CHECK(cudaMalloc(&rt.record_count, sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc(&rt.done, sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc(&d_root, sizeof(Tree)));
        CUDA_CHECK(cudaMemset(rt.ready, 0, tasks * sizeof(uint32_t)));
        CUDA_CHECK(cudaMemset(rt.head, 0, sizeof(uint32_t)));
        CUDA_CHECK(cudaMemset(rt.done, 0, sizeof(uint32_t)));
        CUDA_CHECK(cudaMemset(d_root, 0, sizeof(Tree)));
        // Record 0 waits for the whole sort; the queue starts with sort(d, 0, input).
        const Record root_record{kRoot, 0, 0, 1, 0, 0, 0, {0, 0}};
        const Task first = {kSort, (uint8_t)depth, 0, 0, 0, input, 0, first_free};
        const uint32_t one = 1;
        CUDA_CHECK(cudaMemcpy(rt.records, &root_record, sizeof root_record, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(rt.record_count, &one, sizeof one, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(rt.queue, &first, sizeof first, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(rt.ready, &one, sizeof one, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(rt.tail, &one, sizeof one, cudaMemcpyHostToDevice));
        // Recursion below the cutoff runs on the thread's stack: seq_sort ->
        // seq_flow -> seq_down -> ... is at most about 3 (C + 1) frames deep.
        CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 2048 + 256 * (cutoff + 1)));

        CUDA_CHECK(cudaEventRecord(start));
        evaluate<<<sms * per_sm, kThreads>>>(rt, d_root);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));

        Tree root = 0;
        uint32_t used_records = 0, pushed = 0;
        CUDA_CHECK(cudaMemcpy(&root, d_root, sizeof root, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&used_records, rt.record_count, sizeof used_records, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&pushed, rt.tail, sizeof pushed, cudaMemcpyDeviceToHost));
        char line[256];
        snprintf(line, sizeof line, "runtime: %u tasks, %u continuation records (planned %llu), cutoff %d, %d x %d threads",
                 pushed, used_records, (unsigned long long)records, cutoff, sms * per_sm, kThreads);
        notes.push_back(line);
        if (used_records != records) {
            fprintf(stderr, "%s: %u continuation records made, %llu planned: BUG\n", cl.name(), used_records,
                    (unsigned long long)records);
            exit(1);
        }
        CUDA_CHECK(cudaFree(d_root));
        CUDA_CHECK(cudaFree(rt.done));
        CUDA_CHECK(cudaFree(rt.record_count));
        CUDA_CHECK(cudaFree(rt.records));
        CUDA_CHECK(cudaFree(rt.tail));
        CUDA_CHECK(cudaFree(rt.head));
        CUDA_CHECK(cudaFree(rt.ready));
        CUDA_CHECK(cudaFree(rt.queue));
        return root;
    });
}
