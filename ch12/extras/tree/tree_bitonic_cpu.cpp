// Chapter 12 extra -- Section 12.3's recursive bitonic sort as four pure
// functions over immutable binary trees: the single-threaded CPU reference.
//
// "Sort the left half ascending, the right half descending, then merge" --
// written here exactly as the evaluator's write-up gives it (warp, flow,
// down, sort; see tree_bitonic.h), over a heap of tree nodes. Nothing is
// ever modified: every Node(...) is a new node. The job is
// checksum(sort(d, 0, gen(d, 0))), which for d = 20 must be 4027056128.
//
//   tree_bitonic_cpu --depth 20        (or: tree_bitonic_cpu 20)
//
// The two calls marked PARALLEL are independent; this reference runs them one
// after the other. The GPU evaluators run them as concurrent GPU tasks and
// must print the same checksum and node counts. Exit status 77: this machine
// has too little memory for the depth asked (16 bytes a node).

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "cli.h"
#include "tree_bitonic.h"
#include "tree_cli.h"

using tree::Tree;

// ---- the heap: two words per node, allocated by bumping a counter --------
static uint64_t* heap = nullptr;
static uint64_t next_node = 0;

using tree::is_leaf;
using tree::leaf;
using tree::value;
static inline Tree left(Tree t) { return heap[t]; }
static inline Tree right(Tree t) { return heap[t + 1]; }
static inline Tree node(Tree l, Tree r) {
    const uint64_t i = next_node++;
    heap[2 * i] = l;
    heap[2 * i + 1] = r;
    return i << 1;
}

// ---- the four functions, as written ----------------------------------------
static Tree warp(int d, uint32_t s, Tree a, Tree b) {
    if (d == 0) {  // compare-and-swap two leaves
        const uint32_t av = value(a), bv = value(b);
        const uint32_t swap = s ^ (av > bv ? 1u : 0u);
        return swap == 0 ? node(leaf(av), leaf(bv)) : node(leaf(bv), leaf(av));
    }
    const Tree l = warp(d - 1, s, left(a), left(b));    // PARALLEL
    const Tree r = warp(d - 1, s, right(a), right(b));  // PARALLEL
    const Tree nl = node(left(l), left(r));
    const Tree nr = node(right(l), right(r));
    return node(nl, nr);
}

static Tree down(int d, uint32_t s, Tree t);

static Tree flow(int d, uint32_t s, Tree t) {
    if (d == 0 || is_leaf(t)) return t;
    const Tree w = warp(d - 1, s, left(t), right(t));
    return down(d, s, w);
}

static Tree down(int d, uint32_t s, Tree t) {
    if (d == 0 || is_leaf(t)) return t;
    const Tree l = flow(d - 1, s, left(t));   // PARALLEL
    const Tree r = flow(d - 1, s, right(t));  // PARALLEL
    return node(l, r);
}

static Tree sort(int d, uint32_t s, Tree t) {
    if (d == 0 || is_leaf(t)) return t;
    const Tree l = sort(d - 1, 0, left(t));   // PARALLEL
    const Tree r = sort(d - 1, 1, right(t));  // PARALLEL
    return flow(d, s, node(l, r));
}

// ---- the input and the checksum ---------------------------------------------
// gen(d, x): leaf(x) at depth 0, else node(gen(d-1, 2x+1), gen(d-1, 2x)):
// 2^d leaves, left to right in descending order.
static Tree gen(int d, uint32_t x) {
    if (d == 0) return leaf(x);
    const Tree l = gen(d - 1, 2 * x + 1);
    const Tree r = gen(d - 1, 2 * x);
    return node(l, r);
}

// The leaves left to right: r = r * 31 + value, in wrapping uint32 arithmetic.
static uint32_t checksum(Tree t) {
    static Tree stack[64 * 2];
    int top = 0;
    uint32_t r = 0;
    stack[top++] = t;
    while (top > 0) {
        const Tree x = stack[--top];
        if (is_leaf(x)) {
            r = r * 31u + value(x);
        } else {
            stack[top++] = right(x);
            stack[top++] = left(x);
        }
    }
    return r;
}

// Host memory this process may still take, in bytes: the least of what the
// system has available, what its control group still allows, and its own
// address-space and data limits (UINT64_MAX where one is not known).
static uint64_t available_memory() {
    uint64_t avail = UINT64_MAX;
    std::ifstream meminfo("/proc/meminfo");
    std::string key, unit;
    uint64_t kib = 0;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:") avail = std::min<uint64_t>(avail, kib * 1024);
    std::ifstream max_file("/sys/fs/cgroup/memory.max"), current_file("/sys/fs/cgroup/memory.current");
    std::string max_text;
    uint64_t current = 0;
    if ((max_file >> max_text) && max_text != "max" && (current_file >> current)) {
        const uint64_t limit = std::strtoull(max_text.c_str(), nullptr, 10);
        avail = std::min<uint64_t>(avail, limit > current ? limit - current : 0);
    }
    for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
        struct rlimit r;
        if (getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY) avail = std::min<uint64_t>(avail, r.rlim_cur);
    }
    return avail;
}

static double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
    ch12::CommandLine cl(argc, argv, "[--depth] D",
                         "  D from 1 to 30: the trees have 2^D leaves (limited in practice by memory:\n"
                         "  16 bytes a node, 402,653,180 nodes = 6.4 GB at D = 20, 68 GB at D = 23)\n"
                         "exit status 77: too little memory here for that depth\n");
    cl.option("--depth").positionals(1);
    cl.parse();
    const int depth = tree::depth_argument(cl);

    const uint64_t nodes = tree::G(depth) + tree::S(depth);
    const uint64_t bytes = nodes * 2 * sizeof(uint64_t);
    const uint64_t slack = 64ull << 20;  // the program itself, its stack and the C library's own
    const uint64_t avail = available_memory();
    if (bytes + slack > avail) {
        fprintf(stderr, "%s: skipped: depth %d needs %.3f GB of memory (%.3f GB of heap for %llu nodes and "
                        "%.3f GB for the program itself), but only %.3f GB are available here\n",
                cl.name(), depth, (bytes + slack) / 1e9, bytes / 1e9, (unsigned long long)nodes, slack / 1e9,
                avail / 1e9);
        return 77;
    }
    heap = static_cast<uint64_t*>(std::malloc(bytes));
    if (!heap) {
        fprintf(stderr, "%s: skipped: cannot allocate %.2f GB for depth %d\n", cl.name(), bytes / 1e9, depth);
        return 77;
    }

    // Touch every page of the heap now, so that the timed phases measure the
    // algorithm and not the operating system handing out fresh pages.
    std::memset(heap, 0, bytes);

    printf("tree bitonic sort, CPU reference (one thread), depth %d (%llu leaves)\n", depth,
           (unsigned long long)(uint64_t(1) << depth));
    auto t0 = std::chrono::steady_clock::now();
    const Tree input = gen(depth, 0);
    const double gen_ms = ms_since(t0);
    const uint64_t gen_nodes = next_node;

    t0 = std::chrono::steady_clock::now();
    const Tree sorted = sort(depth, 0, input);
    const double sort_ms = ms_since(t0);
    const uint64_t sort_nodes = next_node - gen_nodes;

    t0 = std::chrono::steady_clock::now();
    const uint32_t sum = checksum(sorted);
    const double sum_ms = ms_since(t0);

    printf("checksum: %u\n", sum);
    printf("nodes: gen %llu, sort %llu, total %llu\n", (unsigned long long)gen_nodes,
           (unsigned long long)sort_nodes, (unsigned long long)(gen_nodes + sort_nodes));
    printf("time (ms): gen %.3f, sort %.3f, checksum %.3f\n", gen_ms, sort_ms, sum_ms);
    std::free(heap);
    const bool counts_ok = (gen_nodes + sort_nodes == nodes);
    if (!counts_ok) printf("node count differs from the closed form (%llu): BUG\n", (unsigned long long)nodes);
    return counts_ok ? 0 : 1;
}
