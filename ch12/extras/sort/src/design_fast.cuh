// ch12/extras/sort/src/design_fast.cuh -- the same network engineered for a
// Hopper GPU (H100/H200), and still correct (without clusters) before it.
//
// THE IDEAS, in the order they buy time (each is explained again where used):
//
// 1. Rounds of four distances in registers. A step at distance 2^bit pairs
//    words whose indices differ in that one bit. A thread holding the 16
//    words whose indices differ ONLY in bits b .. b+3 can do every step at
//    distances 2^(b+3) .. 2^b on its own registers: no barrier, no memory
//    traffic. The network is cut into such rounds; between rounds the words
//    go through shared memory once (store, barrier, load in the next round's
//    layout) -- a quarter of the barriers and shared-memory traffic of one
//    step per trip.
// 2. Thread-block clusters (Hopper): up to 16 blocks on neighbouring SMs can
//    read and write each other's shared memory (distributed shared memory)
//    and meet at one hardware barrier. A cluster of 16 blocks x 4096 words
//    sorts 65536 words in ONE launch, and for larger arrays it makes the
//    "tile" 16 times larger: 4 fewer global stages, and 4 fewer distances
//    per stage that need trips through global memory.
// 3. Global steps, four at a time. Distances that span tiles go through
//    global memory, but one launch does up to four consecutive steps: each
//    thread loads the 16 words of a group (indices differing only in those
//    four bits) for a few neighbouring groups, with 16- or 8-byte loads,
//    sorts them in registers, and writes them back: one read and one write
//    of the array for four steps.
// 4. No direction test in the inner loop. Within one stage the direction of
//    every word is fixed (bit k of its index). Words of descending blocks are
//    stored bit-complemented (~x) for the duration of the stage, which turns
//    every compare-exchange into the ascending one: min and max, nothing
//    else (min(~x, ~y) = ~max(x, y)). They are complemented back at the end
//    of the stage.
// 5. Global memory only where it must be: the first round of a kernel loads
//    straight from global memory into registers and the last one stores
//    straight back; shared memory only between rounds, laid out so that
//    each address costs at most one instruction: swizzled (no round has bank
//    conflicts) or padded (no instruction, but two-way conflicts in some
//    rounds), whichever the tile measured faster with.
// 6. A schedule fixed at compile time. Which round holds which bits, where a
//    stage starts, which words are complemented: all of it depends only on
//    the tile size, so it is unrolled by templates into straight-line code
//    with no loop counters, no switches and no index arithmetic left.
// 7. Batches and any length in one pass. An array of up to one tile's words
//    (4096, or 65536 with clusters) is sorted by one tile kernel that reads
//    its keys (and values) straight from the caller's arrays, pads it in
//    registers with the largest word, stops after the array's own last stage
//    (a run-time exit from the compile-time schedule), and writes back only
//    the real keys: no scratch, no extra passes. Tiles of 4096 words hold
//    4096 / P short arrays at once.
// 8. A warp waits only for itself where it can. In the rounds with base bit
//    0 .. 5, a warp's threads hold the same 512 words; an exchange between
//    two such rounds needs no block barrier, only the warp's own. Stages 1..8
//    of every tile meet no block barrier at all, nor does the last exchange
//    of each later stage; in a 16-block cluster's tile neither does stage 9,
//    nor the last two exchanges of stage 13 (see round_base()).
// 10. Pairs share their work with the FMA pipe. A compare-exchange of 64-bit
//    words is compares and selects on the integer (ALU) pipe; the larger
//    word is also x + y - min, which multiply-adds (IMAD, run by the pipe
//    that does floating-point FMAs) compute half by half (larger()).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>
#include <cooperative_groups.h>

#include "design.cuh"

namespace bitonic {
namespace fast {

using detail::Launch;
using detail::Planes;

constexpr int kLogE = 4;
constexpr int kE = 1 << kLogE;  // words per thread
constexpr int kThreads = 256;   // 16 words each: blocks of 4096 words
constexpr int kBlockBits = 12;
constexpr uint32_t kBlockWords = 1u << kBlockBits;
static_assert(kBlockBits == kFastBlockBits, "tuning.h plans with the same blocks");

// Shared-memory layouts (idea 5), two of them, chosen per tile by
// padded_layout() below. Both split over disjoint index bits, so a register's
// address is the thread's base slot combined with a compile-time constant.
// - swizzle(i) = i ^ G(i >> 5), G a fixed XOR of the 5-bit constants below,
//   one per index bit 5 .. 12. The constants were chosen (by an exhaustive
//   check of every round layout b = 0 .. 12 and of the 16-byte copy pattern)
//   so that the 32 lanes of a warp always hit 32 different banks (with plain
//   indexing, rounds with b = 0 .. 4 would see 16- to 2-way conflicts). G is
//   linear, so swizzle(a | b) = swizzle(a) ^ swizzle(b) for indices with no
//   common bit: one XOR per register and access.
// - pad(i) = i + i / 16: one unused word after every 16 (kSlots words a
//   plane). pad(a | b) = pad(a) + pad(b) for indices with no common bit (their
//   low four bits cannot carry), so the per-register part is an immediate
//   offset of the load or store itself: no instruction at all. The price:
//   rounds with b = 5 .. 12 see 2-way bank conflicts.
// A 64-bit word is kept as two 32-bit planes, each laid out the same way.
__host__ __device__ constexpr uint32_t swizzle(uint32_t i) {
    constexpr uint32_t kG[8] = {18, 7, 29, 17, 6, 2, 18, 0};
    uint32_t x = 0;
    for (int k = 0; k < 8; ++k)
        if ((i >> (5 + k)) & 1u) x ^= kG[k];
    return i ^ x;
}
__host__ __device__ constexpr uint32_t pad(uint32_t i) { return i + (i >> 4); }
constexpr uint32_t kSlots = kFastBlockSlots;  // a padded plane (tuning.h plans with its size)
static_assert(pad(kBlockWords - 1) < kSlots, "a padded plane holds every slot");

// Which layout a tile of 2^tile_bits words of word_bytes each uses. Measured
// on the H200 (NOTES.md, round 7), the padded layout against the swizzle:
// - one-block tiles (batches of 1024 and 4096 words; they also serve every
//   array of up to 4096 words), their integer pipe the limit: 5.6 .. 7.5%
//   faster for keys, 3.4 .. 5.9% for pairs;
// - tiles of 2 blocks: pairs 4.6 .. 7.2% faster (one array of 8192, batches
//   of 8192), keys not (one array of 8192 keys 9.9% slower, batches the same);
// - tiles of 4 .. 16 blocks: 2.9 .. 18% slower, batches and single arrays
//   alike. They keep the swizzle.
// Only Hopper's code (sm_90) takes it: it was measured nowhere else, and a
// padded tile needs 1 KiB (keys) or 2 KiB (pairs) more a block, which leaves
// a T4 room for three blocks of keys an SM, not four, and an RTX 30 or 40
// room for two blocks of pairs, not three.
// kHopperCode: this is the code compiled for sm_90, the one GPU that the
// choices measured only there (this layout, idea 10's larger()) were timed on.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
constexpr bool kHopperCode = true;
#else
constexpr bool kHopperCode = false;
#endif
__host__ __device__ constexpr bool padded_layout(int tile_bits, int word_bytes) {
    return kHopperCode && (tile_bits == kBlockBits || (tile_bits == kBlockBits + 1 && word_bytes == 8));
}
__host__ __device__ constexpr uint32_t plane_slots(int tile_bits, int word_bytes) {
    return padded_layout(tile_bits, word_bytes) ? kSlots : kBlockWords;
}

// The index (within the tile) of register r of thread T in the round with
// base bit b: T's bits fill every index bit except b .. b+3, which are r.
// Neighbouring threads get neighbouring indices whenever b > 0.
__device__ __forceinline__ uint32_t round_index(uint32_t T, int b, int r) {
    const uint32_t low = T & ((1u << b) - 1);
    const uint32_t high = (T >> b) << (b + kLogE);
    return low | ((uint32_t)r << b) | high;
}

// Idea 10, for pairs: the larger word partly on the FMA pipe. A 64-bit min
// or max is not one instruction: the SASS compares (ISETPs, one a half) and
// selects (SELs), all on the integer (ALU) pipe, which we take to limit the
// tile kernels (NOTES.md, round 8). Why x + y - smaller is the larger word,
// exactly: smaller is x or y as a WHOLE word, so in each 32-bit half, in
// wrap-around arithmetic, x + y - smaller is the other word's half. Each half
// is two multiply-adds, by 1 and by -1, with the 1 taken from a kernel
// argument so that the compiler cannot fold them into ALU adds at the PTX
// level (what ptxas makes of them was counted, not read: NOTES.md). On the
// H200 (NOTES.md, round 8): batches of 1024, 4096 and 65536 pairs (the three
// sizes timed) 8 .. 15% faster. Keys are left as they are: their min and max
// are one instruction each (VIMNMX), and the same change won them at most 4%
// (3% as routed) and lost 5% on one array of 2^16 keys. Only Hopper's code
// (sm_90) takes it, the one GPU it was measured on (kHopperCode, as with the
// padded layout above).
// One 32-bit half: x + y - smaller, as two multiply-adds.
__device__ __forceinline__ uint32_t other_by_fma(uint32_t x, uint32_t y, uint32_t smaller, uint32_t one) {
    uint32_t sum, out;
    asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(sum) : "r"(x), "r"(one), "r"(y));                // x * 1 + y
    asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(out) : "r"(smaller), "r"(0u - one), "r"(sum));  // smaller * -1 + (x + y)
    return out;
}
// max(x, y), given smaller = min(x, y).
template <typename W>
__device__ __forceinline__ W larger(W x, W y, W smaller, uint32_t one) {
    if constexpr (sizeof(W) == 8 && kHopperCode) {
        const uint32_t high = other_by_fma((uint32_t)(x >> 32), (uint32_t)(y >> 32), (uint32_t)(smaller >> 32), one);
        const uint32_t low = other_by_fma((uint32_t)x, (uint32_t)y, (uint32_t)smaller, one);
        return ((uint64_t)high << 32) | low;
    } else {
        (void)smaller;
        (void)one;
        return max(x, y);
    }
}

// All steps at distance 2^(b+Q), on registers: pair r with r | 2^Q. Q is a
// template argument so the register array is only indexed with constants (a
// run-time index would push it to local memory). Ascending only (idea 4).
// one: 1 (idea 10).
template <int Q, typename W>
__device__ __forceinline__ void register_step(W (&v)[kE], uint32_t one) {
#pragma unroll
    for (int r = 0; r < kE; ++r) {
        if (r & (1 << Q)) continue;
        const W x = v[r], y = v[r | (1 << Q)];
        v[r] = min(x, y);
        v[r | (1 << Q)] = larger(x, y, v[r], one);
    }
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// Distributed shared memory by 32-bit addresses: mapa turns an address in
// this block's shared memory into the same address in block `rank` of the
// cluster, and ld/st.shared::cluster reach it.
__device__ __forceinline__ uint32_t cluster_address(const uint32_t* p, uint32_t rank) {
    uint32_t out;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"((uint32_t)__cvta_generic_to_shared(p)), "r"(rank));
    return out;
}
__device__ __forceinline__ uint32_t cluster_load(uint32_t address) {
    uint32_t v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(address) : "memory");
    return v;
}
__device__ __forceinline__ void cluster_store(uint32_t address, uint32_t v) {
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(address), "r"(v) : "memory");
}
#endif

// One 32-bit plane slot of a word: plane 0 holds uint32 words, or the high
// halves of uint64 ones; plane 1 the low halves.
template <typename W> __device__ __forceinline__ uint32_t plane(W w, int k) {
    if constexpr (sizeof(W) == 8) return k == 0 ? (uint32_t)(w >> 32) : (uint32_t)w;
    else { (void)k; return w; }
}
template <typename W> __device__ __forceinline__ W from_planes(uint32_t hi, uint32_t lo) {
    if constexpr (sizeof(W) == 8) return ((uint64_t)hi << 32) | lo;
    else { (void)lo; return hi; }
}

// Moving a round's 16 words between registers and shared memory. Every
// address is the thread's base slot combined with a compile-time constant
// (the index bits of r << B and of the thread never overlap: see swizzle()
// and pad()). kPad: the padded layout, else the swizzled one. kRemote: the
// round reaches into other blocks of the cluster; block rank = the index bits
// above kBlockBits.
template <int B, bool kStore, bool kRemote, bool kPad, typename W>
__device__ __forceinline__ void round_io(W (&v)[kE], uint32_t* s, uint32_t T) {
    constexpr uint32_t kMask = kBlockWords - 1;
    constexpr int kPlanes = sizeof(W) / 4;
    constexpr uint32_t kPlane = kPad ? kSlots : kBlockWords;
    const uint32_t i0 = round_index(T, B, 0);
    // An opaque copy: without it the compiler keeps the 16 addresses of every
    // layout alive across the whole (fully unrolled) kernel, and spills.
    uint32_t slot0;
    asm volatile("mov.b32 %0, %1;" : "=r"(slot0) : "r"(kPad ? pad(i0 & kMask) : swizzle(i0 & kMask)));
#pragma unroll
    for (int r = 0; r < kE; ++r) {
        const uint32_t bits = ((uint32_t)r << B) & kMask;
        uint32_t* p = kPad ? s + slot0 + pad(bits) : s + (slot0 ^ swizzle(bits));
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        if (kRemote) {
            const uint32_t rank = (i0 >> kBlockBits) | (((uint32_t)r << B) >> kBlockBits);
            uint32_t part[2] = {0, 0};
#pragma unroll
            for (int k = 0; k < kPlanes; ++k) {
                const uint32_t address = cluster_address(p + k * kPlane, rank);
                if (kStore) cluster_store(address, plane(v[r], k));
                else part[k] = cluster_load(address);
            }
            if (!kStore) v[r] = from_planes<W>(part[0], part[1]);
            continue;
        }
#endif
        if (kStore) {
#pragma unroll
            for (int k = 0; k < kPlanes; ++k) p[k * kPlane] = plane(v[r], k);
        } else {
            v[r] = from_planes<W>(p[0], kPlanes == 2 ? p[kPlane] : 0u);
        }
    }
}

// A warp's own rounds (idea 8). In the rounds with base bit 0 .. 5 a warp's
// 32 threads hold exactly the 512 words whose indices share bits 9 and up:
// the round's four bits lie within bits 0..8 and the lanes fill the other
// five (round 0: lanes on bits 4..8; round 4: on bits 0..3 and 8). An
// exchange between two such rounds moves words within the warp, so the warp
// waits only for itself. Every round that crosses warps is entered and left
// through a block (or cluster) barrier, so no other warp can still be
// reading or writing these slots.
constexpr int kWarpBits = kLogE + 5;  // 16 words a thread, 32 lanes: 512 words a warp
__host__ __device__ constexpr bool warp_round(int b) { return b + kLogE <= kWarpBits; }

template <bool kClusterWide>
__device__ __forceinline__ void block_or_cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (kClusterWide) { cooperative_groups::this_cluster().sync(); return; }
#endif
    __syncthreads();
}

__device__ __forceinline__ uint32_t cluster_rank() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return cooperative_groups::this_cluster().block_rank();
#else
    return 0;
#endif
}

// The whole schedule is known at compile time (idea 6). A tile of 2^kTileBits
// words (a cluster of 2^(kTileBits - kBlockBits) blocks) runs stages St ..
// LastSt, step by step (Bit = the distance's bit), and a new round starts
// whenever a step's bit leaves the current round's four bits. Which four:
// - in the tile of a 16-block cluster (2^16 words), a stage whose first step
//   is at bit Top takes its bits four at a time from the top: rounds with base
//   bits Top - 3, Top - 7, ..., the last one reaching down to bit 0. So stage
//   9's rounds (bits 8..5, 4..1, 0) and the lower rounds of stage 13 (after
//   12..9: 8..5, 4..1, 0) stay inside warps (idea 8): three block barriers
//   fewer in the tile, the same 8 cluster barriers. On the H200, aligned
//   rounds made one array of 2^16 keys (one cluster alone on the GPU) 6.7%
//   slower, and batches of 65536 words at most 0.6% faster (NOTES.md, round
//   6). The tails of later stages run in this tile too, where both ways give
//   the same rounds (12, 8, 4, 0);
// - in every other tile (one block, or a cluster of 2 .. 8), rounds are
//   aligned to groups of four bits (the top one moved down to fit the tile).
//   Taken from the top there (against aligned), batches took longer on the
//   H200: 3.8 .. 4.8% (keys) and 10.6 .. 14% (pairs) for arrays of 1024 and
//   4096 words (round 5), 1.7 .. 4.5% (keys) and 0.9 .. 2.4% (pairs) for
//   arrays of 8192 .. 32768 (round 6).
__host__ __device__ constexpr int round_base(int bit, int top, int tile_bits) {
    if (tile_bits == kBlockBits + 4) {
        const int base = top - (kLogE - 1) - ((top - bit) / kLogE) * kLogE;
        return base > 0 ? base : 0;
    }
    return (bit & ~(kLogE - 1)) < tile_bits - kLogE ? (bit & ~(kLogE - 1)) : tile_bits - kLogE;
}
__host__ __device__ constexpr int top_bit(int st, int tile_bits) { return st - 1 < tile_bits - 1 ? st - 1 : tile_bits - 1; }

// What Schedule and tile_kernel rely on, checked for every tile size when
// this file compiles: each step's bit lies in its round's four bits, every
// round fits the tile, and so every stage (and every tail) ends in round 0
// (bit 0's round can start nowhere else), where the last store to global
// memory expects the words.
__host__ __device__ constexpr bool rounds_fit(int tile_bits) {
    for (int st = 1; st <= tile_bits + 1; ++st) {  // st = tile_bits + 1: a tail
        const int top = top_bit(st, tile_bits);
        for (int bit = top; bit >= 0; --bit) {
            const int b = round_base(bit, top, tile_bits);
            if (b < 0 || bit < b || bit >= b + kLogE || b + kLogE > tile_bits) return false;
        }
    }
    return true;
}
static_assert(rounds_fit(12) && rounds_fit(13) && rounds_fit(14) && rounds_fit(15) && rounds_fit(16),
              "round_base() must give every step a round that holds its bit and fits the tile");
// And the choice measured in round 6: stage 9 from the top (8..5) in a 2^16
// tile only; aligned (8..11) in a 2^15 one.
static_assert(round_base(8, 8, kBlockBits + 4) == 5 && round_base(8, 8, kBlockBits + 3) == 8,
              "rounds from the top in the tiles of 16-block clusters only");

// Idea 4 at compile time. During stage st the words whose index has bit st
// set (the descending blocks) are kept complemented; st = 0 stands for "no
// stage": nothing complemented. In the round with base bit b, that bit of a
// word's index is either one of the register number r's bits (b <= st < b+4,
// known at compile time) or the same for all 16 registers of the thread.
// register_bit says, for the first case, whether register r's bit st is set.
__host__ __device__ constexpr bool register_bit(int st, int b, int r) {
    return st != 0 && st >= b && st < b + kLogE && ((r >> (st - b)) & 1);
}

// Going from stage StOld's complement pattern to StNew's in round B flips
// exactly the words whose direction bit changed. index0: the tile index of
// the thread's register 0 (its thread-wide bits).
template <int StOld, int StNew, int B, typename W>
__device__ __forceinline__ void recomplement(W (&v)[kE], uint32_t index0) {
    auto thread_bit = [&](int st) -> uint32_t {
        return (st == 0 || (st >= B && st < B + kLogE)) ? 0u : (index0 >> st) & 1u;
    };
    const W u = (thread_bit(StOld) ^ thread_bit(StNew)) ? ~W(0) : W(0);
#pragma unroll
    for (int r = 0; r < kE; ++r)
        v[r] ^= (register_bit(StOld, B, r) != register_bit(StNew, B, r)) ? ~u : u;
}

// seg_bits (run time, kScratch only): the arrays being sorted are 2^seg_bits
// words long. Their last stage, st = seg_bits, sorts every array ascending
// (no complemented words), and the schedule stops after it (idea 7).
template <int kTileBits, bool kScratch, int St, int LastSt, int Bit, int CurB, typename W>
struct Schedule {
    __host__ __device__ static constexpr bool remote(int b) { return b + kLogE > kBlockBits; }
    static __device__ __forceinline__ void run(W (&v)[kE], uint32_t* s, uint32_t T, uint32_t tile_base, int seg_bits, uint32_t one) {
        constexpr int NB = round_base(Bit, top_bit(St, kTileBits), kTileBits);
        if constexpr (NB != CurB) {
            round_io<CurB, true, remote(CurB), padded_layout(kTileBits, sizeof(W))>(v, s, T);
            if constexpr (warp_round(CurB) && warp_round(NB)) __syncwarp();
            else block_or_cluster_sync<remote(CurB) || remote(NB)>();
            round_io<NB, false, remote(NB), padded_layout(kTileBits, sizeof(W))>(v, s, T);
        }
        if constexpr (kScratch && Bit == top_bit(St, kTileBits)) {  // first step of stage St
            const uint32_t index0 = tile_base | round_index(T, NB, 0);
            if (St == seg_bits) recomplement<St - 1, 0, NB>(v, index0);
            else recomplement<St - 1, St, NB>(v, index0);
        }
        register_step<Bit - NB>(v, one);
        if constexpr (Bit > 0) {
            Schedule<kTileBits, kScratch, St, LastSt, Bit - 1, NB, W>::run(v, s, T, tile_base, seg_bits, one);
        } else {
            if (kScratch && St == seg_bits) return;  // the arrays' last stage is done (layout b = 0)
            if constexpr (St < LastSt) {
                Schedule<kTileBits, kScratch, St + 1, LastSt, top_bit(St + 1, kTileBits), NB, W>::run(
                    v, s, T, tile_base, seg_bits, one);
            } else if constexpr (kScratch) {
                recomplement<St, 0, NB>(v, tile_base | round_index(T, NB, 0));
            }
        }
    }
};

// Sorts (kScratch: stages 1 .. min(kTileBits, seg_bits), from scratch) or
// finishes (the tail of stage k: the distances below the tile) tiles of
// 2^kTileBits padded indices. The first round comes straight from global
// memory into registers and the last one (always b = 0: every stage ends
// with distance 1) goes straight back (idea 5).
// Four blocks an SM for 32-bit words (at most 64 registers a thread): the sort
// from scratch is bound by its barriers, and a fourth block gives the SM a
// warp to run while others wait (NOTES.md, round 3). For 64-bit words: three
// in a cluster's tile sorted from scratch (arrays of 2^15 and 2^16 pairs 10 ..
// 11% faster on the H200 than with two, round 5; for sm_90 ptxas spills 100
// bytes a thread in the 2^16 kernel, none in the others since idea 10 (68 ..
// 256 bytes in the 2^14 .. 2^16 kernels before)), two elsewhere: with three,
// one-block tiles sorted arrays of 1024 and 4096 pairs 3.2 .. 3.4% slower
// (round 6); the tails were not timed.
template <int kTileBits, bool kScratch, typename W>
constexpr int kTileBlocksPerSM = sizeof(W) == 4 ? 4 : (kScratch && kTileBits > kBlockBits ? 3 : 2);

template <int kTileBits, bool kScratch, typename W>
__global__ void __launch_bounds__(kThreads, kTileBlocksPerSM<kTileBits, kScratch, W>)
    tile_kernel(Planes io, uint32_t k, int seg_bits) {
    static_assert(kTileBits >= kBlockBits && kTileBits <= kBlockBits + 4, "clusters of 1 .. 16 blocks");
    constexpr int kFirstB = kScratch ? 0 : round_base(kTileBits - 1, kTileBits - 1, kTileBits);
#if !(defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900)
    // Clusters exist from Hopper on: before it these tiles are never launched,
    // and their code is not even compiled.
    if constexpr (kTileBits > kBlockBits) {
        __trap();
    } else
#endif
    {
        __shared__ uint32_t s[(sizeof(W) / 4) * plane_slots(kTileBits, sizeof(W))];
        const uint32_t rank = (kTileBits > kBlockBits) ? cluster_rank() : 0;
        const uint32_t T = rank * kThreads + threadIdx.x;  // thread id within the cluster
        const uint32_t tile_base = (blockIdx.x >> (kTileBits - kBlockBits)) << kTileBits;

        W v[kE];
        if constexpr (kFirstB == 0) {
            detail::load16<W>(io, tile_base + kE * T, v);
        } else {
#pragma unroll
            for (int r = 0; r < kE; ++r) v[r] = detail::load_word<W>(io, tile_base + round_index(T, kFirstB, r));
        }
        // The tail's stage k is above the tile: one direction for the whole tile.
        const W flip = (!kScratch && (tile_base & k)) ? ~W(0) : W(0);
        const uint32_t one = io.total != 0;  // 1, but not to the compiler (idea 10)
        if constexpr (!kScratch) {
#pragma unroll
            for (int r = 0; r < kE; ++r) v[r] ^= flip;
        }
        // Before any block touches another's shared memory, every block of the
        // cluster must be running; waiting here overlaps the loads in flight.
        if constexpr (kTileBits > kBlockBits) block_or_cluster_sync<true>();

        if constexpr (kScratch) {
            Schedule<kTileBits, true, 1, kTileBits, 0, kFirstB, W>::run(v, s, T, tile_base, seg_bits, one);
        } else {
            Schedule<kTileBits, false, kTileBits + 1, kTileBits + 1, kTileBits - 1, kFirstB, W>::run(
                v, s, T, tile_base, seg_bits, one);
#pragma unroll
            for (int r = 0; r < kE; ++r) v[r] ^= flip;
        }
        detail::store16<W>(io, tile_base + kE * T, v);
    }
}

// kNB consecutive steps of stage k whose distances span tiles: 2^(b+kNB-1)
// down to 2^b (idea 3). Each thread takes G neighbouring groups (their words
// sit at G consecutive addresses: 16-byte loads for uint32 words, 8-byte
// loads of each plane for uint64 ones), and all its loads are in flight
// before the first compare. Dense planes, raw order bits. k = 0: the
// arrays' last stage (every array ascending).
constexpr int kGlobalThreads = 256;

template <int G, typename W> struct Vec;
template <> struct Vec<4, uint32_t> {
    uint32_t x[4];
    __device__ static Vec load(const Planes& p, uint32_t a) {
        const uint4 k = *reinterpret_cast<const uint4*>(p.keys + a);
        return {{k.x, k.y, k.z, k.w}};
    }
    __device__ void store(const Planes& p, uint32_t a) const {
        *reinterpret_cast<uint4*>(p.keys + a) = make_uint4(x[0], x[1], x[2], x[3]);
    }
};
template <> struct Vec<2, uint64_t> {
    uint64_t x[2];
    __device__ static Vec load(const Planes& p, uint32_t a) {
        const uint2 k = *reinterpret_cast<const uint2*>(p.keys + a);
        const uint2 v = *reinterpret_cast<const uint2*>(p.values + a);
        return {{((uint64_t)k.x << 32) | v.x, ((uint64_t)k.y << 32) | v.y}};
    }
    __device__ void store(const Planes& p, uint32_t a) const {
        *reinterpret_cast<uint2*>(p.keys + a) = make_uint2((uint32_t)(x[0] >> 32), (uint32_t)(x[1] >> 32));
        *reinterpret_cast<uint2*>(p.values + a) = make_uint2((uint32_t)x[0], (uint32_t)x[1]);
    }
};

template <int kNB, typename W>
__global__ void __launch_bounds__(kGlobalThreads) global_kernel(Planes io, uint32_t n, int b, uint32_t k) {
    constexpr int G = sizeof(W) == 4 ? 4 : 2;
    constexpr int kRows = 1 << kNB;
    const uint32_t g = blockIdx.x * kGlobalThreads + threadIdx.x;
    const uint32_t group = G * g;  // first of this thread's G groups
    if (group >= (n >> kNB)) return;
    const uint32_t low = group & ((1u << b) - 1);
    const uint32_t high = group >> b;
    const uint32_t base = low | (high << (b + kNB));
    const bool ascending = (base & k) == 0;  // k is above every bit that varies here

    Vec<G, W> v[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) v[r] = Vec<G, W>::load(io, base + ((uint32_t)r << b));
#pragma unroll
    for (int q = kNB - 1; q >= 0; --q) {
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
            if (r & (1 << q)) continue;
#pragma unroll
            for (int c = 0; c < G; ++c) detail::compare_exchange(v[r].x[c], v[r | (1 << q)].x[c], ascending);
        }
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r) v[r].store(io, base + ((uint32_t)r << b));
}

// A small merge, for arrays of P < 4096 words (below one block): one block
// per 4096 words in shared memory, steps P/2 .. 1 ascending, a barrier after
// each. Only merges of such short arrays use it.
template <typename W>
__global__ void __launch_bounds__(kThreads) merge_small_kernel(Planes io, int seg_bits) {
    __shared__ W s[kBlockWords];
    const uint64_t base = (uint64_t)blockIdx.x * kBlockWords;
#pragma unroll
    for (int r = 0; r < kE; ++r) s[r * kThreads + threadIdx.x] = detail::load_word<W>(io, base + r * kThreads + threadIdx.x);
    __syncthreads();
    for (uint32_t j = 1u << (seg_bits - 1); j > 0; j >>= 1) {
#pragma unroll
        for (int q = 0; q < kE / 2; ++q) {
            const uint32_t t = q * kThreads + threadIdx.x;
            const uint32_t i = 2 * t - (t & (j - 1));  // t with a 0 inserted at j's bit
            const W x = s[i], y = s[i + j];
            s[i] = min(x, y);
            s[i + j] = max(x, y);
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < kE; ++r) detail::store_word<W>(io, base + r * kThreads + threadIdx.x, s[r * kThreads + threadIdx.x]);
}

template <typename W>
inline Status launch_global(const Planes& io, uint32_t n, int nb, int b, uint32_t k, cudaStream_t stream) {
    constexpr uint32_t G = sizeof(W) == 4 ? 4 : 2;
    const uint32_t threads = (n >> nb) / G;
    const uint32_t blocks = (threads + kGlobalThreads - 1) / kGlobalThreads;
    switch (nb) {
        case 1: global_kernel<1, W><<<blocks, kGlobalThreads, 0, stream>>>(io, n, b, k); break;
        case 2: global_kernel<2, W><<<blocks, kGlobalThreads, 0, stream>>>(io, n, b, k); break;
        case 3: global_kernel<3, W><<<blocks, kGlobalThreads, 0, stream>>>(io, n, b, k); break;
        default: global_kernel<4, W><<<blocks, kGlobalThreads, 0, stream>>>(io, n, b, k); break;
    }
    CH12_TRY(::ch12::kernel_launch("fast: global_kernel launch"));
    return {};
}

// Kernel attributes, set once per device and kernel, and only where a
// launch needs them: 16-block clusters need the non-portable cluster size
// allowed; the spread needs its dynamic shared memory allowed (never more
// than the device's limit: tune() keeps static + spread within it).
struct TileAttributes {
    std::atomic<bool> non_portable[detail::kAttributeDevices];
    std::atomic<size_t> dynamic_smem[detail::kAttributeDevices];
};
template <int kTileBits, bool kScratch, typename W>
TileAttributes& tile_attributes() {
    static TileAttributes a{};
    return a;
}

template <int kTileBits, bool kScratch, typename W>
inline Status configure_tiles(int device, size_t spread_bytes) {
    auto kernel = tile_kernel<kTileBits, kScratch, W>;
    TileAttributes& a = tile_attributes<kTileBits, kScratch, W>();
    const bool cached = device >= 0 && device < detail::kAttributeDevices;
    if (kTileBits - kBlockBits == 4 && !(cached && a.non_portable[device].load(std::memory_order_acquire))) {
        CH12_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        if (cached) a.non_portable[device].store(true, std::memory_order_release);
    }
    if (spread_bytes > 0 && !(cached && a.dynamic_smem[device].load(std::memory_order_acquire) >= spread_bytes)) {
        CH12_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)spread_bytes));
        if (cached) a.dynamic_smem[device].store(spread_bytes, std::memory_order_release);
    }
    return {};
}

// spread_bytes: extra (unused) dynamic shared memory per block (the tuning's
// fast_spread: a single cluster spread one block per SM), or 0.
template <int kTileBits, bool kScratch, typename W>
inline Status launch_tiles(const Planes& io, uint32_t blocks, uint32_t k, int seg_bits, size_t spread_bytes,
                           const Launch& l) {
    auto kernel = tile_kernel<kTileBits, kScratch, W>;
    if (kTileBits - kBlockBits == 4 || spread_bytes > 0)
        CH12_TRY((configure_tiles<kTileBits, kScratch, W>(l.device, spread_bytes)));
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = spread_bytes;
    config.stream = l.stream;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = 1u << (kTileBits - kBlockBits);
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = (kTileBits > kBlockBits) ? 1 : 0;
    const cudaError_t e = cudaLaunchKernelEx(&config, kernel, io, k, seg_bits);
    CH12_TRY((ch12::KernelLaunch{e, "fast: tile_kernel launch (cudaLaunchKernelEx)"}));
    return {};
}

// Can this device run the tile kernel in clusters of 16 blocks? Hopper and
// later can, when this build has their code (a kernel compiled from PTX for
// an older GPU has no cluster code: see tile_kernel). Answers 16, 8 (the
// portable size) or 1 (no clusters). Asked once per device (device_limits).
Status max_cluster(int device, int cc, int* out);

// One tile kernel for arrays of P = 2^seg_bits <= fused_words() words,
// straight from the caller's planes (codecs, padding, batch layout).
template <typename W>
inline Status sort_in_tiles(const Planes& io, const Launch& l) {
    const int seg_bits = io.seg_bits;
    const uint32_t blocks = (uint32_t)((io.total + kBlockWords - 1) / kBlockWords);
    // A single cluster is spread one block per SM (latency); many are not.
    const size_t spread =
        (io.total <= (1u << 16) && seg_bits > kBlockBits) ? l.tuning.fast_spread[sizeof(W) == 8 ? 1 : 0] : 0;
    switch (seg_bits <= kBlockBits ? kBlockBits : seg_bits) {
        case 12: return launch_tiles<12, true, W>(io, blocks, 0, seg_bits, 0, l);
        case 13: return launch_tiles<13, true, W>(io, blocks, 0, seg_bits, spread, l);
        case 14: return launch_tiles<14, true, W>(io, blocks, 0, seg_bits, spread, l);
        case 15: return launch_tiles<15, true, W>(io, blocks, 0, seg_bits, spread, l);
        default: return launch_tiles<16, true, W>(io, blocks, 0, seg_bits, spread, l);
    }
}

// Stage st (> kTileBits, or = kTileBits for a merge of arrays of one tile)
// of arrays longer than a tile, in dense planes of raw order bits: its global
// steps (in launches of at most 4 bits, split evenly: 5 bits = 3 + 2), then
// its tail inside the tiles. The arrays' last stage ascends (k = 0).
template <int kTileBits, typename W>
inline Status stage(const Planes& io, int st, const Launch& l) {
    const uint32_t n = (uint32_t)io.total;
    const uint32_t blocks = n >> kBlockBits;
    const uint32_t k = (st == io.seg_bits) ? 0u : (1u << st);
    const int global_bits = st - kTileBits;
    const int launches = fast_global_launches(global_bits);  // traffic.h: the trip count uses it too
    int bit = st - 1;
    for (int i = 0; i < launches; ++i) {
        const int nb = (global_bits * (i + 1)) / launches - (global_bits * i) / launches;
        CH12_TRY(launch_global<W>(io, n, nb, bit - nb + 1, k, l.stream));
        bit -= nb;
    }
    return launch_tiles<kTileBits, false, W>(io, blocks, k, io.seg_bits, 0, l);
}

// Whole sorts of dense planes: tiles sorted from scratch, then every later stage.
template <int kTileBits, typename W>
inline Status sort_dense_tiles(const Planes& io, const Launch& l) {
    CH12_TRY((launch_tiles<kTileBits, true, W>(io, (uint32_t)(io.total >> kBlockBits), 0, io.seg_bits, 0, l)));
    for (int st = kTileBits + 1; st <= io.seg_bits; ++st) CH12_TRY((stage<kTileBits, W>(io, st, l)));
    return {};
}

struct Ops {
    static uint64_t fused_words(const Tuning& t) { return uint64_t(1) << t.fast_tile_bits; }

    template <typename W>
    static Status sort_fused(const Planes& p, const Launch& l) { return sort_in_tiles<W>(p, l); }

    // Only for arrays longer than fused_words() (the plan sends shorter ones
    // to sort_fused).
    template <typename W>
    static Status sort_dense(const Planes& p, const Launch& l) {
        if (l.tuning.fast_cluster == 16) return sort_dense_tiles<kBlockBits + 4, W>(p, l);
        return sort_dense_tiles<kBlockBits, W>(p, l);
    }

    // The last stage alone: its global steps and one tile pass -- in tiles of
    // a cluster where the arrays are that long, else of one block; arrays
    // shorter than a block in shared memory.
    template <typename W>
    static Status merge_dense(const Planes& p, const Launch& l) {
        if (p.seg_bits < kBlockBits) {
            const uint32_t blocks = (uint32_t)((p.total + kBlockWords - 1) / kBlockWords);
            merge_small_kernel<W><<<blocks, kThreads, 0, l.stream>>>(p, p.seg_bits);
            CH12_TRY(::ch12::kernel_launch("fast: merge_small_kernel launch"));
            return {};
        }
        if (p.seg_bits >= kBlockBits + 4 && l.tuning.fast_cluster == 16) return stage<kBlockBits + 4, W>(p, p.seg_bits, l);
        return stage<kBlockBits, W>(p, p.seg_bits, l);
    }
};

}  // namespace fast
}  // namespace bitonic
