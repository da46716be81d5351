// ch12/extras/bitonic_sort.cuh -- bitonic sort beyond one block.
//
// Three GPU versions of the SAME sorting network (Section 12.3's double loop
// over stages k and distances j), for uint32 keys of any count n >= 0:
//
//   chapter    Section 12.3's kernel at scale: one launch per (k, j), every
//              pass through global memory (bitonic_chapter_kernel.cuh).
//   workgroup  the classic design of ../shared/reference/workgroup_bitonic_glsl.txt:
//              1024-key tiles sorted in shared memory by 512 threads with
//              barriers; distances that span tiles as separate launches over
//              global memory; the tail of each stage back in shared memory.
//   fast       the same network engineered for a Hopper GPU (H100/H200):
//              16 keys per thread in registers, thread-block clusters sharing
//              their shared memory, four distances per trip through shared or
//              global memory, 16-byte coalesced accesses (see namespace fast).
//
// Any n: the keys are padded up to a power of two with the largest key
// (0xFFFFFFFF), sorted, and the padding -- which sorts to the end -- is
// dropped. The multiset of the n real keys is untouched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <cooperative_groups.h>

#include "cuda_check.h"
#include "bitonic_chapter_kernel.cuh"

namespace ch12 {

// One compare-exchange, both directions: after it, (x, y) is in ascending
// order when `ascending`, else descending. min/max and two selects: no branch.
__device__ __forceinline__ void compare_exchange(uint32_t& x, uint32_t& y, bool ascending) {
    const uint32_t lo = min(x, y), hi = max(x, y);
    x = ascending ? lo : hi;
    y = ascending ? hi : lo;
}

// =============================================================================
// The workgroup design
// =============================================================================
namespace workgroup {

constexpr uint32_t kTile = 1024;     // keys per tile, held in shared memory
constexpr uint32_t kThreads = 512;   // one thread per compare-exchange pair

// Thread t's pair at distance j: the lower index i has a 0 at bit j, so the
// t-th such index is t with a 0 bit inserted at j's position (the GLSL
// article's 2*t - (t & (j-1))), and its partner is i + j = i ^ j.
__device__ __forceinline__ uint32_t pair_low_index(uint32_t t, uint32_t j) {
    return 2 * t - (t & (j - 1));
}

// The steps j = j_start, j_start/2, ..., 1 of stage k on one tile in shared
// memory, one barrier after each step. The direction comes from the key's
// GLOBAL index (tile_base + i), exactly as in 63: (index & k) == 0 ascends.
__device__ __forceinline__ void tile_steps(uint32_t* s, uint32_t tile_base, uint32_t k, uint32_t j_start) {
    for (uint32_t j = j_start; j > 0; j /= 2) {
        const uint32_t i = pair_low_index(threadIdx.x, j);
        compare_exchange(s[i], s[i + j], ((tile_base + i) & k) == 0);
        __syncthreads();
    }
}

// Launch 1: every stage k = 2 .. 1024 inside each tile.
__global__ void __launch_bounds__(kThreads) sort_tiles_kernel(uint32_t* keys) {
    __shared__ uint32_t s[kTile];
    const uint32_t base = blockIdx.x * kTile;
    const uint32_t t = threadIdx.x;
    s[t] = keys[base + t];                  // coalesced: consecutive threads,
    s[t + kThreads] = keys[base + t + kThreads];  // consecutive addresses
    __syncthreads();
    for (uint32_t k = 2; k <= kTile; k *= 2) tile_steps(s, base, k, k / 2);
    keys[base + t] = s[t];
    keys[base + t + kThreads] = s[t + kThreads];
}

// A step whose distance j >= 1024 spans tiles: no block barrier can order it,
// so it is a launch of its own over global memory, one thread per pair.
__global__ void __launch_bounds__(256) global_step_kernel(uint32_t* keys, uint32_t k, uint32_t j) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;  // grid covers n/2 pairs exactly
    const uint32_t i = pair_low_index(t, j);
    uint32_t x = keys[i], y = keys[i + j];
    compare_exchange(x, y, (i & k) == 0);
    keys[i] = x;
    keys[i + j] = y;
}

// The tail of stage k: distances 512 .. 1 stay inside a tile, so the tile
// goes back into shared memory for them.
__global__ void __launch_bounds__(kThreads) merge_tail_kernel(uint32_t* keys, uint32_t k) {
    __shared__ uint32_t s[kTile];
    const uint32_t base = blockIdx.x * kTile;
    const uint32_t t = threadIdx.x;
    s[t] = keys[base + t];
    s[t + kThreads] = keys[base + t + kThreads];
    __syncthreads();
    tile_steps(s, base, k, kTile / 2);
    keys[base + t] = s[t];
    keys[base + t + kThreads] = s[t + kThreads];
}

// n: a power of two, at least kTile.
inline void sort_pow2(uint32_t* keys, uint32_t n, cudaStream_t stream) {
    const uint32_t tiles = n / kTile;
    sort_tiles_kernel<<<tiles, kThreads, 0, stream>>>(keys);
    CUDA_CHECK_LAUNCH();
    for (uint64_t k = 2 * kTile; k <= n; k *= 2) {
        for (uint32_t j = (uint32_t)(k / 2); j >= kTile; j /= 2) {
            global_step_kernel<<<n / 2 / 256, 256, 0, stream>>>(keys, (uint32_t)k, j);
            CUDA_CHECK_LAUNCH();
        }
        merge_tail_kernel<<<tiles, kThreads, 0, stream>>>(keys, (uint32_t)k);
        CUDA_CHECK_LAUNCH();
    }
}

}  // namespace workgroup

// =============================================================================
// The fast sort
// =============================================================================
namespace fast {

// THE IDEAS, in the order they buy time (each is explained again where used):
//
// 1. Rounds of four distances in registers. A step at distance 2^bit pairs
//    keys whose indices differ in that one bit. A thread holding the 16 keys
//    whose indices differ ONLY in bits b .. b+3 can do every step at
//    distances 2^(b+3) .. 2^b on its own registers: no barrier, no memory
//    traffic. The network is cut into such rounds; between rounds the keys
//    go through shared memory once (store, barrier, load in the next round's
//    layout) -- a quarter of the barriers and shared-memory traffic of one
//    step per trip.
// 2. Thread-block clusters (Hopper): up to 16 blocks on neighbouring SMs can
//    read and write each other's shared memory (distributed shared memory)
//    and meet at one hardware barrier. A cluster of 16 blocks x 4096 keys
//    sorts 65536 keys in ONE launch, and for larger arrays it makes the
//    "tile" 16 times larger: 4 fewer global stages, and 4 fewer distances
//    per stage that need trips through global memory.
// 3. Global steps, four at a time. Distances that span clusters go through
//    global memory, but one launch does up to four consecutive steps: each
//    thread loads the 16 keys of a group (indices differing only in those
//    four bits) for 4 neighbouring groups, as 16-byte loads, sorts them in
//    registers, and writes them back: one read and one write of the array
//    for four steps.
// 4. No direction test in the inner loop. Within one stage the direction of
//    every key is fixed (bit k of its index). Keys of descending blocks are
//    stored bit-complemented (~x) for the duration of the stage, which turns
//    every compare-exchange into the ascending one: min and max, nothing
//    else (min(~x, ~y) = ~max(x, y)). They are complemented back at the end
//    of the stage.
// 5. Global memory only where it must be: the first round of a kernel loads
//    straight from global memory into registers and the last one stores
//    straight back (16-byte accesses, coalesced); shared memory only
//    between rounds, swizzled so no round layout has bank conflicts.
// 6. A schedule fixed at compile time. Which round holds which bits, where a
//    stage starts, which keys are complemented: all of it depends only on
//    the tile size, so it is unrolled by templates into straight-line code
//    with no loop counters, no switches and no index arithmetic left -- the
//    first version, with those decided at run time, spent 7 instructions of
//    bookkeeping for every instruction of sorting.
constexpr int kLogE = 4;
constexpr int kE = 1 << kLogE;  // keys per thread

// Shared-memory layout (idea 5): key i of a block lives at word
// swizzle(i) = i ^ G(i >> 5), G a fixed XOR of the 5-bit constants below, one
// per index bit 5 .. 12. The constants were chosen (by an exhaustive check
// of every round layout b = 0 .. 12 and of the 16-byte copy pattern) so that
// the 32 lanes of a warp always hit 32 different banks: with plain indexing,
// rounds with b = 1 .. 4 would see 2-way bank conflicts. G is linear (XOR),
// so swizzle(a | b) = swizzle(a) ^ swizzle(b) for indices with no common
// bit; that lets the per-register part be a compile-time constant.
__host__ __device__ constexpr uint32_t swizzle(uint32_t i) {
    constexpr uint32_t kG[8] = {18, 7, 29, 17, 6, 2, 18, 0};
    uint32_t x = 0;
    for (int k = 0; k < 8; ++k)
        if ((i >> (5 + k)) & 1u) x ^= kG[k];
    return i ^ x;
}

// The index (within the cluster's tile) of register r of thread T in the
// round with base bit b: T's bits fill every index bit except b .. b+3,
// which are r. Neighbouring threads get neighbouring indices whenever b > 0.
__device__ __forceinline__ uint32_t round_index(uint32_t T, int b, int r) {
    const uint32_t low = T & ((1u << b) - 1);
    const uint32_t high = (T >> b) << (b + kLogE);
    return low | ((uint32_t)r << b) | high;
}

// All steps at distance 2^(b+Q), on registers: pair r with r | 2^Q. Q is a
// template argument so the register array is only indexed with constants (a
// run-time index would push it to local memory). Ascending only (idea 4).
template <int Q>
__device__ __forceinline__ void register_step(uint32_t (&v)[kE]) {
#pragma unroll
    for (int r = 0; r < kE; ++r) {
        if (r & (1 << Q)) continue;
        const uint32_t x = v[r], y = v[r | (1 << Q)];
        v[r] = min(x, y);
        v[r | (1 << Q)] = max(x, y);
    }
}

// Moving a round's 16 keys between registers and shared memory. Every
// address is the thread's base word XOR a compile-time constant (the index
// bits of r << B and of the thread never overlap, so swizzle() of the whole
// index is the XOR of the two swizzles). kRemote: the round reaches into
// other blocks of the cluster; block rank = the index bits above kBits.
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

template <int B, bool kStore, bool kRemote, int kBits>
__device__ __forceinline__ void round_io(uint32_t (&v)[kE], uint32_t* s, uint32_t T) {
    constexpr uint32_t kMask = (1u << kBits) - 1;
    const uint32_t i0 = round_index(T, B, 0);
    // An opaque copy: without it the compiler keeps the 16 addresses of every
    // layout alive across the whole (fully unrolled) kernel, and spills.
    uint32_t word0;
    asm volatile("mov.b32 %0, %1;" : "=r"(word0) : "r"(swizzle(i0 & kMask)));
#pragma unroll
    for (int r = 0; r < kE; ++r) {
        uint32_t* p = s + (word0 ^ swizzle(((uint32_t)r << B) & kMask));
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        if (kRemote) {
            const uint32_t address = cluster_address(p, (i0 >> kBits) | (((uint32_t)r << B) >> kBits));
            if (kStore) cluster_store(address, v[r]);
            else v[r] = cluster_load(address);
            continue;
        }
#endif
        if (kStore) *p = v[r];
        else v[r] = *p;
    }
}

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
// keys (a cluster of 2^(kTileBits - kBlockBits) blocks) runs stages St ..
// LastSt, step by step (Bit = the distance's bit), and a new round starts
// whenever a step's bit leaves the current round's four bits. Rounds are
// aligned to groups of four bits (the top one is moved down to fit the tile).
__host__ __device__ constexpr int round_base(int bit, int tile_bits) {
    return (bit & ~(kLogE - 1)) < tile_bits - kLogE ? (bit & ~(kLogE - 1)) : tile_bits - kLogE;
}
__host__ __device__ constexpr int top_bit(int st, int tile_bits) { return st - 1 < tile_bits - 1 ? st - 1 : tile_bits - 1; }

// Idea 4 at compile time: the keys of stage st's descending blocks (index
// bit st set) are kept complemented. Going from stage st_old to st_new
// (0 = none) in round B flips exactly the keys whose bit changed. The bit is
// either one of r's bits (known at compile time) or the same for all 16
// registers of the thread (one mask, worked out once).
// Is index bit st (stage st's direction bit; st = 0: no stage) one of
// register r's bits in the round with base bit b, and set?
__host__ __device__ constexpr bool register_bit(int st, int b, int r) {
    return st != 0 && st >= b && st < b + kLogE && ((r >> (st - b)) & 1);
}

template <int StOld, int StNew, int B>
__device__ __forceinline__ void recomplement(uint32_t (&v)[kE], uint32_t index0) {
    auto thread_bit = [&](int st) -> uint32_t {
        return (st == 0 || (st >= B && st < B + kLogE)) ? 0u : (index0 >> st) & 1u;
    };
    const uint32_t u = (thread_bit(StOld) ^ thread_bit(StNew)) ? ~0u : 0u;
#pragma unroll
    for (int r = 0; r < kE; ++r)
        v[r] ^= (register_bit(StOld, B, r) != register_bit(StNew, B, r)) ? ~u : u;
}

template <int kTileBits, int kBlockBits, bool kScratch, int St, int LastSt, int Bit, int CurB>
struct Schedule {
    __host__ __device__ static constexpr bool remote(int b) { return b + kLogE > kBlockBits; }
    static __device__ __forceinline__ void run(uint32_t (&v)[kE], uint32_t* s, uint32_t T, uint32_t tile_base) {
        constexpr int NB = round_base(Bit, kTileBits);
        if constexpr (NB != CurB) {
            round_io<CurB, true, remote(CurB), kBlockBits>(v, s, T);
            block_or_cluster_sync<remote(CurB) || remote(NB)>();
            round_io<NB, false, remote(NB), kBlockBits>(v, s, T);
        }
        if constexpr (kScratch && Bit == top_bit(St, kTileBits))  // first step of stage St
            recomplement<St - 1, St, NB>(v, tile_base | round_index(T, NB, 0));
        register_step<Bit - NB>(v);
        if constexpr (Bit > 0) {
            Schedule<kTileBits, kBlockBits, kScratch, St, LastSt, Bit - 1, NB>::run(v, s, T, tile_base);
        } else if constexpr (St < LastSt) {
            Schedule<kTileBits, kBlockBits, kScratch, St + 1, LastSt, top_bit(St + 1, kTileBits), NB>::run(
                v, s, T, tile_base);
        } else if constexpr (kScratch) {
            recomplement<St, 0, NB>(v, tile_base | round_index(T, NB, 0));
        }
    }
};

// Sorts (kScratch: stages 1 .. kTileBits, from scratch) or finishes (the tail
// of stage k: the distances below the tile) tiles of 2^kTileBits keys. The
// first round comes straight from global memory into registers and the last
// one (always b = 0: every stage ends with distance 1) goes straight back, as
// 16-byte accesses (idea 5).
template <int kThreads, int kTileBits, bool kScratch>
__global__ void __launch_bounds__(kThreads, kScratch ? 3 : 4) tile_kernel(uint32_t* keys, uint32_t k) {
    constexpr int kBlockBits = (kThreads == 256) ? 12 : 13;
    static_assert(kThreads * kE == (1 << kBlockBits), "256 or 512 threads");
    static_assert(kTileBits >= kBlockBits && kTileBits <= kBlockBits + 4, "clusters of 1 .. 16 blocks");
    constexpr int kFirstB = kScratch ? 0 : round_base(kTileBits - 1, kTileBits);
    __shared__ uint32_t s[1 << kBlockBits];
    const uint32_t rank = (kTileBits > kBlockBits) ? cluster_rank() : 0;
    const uint32_t T = rank * kThreads + threadIdx.x;  // thread id within the cluster
    const uint32_t tile_base = (blockIdx.x >> (kTileBits - kBlockBits)) << kTileBits;
    uint32_t* tile = keys + tile_base;

    uint32_t v[kE];
    if constexpr (kFirstB == 0) {
        const uint4* g4 = reinterpret_cast<const uint4*>(tile + kE * T);
#pragma unroll
        for (int m = 0; m < kE / 4; ++m) {
            const uint4 x = g4[m];
            v[4 * m + 0] = x.x; v[4 * m + 1] = x.y; v[4 * m + 2] = x.z; v[4 * m + 3] = x.w;
        }
    } else {
#pragma unroll
        for (int r = 0; r < kE; ++r) v[r] = tile[round_index(T, kFirstB, r)];
    }
    // The tail's stage k is above the tile: one direction for the whole tile.
    const uint32_t flip = (!kScratch && (tile_base & k)) ? ~0u : 0u;
    if constexpr (!kScratch) {
#pragma unroll
        for (int r = 0; r < kE; ++r) v[r] ^= flip;
    }
    // Before any block touches another's shared memory, every block of the
    // cluster must be running; waiting here overlaps the loads in flight.
    if constexpr (kTileBits > kBlockBits) block_or_cluster_sync<true>();

    if constexpr (kScratch) {
        Schedule<kTileBits, kBlockBits, true, 1, kTileBits, 0, kFirstB>::run(v, s, T, tile_base);
    } else {
        Schedule<kTileBits, kBlockBits, false, kTileBits + 1, kTileBits + 1, kTileBits - 1, kFirstB>::run(
            v, s, T, tile_base);
#pragma unroll
        for (int r = 0; r < kE; ++r) v[r] ^= flip;
    }

    uint4* o4 = reinterpret_cast<uint4*>(tile + kE * T);
#pragma unroll
    for (int m = 0; m < kE / 4; ++m) o4[m] = make_uint4(v[4 * m + 0], v[4 * m + 1], v[4 * m + 2], v[4 * m + 3]);
}

// kNB consecutive steps of stage k whose distances span cluster tiles:
// 2^(b+kNB-1) down to 2^b (idea 3). Each thread takes 4 neighbouring groups
// (their keys sit at 4 consecutive addresses), so its 2^kNB loads are 16
// bytes wide, neighbouring threads read neighbouring 16-byte chunks, and all
// 2^kNB loads are in flight before the first compare.
constexpr int kGlobalThreads = 256;

template <int kNB>
__global__ void __launch_bounds__(kGlobalThreads) global_kernel(uint32_t* keys, uint32_t n, int b, uint32_t k) {
    constexpr int kRows = 1 << kNB;
    const uint32_t g = blockIdx.x * kGlobalThreads + threadIdx.x;
    const uint32_t group = 4 * g;  // first of this thread's 4 groups
    if (group >= (n >> kNB)) return;
    const uint32_t low = group & ((1u << b) - 1);
    const uint32_t high = group >> b;
    const uint32_t base = low | (high << (b + kNB));
    const bool ascending = (base & k) == 0;  // k is above every bit that varies here

    uint4 v[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) v[r] = *reinterpret_cast<const uint4*>(keys + base + ((uint32_t)r << b));
#pragma unroll
    for (int q = kNB - 1; q >= 0; --q) {
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
            if (r & (1 << q)) continue;
            uint4& x = v[r];
            uint4& y = v[r | (1 << q)];
            compare_exchange(x.x, y.x, ascending);
            compare_exchange(x.y, y.y, ascending);
            compare_exchange(x.z, y.z, ascending);
            compare_exchange(x.w, y.w, ascending);
        }
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r) *reinterpret_cast<uint4*>(keys + base + ((uint32_t)r << b)) = v[r];
}

inline void launch_global(uint32_t* keys, uint32_t n, int nb, int b, uint32_t k, cudaStream_t stream) {
    const uint32_t threads = (n >> nb) / 4;
    const uint32_t blocks = (threads + kGlobalThreads - 1) / kGlobalThreads;
    switch (nb) {
        case 1: global_kernel<1><<<blocks, kGlobalThreads, 0, stream>>>(keys, n, b, k); break;
        case 2: global_kernel<2><<<blocks, kGlobalThreads, 0, stream>>>(keys, n, b, k); break;
        case 3: global_kernel<3><<<blocks, kGlobalThreads, 0, stream>>>(keys, n, b, k); break;
        default: global_kernel<4><<<blocks, kGlobalThreads, 0, stream>>>(keys, n, b, k); break;
    }
    CUDA_CHECK_LAUNCH();
}

// spread_bytes: extra (unused) dynamic shared memory per block. A single
// cluster would otherwise be packed onto a few SMs, several blocks each;
// asking for more shared memory than two blocks can share puts every block
// on an SM of its own.
// spread_bytes: extra (unused) dynamic shared memory per block. A single
// cluster would otherwise be packed onto a few SMs, several blocks each;
// asking for more shared memory than two blocks can share puts every block
// on an SM of its own.
constexpr size_t kSpreadBytes = 120 * 1024;
constexpr int kThreads = 256;  // 16 keys each: blocks of 4096 keys
constexpr int kBlockBits = 12;

template <int kTileBits, bool kScratch>
inline void launch_tiles(uint32_t* keys, uint32_t n, uint32_t k, size_t spread_bytes, cudaStream_t stream) {
    auto kernel = tile_kernel<kThreads, kTileBits, kScratch>;
    static bool configured = false;
    if (!configured) {
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kSpreadBytes));
        if (kTileBits - kBlockBits == 4)
            CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        configured = true;
    }
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(n >> kBlockBits);
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = spread_bytes;
    config.stream = stream;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = 1u << (kTileBits - kBlockBits);
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = (kTileBits > kBlockBits) ? 1 : 0;
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, keys, k));
}

// Can this GPU run clusters of 16 of our blocks? (Hopper: yes; before: no
// clusters at all.) Asked once.
inline bool clusters_of_16() {
    static int answer = -1;
    if (answer < 0) {
        answer = 0;
        int device = 0, major = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        const char* env = std::getenv("CH12_FAST_NO_CLUSTERS");  // for tuning: tiles of one block
        if (major >= 9 && !(env && env[0] == '1')) {
            auto kernel = tile_kernel<kThreads, kBlockBits + 4, false>;
            CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
            cudaLaunchConfig_t config = {};
            config.gridDim = dim3(16);
            config.blockDim = dim3(kThreads);
            cudaLaunchAttribute attribute[1];
            attribute[0].id = cudaLaunchAttributeClusterDimension;
            attribute[0].val.clusterDim = {16u, 1u, 1u};
            config.attrs = attribute;
            config.numAttrs = 1;
            int clusters = 0;
            if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) == cudaSuccess && clusters > 0) answer = 1;
            (void)cudaGetLastError();  // a refused size is an answer, not an error
        }
    }
    return answer == 1;
}

// Stage tails and from-scratch sorts for the tile size in use.
template <int kTileBits>
inline void sort_pow2_tiles(uint32_t* keys, uint32_t n, int log_n, cudaStream_t stream) {
    launch_tiles<kTileBits, true>(keys, n, 0, 0, stream);
    for (int st = kTileBits + 1; st <= log_n; ++st) {
        const uint32_t k = 1u << st;
        // Global bits st-1 .. kTileBits, in launches of at most 4 bits, split
        // evenly (5 bits: 3 + 2, not 4 + 1), from the top down (idea 3).
        const int global_bits = st - kTileBits;
        const int launches = (global_bits + kLogE - 1) / kLogE;
        int bit = st - 1;
        for (int l = 0; l < launches; ++l) {
            const int nb = (global_bits * (l + 1)) / launches - (global_bits * l) / launches;
            launch_global(keys, n, nb, bit - nb + 1, k, stream);
            bit -= nb;
        }
        launch_tiles<kTileBits, false>(keys, n, k, 0, stream);
    }
}

// n: a power of two, at least kMinKeys. Up to 2^16 keys on Hopper: one
// cluster, one launch, spread one block per SM. Larger: tiles of 2^16 keys
// (clusters of 16 blocks) between the global steps. Before Hopper: tiles of
// one block (4096 keys).
constexpr uint32_t kMinKeys = 1u << kBlockBits;
inline void sort_pow2(uint32_t* keys, uint32_t n, cudaStream_t stream) {
    int log_n = 0;
    while ((1ull << log_n) < n) log_n++;
    if (!clusters_of_16()) {
        sort_pow2_tiles<kBlockBits>(keys, n, log_n, stream);
        return;
    }
    switch (log_n) {
        case 12: launch_tiles<12, true>(keys, n, 0, 0, stream); break;
        case 13: launch_tiles<13, true>(keys, n, 0, kSpreadBytes, stream); break;
        case 14: launch_tiles<14, true>(keys, n, 0, kSpreadBytes, stream); break;
        case 15: launch_tiles<15, true>(keys, n, 0, kSpreadBytes, stream); break;
        case 16: launch_tiles<16, true>(keys, n, 0, kSpreadBytes, stream); break;
        default: sort_pow2_tiles<16>(keys, n, log_n, stream); break;
    }
}

}  // namespace fast

// =============================================================================
// Any n
// =============================================================================
enum class Variant { chapter, workgroup, fast };

inline const char* variant_name(Variant v) {
    switch (v) {
        case Variant::chapter: return "chapter";
        case Variant::workgroup: return "workgroup";
        default: return "fast";
    }
}

inline bool parse_variant(const char* s, Variant* out) {
    if (std::strcmp(s, "chapter") == 0) *out = Variant::chapter;
    else if (std::strcmp(s, "workgroup") == 0) *out = Variant::workgroup;
    else if (std::strcmp(s, "fast") == 0) *out = Variant::fast;
    else return false;
    return true;
}

// Largest n the 32-bit index arithmetic of the kernels supports.
constexpr size_t kMaxKeys = size_t(1) << 31;

// The power of two the variant sorts for n keys (n itself when it is one and
// large enough), or 0 for n <= 1 (nothing to do).
inline size_t padded_count(Variant v, size_t n) {
    if (n <= 1) return 0;
    size_t p = 1;
    while (p < n) p *= 2;
    const size_t min_keys = (v == Variant::fast) ? fast::kMinKeys
                          : (v == Variant::workgroup) ? workgroup::kTile : 1;
    return p < min_keys ? min_keys : p;
}

// Sorts d_keys[0, n) ascending on `stream`. d_scratch must hold
// padded_count(v, n) keys when that differs from n (it may be null otherwise).
inline void sort_keys(Variant v, uint32_t* d_keys, size_t n, uint32_t* d_scratch, cudaStream_t stream = 0) {
    const size_t np = padded_count(v, n);
    if (np == 0) return;
    uint32_t* work = d_keys;
    if (np != n) {
        work = d_scratch;
        CUDA_CHECK(cudaMemcpyAsync(work, d_keys, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice, stream));
        // padding = the largest key, which sorts to the end and is dropped
        CUDA_CHECK(cudaMemsetAsync(work + n, 0xFF, (np - n) * sizeof(uint32_t), stream));
    }
    switch (v) {
        case Variant::chapter: sort_chapter_kernel(work, (uint32_t)np, stream); break;
        case Variant::workgroup: workgroup::sort_pow2(work, (uint32_t)np, stream); break;
        case Variant::fast: fast::sort_pow2(work, (uint32_t)np, stream); break;
    }
    if (np != n) {
        CUDA_CHECK(cudaMemcpyAsync(d_keys, work, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice, stream));
    }
}

}  // namespace ch12
