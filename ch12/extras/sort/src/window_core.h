// ch12/extras/sort/src/window_core.h -- the window design's logic, written once
// for the GPU and the CPU: what a pass is, and what every thread does in it.
//
// A WINDOW is 2^T words of one array (or of several short ones) whose padded
// indices differ only in a chosen SET of T index bits -- always the lowest
// ones (so each thread reads a run of consecutive words), plus any higher
// ones. One block loads a window, runs a contiguous run of the network's
// steps (k, j) whose distance bit j lies in that set, and writes it back:
// one trip through global memory for all of them. A step at distance 2^j
// pairs words whose indices differ in bit j alone, so a window holds both
// words of every pair it needs, and the direction of a pair -- bit k of its
// index -- is known from the index whether or not bit k is in the set.
//
// Inside a window, word numbers are LOCAL indices: local bit q stands for
// global bit window[q]. Each of the block's 2^(T-E) threads holds 2^E words
// in registers, whose local indices differ in E chosen local bits (the
// layout's register bits); the thread's number fills the other T - E bits.
// A step whose bit is a register bit is done on registers alone; between
// layouts, the words go through shared memory once (an exchange). The host
// (window_plan.cpp) turns a sort into passes, and each pass into a list of
// operations:
//   step e         compare-exchange registers r and r | 2^e (every r without
//                  bit e): the smaller word to r. Always ascending: see flip;
//   flip a, b      change the words' complement pattern from direction a to
//                  direction b (below; both register bits only when they
//                  are neighbours);
//   exchange x     all words to shared memory in this layout, all back in the
//                  next one (exchange table x: both layouts' slots).
// Directions. During stage k the words whose index has bit k set sort
// descending; those words are kept bit-complemented (~w) for the stage, so
// that every compare-exchange is a plain min and max (min(~x, ~y) =
// ~max(x, y)). Where a word's direction bit lives, for a layout: a register
// bit (dir_reg e), a thread bit (dir_thread k), a bit of the block's window
// (dir_block k: global bit k, the same for the whole window), or nowhere
// (dir_none: ascending, the arrays' last stage, or before the first). Words
// in global memory between passes keep the pattern of the stage they are in;
// a sort ends in its last stage (ascending), so nothing is left complemented.
//
// The kernel (design_window.cuh) and the CPU test (test_window.cpp) both run
// run_pass() below, the kernel with one thread's registers and __syncthreads,
// the test with every thread's registers in turn: the same code.
//
// Plain C++17 for g++; __host__ __device__ under nvcc.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define BITONIC_HD __host__ __device__ __forceinline__
#else
#define BITONIC_HD inline
#endif
#if defined(__CUDA_ARCH__)
#define BITONIC_UNROLL _Pragma("unroll")
#else
#define BITONIC_UNROLL
#endif

namespace bitonic {
namespace window {

// ---- sizes ---------------------------------------------------------------------------
constexpr int kMinBits = 12;     // T: a window holds 2^12 .. 2^15 words
constexpr int kMaxBits = 15;
constexpr int kMinRegBits = 5;   // E: 32 or 64 words per thread
constexpr int kMaxRegBits = 6;
constexpr int kLaneBits = 5;     // 32 threads a warp: thread bits 0..4 are its lanes
constexpr int kMaxThreadBits = kMaxBits - kMinRegBits;
constexpr int kMaxOps = 200;
constexpr int kMaxExchanges = 26;

// ---- a pass, as the kernel receives it (by value: about 2.5 KiB) ----------------------
enum OpKind : uint8_t { kStep = 1, kFlip = 2, kExchange = 3 };
struct Op {
    uint8_t kind, a, b, unused;  // step: a = e; flip: a = from, b = to; exchange: a = table
};

// A direction: mode << 5 | index.
enum DirMode : uint8_t { kDirNone = 0, kDirReg = 1, kDirThread = 2, kDirBlock = 3 };
BITONIC_HD constexpr uint8_t direction(DirMode mode, int index) { return (uint8_t)((mode << 5) | index); }
BITONIC_HD constexpr int dir_mode(uint8_t d) { return d >> 5; }
BITONIC_HD constexpr int dir_index(uint8_t d) { return d & 31; }

// One exchange: where each word goes in shared memory. The slot of a word is
// linear (XOR) in its local index: the XOR of one constant per register bit
// and one per thread bit, in the layout it leaves (from_*) and in the one it
// joins (to_*). Both sets of constants are one swizzle of the local index
// (the planner's choice, per exchange), so that in both layouts the 32
// lanes of a warp hit 32 different banks.
struct Exchange {
    uint16_t from_reg[kMaxRegBits], from_thread[kMaxThreadBits];
    uint16_t to_reg[kMaxRegBits], to_thread[kMaxThreadBits];
};

struct Pass {
    uint8_t bits = 0;        // T: the window holds 2^T words
    uint8_t reg_bits = 0;    // E: words per thread 2^E; threads 2^(T-E)
    uint8_t seg_bits = 0;    // the arrays are 2^seg_bits words long (padded)
    uint8_t block_bits = 0;  // how many global bits the block number fills
    uint16_t op_count = 0, exchange_count = 0;
    uint8_t window[kMaxBits] = {};  // local bit q is global bit window[q]; window[q] = q for q < E
    uint8_t block[32] = {};         // the global bits outside the window, ascending: block number bits
    // Direct loads (stores): the pass's first (last) layout is read from
    // (written to) global memory as it is, one word a register, instead of
    // through the io layout and an exchange. Its lanes are global bits 0..4:
    // each warp reads (writes) 32 consecutive words a register. The global
    // bit of register bit e is direct_*[e], of thread bit k direct_*[E + k].
    uint8_t load_direct = 0, store_direct = 0;
    uint8_t direct_load[kMaxBits] = {}, direct_store[kMaxBits] = {};
    Op ops[kMaxOps] = {};
    Exchange exchanges[kMaxExchanges] = {};
};

// ---- where a thread's words are in global memory ---------------------------------------
// A pass loads and stores in its "io" layout -- register bits = local bits
// 0 .. E-1 = global bits 0 .. E-1, so a thread's 2^E words are consecutive,
// from io_index(); its thread number fills local bits E .. T-1 in order --
// unless it loads or stores directly (Pass::direct_*, for_each_direct()).
BITONIC_HD uint32_t block_index(const Pass& p, uint32_t block) {
    uint32_t g = 0;
    for (int i = 0; i < p.block_bits && (block >> i) != 0; ++i) g |= ((block >> i) & 1u) << p.block[i];
    return g;
}
BITONIC_HD uint32_t io_index(const Pass& p, uint32_t block_base, uint32_t thread) {
    uint32_t g = block_base;
    for (int k = 0; k + p.reg_bits < p.bits; ++k) g |= ((thread >> k) & 1u) << p.window[k + p.reg_bits];
    return g;
}

BITONIC_HD constexpr int trailing_zeros(int x) { return (x & 1) ? 0 : 1 + trailing_zeros(x >> 1); }

// A direct load or store (Pass::direct_*): f(r, g) for each register r of
// the thread and its global index g, registers in Gray code order (each
// index the previous one with one bit flipped).
template <int T, int E, class F>
BITONIC_HD void for_each_direct(const uint8_t* bits, uint32_t block_base, uint32_t thread, F f) {
    uint32_t g = block_base;
    BITONIC_UNROLL
    for (int k = 0; k < T - E; ++k) g |= ((thread >> k) & 1u) << bits[E + k];
    BITONIC_UNROLL
    for (int i = 0; i < (1 << E); ++i) {
        f(i ^ (i >> 1), g);
        if (i + 1 < (1 << E)) g ^= 1u << bits[trailing_zeros(i + 1)];
    }
}

// ---- one thread's operations -----------------------------------------------------------
template <typename W>
BITONIC_HD void compare_exchange(W& x, W& y) {
    const W lo = x < y ? x : y, hi = x < y ? y : x;
    x = lo;
    y = hi;
}

template <int Q, int N, typename W>
BITONIC_HD void step_on(W (&v)[N]) {
    BITONIC_UNROLL
    for (int r = 0; r < N; ++r)
        if (!(r & (1 << Q))) compare_exchange(v[r], v[r | (1 << Q)]);
}

// A step on register bit e (a run-time number: a switch, each case with
// constant register numbers, so the registers stay registers).
template <int E, typename W>
BITONIC_HD void step(W (&v)[1 << E], int e) {
    static_assert(E == 5 || E == 6, "32 or 64 words per thread");
    switch (e) {
        case 0: step_on<0>(v); break;
        case 1: step_on<1>(v); break;
        case 2: step_on<2>(v); break;
        case 3: step_on<3>(v); break;
        case 4: step_on<4>(v); break;
        default: step_on<E - 1>(v); break;  // e = 5 (E = 6); the planner never asks for more
    }
}

// Complement the words whose register number has bit Q set with ~m, the others with m.
template <int Q, int N, typename W>
BITONIC_HD void flip_on(W (&v)[N], W m) {
    BITONIC_UNROLL
    for (int r = 0; r < N; ++r) v[r] ^= (r & (1 << Q)) ? W(~m) : m;
}
template <int E, typename W>
BITONIC_HD void flip_reg(W (&v)[1 << E], int e, W m) {
    switch (e) {
        case 0: flip_on<0>(v, m); break;
        case 1: flip_on<1>(v, m); break;
        case 2: flip_on<2>(v, m); break;
        case 3: flip_on<3>(v, m); break;
        case 4: flip_on<4>(v, m); break;
        case 5: flip_on<E - 1>(v, m); break;
        default:
            BITONIC_UNROLL
            for (int r = 0; r < (1 << E); ++r) v[r] ^= m;
            break;
    }
}

// The part of a direction that is the same for all of a thread's words.
BITONIC_HD uint32_t dir_constant(uint8_t d, uint32_t thread, uint32_t block_base) {
    switch (dir_mode(d)) {
        case kDirThread: return (thread >> dir_index(d)) & 1u;
        case kDirBlock: return (block_base >> dir_index(d)) & 1u;
        default: return 0;
    }
}
BITONIC_HD int dir_register(uint8_t d) { return dir_mode(d) == kDirReg ? dir_index(d) : -1; }

// Complement the words whose register number has exactly one of bits Q and
// Q + 1 set with ~m, the others with m.
template <int Q, int N, typename W>
BITONIC_HD void flip_pair_on(W (&v)[N], W m) {
    BITONIC_UNROLL
    for (int r = 0; r < N; ++r) v[r] ^= (((r >> Q) ^ (r >> (Q + 1))) & 1) ? W(~m) : m;
}
template <int E, typename W>
BITONIC_HD void flip_pair(W (&v)[1 << E], int e, W m) {
    switch (e) {
        case 0: flip_pair_on<0>(v, m); break;
        case 1: flip_pair_on<1>(v, m); break;
        case 2: flip_pair_on<2>(v, m); break;
        case 3: flip_pair_on<3>(v, m); break;
        default: flip_pair_on<E - 2>(v, m); break;  // e = 4 (E = 6); the planner never asks for more
    }
}

// From direction `from`'s complement pattern to `to`'s: each word flips
// where its two direction bits differ. When both are register bits they are
// neighbours (the planner splits any other change from one register bit to
// another in two flips), so one pass over the registers does it.
template <int E, typename W>
BITONIC_HD void flip(W (&v)[1 << E], uint8_t from, uint8_t to, uint32_t thread, uint32_t block_base) {
    const W m = (dir_constant(from, thread, block_base) ^ dir_constant(to, thread, block_base)) ? ~W(0) : W(0);
    const int e1 = dir_register(from), e2 = dir_register(to);
    if (e1 >= 0 && e2 >= 0 && e1 != e2) flip_pair<E>(v, e1 < e2 ? e1 : e2, m);
    else flip_reg<E>(v, e1 == e2 ? -1 : (e1 >= 0 ? e1 : e2), m);  // -1: every word by m
}

// 32-bit planes of a word in shared memory: plane 0 holds uint32 words, or
// the high halves of uint64 ones; plane 1 (2^T slots further) the low halves.
template <typename W> BITONIC_HD uint32_t plane_hi(W w) { return sizeof(W) == 8 ? (uint32_t)((uint64_t)w >> 32) : (uint32_t)w; }
template <typename W> BITONIC_HD uint32_t plane_lo(W w) { return (uint32_t)w; }
template <typename W> BITONIC_HD W from_planes(uint32_t hi, uint32_t lo) {
    if constexpr (sizeof(W) == 8) return (W)(((uint64_t)hi << 32) | lo);
    else { (void)lo; return (W)hi; }
}

// The thread's slot base: the XOR of its set thread bits' constants.
template <int T, int E>
BITONIC_HD uint32_t thread_slot(const uint16_t* constants, uint32_t thread) {
    uint32_t s = 0;
    BITONIC_UNROLL
    for (int k = 0; k < T - E; ++k) s ^= constants[k] & (0u - ((thread >> k) & 1u));
    return s;
}

// Registers to shared memory (kStore) or back. Registers are visited in Gray
// code order, so each slot is the previous one XOR one register constant.
template <int T, int E, bool kStore, typename W>
BITONIC_HD void exchange_io(W (&v)[1 << E], uint32_t* s, const uint16_t* reg, const uint16_t* thr, uint32_t thread) {
    const uint32_t base = thread_slot<T, E>(thr, thread);
    uint32_t off = 0;
    BITONIC_UNROLL
    for (int i = 0; i < (1 << E); ++i) {
        const int r = i ^ (i >> 1);
        const uint32_t slot = base ^ off;
        if constexpr (kStore) {
            s[slot] = plane_hi(v[r]);
            if constexpr (sizeof(W) == 8) s[slot + (1u << T)] = plane_lo(v[r]);
        } else {
            v[r] = from_planes<W>(s[slot], sizeof(W) == 8 ? s[slot + (1u << T)] : 0u);
        }
        if (i + 1 < (1 << E)) off ^= reg[trailing_zeros(i + 1)];
    }
}

// ---- a window through shared memory in io order ------------------------------------------
// Loaded and stored in the io layout one thread at a time, each thread's 2^E
// consecutive words take 16-byte accesses that put a warp's 32 lanes on 32
// different lines at every step. The kernel moves them through shared memory
// instead, where the window sits in IO ORDER -- slot = thread << E | register,
// in 16-byte chunks of four slots, chunk c at io_chunk_place(c) = c ^ ((c >>
// (E - 2)) & 7) so that each quarter of a warp reads or writes eight
// different bank groups -- and each warp copies 32 consecutive chunks (by
// chunk number: 512 consecutive bytes of the array where window[5] and
// window[6] are 5 and 6, two runs of 256 where, with 32 words a thread, they
// are not; whole 128-byte lines always) between there and global memory.
// Bit s of the io-order index (before the swizzle) is global index bit
// window[s] (local bit s), so chunk c holds the four words from
// io_chunk_index(c) on.
BITONIC_HD uint32_t io_chunk_index(const Pass& p, uint32_t c) {
    uint32_t g = 0;
    for (int b = 0; b + 2 < p.bits; ++b) g |= ((c >> b) & 1u) << p.window[b + 2];
    return g;
}
template <int E>
BITONIC_HD uint32_t io_chunk_place(uint32_t c) {
    static_assert(E >= 5, "at least eight chunks a thread");
    return c ^ ((c >> (E - 2)) & 7u);
}
// The slot of register r of `thread`.
template <int E>
BITONIC_HD uint32_t io_slot(uint32_t thread, int r) {
    return io_chunk_place<E>(thread << (E - 2) | (uint32_t)(r >> 2)) << 2 | (uint32_t)(r & 3);
}

// ---- a pass: the one loop the kernel and the CPU test share ------------------------------
// Group: the threads of a block, as the caller runs them:
//   g.each(f)     f(v, thread) for each thread the caller runs (the kernel:
//                 its own; the CPU test: all of them, one after another);
//   g.sync()      a barrier (the kernel: __syncthreads; the CPU test: nothing);
//   g.smem()      the block's shared memory (2^T 32-bit slots per plane);
//   g.block_base  the window's global index bits (block_index()).
template <int T, int E, typename W, class Group>
BITONIC_HD void run_pass(const Pass& p, Group& g) {
    for (int i = 0; i < p.op_count; ++i) {
        const Op op = p.ops[i];
        if (op.kind == kStep) {
            g.each([&](W (&v)[1 << E], uint32_t) { step<E>(v, op.a); });
        } else if (op.kind == kFlip) {
            g.each([&](W (&v)[1 << E], uint32_t thread) { flip<E>(v, op.a, op.b, thread, g.block_base); });
        } else {
            const Exchange& x = p.exchanges[op.a];
            g.sync();  // the previous exchange's loads are done
            g.each([&](W (&v)[1 << E], uint32_t thread) {
                exchange_io<T, E, true>(v, g.smem(), x.from_reg, x.from_thread, thread);
            });
            g.sync();
            g.each([&](W (&v)[1 << E], uint32_t thread) {
                exchange_io<T, E, false>(v, g.smem(), x.to_reg, x.to_thread, thread);
            });
        }
    }
}

}  // namespace window
}  // namespace bitonic
