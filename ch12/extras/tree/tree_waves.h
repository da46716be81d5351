// ch12/extras/tree/tree_waves.h -- the project's runtime for the tree
// formulation: how one task starts, splits, and how finished calls are
// joined. Plain C++ over an Ops policy, so that the same code runs on the GPU
// (tree_bitonic_gpu.cu: many threads, waves separated by grid barriers) and in
// a CPU simulation (test_tree_waves.cpp: the waves' tasks in random orders),
// which checks it against the sequential form, heap word for word.
//
// A call whose subtrees hold at most 2^cutoff leaves runs on one thread, in
// registers (reg::call). A larger call SPLITS: it records a continuation
// frame and pushes its sub-calls as tasks of the next wave. The first of the
// two sub-calls to finish leaves its result in the frame; the second finds
// the first's there and runs the JOIN. Each join costs one round trip to
// memory, and splitting costs no allocation:
//
// * Results meet in one atomic. A frame's two results are node indices
//   (32 bits each: depth 23 has 4.3e9 nodes, under 2^32) in one 64-bit word.
//   Each sub-call ORs its result into its half (relaxed: see below why no
//   ordering is needed): the one that sees the other half non-zero runs the
//   join, holding both results by value -- the join itself reads no heap.
// * warp's inner nodes are written by its sub-calls. warp joins with
//   Node(Node(left l, left r), Node(right l, right r)): sub-call l writes the
//   left halves of those two nodes (left l, right l: its own result's
//   children, which it built) and r the right halves, before they meet. The
//   join then writes only the root, whose children's words it can compute.
//   No join reads the heap.
// * flow needs no frame. flow(d, s, t) = down(d, s, warp(d-1, s, left t,
//   right t)): it starts its warp at once, marked "then down"; whoever
//   finishes that warp starts the down, with the warp result's children
//   in hand.
// * Frames, like nodes, have ranges reserved in advance. A call's frames are
//   laid out like its nodes (its own first, then its sub-calls' in order),
//   so a frame's index is known where it is made: no counter, no atomic.
// * Nothing is read in the wave that wrote it. The one join that would go
//   on to read the heap -- sort's, whose flow starts with a warp on the trees
//   its sub-calls just wrote -- pushes that warp to the next wave instead;
//   the barrier between waves makes every write visible. So the
//   meeting atomic needs no ordering at all (relaxed): each level of joins
//   costs one round trip, not a wait for the stores before it as well.
//
// So the runtime reads the heap only where a call starts on a tree someone
// else built (its input's children, or the subtree a register call gathers),
// and writes it exactly as the sequential form would: every Node(...) of the
// definitions, at the same index, with the same words.
#pragma once

#include <cstdint>

#include "tree_bitonic.h"
#include "tree_calls.h"

namespace tree {
namespace waves {

enum Kind : uint8_t { kRoot, kSortJoin, kDownJoin, kWarpJoin };
enum Flags : uint8_t {
    kSlot1 = 1,     // the second sub-call of its frame (else the first)
    kHalf = 2,      // a warp whose result fills half of its parent warp's inner nodes
    kThenDown = 4,  // the warp of a flow: its down comes next
};

struct alignas(16) Task {  // 48 bytes
    uint8_t fn, d, s, flags;
    uint32_t frame;        // the frame waiting for this call's result
    uint32_t fbase;        // this call's reserved range of frames
    uint32_t unused;
    Tree a, b;             // arguments (b: warp's second tree)
    uint64_t base;         // this call's reserved range of heap nodes
    uint64_t unused2;
};

struct alignas(16) FrameHead {  // what a split writes; the join reads it
    uint64_t base;              // the split call's heap range
    uint32_t parent;            // the frame its result goes to
    uint8_t kind, d, s, flags;  // flags: the split call's own (slot, half, then down)
};

struct alignas(32) Frame {
    FrameHead head;
    uint64_t results;  // the sub-calls' result node indices, slot 0 in the low half; 0 = not yet
    uint64_t unused;
};

// A finished call: its result (a node, by index) and that node's children.
struct Done {
    uint64_t node;
    Kids kids;
};


// A call, as far as finishing it is concerned.
struct Where {
    uint32_t frame, fbase;  // where its result goes; its own frame range
    uint64_t base;          // its heap range
    uint8_t d, s, flags;
};

// Frames of one call (its own, if it splits, and all its sub-calls').
// Host-side; the device reads a table of these.
inline uint64_t frames_of(Fn fn, int d, int cutoff) {
    if (reg::fits(fn, d, cutoff)) return 0;
    switch (fn) {
        case kSort: return 1 + 2 * frames_of(kSort, d - 1, cutoff) + frames_of(kFlow, d, cutoff);
        case kFlow: return frames_of(kWarp, d - 1, cutoff) + frames_of(kDown, d, cutoff);  // no frame of its own
        case kDown: return 1 + 2 * frames_of(kFlow, d - 1, cutoff);
        default: return 1 + 2 * frames_of(kWarp, d - 1, cutoff);
    }
}

TREE_HD Task make_task(Fn fn, int d, uint32_t s, uint8_t flags, uint32_t frame, uint64_t fbase, Tree a, Tree b,
                       uint64_t base) {
    Task t{};
    t.fn = fn; t.d = (uint8_t)d; t.s = (uint8_t)s; t.flags = flags;
    t.frame = frame; t.fbase = (uint32_t)fbase; t.a = a; t.b = b; t.base = base;
    return t;
}

// Ops provides: cutoff; mem() (the Mem of tree_calls.h); children(t);
// store(i, l, r); store_half(i, side, word); head(frame); write_frame(frame, head);
// meet(frame, bits) -> the results word before OR-ing bits in (atomic; relaxed);
// push(t0), push(t0, t1): tasks of the next wave; frames_of(fn, d);
// set_root(word); fail().

// Splits a call too large for registers (sort, down, or a warp; a flow has
// become its warp): its frame, and its sub-calls pushed to the next wave.
template <class Ops>
TREE_HD void split(Ops& ops, const Task& t, Kids known, bool has_known) {
    const int d = t.d;
    switch (t.fn) {
        case kSort: {  // [own frame | sort(d-1) | sort(d-1) | flow(d)];  heap: [sort(d-1) | sort(d-1) | Node | flow(d)]
            const Kids c = has_known ? known : ops.children(t.a);
            ops.write_frame(t.fbase, FrameHead{t.base, t.frame, kSortJoin, t.d, t.s, t.flags});
            ops.push(make_task(kSort, d - 1, 0, 0, t.fbase, t.fbase + 1, c.l, 0, t.base),
                     make_task(kSort, d - 1, 1, kSlot1, t.fbase, t.fbase + 1 + ops.frames_of(kSort, d - 1), c.r, 0,
                               t.base + S(d - 1)));
            break;
        }
        case kDown: {  // [own | flow(d-1) | flow(d-1)];  heap: [flow(d-1) | flow(d-1) | Node]
            const Kids c = has_known ? known : ops.children(t.a);
            ops.write_frame(t.fbase, FrameHead{t.base, t.frame, kDownJoin, t.d, t.s, t.flags});
            ops.push(make_task(kFlow, d - 1, t.s, 0, t.fbase, t.fbase + 1, c.l, 0, t.base),
                     make_task(kFlow, d - 1, t.s, kSlot1, t.fbase, t.fbase + 1 + ops.frames_of(kFlow, d - 1), c.r, 0,
                               t.base + F(d - 1)));
            break;
        }
        default: {  // warp: [own | warp(d-1) | warp(d-1)];  heap: [warp(d-1) | warp(d-1) | 3 Nodes]
            const Kids ca = ops.children(t.a), cb = ops.children(t.b);
            ops.write_frame(t.fbase, FrameHead{t.base, t.frame, kWarpJoin, t.d, t.s, t.flags});
            ops.push(make_task(kWarp, d - 1, t.s, kHalf, t.fbase, t.fbase + 1, ca.l, cb.l, t.base),
                     make_task(kWarp, d - 1, t.s, kHalf | kSlot1, t.fbase, t.fbase + 1 + ops.frames_of(kWarp, d - 1),
                               ca.r, cb.r, t.base + W(d - 1)));
            break;
        }
    }
}

// Starts a call. At or below the cutoff it runs now: returns true, with its
// result in *out and its Where in *where. Above, it splits (a frame, and its
// sub-calls pushed to the next wave) and returns false. `known` (when
// has_known): its input's children, when the caller has them in hand.
template <int kMax, class Ops>
TREE_HD bool start(Ops& ops, Task t, Kids known, bool has_known, Done* out, Where* where) {
    if (t.fn == kFlow && !reg::fits(kFlow, t.d, ops.cutoff)) {
        // flow(d, s, t) = down(d, s, warp(d-1, s, left t, right t)): the warp
        // now; the down when the warp is done ("then down"). Same ranges.
        const Kids c = has_known ? known : ops.children(t.a);
        t = make_task(kWarp, t.d - 1, t.s, (uint8_t)((t.flags & kSlot1) | kThenDown), t.frame, t.fbase, c.l, c.r,
                      t.base);
        has_known = false;
    }
    *where = Where{t.frame, t.fbase, t.base, t.d, t.s, t.flags};
    if (reg::fits((Fn)t.fn, t.d, ops.cutoff)) {
        bool ok = true;
        const Tree r = reg::call<kMax>(ops.mem(), (Fn)t.fn, t.d, t.s, t.a, t.b, t.base, &out->kids, &ok);
        if (!ok || is_leaf(r)) ops.fail();
        out->node = r >> 1;
        return true;
    }
    split(ops, t, known, has_known);
    return false;
}

// A call has finished: hands its result on, and runs every join that this
// completes, up the chain; stops where a sub-call is still running, or where
// what comes next must wait for the next wave (a split's sub-calls; a call
// that reads trees written in this wave).
template <int kMax, class Ops>
TREE_HD void deliver(Ops& ops, Done done, Where w) {
    for (;;) {
        if (w.flags & kThenDown) {
            // A flow's warp is done: down(d + 1, s, its result), the flow's
            // result. The flow was too large for registers, so is its down:
            // it splits, with its input's children in hand (no read).
            const Task t = make_task(kDown, w.d + 1, w.s, (uint8_t)(w.flags & kSlot1), w.frame,
                                     w.fbase + ops.frames_of(kWarp, w.d), node_word(done.node), 0, w.base + W(w.d));
            Done unused;
            Where where;
            if (start<kMax>(ops, t, done.kids, true, &unused, &where)) ops.fail();  // (cannot run alone)
            return;
        }
        const int slot = w.flags & kSlot1;
        if (w.flags & kHalf) {  // this warp(d)'s children go into its parent warp(d+1)'s inner nodes
            const uint64_t inner = w.base - (uint64_t)slot * W(w.d) + 2 * W(w.d);
            ops.store_half(inner, slot, done.kids.l);
            ops.store_half(inner + 1, slot, done.kids.r);
        }
        const FrameHead h = ops.head(w.frame);
        if (h.kind == kRoot) {
            ops.set_root(node_word(done.node));
            return;
        }
        const uint64_t before = ops.meet(w.frame, done.node << (32 * slot));
        const uint64_t other = (before >> (32 * (1 - slot))) & 0xFFFFFFFFu;
        if (other == 0) return;  // the other sub-call is still running; it will join
        const Tree l = node_word(slot ? other : done.node), r = node_word(slot ? done.node : other);
        const Where up{h.parent, w.frame, h.base, h.d, h.s, h.flags};
        switch (h.kind) {
            case kDownJoin: {  // Node(l, r)
                const uint64_t i = h.base + 2 * F(h.d - 1);
                ops.store(i, l, r);
                done = Done{i, Kids{l, r}};
                w = up;
                break;
            }
            case kWarpJoin: {  // Node(Node(left l, left r), Node(right l, right r)): the inner two are written
                const uint64_t j = h.base + 2 * W(h.d - 1);
                ops.store(j + 2, node_word(j), node_word(j + 1));
                done = Done{j + 2, Kids{node_word(j), node_word(j + 1)}};
                w = up;
                break;
            }
            default: {  // sort: flow(d, s, Node(l, r)), the sort's result
                // The sort split, so its flow is too large for registers too:
                // flow's warp(d-1, s, l, r), "then down". It reads l and r,
                // written in this wave: the next wave starts it.
                const uint64_t i = h.base + 2 * S(h.d - 1);
                ops.store(i, l, r);
                const uint64_t fbase = w.frame + 1 + 2 * ops.frames_of(kSort, h.d - 1);
                ops.push(make_task(kWarp, h.d - 1, h.s, (uint8_t)((h.flags & kSlot1) | kThenDown), h.parent, fbase, l,
                                   r, i + 1));
                return;
            }
        }
    }
}

// One task of a wave, from start to wherever it stops.
template <int kMax, class Ops>
TREE_HD void run(Ops& ops, const Task& t) {
    Done done;
    Where w;
    if (start<kMax>(ops, t, Kids{0, 0}, false, &done, &w)) deliver<kMax>(ops, done, w);
}

}  // namespace waves
}  // namespace tree
