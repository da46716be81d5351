// ch12/extras/tree/test_tree_waves_fast.cpp -- CPU simulation of the runtime's
// options (tree_waves_fast.h), run the way tree_bitonic_gpu's fast kernel
// runs them: wave after wave, each wave's tasks in a random order, dealt to
// "warps" of 32 threads; with two tasks per thread a thread holds two; with
// staged stores every thread of the warp first runs its call into its own
// stage, then the warp writes every stage to the heap, then the threads
// deliver their results -- the order the GPU's __syncwarp() enforces. For
// depths 1 to 12, cutoffs 1 to 4 and every combination of the options
// (levels 1-3, joins in series or overlapped, stages of 0, 5 and 32 nodes,
// one or two tasks per thread, or two only in the waves of 65 to 128 tasks:
// "auto" for a grid of 64 threads), the heap must equal, word for word, the
// heap the write-up's sequential form leaves, with the same root; every
// frame written exactly once; no call may see an input that is not a full
// tree; no node read in the wave that wrote it; and splitting three levels
// at once must take fewer waves than one. Exit 0 when all hold.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "check.h"
#include "tree_waves_fast.h"

using namespace tree;
using namespace tree::waves;

namespace {

struct HostMem {
    uint64_t* heap;
    uint32_t* written = nullptr;  // the wave that last wrote each node (0: before the sort)
    uint32_t now = 0;
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

// A register call's stores: its first `limit` nodes into the thread's stage,
// the rest to the heap, as the GPU's StagedHeap does.
struct StagedMem {
    HostMem heap;
    Kids* stage;
    uint64_t base;
    uint32_t limit;
    Kids children(Tree t) const { return heap.children(t); }
    void store(uint64_t i, Tree l, Tree r) const {
        if (i - base < limit) stage[i - base] = Kids{l, r};
        else heap.store(i, l, r);
    }
};

struct HostOps {
    int cutoff;
    fast::Options opt;
    HostMem heap_mem;
    std::vector<uint64_t>* heap;
    std::vector<Frame>* frames;
    std::vector<int>* frame_writes;
    std::vector<Task>* next;
    uint64_t table[4][32];
    Kids* stage = nullptr;  // the current thread's stage
    Tree root = 0;
    bool failed = false;

    HostMem mem() const { return heap_mem; }
    StagedMem call_mem(uint64_t base) const { return StagedMem{heap_mem, stage, base, opt.stage}; }
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
    void push_n(const Task* t, int n) {
        for (int i = 0; i < n; ++i) next->push_back(t[i]);
    }
    uint64_t frames_of(Fn fn, int d) const { return table[fn][d]; }
    void set_root(Tree t) { root = t; }
    void fail() { failed = true; }
};

void gen(std::vector<uint64_t>& heap, int d) {  // as the GPU harness builds gen(d, 0)
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

constexpr int kMax = 4;  // the fast kernel's register calls (cutoffs 1 to 4)
constexpr int kLanes = 32;
constexpr int kThreads = 64;  // the simulated grid, for --tasks auto

// One thread's call in one phase: what it ran, for the warp's stores.
struct Lane {
    bool ran = false;
    Done done;
    Where where;
    uint32_t staged = 0;
    uint64_t base = 0;
};

// The warp writes every thread's stage to the heap (the GPU's flush).
void flush(HostOps& ops, std::vector<std::vector<Kids>>& stages, Lane* lanes) {
    for (int l = 0; l < kLanes; ++l) {
        for (uint32_t k = 0; k < lanes[l].staged; ++k) {
            const Kids& n = stages[l][k];
            if (n.l == ~0ull || n.r == ~0ull) ops.failed = true;  // a staged node the call never wrote
            ops.heap_mem.store(lanes[l].base + k, n.l, n.r);
        }
        std::fill(stages[l].begin(), stages[l].end(), Kids{~0ull, ~0ull});
    }
}

struct Result {
    bool ok;
    uint64_t waves;
    uint64_t paired;  // waves whose threads held two tasks each
};

Result simulate(int depth, int cutoff, const fast::Options& opt, const std::vector<uint64_t>& want, Tree want_root,
                std::mt19937& rng, const char** why) {
    const uint64_t nodes = G(depth) + S(depth);
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
    HostOps ops{cutoff, opt, HostMem{heap.data(), written.data(), 0, &same_wave_read}, &heap, &frames, &writes, &next,
                {}};
    for (int fn = 0; fn < 4; ++fn)
        for (int d = 0; d < 32; ++d) ops.table[fn][d] = frames_of((Fn)fn, d, cutoff);
    std::vector<std::vector<Kids>> stages(kLanes, std::vector<Kids>(opt.stage + 1, Kids{~0ull, ~0ull}));
    uint64_t waves = 0, paired = 0;
    while (!wave.empty()) {
        std::shuffle(wave.begin(), wave.end(), rng);
        ops.heap_mem.now = (uint32_t)waves + 1;
        const size_t n = wave.size();
        const bool pairs = fast::two_tasks(opt, n, kThreads);
        const int per_lane = pairs ? 2 : 1;
        paired += pairs;
        for (size_t first = 0; first < n; first += (size_t)kLanes * per_lane) {  // one warp's tasks
            fast::Held<kMax> held[kLanes];
            bool holding[kLanes] = {};
            if (pairs)
                for (int l = 0; l < kLanes; ++l) {
                    const size_t a = first + l, b = first + kLanes + l;
                    if (b < n) holding[l] = fast::hold<kMax>(ops, wave[a], wave[b], &held[l]);
                }
            for (int phase = 0; phase < per_lane; ++phase) {
                Lane lanes[kLanes];
                for (int l = 0; l < kLanes; ++l) {
                    const size_t i = first + (size_t)phase * kLanes + l;
                    if (i >= n) continue;
                    const Task& t = wave[i];
                    ops.stage = stages[l].data();
                    Lane& x = lanes[l];
                    if (holding[l]) {
                        fast::run_held<kMax>(ops, t, &held[l], &x.done, &x.where);
                        x.ran = true;
                    } else {
                        x.ran = fast::start<kMax>(ops, t, Kids{0, 0}, false, &x.done, &x.where);
                    }
                    if (x.ran && opt.stage) {
                        x.staged = fast::staged_nodes(t, opt.stage);
                        x.base = t.base;
                    }
                }
                if (opt.stage) flush(ops, stages, lanes);
                for (int l = 0; l < kLanes; ++l)
                    if (lanes[l].ran) fast::deliver<kMax>(ops, lanes[l].done, lanes[l].where);
            }
        }
        wave.swap(next);
        next.clear();
        ++waves;
    }
    const bool frames_ok = std::all_of(writes.begin(), writes.end(), [](int w) { return w == 1; });
    *why = ops.failed ? "a call saw a bad input (or a staged node was never written)"
           : ops.root != want_root ? "different root"
           : heap != want          ? "different heap"
           : !frames_ok            ? "a frame not written exactly once"
           : same_wave_read        ? "a node read in the wave that wrote it"
                                   : "";
    return {**why == '\0', waves, paired};
}

}  // namespace

int main() {
    ch12::Checks check(20);
    int runs = 0;
    uint64_t waves_one = 0, waves_three = 0;  // depth 12, cutoff 4
    uint64_t auto_waves = 0, auto_paired = 0;   // all runs with tasks auto
    std::mt19937 rng(2030);
    for (int depth = 1; depth <= 12; ++depth) {
        const uint64_t nodes = G(depth) + S(depth);
        std::vector<uint64_t> want(2 * nodes, ~0ull);
        gen(want, depth);
        const Tree want_root = seq_call(HostMem{want.data()}, kSort, depth, 0, node_word(0), 0, G(depth));
        for (int cutoff = 1; cutoff <= kMax; ++cutoff)
            for (int levels = 1; levels <= fast::kMaxLevels; ++levels)
                for (int overlap = 0; overlap <= 1; ++overlap)
                    for (uint32_t stage : {0u, 5u, 32u})
                        for (int tasks : {fast::kTasksOne, fast::kTasksTwo, fast::kTasksAuto}) {
                            fast::Options opt;
                            opt.levels = levels;
                            opt.overlap = overlap != 0;
                            opt.stage = stage;
                            opt.tasks = tasks;
                            const char* why = "";
                            const Result r = simulate(depth, cutoff, opt, want, want_root, rng, &why);
                            ++runs;
                            if (tasks == fast::kTasksAuto) {
                                auto_waves += r.waves;
                                auto_paired += r.paired;
                            }
                            check(r.ok, r.ok ? std::string()
                                             : "depth " + std::to_string(depth) + ", cutoff " + std::to_string(cutoff) +
                                                   ", levels " + std::to_string(levels) + ", overlap " +
                                                   std::to_string(overlap) + ", stage " + std::to_string(stage) +
                                                   ", tasks " +
                                                   (tasks == fast::kTasksAuto ? "auto" : tasks == 2 ? "2" : "1") +
                                                   ": " + why);
                            if (depth == 12 && cutoff == 4 && !overlap && !stage && tasks == fast::kTasksOne) {
                                if (levels == 1) waves_one = r.waves;
                                if (levels == 3) waves_three = r.waves;
                            }
                        }
    }
    check(auto_paired > 0 && auto_paired < auto_waves,
          "tasks auto held two tasks a thread in " + std::to_string(auto_paired) + " of " + std::to_string(auto_waves) +
              " waves (some, not all, expected)");
    check(waves_three < waves_one, "three levels a split took " + std::to_string(waves_three) +
                                       " waves at depth 12, one level " + std::to_string(waves_one));
    std::printf("tree waves (fast options): %d simulated runs (depths 1-12, cutoffs 1-4, levels 1-3, joins in series "
                "and overlapped, stages 0/5/32, 1, 2 or auto tasks a thread; depth 12: %llu waves with one level a split, "
                "%llu with three) against the sequential form, heap word for word: %s\n",
                runs, (unsigned long long)waves_one, (unsigned long long)waves_three,
                check.ok() ? "all identical" : "FAILED");
    return check.ok() ? 0 : 1;
}
