// ch12/extras/sort/design_chapter.cuh -- the chapter's design at scale.
//
// Section 12.3's kernel (63), its body unchanged but for two things: the
// thread index becomes blockIdx.x * blockDim.x + threadIdx.x, so a grid of
// n threads covers any power-of-two n, and the words are uint32 keys or
// (key, value) pairs. One launch per (k, j) pass; every pass reads and
// writes global memory. The batch form sorts count arrays of P = 2^p words
// side by side: their stages k <= P are the same network, except that the
// last stage, k = P, sorts every array ascending.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "words.cuh"

namespace bitonic {
namespace chapter {

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

// Sorts each of the total / P arrays of dense planes (raw order bits) in
// place. Returns the number of launches (passes).
template <typename W>
inline int sort_dense(const Planes& p, uint32_t P, cudaStream_t stream) {
    const uint32_t n = (uint32_t)p.total;
    const uint32_t threads = 256;
    const uint32_t blocks = (n + threads - 1) / threads;
    int passes = 0;
    for (uint32_t k = 2; k <= P && k != 0; k *= 2) {
        for (uint32_t j = k / 2; j > 0; j /= 2) {
            bitonic_sort_kernel<W><<<blocks, threads, 0, stream>>>(p, n, k, j, P);
            CUDA_CHECK_LAUNCH();
            passes++;
        }
    }
    return passes;
}

}  // namespace chapter
}  // namespace bitonic
