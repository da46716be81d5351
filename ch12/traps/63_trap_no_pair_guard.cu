#include <cstdio>
#include <vector>
#include <algorithm>

#include "../../common/cli.h"         // companion: --help, --replay, a check that stdout was written
#include "../../common/cuda_check.h"  // companion: CUDA error checks and the no-GPU rule

// ---- trap only: what this file is ----
// Chapter 12.3 -- COMMON TRAP on the GPU: the kernel without `if (l > i)`.
//
// This file is 63_bitonic_sort_iterative.cu with its guard line missing
// (marked THE TRAP), in the kernel and in the book's host replay alike. On
// the CPU (62_trap_no_pair_guard.cpp, or --replay here) each pair is then
// visited twice, one visit after the other, and every compare-exchange comes
// out reversed. On a GPU it is worse: threads i and l = i ^ j run AT THE SAME
// TIME, both reading and both possibly writing the same two words of g_a.
// That is a data race, and the CUDA programming model does not say which
// loads see which stores: the outcome may differ between GPUs, compilers,
// launch shapes or runs. The program prints whatever this GPU produced and
// never pretends that outcome is fixed. The lines marked "trap only" say so.
// ---- end of trap only ----
// Chapter 12.3 main -- the classic ITERATIVE, production-form bitonic
// sort. Instead of the recursive "sort left ascending, sort right
// descending, then merge" formulation, real GPU code uses a fixed
// double loop over power-of-two stage sizes k and distances j:
//
//   for k = 2; k <= n; k *= 2:        // stage: build/extend bitonic runs of size k
//     for j = k/2; j > 0; j /= 2:     // pass within the stage
//       for each i: compare i with l = i ^ j
//         direction: ascending if (i & k) == 0, else descending
//
// This performs EXACTLY the same comparisons as the recursive version,
// just re-derived from index arithmetic (i XOR j) instead of explicit
// recursion. Crucially, the whole sequence of compare-exchange pairs is
// completely fixed by n alone -- it never depends on the data -- which
// is exactly the divergence-free, warp-uniform pattern from Chapter 1:
// every thread in every warp always takes the same branch as every
// other thread at the same index, for any input of the same size.
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

// ---- Host-side replay of the identical double-loop logic: one kernel
// ---- launch per (k, j) pair on real hardware, with a full grid
// ---- synchronization between launches (the CPU loop's own sequencing
// ---- plays the same role here). ----
// (Companion: the book runs this loop inside main; here it is --replay.)
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

// ---- Companion: the real launches -- one launch of n threads per (k, j)
// ---- pair. Launches in one stream run one after another, so each launch
// ---- boundary is the full synchronization the next pass needs. Returns the
// ---- number of launches. ----
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
    bool replay = ch12::lesson_args(argc, argv, "Section 12.3 COMMON TRAP on the GPU: the kernel without if (l > i)", true);  // <-- trap only
    if (replay) printf("[--replay: the book's CPU replay -- a host loop plays the kernel's threads; no GPU was used]\n");
    else ch12::require_cuda_device(ch12::program_name(argv[0]), ch12::kReplayHint);

    printf("=== Section 12.3 COMMON TRAP on the GPU: the kernel without if (l > i) ===\n\n");  // <-- trap only
    // ---- trap only: what the result below is ----
    if (replay) {
        printf("in the replay one thread visits each pair twice, one visit after the\n");
        printf("other: the outcome is fixed (see 62_trap_no_pair_guard).\n\n");
    } else {
        printf("threads i and i^j now both read and write the same two elements in the\n");
        printf("same launch: a DATA RACE. CUDA does not define its outcome; what follows\n");
        printf("is what this GPU happened to produce on this run.\n\n");
    }
    // ---- end of trap only ----

    int n = 16;
    std::vector<int> a(n);
    for (int i = 0; i < n; i++) a[i] = (i * 13 + 5) % 16;

    printf("input (fixed permutation of 0..15, a[i] = (i*13+5) mod 16):\n  ");
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    int pass_count = replay ? host_replay(a) : run_on_gpu(a);

    printf("after iterative bitonic sort (%d passes total): \n  ", pass_count);
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    std::vector<int> reference(n);
    for (int i = 0; i < n; i++) reference[i] = (i * 13 + 5) % 16;
    std::sort(reference.begin(), reference.end());

    printf("reference (via std::sort, independent check -- 16 elements/10 passes\n");
    printf("is too large to hand-trace fully):\n  ");
    for (int v : reference) printf("%d ", v);
    printf("\n\n");

    bool sorted = std::is_sorted(a.begin(), a.end());
    bool ok = sorted && (a == reference);

    printf("total passes = sum over stages k=2,4,8,16 of log2(k) passes each\n");
    printf("             = 1 + 2 + 3 + 4 = 10, confirmed: %s\n",
           (pass_count == 10) ? "yes" : "NO -- BUG");
    // ---- trap only: what went wrong ----
    std::vector<int> kept = a;
    std::sort(kept.begin(), kept.end());
    printf("\nis the result sorted: %s; are the input's 16 keys all still there: %s\n",
           sorted ? "yes" : "no", (kept == reference) ? "yes" : "no -- keys were lost or duplicated");
    if (replay) {
        printf("each pair is ordered by i, then swapped straight back by l: every\n");
        printf("comparison comes out reversed -- not half of them, as the book says (see\n");
        printf("ch12/ERRATA.md).\n");
    }
    printf("only the guard if (l > i) -- one writer per pair -- makes the outcome fixed,\n");
    printf("and right.\n");
    // ---- end of trap only ----
    printf("\nself-check: iterative kernel result matches std::sort reference: %s\n",
           ok ? "confirmed" : "MISMATCH");
    if (replay) printf("[--replay: the checks above judged the host loop's result, on the CPU; no kernel ran]\n");  // companion
    return (ok && pass_count == 10) ? 0 : 1;
}
