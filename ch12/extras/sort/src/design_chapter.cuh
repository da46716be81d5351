// ch12/extras/sort/src/design_chapter.cuh -- the chapter's design at scale.
//
// Section 12.3's kernel (63), its compare-exchange as the book writes it, with
// three changes: the thread index becomes blockIdx.x * blockDim.x +
// threadIdx.x, so a grid of n threads covers any power-of-two n; the words
// are loaded and stored through words.cuh (uint32 keys, or (key, value)
// pairs as 64-bit words); and the direction test gains `|| k >= P`, so that
// a batch of arrays of P words side by side is sorted by the same passes:
// their stages k <= P are the same network, except that each array's last
// stage, k = P, sorts it ascending. One launch per (k, j) pass; every pass
// reads and writes global memory.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

#include "design.cuh"

namespace bitonic {
namespace chapter {

using detail::Launch;
using detail::Planes;

template <typename W>
__global__ void bitonic_sort_kernel(Planes g_a, uint32_t n, uint32_t k, uint32_t j, uint32_t P) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t l = i ^ j;
    if (l > i) {
        bool ascending = ((i & k) == 0) || k >= P;  // an array's last stage ascends
        W a_i = detail::load_word<W>(g_a, i);
        W a_l = detail::load_word<W>(g_a, l);
        bool should_swap = ascending ? (a_i > a_l) : (a_i < a_l);
        if (should_swap) {
            detail::store_word<W>(g_a, i, a_l);
            detail::store_word<W>(g_a, l, a_i);
        }
    }
}

struct Ops {
    static uint64_t fused_words(const Tuning&) { return 0; }  // every sort goes through dense planes

    // The passes (k, j) of stages k_first .. P, one launch each.
    template <typename W>
    static Status passes(const Planes& p, uint32_t k_first, const Launch& l) {
        const uint32_t n = (uint32_t)p.total;
        const uint32_t P = 1u << p.seg_bits;
        const uint32_t threads = 256;
        const uint32_t blocks = (n + threads - 1) / threads;
        for (uint32_t k = k_first; k <= P && k != 0; k *= 2) {
            for (uint32_t j = k / 2; j > 0; j /= 2) {
                bitonic_sort_kernel<W><<<blocks, threads, 0, l.stream>>>(p, n, k, j, P);
                CH12_TRY(::ch12::kernel_launch("chapter: bitonic_sort_kernel launch"));
            }
        }
        return {};
    }
    template <typename W>
    static Status sort_dense(const Planes& p, const Launch& l) { return passes<W>(p, 2, l); }
    template <typename W>
    static Status merge_dense(const Planes& p, const Launch& l) { return passes<W>(p, 1u << p.seg_bits, l); }
    template <typename W>
    static Status sort_fused(const Planes&, const Launch&) { return ch12::failure(Errc::unsupported, "chapter: no fused sort"); }
};

}  // namespace chapter
}  // namespace bitonic
