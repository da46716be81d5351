// ch12/extras/sort/src/design_workgroup.cuh -- the classic design, as the GLSL
// compute-shader article lays it out (ch12/extras/glsl/ runs the shader
// itself): 1024-word tiles sorted in shared memory by 512 threads with a
// barrier after every step; each distance that spans tiles is a launch of
// its own over global memory; each stage's tail (distances 512 .. 1) goes
// back into shared memory.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

#include "design.cuh"

namespace bitonic {
namespace workgroup {

using detail::Launch;
using detail::Planes;

constexpr uint32_t kTile = 1024;    // words per tile, held in shared memory
constexpr uint32_t kThreads = 512;  // one thread per compare-exchange pair

// Thread t's pair at distance j: the lower index i has a 0 at bit j, so the
// t-th such index is t with a 0 bit inserted at j's position (the GLSL
// article's 2*t - (t & (j-1))), and its partner is i + j = i ^ j.
__device__ __forceinline__ uint32_t pair_low_index(uint32_t t, uint32_t j) {
    return 2 * t - (t & (j - 1));
}

// The direction of the pair at padded index i in stage k, as in 63:
// (i & k) == 0 ascends -- except in an array's last stage (k = P), which
// sorts every array ascending.
__device__ __forceinline__ bool ascends(uint32_t i, uint32_t k, uint32_t P) {
    return ((i & k) == 0) || k >= P;
}

// The steps j = j_start, j_start/2, ..., 1 of stage k on one tile in shared
// memory, one barrier after each step.
template <typename W>
__device__ __forceinline__ void tile_steps(W* s, uint32_t tile_base, uint32_t k, uint32_t j_start, uint32_t P) {
    for (uint32_t j = j_start; j > 0; j /= 2) {
        const uint32_t i = pair_low_index(threadIdx.x, j);
        detail::compare_exchange(s[i], s[i + j], ascends(tile_base + i, k, P));
        __syncthreads();
    }
}

// Launch 1: every stage k = k_first .. min(P, 1024) inside each tile (a sort:
// from k = 2; a merge of arrays of P <= 1024 words: k = P only).
template <typename W>
__global__ void __launch_bounds__(kThreads) sort_tiles_kernel(Planes p, uint32_t P, uint32_t k_first) {
    __shared__ W s[kTile];
    const uint32_t base = blockIdx.x * kTile;
    const uint32_t t = threadIdx.x;
    s[t] = detail::load_word<W>(p, base + t);  // coalesced: consecutive threads,
    s[t + kThreads] = detail::load_word<W>(p, base + t + kThreads);  // consecutive addresses
    __syncthreads();
    for (uint32_t k = k_first; k <= kTile && k <= P; k *= 2) tile_steps(s, base, k, k / 2, P);
    detail::store_word<W>(p, base + t, s[t]);
    detail::store_word<W>(p, base + t + kThreads, s[t + kThreads]);
}

// A step whose distance j >= 1024 spans tiles: no block barrier can order it,
// so it is a launch of its own over global memory, one thread per pair.
template <typename W>
__global__ void __launch_bounds__(256) global_step_kernel(Planes p, uint32_t k, uint32_t j, uint32_t P) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;  // the grid covers total/2 pairs exactly
    const uint32_t i = pair_low_index(t, j);
    W x = detail::load_word<W>(p, i), y = detail::load_word<W>(p, i + j);
    detail::compare_exchange(x, y, ascends(i, k, P));
    detail::store_word<W>(p, i, x);
    detail::store_word<W>(p, i + j, y);
}

// The tail of stage k: distances 512 .. 1 stay inside a tile.
template <typename W>
__global__ void __launch_bounds__(kThreads) merge_tail_kernel(Planes p, uint32_t k, uint32_t P) {
    __shared__ W s[kTile];
    const uint32_t base = blockIdx.x * kTile;
    const uint32_t t = threadIdx.x;
    s[t] = detail::load_word<W>(p, base + t);
    s[t + kThreads] = detail::load_word<W>(p, base + t + kThreads);
    __syncthreads();
    tile_steps(s, base, k, kTile / 2, P);
    detail::store_word<W>(p, base + t, s[t]);
    detail::store_word<W>(p, base + t + kThreads, s[t + kThreads]);
}

struct Ops {
    static uint64_t fused_words(const Tuning&) { return 0; }  // every sort goes through dense planes

    // Stages k_first .. P: inside the tiles up to k = 1024, then for each
    // later stage its steps across tiles (one launch each) and its tail.
    template <typename W>
    static Status stages(const Planes& p, uint64_t k_first, const Launch& l) {
        const uint32_t total = (uint32_t)p.total;
        const uint64_t P = uint64_t(1) << p.seg_bits;
        const uint32_t tiles = (total + kTile - 1) / kTile;  // a partial last tile reads the largest word
        if (k_first <= kTile) {
            sort_tiles_kernel<W><<<tiles, kThreads, 0, l.stream>>>(p, (uint32_t)P, (uint32_t)k_first);
            CH12_TRY(::ch12::kernel_launch("workgroup: sort_tiles_kernel launch"));
        }
        // only when P > 1024: total is then a multiple of the tile
        for (uint64_t k = k_first > kTile ? k_first : 2 * kTile; k <= P; k *= 2) {
            for (uint32_t j = (uint32_t)(k / 2); j >= kTile; j /= 2) {
                global_step_kernel<W><<<total / 2 / 256, 256, 0, l.stream>>>(p, (uint32_t)k, j, (uint32_t)P);
                CH12_TRY(::ch12::kernel_launch("workgroup: global_step_kernel launch"));
            }
            merge_tail_kernel<W><<<tiles, kThreads, 0, l.stream>>>(p, (uint32_t)k, (uint32_t)P);
            CH12_TRY(::ch12::kernel_launch("workgroup: merge_tail_kernel launch"));
        }
        return {};
    }
    template <typename W>
    static Status sort_dense(const Planes& p, const Launch& l) { return stages<W>(p, 2, l); }
    template <typename W>
    static Status merge_dense(const Planes& p, const Launch& l) { return stages<W>(p, uint64_t(1) << p.seg_bits, l); }
    template <typename W>
    static Status sort_fused(const Planes&, const Launch&) { return ch12::failure(Errc::unsupported, "workgroup: no fused sort"); }
};

}  // namespace workgroup
}  // namespace bitonic
