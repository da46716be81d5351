#include <cstdio>
#include <vector>
#include <algorithm>

#include "../../common/cli.h"         // companion: --help, --replay, a check that stdout was written
#include "../../common/cuda_check.h"  // companion: CUDA error checks and the no-GPU rule

// ---- trap only: what this file is ----
// Chapter 12.1 -- COMMON TRAP on the GPU: each thread compares the wrong pair.
//
// This file is 59_bitonic_split_kernel.cu with the line marked THE TRAP
// changed, in the kernel and in the book's host replay alike: thread i
// compares the adjacent pair (2i, 2i+1) instead of (i, i + dist). The pairs
// are still disjoint -- no two threads touch the same element, so the result
// is deterministic -- but none of them straddles the two halves. Every other
// line that differs from 59 is marked "trap only": the report of what went
// wrong and, because on the book's own input both halves happen to stay
// bitonic, a search of the bitonic arrangements of the same values -- each
// split by the trap kernel -- for one after which a half is not.
// ---- end of trap only ----
// Chapter 12.1 -- one compare-exchange split as a GPU kernel.
// Exactly `dist` independent comparisons exist (i in [0, dist)), each
// touching only a[i] and a[i+dist] -- so we launch exactly `dist`
// threads, one comparison each, with zero coordination between them.
__global__ void compare_exchange_kernel(int* g_a, int dist, int ascending) {
    int i = threadIdx.x;
    if (i >= dist) return;
    int p = 2 * i, q = 2 * i + 1;  // <-- THE TRAP: adjacent pairs; the split's thread compares p = i with q = i + dist
    int lo = g_a[p];  // <-- trap only: p, q for i, i + dist
    int hi = g_a[q];  // <-- trap only
    bool should_swap = ascending ? (lo > hi) : (lo < hi);
    if (should_swap) {
        g_a[p] = hi;  // <-- trap only
        g_a[q] = lo;  // <-- trap only
    }
}

// ---- Host-side replay of the identical per-thread logic, one thread's
// ---- worth of work per loop iteration -- exactly what `dist` independent
// ---- GPU threads would each do in parallel, with no shared state between
// ---- them to coordinate. ----
// (Companion: the book runs this loop inside main; here it is --replay.)
void host_replay(std::vector<int>& a, int dist) {
    for (int i = 0; i < dist; i++) {
        int p = 2 * i, q = 2 * i + 1;  // <-- THE TRAP, as in the kernel
        int lo = a[p];  // <-- trap only: p, q for i, i + dist
        int hi = a[q];  // <-- trap only
        bool should_swap = (lo > hi);
        if (should_swap) {
            a[p] = hi;  // <-- trap only
            a[q] = lo;  // <-- trap only
        }
    }
}

// ---- Companion: the real launch -- copy the array in, one block of `dist`
// ---- threads, wait for it, copy the result back. ----
void run_on_gpu(std::vector<int>& a, int dist) {
    int* d_a = nullptr;
    size_t bytes = a.size() * sizeof(int);
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice));
    compare_exchange_kernel<<<1, dist>>>(d_a, dist, /*ascending=*/1);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(a.data(), d_a, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_a));
}

// ---- trap only: Section 12.1's is_bitonic, as in 58, to look at the halves ----
bool is_bitonic(std::vector<int> a) {
    int n = (int)a.size();
    int min_idx = 0;
    for (int i = 1; i < n; i++) if (a[i] < a[min_idx]) min_idx = i;
    std::vector<int> rot(n);
    for (int i = 0; i < n; i++) rot[i] = a[(min_idx + i) % n];
    int i = 0;
    while (i + 1 < n && rot[i] <= rot[i + 1]) i++;
    while (i + 1 < n && rot[i] >= rot[i + 1]) i++;
    return i == n - 1;
}
// ---- end of trap only ----

int main(int argc, char** argv) {
    bool replay = ch12::lesson_args(argc, argv, "Section 12.1 COMMON TRAP on the GPU: adjacent pairs instead of (i, i+dist)", true);  // <-- trap only
    if (replay) printf("[--replay: the book's CPU replay -- a host loop plays the kernel's threads; no GPU was used]\n");
    else ch12::require_cuda_device(ch12::program_name(argv[0]), ch12::kReplayHint);

    printf("=== Section 12.1 COMMON TRAP on the GPU: each thread compares (2i, 2i+1) ===\n\n");  // <-- trap only

    std::vector<int> a = {2, 4, 6, 8, 9, 7, 5, 3};
    int dist = 4;

    printf("input (up-then-down bitonic): ");
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    if (replay) host_replay(a, dist);
    else run_on_gpu(a, dist);

    printf("after one ascending compare-exchange split (distance %d, %d threads): ", dist, dist);
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    std::vector<int> left(a.begin(), a.begin() + 4);
    std::vector<int> right(a.begin() + 4, a.end());
    int left_max = *std::max_element(left.begin(), left.end());
    int right_min = *std::min_element(right.begin(), right.end());

    printf("left half:  ");
    for (int v : left) printf("%d ", v);
    printf("\nright half: ");
    for (int v : right) printf("%d ", v);
    printf("\n\nleft half's max (%d) <= right half's min (%d): %s\n",
           left_max, right_min, (left_max <= right_min) ? "yes" : "NO -- BUG");

    std::vector<int> expected = {2, 4, 5, 3, 9, 7, 6, 8};
    bool ok = (a == expected) && (left_max <= right_min);

    printf("\nexpected: 2 4 5 3 9 7 6 8\n");
    // ---- trap only: what went wrong, and an input on which bitonicity breaks too ----
    // (59 prints here that the threads matched the CPU baseline.)
    printf("\nthe %d threads did exactly what they were told: they compared (0,1) (2,3)\n", dist);
    printf("(4,5) (6,7). None of those pairs straddles the halves, so no value can cross\n");
    printf("between them: the left half kept its %d and the right half its %d, and the\n", left_max, right_min);
    printf("half ordering is lost. Both halves happen to stay bitonic on this input:\n");
    printf("left %s, right %s (the book says they do not: see ch12/ERRATA.md).\n",
           is_bitonic(left) ? "bitonic" : "not bitonic", is_bitonic(right) ? "bitonic" : "not bitonic");

    // The bitonic arrangements of the same values, in lexicographic order, each
    // split by the trap (on the GPU, or in the replay) until a half is not bitonic.
    std::vector<int> candidate = {2, 4, 6, 8, 9, 7, 5, 3}, found, found_split;
    std::sort(candidate.begin(), candidate.end());
    int tried = 0;
    do {
        if (!is_bitonic(candidate)) continue;
        std::vector<int> b = candidate;
        if (replay) host_replay(b, dist);
        else run_on_gpu(b, dist);
        tried++;
        std::vector<int> l(b.begin(), b.begin() + 4), r(b.begin() + 4, b.end());
        if (!is_bitonic(l) || !is_bitonic(r)) { found = candidate; found_split = b; break; }
    } while (std::next_permutation(candidate.begin(), candidate.end()));
    if (!found.empty()) {
        printf("\nthe first bitonic arrangement of the same values (lexicographic order)\n");
        printf("after which a half is not bitonic: candidate %d, split by the trap: ", tried);
        for (int v : found) printf("%d ", v);
        printf("\nafter the same split: ");
        for (int v : found_split) printf("%d ", v);
        std::vector<int> found_left(found_split.begin(), found_split.begin() + 4);
        std::vector<int> found_right(found_split.begin() + 4, found_split.end());
        printf("\nleft half:  ");
        for (int v : found_left) printf("%d ", v);
        printf(" -- is_bitonic: %s\n", is_bitonic(found_left) ? "true" : "false");
        printf("right half: ");
        for (int v : found_right) printf("%d ", v);
        printf(" -- is_bitonic: %s\n", is_bitonic(found_right) ? "true" : "false");
        printf("a swap inside a half left that half not bitonic.\n");
    }
    // ---- end of trap only ----
    printf("\nself-check: kernel result matches CPU baseline: %s\n", ok ? "confirmed" : "MISMATCH");
    if (replay) printf("[--replay: the checks above judged the host loop's result, on the CPU; no kernel ran]\n");  // companion
    return ok ? 0 : 1;
}
