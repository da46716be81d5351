#include <cstdio>
#include <vector>
#include <algorithm>

#include "../../common/cli.h"         // companion: --help, --replay, a check that stdout was written
#include "../../common/cuda_check.h"  // companion: CUDA error checks and the no-GPU rule

// Chapter 12.3 -- COMMON TRAP on the GPU: the kernel without `if (l > i)`.
//
// 63_bitonic_sort_iterative.cu's kernel with its guard line missing (marked
// THE TRAP). On the CPU (62_trap_no_pair_guard.cpp, or --replay here) each
// pair is then visited twice, one visit after the other, and every
// compare-exchange comes out reversed. On a GPU it is worse: threads i and
// l = i ^ j run AT THE SAME TIME, both reading and both possibly writing the
// same two words of g_a. That is a data race, and the CUDA programming model
// does not say which loads see which stores: the outcome may differ between
// GPUs, compilers, launch shapes or runs. The program prints whatever this
// GPU produced and never pretends that outcome is fixed.
__global__ void bitonic_sort_kernel(int* g_a, int n, int k, int j) {
    int i = threadIdx.x;
    if (i >= n) return;
    int l = i ^ j;
    {  // <-- THE TRAP: the book's `if (l > i) {` -- one writer per pair
        bool ascending = ((i & k) == 0);
        int a_i = g_a[i];
        int a_l = g_a[l];
        bool should_swap = ascending ? (a_i > a_l) : (a_i < a_l);
        if (should_swap) {
            g_a[i] = a_l;
            g_a[l] = a_i;
        }
    }
}

// ---- The book's host replay of the double loop, with the same missing
// ---- guard (--replay: no GPU needed). One thread visits i, then l. ----
int host_replay(std::vector<int>& a) {
    int n = (int)a.size();
    int pass_count = 0;
    for (int k = 2; k <= n; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            for (int i = 0; i < n; i++) {
                int l = i ^ j;
                {  // <-- THE TRAP, as in the kernel
                    bool ascending = ((i & k) == 0);
                    bool should_swap = ascending ? (a[i] > a[l]) : (a[i] < a[l]);
                    if (should_swap) std::swap(a[i], a[l]);
                }
            }
            pass_count++;
        }
    }
    return pass_count;
}

// ---- Companion: the real launches, one per (k, j), as in 63. ----
int run_on_gpu(std::vector<int>& a) {
    int n = (int)a.size();
    int* d_a = nullptr;
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_a, a.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    int pass_count = 0;
    for (int k = 2; k <= n; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            bitonic_sort_kernel<<<1, n>>>(d_a, n, k, j);
            CUDA_CHECK_LAUNCH();
            pass_count++;
        }
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(a.data(), d_a, n * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_a));
    return pass_count;
}

int main(int argc, char** argv) {
    bool replay = ch12::lesson_args(argc, argv, "Section 12.3 COMMON TRAP on the GPU: the kernel without if (l > i)", true);
    if (replay) printf("[--replay: the book's CPU replay -- a host loop plays the kernel's threads; no GPU was used]\n");
    else ch12::require_cuda_device(ch12::program_name(argv[0]), ch12::kReplayHint);

    printf("=== Section 12.3 COMMON TRAP on the GPU: the kernel without if (l > i) ===\n\n");
    if (replay) {
        printf("in the replay one thread visits each pair twice, one visit after the\n");
        printf("other: the outcome is fixed (see 62_trap_no_pair_guard).\n\n");
    } else {
        printf("threads i and i^j now both read and write the same two elements in the\n");
        printf("same launch: a DATA RACE. CUDA does not define its outcome; what follows\n");
        printf("is what this GPU happened to produce on this run.\n\n");
    }

    int n = 16;
    std::vector<int> a(n);
    for (int i = 0; i < n; i++) a[i] = (i * 13 + 5) % 16;

    printf("input (fixed permutation of 0..15, a[i] = (i*13+5) mod 16):\n  ");
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    int pass_count = replay ? host_replay(a) : run_on_gpu(a);

    printf("after %s (%d passes total): \n  ", replay ? "the replay with no pair guard" : "the racy kernel, as this GPU left it",
           pass_count);
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    std::vector<int> reference(n);
    for (int i = 0; i < n; i++) reference[i] = (i * 13 + 5) % 16;
    std::sort(reference.begin(), reference.end());
    printf("reference (via std::sort):\n  ");
    for (int v : reference) printf("%d ", v);
    printf("\n\n");

    bool sorted = std::is_sorted(a.begin(), a.end());
    bool ok = sorted && (a == reference);
    std::vector<int> kept = a;
    std::sort(kept.begin(), kept.end());
    printf("is the result sorted: %s; are the input's 16 keys all still there: %s\n",
           sorted ? "yes" : "no", (kept == reference) ? "yes" : "no -- keys were lost or duplicated");
    printf("\nonly the guard if (l > i) -- one writer per pair -- makes the outcome fixed,\n");
    printf("and right.\n");
    printf("\nself-check: iterative kernel result matches std::sort reference: %s\n",
           ok ? "confirmed" : "MISMATCH");
    return ok ? 0 : 1;
}
