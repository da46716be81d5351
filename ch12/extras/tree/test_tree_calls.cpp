// ch12/extras/tree/test_tree_calls.cpp -- CPU test of tree_bitonic.h and
// tree_calls.h, the code the GPU evaluators run per thread, compiled here for
// the host so that it is checked on every machine:
//   1. the closed forms of the node counts equal the recurrences;
//   2. for every function, depth (sort/flow/down 0..6, warp 0..5) and
//      direction, on random full trees (distinct and repeated values), the
//      register form reg::call() writes exactly the heap the write-up's
//      sequential form seq_call() writes -- same nodes, same indices, same
//      words -- and returns the same root, writing nodes_of(fn, d) nodes;
//   3. reg::call() refuses an input that is not a full tree of its depth.
// Exit 0 when all hold, 1 otherwise.
#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "check.h"
#include "tree_calls.h"

using namespace tree;

struct HostMem {
    uint64_t* heap;
    Kids children(Tree t) const { return {heap[t], heap[t + 1]}; }
    void store(uint64_t i, Tree l, Tree r) const {
        heap[2 * i] = l;
        heap[2 * i + 1] = r;
    }
};

static ch12::Checks check(20);
// One check, named with the call it was made on.
static void expect(bool ok, const char* what, int fn, int d, uint32_t s, int trial) {
    check(ok, ok ? std::string() : std::string(what) + " (fn " + std::to_string(fn) + ", d " + std::to_string(d) +
                                       ", s " + std::to_string(s) + ", trial " + std::to_string(trial) + ")");
}

// A full tree of depth d with the given leaves, built in heap nodes from `next`.
static Tree build(std::vector<uint64_t>& heap, uint64_t& next, int d, const uint32_t* leaves) {
    if (d == 0) return leaf(leaves[0]);
    const Tree l = build(heap, next, d - 1, leaves);
    const Tree r = build(heap, next, d - 1, leaves + (1u << (d - 1)));
    const uint64_t i = next++;
    heap[2 * i] = l;
    heap[2 * i + 1] = r;
    return node_word(i);
}

int main() {
    // 1. closed forms against the recurrences
    uint64_t w = 1, dd = 0, f = 0, s = 0;
    for (int d = 0; d <= 30; ++d) {
        if (d > 0) {
            const uint64_t w_prev = w;
            w = 2 * w + 3;
            dd = 2 * f + 1;
            f = w_prev + dd;
            s = 2 * s + 1 + f;
        }
        expect(W(d) == w && D(d) == dd && F(d) == f && S(d) == s, "closed form differs from the recurrence", -1, d, 0, 0);
    }
    expect(S(20) + G(20) == 402653180ull, "S(20) + G(20) is not 402,653,180", -1, 20, 0, 0);

    // 2. register form == sequential form, heap word for word
    std::mt19937 rng(12345);
    int cases = 0;
    for (int fn = kSort; fn <= kWarp; ++fn) {
        for (int d = 0; d <= reg::kMaxLeafBits; ++d) {
            if (!reg::fits((Fn)fn, d, reg::kMaxLeafBits)) continue;
            for (uint32_t dir = 0; dir <= 1; ++dir) {
                for (int trial = 0; trial < 6; ++trial) {
                    const uint32_t n = 1u << d;
                    std::vector<uint32_t> la(n), lb(n);
                    const uint32_t range = trial < 3 ? 1000000u : 4u;  // distinct-ish, then many repeats
                    for (auto& v : la) v = rng() % range;
                    for (auto& v : lb) v = rng() % range;
                    const uint64_t input_nodes = 2 * n, out = nodes_of((Fn)fn, d);
                    std::vector<uint64_t> a_heap(2 * (input_nodes + out + 8), ~0ull);
                    uint64_t next = 1;  // node 0 unused, so no word is 0
                    const Tree a = build(a_heap, next, d, la.data());
                    const Tree b = fn == kWarp ? build(a_heap, next, d, lb.data()) : 0;
                    const uint64_t base = next + 3;
                    std::vector<uint64_t> b_heap = a_heap;
                    const Tree want = seq_call(HostMem{a_heap.data()}, (Fn)fn, d, dir, a, b, base);
                    bool ok = true;
                    Kids kids{1, 1};
                    const Tree got = reg::call<reg::kMaxLeafBits>(HostMem{b_heap.data()}, (Fn)fn, d, dir, a, b, base, &kids, &ok);
                    expect(ok, "reg::call refused a full tree", fn, d, dir, trial);
                    expect(got == want, "different root", fn, d, dir, trial);
                    if (!is_leaf(want))  // the children it reports are the root's, as written in the heap
                        expect(kids.l == a_heap[want] && kids.r == a_heap[want + 1], "different children of the root", fn, d, dir, trial);
                    expect(a_heap == b_heap, "different heap", fn, d, dir, trial);
                    // exactly nodes_of(fn, d) nodes written, right after base
                    uint64_t written = 0;
                    for (uint64_t i = base; i < a_heap.size() / 2; ++i) written += a_heap[2 * i] != ~0ull;
                    expect(written == out, "node count differs from nodes_of()", fn, d, dir, trial);
                    if (reg::fits((Fn)fn, d, 4)) {  // a kernel built for smaller subtrees: the same heap
                        std::vector<uint64_t> c_heap = a_heap;
                        std::fill(c_heap.begin() + 2 * base, c_heap.end(), ~0ull);
                        bool ok4 = true;
                        Kids kids4;
                        const Tree got4 = reg::call<4>(HostMem{c_heap.data()}, (Fn)fn, d, dir, a, b, base, &kids4, &ok4);
                        expect(ok4 && got4 == want && c_heap == a_heap, "reg::call<4> differs", fn, d, dir, trial);
                    }
                    ++cases;
                }
            }
        }
    }

    // 3. not a full tree of the depth asked: refused
    {
        std::vector<uint64_t> heap(64, ~0ull);
        uint64_t next = 1;
        const uint32_t leaves[4] = {4, 3, 2, 1};
        const Tree t = build(heap, next, 2, leaves);
        bool ok = true;
        Kids k;
        reg::call<reg::kMaxLeafBits>(HostMem{heap.data()}, kSort, 3, 0, t, 0, next, &k, &ok);  // depth 3 asked, depth 2 given
        expect(!ok, "a depth-2 tree passed as depth 3 was accepted", kSort, 3, 0, 0);
        ok = true;
        reg::call<reg::kMaxLeafBits>(HostMem{heap.data()}, kSort, 1, 0, t, 0, next, &k, &ok);  // depth 1 asked, depth 2 given
        expect(!ok, "a depth-2 tree passed as depth 1 was accepted", kSort, 1, 0, 0);
        ok = true;
        reg::call<reg::kMaxLeafBits>(HostMem{heap.data()}, kWarp, reg::kMaxLeafBits, 0, t, t, next, &k, &ok);
        expect(!ok, "a warp too large for registers was accepted", kWarp, reg::kMaxLeafBits, 0, 0);
    }

    std::printf("tree calls: %d register calls compared with the sequential form, heap word for word: %s\n", cases,
                check.ok() ? "all identical" : "FAILED");
    return check.ok() ? 0 : 1;
}
