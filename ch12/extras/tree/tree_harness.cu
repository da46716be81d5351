// ch12/extras/tree/tree_harness.cu -- the harness around a GPU evaluator of
// the tree formulation (see tree_harness.h): the input, the checksum, the heap
// check, the timing and the printed lines. Compiled once, linked by both
// evaluators.
#include "tree_harness.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tree_device.cuh"

namespace tree {

namespace {

// gen(d, 0) in heap order: node p has children 2p+1, 2p+2; the path from the
// root picks 2x+1 going left and 2x going right, as gen does.
__global__ void gen_kernel(uint64_t* heap, int d) {
    const uint64_t p = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= G(d)) return;
    const int level = 63 - __clzll((long long)(p + 1));
    const uint64_t path = (p + 1) - (uint64_t(1) << level);  // 0 = left
    const uint32_t x = (uint32_t)(~path & ((uint64_t(1) << level) - 1));
    Tree l, r;
    if (level < d - 1) { l = node_word(2 * p + 1); r = node_word(2 * p + 2); }
    else { l = leaf(2 * x + 1); r = leaf(2 * x); }
    make_node(heap, p, l, r);
}

// Subtree j of the 2^k at depth k: its leaves' r = r * 31 + v, left to right.
__global__ void checksum_kernel(const uint64_t* heap, Tree root, int k, uint32_t* out) {
    const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= (1u << k)) return;
    const DeviceHeap h{const_cast<uint64_t*>(heap)};
    Tree t = root;
    for (int level = k - 1; level >= 0; --level) {
        const Kids c = h.children(t);
        t = ((j >> level) & 1) ? c.r : c.l;
    }
    Tree stack[64];
    int top = 0;
    uint32_t r = 0;
    stack[top++] = t;
    while (top > 0) {
        const Tree x = stack[--top];
        if (is_leaf(x)) { r = r * 31u + value(x); continue; }
        const Kids c = h.children(x);
        stack[top++] = c.r;
        stack[top++] = c.l;
    }
    out[j] = r;
}

__global__ void count_unwritten(const uint64_t* heap, uint64_t nodes, unsigned long long* count) {
    unsigned long long mine = 0;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nodes; i += (uint64_t)gridDim.x * blockDim.x)
        if (heap[2 * i] == ~0ull || heap[2 * i + 1] == ~0ull) mine++;
    if (mine) atomicAdd(count, mine);
}

struct Events {
    cudaEvent_t e[5] = {};
    ~Events() { for (cudaEvent_t x : e) if (x) cudaEventDestroy(x); }
};

Status evaluate(const Evaluation& e, const SortPhase& sort_phase, std::vector<std::string>& lines, bool* all_written) {
    const int depth = e.depth;
    const uint64_t gen_nodes = G(depth), sort_nodes = S(depth);
    const uint64_t nodes = gen_nodes + sort_nodes;
    const double GB = 1e9;

    size_t free_bytes = 0, total_bytes = 0;
    CH12_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    const uint64_t heap_bytes = nodes * 16, slack = 256ull << 20;  // the checksum's parts and CUDA's own needs
    if (heap_bytes + e.extra_bytes + slack > free_bytes) {
        char text[512];
        std::snprintf(text, sizeof text,
                      "skipped: depth %d needs %.2f GB of GPU memory (%.2f GB of heap for %llu nodes, "
                      "%.2f GB for the evaluator, 0.27 GB of working space), but only %.2f GB of %.2f GB are free",
                      depth, (heap_bytes + e.extra_bytes + slack) / GB, heap_bytes / GB,
                      (unsigned long long)nodes, e.extra_bytes / GB, free_bytes / GB, total_bytes / GB);
        return ch12::failure(ch12::Errc::cannot_run_here, text);
    }

    ch12::DeviceBuffer<uint64_t> heap;
    ch12::DeviceBuffer<unsigned long long> unwritten;
    CH12_TRY(heap.allocate(2 * nodes));
    CH12_TRY(unwritten.allocate(1));
    CH12_TRY(cudaMemset(heap.get(), 0xFF, heap_bytes));  // poison: ~0 is no valid tree word
    CH12_TRY(cudaMemset(unwritten.get(), 0, sizeof(unsigned long long)));
    Events ev;
    for (cudaEvent_t& x : ev.e) CH12_TRY(cudaEventCreate(&x));

    // gen: the input tree, nodes [0, 2^d - 1), root = node 0
    CH12_TRY(cudaEventRecord(ev.e[0]));
    gen_kernel<<<(unsigned)((gen_nodes + 255) / 256), 256>>>(heap.get(), depth);
    CH12_TRY(ch12::kernel_launch("gen_kernel launch"));
    CH12_TRY(cudaEventRecord(ev.e[1]));
    CH12_TRY(cudaEventSynchronize(ev.e[1]));

    // sort: the evaluator (its own setup comes before it records e[2])
    std::vector<std::string> notes;
    Tree root = 0;
    const Status sorted = sort_phase(heap.get(), node_word(0), gen_nodes, ev.e[2], ev.e[3], notes, &root);
    if (!sorted.ok()) return sorted;

    // checksum: 2^k subtrees in parallel, combined on the host in order
    const int k = std::min(depth, 14);
    ch12::DeviceBuffer<uint32_t> d_parts;
    CH12_TRY(d_parts.allocate(size_t(1) << k));
    checksum_kernel<<<((1u << k) + 255) / 256, 256>>>(heap.get(), root, k, d_parts.get());
    CH12_TRY(ch12::kernel_launch("checksum_kernel launch"));
    std::vector<uint32_t> parts(size_t(1) << k);
    CH12_TRY(cudaMemcpy(parts.data(), d_parts.get(), parts.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    uint32_t pow31 = 1;  // 31^(leaves per subtree)
    for (uint64_t i = 0; i < (uint64_t(1) << (depth - k)); ++i) pow31 *= 31u;
    uint32_t sum = 0;
    for (uint32_t p : parts) sum = sum * pow31 + p;
    CH12_TRY(cudaEventRecord(ev.e[4]));
    CH12_TRY(cudaEventSynchronize(ev.e[4]));

    count_unwritten<<<1024, 256>>>(heap.get(), nodes, unwritten.get());
    CH12_TRY(ch12::kernel_launch("count_unwritten launch"));
    unsigned long long missing = 0;
    CH12_TRY(cudaMemcpy(&missing, unwritten.get(), sizeof missing, cudaMemcpyDeviceToHost));

    float gen_ms = 0, sort_ms = 0, sum_ms = 0;
    CH12_TRY(cudaEventElapsedTime(&gen_ms, ev.e[0], ev.e[1]));
    CH12_TRY(cudaEventElapsedTime(&sort_ms, ev.e[2], ev.e[3]));
    CH12_TRY(cudaEventElapsedTime(&sum_ms, ev.e[3], ev.e[4]));
    int device = 0;
    CH12_TRY(cudaGetDevice(&device));
    cudaDeviceProp prop;
    CH12_TRY(cudaGetDeviceProperties(&prop, device));

    char line[512];
    std::snprintf(line, sizeof line, "tree bitonic sort, %s on %s, depth %d (%llu leaves)", e.what, prop.name, depth,
                  (unsigned long long)(uint64_t(1) << depth));
    lines.push_back(line);
    std::snprintf(line, sizeof line, "checksum: %u", sum);
    lines.push_back(line);
    std::snprintf(line, sizeof line, "nodes: gen %llu, sort %llu, total %llu", (unsigned long long)gen_nodes,
                  (unsigned long long)sort_nodes, (unsigned long long)nodes);
    lines.push_back(line);
    std::snprintf(line, sizeof line, "time (ms): gen %.3f, sort %.3f, checksum %.3f", gen_ms, sort_ms, sum_ms);
    lines.push_back(line);
    for (const std::string& n : notes) lines.push_back(n);
    lines.push_back(std::string("every reserved heap node written: ") + (missing == 0 ? "yes" : "NO"));
    *all_written = missing == 0;
    return {};
}

}  // namespace

Status run_evaluation(const Evaluation& e, const SortPhase& sort_phase, bool* all_written) {
    std::vector<std::string> lines;
    const Status st = evaluate(e, sort_phase, lines, all_written);
    if (st.code == ch12::Errc::cuda && st.error == (int)cudaErrorMemoryAllocation)  // an allocation that failed
        return ch12::failure(ch12::Errc::cannot_run_here,
                             "skipped: too little GPU memory for depth " + std::to_string(e.depth) + ": " + st.detail,
                             st.error);
    if (!st.ok()) return st;
    for (const std::string& l : lines) std::printf("%s\n", l.c_str());
    return {};
}

}  // namespace tree
