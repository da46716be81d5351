// ch12/extras/bitonic_chapter_kernel.cuh -- Section 12.3's kernel (63),
// unchanged in its body, taken from one block of 16 threads to any power-of-
// two n: the thread index becomes blockIdx.x * blockDim.x + threadIdx.x and
// the host launches a grid of n threads per (k, j) pass. Every pass still
// reads and writes global memory, one launch per pass -- the chapter's design
// "at scale", which the per-element program checks against and the benchmark
// times as its baseline.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

#include "cuda_check.h"

namespace ch12 {

__global__ void bitonic_sort_kernel_global(uint32_t* g_a, uint32_t n, uint32_t k, uint32_t j) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t l = i ^ j;
    if (l > i) {
        bool ascending = ((i & k) == 0);
        uint32_t a_i = g_a[i];
        uint32_t a_l = g_a[l];
        bool should_swap = ascending ? (a_i > a_l) : (a_i < a_l);
        if (should_swap) {
            g_a[i] = a_l;
            g_a[l] = a_i;
        }
    }
}

// Sorts d_a[0, n) ascending; n must be a power of two (or 0 or 1).
// Returns the number of launches (passes).
inline int sort_chapter_kernel(uint32_t* d_a, uint32_t n, cudaStream_t stream = 0) {
    const uint32_t threads = 256;
    const uint32_t blocks = (n + threads - 1) / threads;
    int passes = 0;
    for (uint32_t k = 2; k <= n && k != 0; k *= 2) {
        for (uint32_t j = k / 2; j > 0; j /= 2) {
            bitonic_sort_kernel_global<<<blocks, threads, 0, stream>>>(d_a, n, k, j);
            CUDA_CHECK_LAUNCH();
            passes++;
        }
    }
    return passes;
}

}  // namespace ch12
