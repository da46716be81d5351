// ch12/extras/tree/test_tree_waves.cpp -- CPU simulation of the project's
// runtime (tree_waves.h), the code tree_bitonic_gpu runs on every GPU thread:
// wave after wave, each wave's tasks run one by one in a random order (so a
// frame's second sub-call may come first, or last), every join done by
// whichever sub-call arrives second, exactly as on the GPU. For depths 1 to
// 12 and cutoffs 1 to 5, the heap it leaves must equal, word for word, the
// heap the write-up's sequential form leaves (seq_call), with the same root;
// every reserved frame must be written exactly once, and no call may see an
// input that is not a full tree. And no node may be read in the wave that
// wrote it: on the GPU only the barrier between waves makes a write visible
// to other threads (the meeting atomic is relaxed). Exit 0 when all hold.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "check.h"
#include "tree_waves.h"

using namespace tree;
using namespace tree::waves;

// The heap, and the wave that last wrote each node (0: before the sort).
struct HostMem {
    uint64_t* heap;
    uint32_t* written = nullptr;  // per node
    uint32_t now = 0;             // the current wave (from 1)
    bool* same_wave_read = nullptr;
    Kids children(Tree t) const {
        if (written && written[t / 2] == now) *same_wave_read = true;
        return {heap[t], heap[t + 1]};
    }
    void store(uint64_t i, Tree l, Tree r) const {
        heap[2 * i] = l;
        heap[2 * i + 1] = r;
        if (written) written[i] = now;
    }
};

struct HostOps {
    int cutoff;
    HostMem heap_mem;
    std::vector<uint64_t>* heap;
    std::vector<Frame>* frames;
    std::vector<int>* frame_writes;
    std::vector<Task>* next;
    uint64_t table[4][32];
    Tree root = 0;
    bool failed = false;

    HostMem mem() const { return heap_mem; }
    Kids children(Tree t) const { return mem().children(t); }
    void store(uint64_t i, Tree l, Tree r) { mem().store(i, l, r); }
    void store_half(uint64_t i, int side, Tree w) {
        (*heap)[2 * i + side] = w;
        heap_mem.written[i] = heap_mem.now;
    }
    FrameHead head(uint32_t f) const { return (*frames)[f].head; }
    void write_frame(uint32_t f, const FrameHead& h) {
        (*frames)[f].head = h;
        (*frames)[f].results = 0;
        (*frame_writes)[f]++;
    }
    uint64_t meet(uint32_t f, uint64_t bits) {
        const uint64_t before = (*frames)[f].results;
        (*frames)[f].results |= bits;
        return before;
    }
    void push(const Task& a) { next->push_back(a); }
    void push(const Task& a, const Task& b) {
        next->push_back(a);
        next->push_back(b);
    }
    uint64_t frames_of(Fn fn, int d) const { return table[fn][d]; }
    void set_root(Tree t) { root = t; }
    void fail() { failed = true; }
};

// gen(d, 0) in heap order, as the GPU harness builds it: node p has children
// 2p+1 and 2p+2; the path from the root picks 2x+1 going left, 2x going right.
static void gen(std::vector<uint64_t>& heap, int d) {
    for (uint64_t p = 0; p < G(d); ++p) {
        int level = 0;
        while ((uint64_t(2) << level) <= p + 1) ++level;
        const uint64_t path = (p + 1) - (uint64_t(1) << level);
        const uint32_t x = (uint32_t)(~path & ((uint64_t(1) << level) - 1));
        if (level < d - 1) {
            heap[2 * p] = node_word(2 * p + 1);
            heap[2 * p + 1] = node_word(2 * p + 2);
        } else {
            heap[2 * p] = leaf(2 * x + 1);
            heap[2 * p + 1] = leaf(2 * x);
        }
    }
}

int main() {
    ch12::Checks check(1 << 30);  // every failing run printed
    int runs = 0;
    uint64_t most_waves = 0;
    std::mt19937 rng(2026);
    for (int depth = 1; depth <= 12; ++depth) {
        const uint64_t nodes = G(depth) + S(depth);
        std::vector<uint64_t> want(2 * nodes, ~0ull);
        gen(want, depth);
        const Tree want_root = seq_call(HostMem{want.data()}, kSort, depth, 0, node_word(0), 0, G(depth));
        for (int cutoff = 1; cutoff <= 5; ++cutoff) {
            std::vector<uint64_t> heap(2 * nodes, ~0ull);
            gen(heap, depth);
            const uint64_t nframes = 1 + frames_of(kSort, depth, cutoff);
            std::vector<Frame> frames(nframes);
            std::vector<int> writes(nframes, 0);
            frames[0].head.kind = kRoot;
            writes[0] = 1;
            std::vector<Task> wave{make_task(kSort, depth, 0, 0, 0, 1, node_word(0), 0, G(depth))}, next;
            std::vector<uint32_t> written(nodes, 0);
            bool same_wave_read = false;
            HostOps ops{cutoff, HostMem{heap.data(), written.data(), 0, &same_wave_read}, &heap, &frames, &writes, &next, {}};
            for (int fn = 0; fn < 4; ++fn)
                for (int d = 0; d < 32; ++d) ops.table[fn][d] = frames_of((Fn)fn, d, cutoff);
            uint64_t waves = 0;
            while (!wave.empty()) {
                std::shuffle(wave.begin(), wave.end(), rng);
                ops.heap_mem.now = (uint32_t)waves + 1;
                for (const Task& t : wave) run<5>(ops, t);
                wave.swap(next);
                next.clear();
                ++waves;
            }
            most_waves = std::max(most_waves, waves);
            const bool frames_ok = std::all_of(writes.begin(), writes.end(), [](int w) { return w == 1; });
            const bool ok = !ops.failed && ops.root == want_root && heap == want && frames_ok && !same_wave_read;
            ++runs;
            check(ok, ok ? std::string()
                         : "depth " + std::to_string(depth) + ", cutoff " + std::to_string(cutoff) + ":" +
                               (ops.failed ? " a call saw a bad input;" : "") +
                               (ops.root != want_root ? " different root;" : "") + (heap != want ? " different heap;" : "") +
                               (frames_ok ? "" : " a frame not written exactly once;") +
                               (same_wave_read ? " a node read in the wave that wrote it;" : ""));
        }
    }
    std::printf("tree waves: %d simulated runs (depths 1-12, cutoffs 1-5, up to %llu waves) against the sequential "
                "form, heap word for word, nothing read in the wave that wrote it: %s\n", runs, (unsigned long long)most_waves, check.ok() ? "all identical" : "FAILED");
    return check.ok() ? 0 : 1;
}
