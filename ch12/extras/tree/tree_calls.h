// ch12/extras/tree/tree_calls.h -- the four functions as one thread runs them,
// in two forms, over any heap (a Mem policy: the GPU's, or a plain array in
// the CPU tests):
//
//   seq_*   the write-up's sequential form: the plain recursion, reading
//           every left(t) and right(t) from the heap. Used by SEED / GROW /
//           WORK exactly as the write-up describes it.
//   reg::*  the same calls on a small subtree held in registers: the
//           project's runtime uses them for the calls below its cutoff.
//
// Why the second form. A call run by one thread is a chain of dependent
// loads: seq_flow(4) reads a child, recurses, reads the children of what it
// has just built, ... about a hundred loads one after the other, each a trip
// to L2 or DRAM (0.2-0.6 us on an H200), plus the recursion's stack traffic.
// reg::call() first GATHERS its input subtree breadth-first -- the loads of
// one level are independent, so a depth-c subtree costs c round trips, not
// 2^c -- and then runs the whole call on the leaves in registers: every
// recursion level unrolled at compile time (a template per depth), the
// compare-and-swaps as selects, no stack. It still allocates and WRITES every
// Node(...) of the definitions, at the same heap index as the sequential
// form (the layout in tree_bitonic.h), so the heap it leaves is identical,
// word for word (the CPU test test_tree_calls checks this for every function,
// depth and direction). What it does not do is read back a node it has just
// written itself: it still holds that node's children. That is store-to-load
// forwarding inside one sequential call, the same transformation a compiler
// applies to a value it has just stored -- a change in how the call executes,
// not in what it computes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "tree_bitonic.h"

#ifdef __CUDACC__
#define TREE_HD_REC __host__ __device__  // recursive: not inlined
#else
#define TREE_HD_REC
#endif

namespace tree {

// Both children of a node.
struct Kids {
    Tree l, r;
};

// A bump pointer through one call's reserved range. Mem provides
// children(Tree) -> Kids and store(index, left, right).
template <class Mem>
struct Bump {
    Mem mem;
    uint64_t next;
    TREE_HD Tree node(Tree l, Tree r) {
        mem.store(next, l, r);
        return node_word(next++);
    }
};

// ---- the write-up's sequential form ------------------------------------------------
template <class Mem>
TREE_HD_REC Tree seq_warp(Bump<Mem>& h, int d, uint32_t s, Tree a, Tree b) {
    if (d == 0) {  // compare-and-swap the two leaves
        const uint32_t av = value(a), bv = value(b);
        const uint32_t swap = s ^ (av > bv ? 1u : 0u);
        return swap == 0 ? h.node(leaf(av), leaf(bv)) : h.node(leaf(bv), leaf(av));
    }
    const Kids ca = h.mem.children(a), cb = h.mem.children(b);
    const Tree l = seq_warp(h, d - 1, s, ca.l, cb.l);  // PARALLEL
    const Tree r = seq_warp(h, d - 1, s, ca.r, cb.r);  // PARALLEL
    const Kids cl = h.mem.children(l), cr = h.mem.children(r);
    const Tree nl = h.node(cl.l, cr.l);
    const Tree nr = h.node(cl.r, cr.r);
    return h.node(nl, nr);
}

template <class Mem>
TREE_HD_REC Tree seq_down(Bump<Mem>& h, int d, uint32_t s, Tree t);

template <class Mem>
TREE_HD_REC Tree seq_flow(Bump<Mem>& h, int d, uint32_t s, Tree t) {
    if (d == 0 || is_leaf(t)) return t;
    const Kids c = h.mem.children(t);
    const Tree w = seq_warp(h, d - 1, s, c.l, c.r);
    return seq_down(h, d, s, w);
}

template <class Mem>
TREE_HD_REC Tree seq_down(Bump<Mem>& h, int d, uint32_t s, Tree t) {
    if (d == 0 || is_leaf(t)) return t;
    const Kids c = h.mem.children(t);
    const Tree l = seq_flow(h, d - 1, s, c.l);  // PARALLEL
    const Tree r = seq_flow(h, d - 1, s, c.r);  // PARALLEL
    return h.node(l, r);
}

template <class Mem>
TREE_HD_REC Tree seq_sort(Bump<Mem>& h, int d, uint32_t s, Tree t) {
    if (d == 0 || is_leaf(t)) return t;
    const Kids c = h.mem.children(t);
    const Tree l = seq_sort(h, d - 1, 0, c.l);  // PARALLEL
    const Tree r = seq_sort(h, d - 1, 1, c.r);  // PARALLEL
    return seq_flow(h, d, s, h.node(l, r));
}

// One call, run sequentially in its reserved range starting at `base`.
template <class Mem>
TREE_HD Tree seq_call(const Mem& mem, Fn fn, int d, uint32_t s, Tree a, Tree b, uint64_t base) {
    Bump<Mem> h{mem, base};
    switch (fn) {
        case kSort: return seq_sort(h, d, s, a);
        case kFlow: return seq_flow(h, d, s, a);
        case kDown: return seq_down(h, d, s, a);
        default: return seq_warp(h, d, s, a, b);
    }
}

// ---- the same calls on a subtree held in registers ------------------------------------
namespace reg {

// The largest subtree a register call handles: 2^kMaxLeafBits leaves (sort,
// flow and down at depth <= 6, warp at depth <= 5).
constexpr int kMaxLeafBits = 6;

// A full tree of depth K in registers: its leaves, left to right, and the
// words of its root and of the root's two children (K >= 1). That is all the
// four functions ever need of a tree they hold: the leaves to compare, the
// root to put in a new node, and -- only for a warp's result l -- the roots
// of left l and right l for warp's own new nodes. Every index is a
// compile-time constant (pack expansions, no loops), so the whole tree lives
// in registers.
template <int K>
struct Regs {
    uint32_t v[1 << K];
    Tree root_word;  // K >= 1
    Tree kid[2];     // K >= 1: root words of left(t) and right(t), when known (0: not needed)
};

template <int K>
TREE_HD Tree root(const Regs<K>& t) {
    if constexpr (K == 0) return leaf(t.v[0]);
    else return t.root_word;
}

template <int Off, int N, size_t... I>
TREE_HD void copy_leaves(uint32_t* to, const uint32_t* from, std::index_sequence<I...>) {
    ((to[I] = from[Off + I]), ...);
}

// left(t) (Side 0) or right(t) (Side 1), without a load: the words are held.
// The subtree's own children's words are not known here; no caller needs them.
template <int Side, int K>
TREE_HD Regs<K - 1> sub(const Regs<K>& t) {
    Regs<K - 1> r;
    copy_leaves<Side * (1 << (K - 1)), (1 << (K - 1))>(r.v, t.v, std::make_index_sequence<(1 << (K - 1))>{});
    r.root_word = t.kid[Side];
    r.kid[0] = r.kid[1] = 0;
    return r;
}

// The tree Node(x, y) whose root node has the word `root_word`.
template <int K>
TREE_HD Regs<K + 1> join(const Regs<K>& x, const Regs<K>& y, Tree root_word) {
    Regs<K + 1> r;
    copy_leaves<0, (1 << K)>(r.v, x.v, std::make_index_sequence<(1 << K)>{});
    copy_leaves<0, (1 << K)>(r.v + (1 << K), y.v, std::make_index_sequence<(1 << K)>{});
    r.root_word = root_word;
    r.kid[0] = root(x);
    r.kid[1] = root(y);
    return r;
}

template <int D, class Mem> TREE_HD Regs<D + 1> warp(Bump<Mem>& h, uint32_t s, const Regs<D>& a, const Regs<D>& b);
template <int D, class Mem> TREE_HD Regs<D> flow(Bump<Mem>& h, uint32_t s, const Regs<D>& t);
template <int D, class Mem> TREE_HD Regs<D> down(Bump<Mem>& h, uint32_t s, const Regs<D>& t);
template <int D, class Mem> TREE_HD Regs<D> sort(Bump<Mem>& h, uint32_t s, const Regs<D>& t);

template <int D, class Mem>
TREE_HD Regs<D + 1> warp(Bump<Mem>& h, uint32_t s, const Regs<D>& a, const Regs<D>& b) {
    if constexpr (D == 0) {  // compare-and-swap the two leaves
        const uint32_t av = a.v[0], bv = b.v[0];
        const bool swap = (s ^ (av > bv ? 1u : 0u)) != 0;
        Regs<0> x, y;
        x.v[0] = swap ? bv : av;
        y.v[0] = swap ? av : bv;
        return join<0>(x, y, h.node(leaf(x.v[0]), leaf(y.v[0])));
    } else {
        const Regs<D> l = warp<D - 1>(h, s, sub<0>(a), sub<0>(b));  // PARALLEL
        const Regs<D> r = warp<D - 1>(h, s, sub<1>(a), sub<1>(b));  // PARALLEL
        const Regs<D - 1> ll = sub<0>(l), lr = sub<1>(l), rl = sub<0>(r), rr = sub<1>(r);
        const Tree nl = h.node(root(ll), root(rl));
        const Tree nr = h.node(root(lr), root(rr));
        const Tree n = h.node(nl, nr);
        return join<D>(join<D - 1>(ll, rl, nl), join<D - 1>(lr, rr, nr), n);
    }
}

template <int D, class Mem>
TREE_HD Regs<D> flow(Bump<Mem>& h, uint32_t s, const Regs<D>& t) {
    if constexpr (D == 0) return t;
    else return down<D>(h, s, warp<D - 1>(h, s, sub<0>(t), sub<1>(t)));
}

template <int D, class Mem>
TREE_HD Regs<D> down(Bump<Mem>& h, uint32_t s, const Regs<D>& t) {
    if constexpr (D == 0) {
        return t;
    } else {
        const Regs<D - 1> l = flow<D - 1>(h, s, sub<0>(t));  // PARALLEL
        const Regs<D - 1> r = flow<D - 1>(h, s, sub<1>(t));  // PARALLEL
        return join<D - 1>(l, r, h.node(root(l), root(r)));
    }
}

template <int D, class Mem>
TREE_HD Regs<D> sort(Bump<Mem>& h, uint32_t s, const Regs<D>& t) {
    if constexpr (D == 0) {
        return t;
    } else {
        const Regs<D - 1> l = sort<D - 1>(h, 0, sub<0>(t));  // PARALLEL
        const Regs<D - 1> r = sort<D - 1>(h, 1, sub<1>(t));  // PARALLEL
        const Tree n = h.node(root(l), root(r));
        return flow<D>(h, s, join<D - 1>(l, r, n));
    }
}

// ---- reading an input subtree: breadth-first ----
// Node I of a level: both its children into the next level (one 16-byte load).
template <size_t I, class Mem>
TREE_HD void expand(const Mem& mem, const Tree* level, Tree* next, bool* ok) {
    const Tree x = level[I];
    const bool node = !is_leaf(x);
    *ok = *ok && node;
    const Kids c = node ? mem.children(x) : Kids{x, x};  // never load through a leaf
    next[2 * I] = c.l;
    next[2 * I + 1] = c.r;
}
template <size_t I>
TREE_HD void take_leaf(const Tree* level, uint32_t* v, bool* ok) {
    *ok = *ok && is_leaf(level[I]);
    v[I] = value(level[I]);
}
template <int L, int K, class Mem, size_t... I>
TREE_HD void gather_level(const Mem& mem, const Tree* level, Regs<K>& r, bool* ok, std::index_sequence<I...>) {
    if constexpr (L == K) {
        (take_leaf<I>(level, r.v, ok), ...);
    } else {
        Tree next[2 << L];
        (expand<I>(mem, level, next, ok), ...);  // the loads of one level, all independent
        gather_level<L + 1, K>(mem, next, r, ok, std::make_index_sequence<(2 << L)>{});
    }
}

// The subtree t of depth K, read level by level: K round trips to memory, not
// 2^K. *ok turns false if it is not a full tree of depth K.
template <int K, class Mem>
TREE_HD Regs<K> gather(const Mem& mem, Tree t, bool* ok) {
    Regs<K> r;
    const Tree top[1] = {t};
    gather_level<0, K>(mem, top, r, ok, std::make_index_sequence<1>{});
    r.root_word = t;
    r.kid[0] = r.kid[1] = 0;
    return r;
}

// Can reg::call() run this call? Subtrees of at most 2^leaf_bits leaves:
// sort, flow and down at depth <= leaf_bits, warp at depth <= leaf_bits - 1
// (its two inputs hold 2^(d+1) leaves), and warp(0) always.
TREE_HD bool fits(Fn fn, int d, int leaf_bits) {
    return fn == kWarp ? (d == 0 || d + 1 <= leaf_bits) : d <= leaf_bits;
}

template <int K>
TREE_HD Tree result(const Regs<K>& t, Kids* kids) {
    kids->l = t.kid[0];
    kids->r = t.kid[1];
    return root(t);
}

template <int kMax, int D, class Mem>
TREE_HD Tree call_at(const Mem& mem, Fn fn, uint32_t s, Tree a, Tree b, uint64_t base, Kids* kids, bool* ok) {
    Bump<Mem> h{mem, base};
    if (fn == kWarp) {
        if constexpr (D == 0 || D + 1 <= kMax) {
            const Regs<D> x = gather<D>(mem, a, ok), y = gather<D>(mem, b, ok);
            if (!*ok) return 0;  // not full trees: write nothing
            return result(warp<D>(h, s, x, y), kids);
        }
        *ok = false;
        return 0;
    }
    if constexpr (D >= 1) {
        const Regs<D> t = gather<D>(mem, a, ok);
        if (!*ok) return 0;
        switch (fn) {
            case kSort: return result(sort<D>(h, s, t), kids);
            case kFlow: return result(flow<D>(h, s, t), kids);
            default: return result(down<D>(h, s, t), kids);
        }
    }
    // sort, flow and down at depth 0 return their input leaf, which has no children
    *ok = *ok && is_leaf(a);
    kids->l = kids->r = 0;
    return a;
}

template <int kMax, int D, class Mem>
TREE_HD Tree call_from(const Mem& mem, Fn fn, int d, uint32_t s, Tree a, Tree b, uint64_t base, Kids* kids, bool* ok) {
    if (d == D) return call_at<kMax, D>(mem, fn, s, a, b, base, kids, ok);
    if constexpr (D < kMax) return call_from<kMax, D + 1>(mem, fn, d, s, a, b, base, kids, ok);
    *ok = false;
    return 0;
}

// One call on full trees that fits(fn, d, kMax), run in registers in its
// reserved range starting at `base`; returns its result's word, and the words
// of the result's two children in *kids (it built them). *ok turns
// false (and nothing is written) for a call that does not fit, or whose
// input is not a full tree of its depth. A kernel instantiates only the
// depths up to its kMax (registers are allocated for the largest).
template <int kMax, class Mem>
TREE_HD Tree call(const Mem& mem, Fn fn, int d, uint32_t s, Tree a, Tree b, uint64_t base, Kids* kids, bool* ok) {
    static_assert(kMax >= 1 && kMax <= kMaxLeafBits, "register calls hold at most 2^kMaxLeafBits leaves");
    if (!fits(fn, d, kMax)) {
        *ok = false;
        return 0;
    }
    return call_from<kMax, 0>(mem, fn, d, s, a, b, base, kids, ok);
}

}  // namespace reg
}  // namespace tree
