// Exercise 1 (Section 12.3): 63's sort, descending -- one line.
//
// This is 63's kernel and the book's host replay of it, sharing one function
// for thread i's step. Change ONE line, in the region marked "your code", so
// that the same network sorts DESCENDING. The check (ex1_check.h) sorts 63's
// input and 30 random inputs of n = 2 .. 1024 and compares each with
// std::sort's result reversed. README.md has a hint.
//
//   ex1_descending            the kernel, one launch per (k, j), as in 63
//   ex1_descending --replay   the book's host loop plays the threads (no GPU)

#include <algorithm>
#include <cstdio>
#include <vector>

#include "cli.h"
#include "cuda_check.h"

// 63's kernel body: thread i's step in pass (k, j). The kernel below runs it
// on the GPU, the replay on the CPU, so one change changes both.
__host__ __device__ void compare_exchange_step(int* a, int k, int j, int i) {
    int l = i ^ j;
    if (l > i) {
        // ---- exercise 1: your code (one line: which way does i's block sort?) ----
        bool ascending = ((i & k) == 0);
        // ---- end of your code ----
        int a_i = a[i];
        int a_l = a[l];
        bool should_swap = ascending ? (a_i > a_l) : (a_i < a_l);
        if (should_swap) {
            a[i] = a_l;
            a[l] = a_i;
        }
    }
}

__global__ void bitonic_sort_kernel(int* g_a, int n, int k, int j) {
    int i = threadIdx.x;
    if (i >= n) return;
    compare_exchange_step(g_a, k, j, i);
}

// --replay: the book's host loop, one thread's step after another.
void sort_replay(std::vector<int>& a) {
    int n = (int)a.size();
    for (int k = 2; k <= n; k *= 2)
        for (int j = k / 2; j > 0; j /= 2)
            for (int i = 0; i < n; i++) compare_exchange_step(a.data(), k, j, i);
}

// The GPU: one launch of n threads per (k, j), as in 63 (n <= 1024, one block).
void sort_on_gpu(std::vector<int>& a) {
    int n = (int)a.size();
    int* d_a = nullptr;
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_a, a.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    for (int k = 2; k <= n; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            bitonic_sort_kernel<<<1, n>>>(d_a, n, k, j);
            CUDA_CHECK_LAUNCH();
        }
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(a.data(), d_a, n * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_a));
}

#include "ex1_check.h"

int main(int argc, char** argv) {
    bool replay = ch12::lesson_args(argc, argv, "Exercise 1: 63's sort, descending", true);
    if (!replay) ch12::require_cuda_device(ch12::program_name(argv[0]), "run it with --replay to check it on the CPU");
    return ex1::check(replay ? sort_replay : sort_on_gpu, replay);
}
