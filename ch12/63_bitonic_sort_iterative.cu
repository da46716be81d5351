#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstring>

#include "../common/cuda_check.h"

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
    if (l > i) {
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

// [COMMON TRAP], runnable with --trap: the same kernel WITHOUT the guard
// if (l > i). On the CPU (see 62 --trap) the pair is then processed twice,
// one visit after the other. On a GPU it is worse: threads i and l = i ^ j
// run AT THE SAME TIME, both reading and both possibly writing the same two
// words of g_a. That is a data race, and the CUDA programming model does not
// say which loads see which stores -- the outcome may differ between GPUs,
// compilers, launch shapes, or runs. The program prints whatever this GPU
// produced and never pretends that outcome is fixed.
__global__ void bitonic_sort_kernel_no_guard_trap(int* g_a, int n, int k, int j) {
    int i = threadIdx.x;
    if (i >= n) return;
    int l = i ^ j;
    // THE TRAP: the book's `if (l > i)` is missing here
    bool ascending = ((i & k) == 0);
    int a_i = g_a[i];
    int a_l = g_a[l];
    bool should_swap = ascending ? (a_i > a_l) : (a_i < a_l);
    if (should_swap) {
        g_a[i] = a_l;
        g_a[l] = a_i;
    }
}

// The host drives the double loop: one kernel launch per (k, j) pair.
// Launches issued into the same stream run one after another, so each
// launch boundary is the full grid synchronization the next pass needs.
// (The printed book replays the loop on the host instead; here the GPU
// does every pass, and std::sort is the independent reference.)

int main(int argc, char** argv) {
    bool trap = (argc == 2 && std::strcmp(argv[1], "--trap") == 0);
    if (argc > 1 && !trap) {
        fprintf(stderr, "usage: %s [--trap]\n"
                        "  --trap   run the 12.3 COMMON TRAP on the GPU: the kernel without its\n"
                        "           pair guard if (l > i) -- a data race, whose outcome is not fixed\n", argv[0]);
        return 2;
    }
    ch12::require_cuda_device("63_bitonic_sort_iterative");

    printf("=== Section 12.3 main: iterative double-loop bitonic sort kernel ===\n\n");
    if (trap) {
        printf("COMMON TRAP (--trap): the kernel WITHOUT the pair guard if (l > i).\n");
        printf("Threads i and i^j now both read and write the same two elements in the\n");
        printf("same launch: a DATA RACE. CUDA does not define its outcome; what follows\n");
        printf("is what this GPU happened to produce on this run.\n\n");
    }

    int n = 16;
    std::vector<int> a(n);
    for (int i = 0; i < n; i++) a[i] = (i * 13 + 5) % 16;

    printf("input (fixed permutation of 0..15, a[i] = (i*13+5) mod 16):\n  ");
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    int* d_a = nullptr;
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_a, a.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    int pass_count = 0;  // counts kernel launches
    for (int k = 2; k <= n; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            if (trap) {
                bitonic_sort_kernel_no_guard_trap<<<1, n>>>(d_a, n, k, j);
            } else {
                bitonic_sort_kernel<<<1, n>>>(d_a, n, k, j);
            }
            CUDA_CHECK_LAUNCH();
            pass_count++;
        }
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(a.data(), d_a, n * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_a));

    if (trap) printf("after the racy kernel, as this GPU left it (%d passes total): \n  ", pass_count);
    else printf("after iterative bitonic sort (%d passes total): \n  ", pass_count);
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

    if (trap) {
        std::vector<int> kept = a;
        std::sort(kept.begin(), kept.end());
        printf("is the result sorted: %s; are the input's 16 keys all still there: %s\n",
               sorted ? "yes" : "no", (kept == reference) ? "yes" : "no -- keys were lost or duplicated");
        printf("\nthis outcome is not a property of the algorithm: with both threads of a pair\n");
        printf("writing, the order of their loads and stores decides it, and CUDA leaves that\n");
        printf("order open. Only the guard if (l > i) -- one writer per pair -- makes it fixed.\n");
        printf("\nself-check: iterative kernel result matches std::sort reference: %s\n",
               ok ? "confirmed" : "MISMATCH");
        return ok ? 0 : 1;
    }
    printf("total passes = sum over stages k=2,4,8,16 of log2(k) passes each\n");
    printf("             = 1 + 2 + 3 + 4 = 10, confirmed: %s\n",
           (pass_count == 10) ? "yes" : "NO -- BUG");
    printf("\nself-check: iterative kernel result matches std::sort reference: %s\n",
           ok ? "confirmed" : "MISMATCH");
    return (ok && pass_count == 10) ? 0 : 1;
}
