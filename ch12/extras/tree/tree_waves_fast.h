// ch12/extras/tree/tree_waves_fast.h -- the runtime of tree_waves.h with the
// changes that its measurements pointed to (NOTES.md), each one an option, so
// that one GPU run can time them all against the runtime as it was. Plain C++
// over the same Ops policy, run on the GPU by tree_bitonic_gpu.cu's fast
// kernel (tree_fast.cuh) and on the CPU by test_tree_waves_fast, which checks
// every option, heap word for word, against the sequential form.
//
// The options (Options below):
//
// * levels: a warp that splits covers up to `levels` tree levels at once. It
//   gathers the top levels of its two inputs breadth first (one round trip a
//   level), writes the frames of every call between it and the sub-calls, and
//   pushes up to 2^levels sub-calls, so a flow's warp needs a third of the
//   waves. The joins are those of one level at a time, unchanged: every
//   frame in between is written as if its call had been a task.
// * overlapped joins: a finished call reads its frame's head and ORs its
//   result in at the same time (the head was written in an earlier wave), so
//   each level of joins costs one round trip, not two. Frame 0 -- the root --
//   is recognised by its index, not by its head.
// * staged stores (the GPU's warp-cooperative stores): a register call writes
//   its first `stage` nodes through Ops::call_mem(), which on the GPU puts them
//   in the thread's slot of shared memory; the warp then writes every
//   thread's nodes with whole-warp stores (flush), before any of its threads
//   delivers its result.
// * two tasks at once: a thread holds two tasks; when both are warps of the
//   largest depth that runs in registers (the calls of the widest waves), their
//   four input subtrees are gathered together, then each runs and delivers in
//   turn. In every wave, or (auto) only in a wave of more than one and at
//   most two tasks a thread, where it turns two passes over the grid into one.
// * dynamic dealing (GPU only, tree_fast.cuh): in a wave of more tasks than
//   the grid has threads, a warp that has run its first 32 takes its next
//   ones from a counter, instead of every 32 * threads-th.
//
// None of it changes what is written: every node at the index the
// sequential form gives it, with the same words, and nothing read in the wave
// that wrote it.
#pragma once

#include <cstdint>

#include "tree_bitonic.h"
#include "tree_calls.h"
#include "tree_waves.h"

// Loops over compile-time bounds, unrolled on the GPU so that their arrays stay in registers.
#ifdef __CUDA_ARCH__
#define TREE_UNROLL _Pragma("unroll")
#else
#define TREE_UNROLL
#endif

namespace tree {
namespace waves {
namespace fast {

constexpr int kMaxLevels = 3;  // a split covers at most 3 levels: 8 sub-calls

enum Tasks : int { kTasksAuto = 0, kTasksOne = 1, kTasksTwo = 2 };

struct Options {
    int levels = 1;          // 1 .. kMaxLevels
    bool overlap = false;    // overlapped joins
    uint32_t stage = 0;      // nodes of a register call staged for the warp's stores (0: none)
    int tasks = kTasksOne;   // tasks a thread holds: one, two, or kTasksAuto (see two_tasks)
    bool dynamic = false;    // dynamic dealing (the GPU's: tree_fast.cuh)
};

// Whether the threads of a wave of n tasks hold two each, `threads` threads
// running it. Auto: where that makes one pass of two (n from threads + 1 to
// 2 * threads); a wave of many tasks a thread keeps one at a time.
TREE_HD bool two_tasks(const Options& o, uint64_t n, uint64_t threads) {
    return o.tasks == kTasksTwo || (o.tasks == kTasksAuto && n > threads && n <= 2 * threads);
}

// Ops provides, besides what tree_waves.h asks for: opt (Options);
// push_n(const Task* t, int n): n tasks of the next wave (n <= 2^kMaxLevels);
// call_mem(base): the Mem a register call at `base` writes through.

// warp(d) split L levels at once (L >= 1; every level above the sub-calls too
// large for registers). The calls of level j (2^j of them, warp(d - j), left
// to right) have their heap ranges and frame ranges laid out as tree_waves.h
// lays out one split: sub-call 0 at the parent's range, sub-call 1 after it.
template <int L, class Ops>
TREE_HD void split_warp(Ops& ops, const Task& t) {
    constexpr int N = 1 << L;
    Tree a[N], b[N];  // the level's input subtrees, left to right
    a[0] = t.a;
    b[0] = t.b;
TREE_UNROLL
    for (int j = 0; j < L; ++j) {  // level j's inputs -> level j+1's: the loads of a level are independent
TREE_UNROLL
        for (int p = (1 << j) - 1; p >= 0; --p) {  // from the back: a[p] is read before a[2p], a[2p+1] are written
            const Kids ca = ops.children(a[p]), cb = ops.children(b[p]);
            a[2 * p] = ca.l;
            a[2 * p + 1] = ca.r;
            b[2 * p] = cb.l;
            b[2 * p + 1] = cb.r;
        }
    }
    uint64_t base[N];
    uint32_t fbase[N], parent[N];
    base[0] = t.base;
    fbase[0] = t.fbase;
    parent[0] = t.frame;
TREE_UNROLL
    for (int j = 0; j < L; ++j) {
        const int d = t.d - j;  // level j holds warp(d) calls, each split into two warp(d - 1)
        const uint64_t half_nodes = W(d - 1);
        const uint64_t half_frames = ops.frames_of(kWarp, d - 1);
TREE_UNROLL
        for (int p = (1 << j) - 1; p >= 0; --p) {
            const uint8_t flags = j == 0 ? t.flags : (uint8_t)(kHalf | (p & 1));
            ops.write_frame(fbase[p], FrameHead{base[p], parent[p], kWarpJoin, (uint8_t)d, t.s, flags});
            const uint64_t b0 = base[p];
            const uint32_t f0 = fbase[p];
            base[2 * p] = b0;
            base[2 * p + 1] = b0 + half_nodes;
            fbase[2 * p] = f0 + 1;
            fbase[2 * p + 1] = (uint32_t)(f0 + 1 + half_frames);
            parent[2 * p] = parent[2 * p + 1] = f0;
        }
    }
    Task sub[N];
TREE_UNROLL
    for (int p = 0; p < N; ++p)
        sub[p] = make_task(kWarp, t.d - L, t.s, (uint8_t)(kHalf | (p & 1)), parent[p], fbase[p], a[p], b[p], base[p]);
    ops.push_n(sub, N);
}

// How many levels a warp(d) split may cover: no sub-call below the largest
// warp that runs in registers (depth cutoff - 1).
TREE_HD int split_levels(int d, int cutoff, int levels) {
    const int room = d - (cutoff - 1);  // >= 1 for a warp too large for registers
    return room < levels ? room : levels;
}

// Starts a call, as tree_waves.h's start() does, with the options: a warp too
// large for registers splits several levels at once; a call in registers
// writes through call_mem(). Returns true (result in *out) when it ran.
template <int kMax, class Ops>
TREE_HD bool start(Ops& ops, Task t, Kids known, bool has_known, Done* out, Where* where) {
    if (t.fn == kFlow && !reg::fits(kFlow, t.d, ops.cutoff)) {
        // flow(d, s, t) = down(d, s, warp(d-1, s, left t, right t)), as in tree_waves.h
        const Kids c = has_known ? known : ops.children(t.a);
        t = make_task(kWarp, t.d - 1, t.s, (uint8_t)((t.flags & kSlot1) | kThenDown), t.frame, t.fbase, c.l, c.r,
                      t.base);
        has_known = false;
    }
    if (reg::fits((Fn)t.fn, t.d, ops.cutoff)) {
        *where = Where{t.frame, t.fbase, t.base, t.d, t.s, t.flags};
        bool ok = true;
        const Tree r =
            reg::call<kMax>(ops.call_mem(t.base), (Fn)t.fn, t.d, t.s, t.a, t.b, t.base, &out->kids, &ok);
        if (!ok || is_leaf(r)) ops.fail();
        out->node = r >> 1;
        return true;
    }
    if (t.fn == kWarp && ops.opt.levels > 1) {
        switch (split_levels(t.d, ops.cutoff, ops.opt.levels)) {
            case 1: split_warp<1>(ops, t); break;
            case 2: split_warp<2>(ops, t); break;
            default: split_warp<3>(ops, t); break;
        }
        return false;
    }
    waves::split(ops, t, known, has_known);  // sort and down: one level, as before
    return false;
}

// A call has finished: as tree_waves.h's deliver(), with the head read and
// the result met in one round trip when opt.overlap is set.
template <int kMax, class Ops>
TREE_HD void deliver(Ops& ops, Done done, Where w) {
    for (;;) {
        if (w.flags & kThenDown) {
            const Task t = make_task(kDown, w.d + 1, w.s, (uint8_t)(w.flags & kSlot1), w.frame,
                                     w.fbase + ops.frames_of(kWarp, w.d), node_word(done.node), 0, w.base + W(w.d));
            if (reg::fits(kDown, t.d, ops.cutoff)) ops.fail();  // (cannot happen: a down splits)
            else waves::split(ops, t, done.kids, true);
            return;
        }
        const int slot = w.flags & kSlot1;
        if (w.flags & kHalf) {
            const uint64_t inner = w.base - (uint64_t)slot * W(w.d) + 2 * W(w.d);
            ops.store_half(inner, slot, done.kids.l);
            ops.store_half(inner + 1, slot, done.kids.r);
        }
        FrameHead h;
        uint64_t before;
        if (ops.opt.overlap) {
            if (w.frame == 0) {  // frame 0 waits for the whole sort
                ops.set_root(node_word(done.node));
                return;
            }
            before = ops.meet(w.frame, done.node << (32 * slot));
            h = ops.head(w.frame);  // no dependence on the meet: both in flight at once
        } else {
            h = ops.head(w.frame);
            if (h.kind == kRoot) {
                ops.set_root(node_word(done.node));
                return;
            }
            before = ops.meet(w.frame, done.node << (32 * slot));
        }
        const uint64_t other = (before >> (32 * (1 - slot))) & 0xFFFFFFFFu;
        if (other == 0) return;
        const Tree l = node_word(slot ? other : done.node), r = node_word(slot ? done.node : other);
        const Where up{h.parent, w.frame, h.base, h.d, h.s, h.flags};
        switch (h.kind) {
            case kDownJoin: {
                const uint64_t i = h.base + 2 * F(h.d - 1);
                ops.store(i, l, r);
                done = Done{i, Kids{l, r}};
                w = up;
                break;
            }
            case kWarpJoin: {
                const uint64_t j = h.base + 2 * W(h.d - 1);
                ops.store(j + 2, node_word(j), node_word(j + 1));
                done = Done{j + 2, Kids{node_word(j), node_word(j + 1)}};
                w = up;
                break;
            }
            default: {  // sort: its flow's warp, in the next wave
                const uint64_t i = h.base + 2 * S(h.d - 1);
                ops.store(i, l, r);
                const uint64_t fbase = w.frame + 1 + 2 * ops.frames_of(kSort, h.d - 1);
                const Task next = make_task(kWarp, h.d - 1, h.s, (uint8_t)((h.flags & kSlot1) | kThenDown),
                                            h.parent, fbase, l, r, i + 1);
                ops.push_n(&next, 1);
                return;
            }
        }
    }
}

// ---- two tasks per thread ---------------------------------------------------------
// The calls of the widest waves are warps of depth kMax - 1 (the largest in
// registers). A thread holding two of them gathers all four input subtrees
// at once, then runs and delivers each in turn: run_held() runs the first
// and moves the second's inputs up, so one copy of the call serves both.
template <int kMax>
struct Held {
    static constexpr int D = kMax - 1;
    reg::Regs<D> x[2], y[2];
    bool ok = true;
};

TREE_HD bool holdable(const Task& t, int kMax, int cutoff) {
    return t.fn == kWarp && t.d == kMax - 1 && reg::fits(kWarp, t.d, cutoff);
}

// Gathers both tasks' inputs when both can be held; returns whether it did.
template <int kMax, class Ops>
TREE_HD bool hold(Ops& ops, const Task& t0, const Task& t1, Held<kMax>* held) {
    if (!holdable(t0, kMax, ops.cutoff) || !holdable(t1, kMax, ops.cutoff)) return false;
    constexpr int D = kMax - 1;
    const auto mem = ops.mem();
    held->x[0] = reg::gather<D>(mem, t0.a, &held->ok);
    held->y[0] = reg::gather<D>(mem, t0.b, &held->ok);
    held->x[1] = reg::gather<D>(mem, t1.a, &held->ok);
    held->y[1] = reg::gather<D>(mem, t1.b, &held->ok);
    return true;
}

// Runs the first held task, t (a warp of depth kMax - 1 on the inputs
// gathered), then moves the second's inputs into the first's place: call it
// with the first task, then with the second.
template <int kMax, class Ops>
TREE_HD void run_held(Ops& ops, const Task& t, Held<kMax>* held, Done* out, Where* where) {
    constexpr int D = kMax - 1;
    *where = Where{t.frame, t.fbase, t.base, t.d, t.s, t.flags};
    if (!held->ok) {
        ops.fail();
        out->node = 0;
        out->kids = Kids{0, 0};
        return;
    }
    auto mem = ops.call_mem(t.base);
    Bump<decltype(mem)> h{mem, t.base};
    const reg::Regs<D + 1> r = reg::warp<D>(h, t.s, held->x[0], held->y[0]);
    const Tree root = reg::result(r, &out->kids);
    out->node = root >> 1;
    held->x[0] = held->x[1];
    held->y[0] = held->y[1];
}

// The nodes a register call stages (the first opt.stage of its range), for
// the warp's stores; 0 for a task that split.
TREE_HD uint32_t staged_nodes(const Task& t, uint32_t stage) {
    const uint64_t n = nodes_of((Fn)t.fn, t.d);
    return (uint32_t)(n < stage ? n : stage);
}

}  // namespace fast
}  // namespace waves
}  // namespace tree
