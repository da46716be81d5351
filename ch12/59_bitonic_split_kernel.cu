#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstring>

#include "../common/cuda_check.h"

// Chapter 12.1 -- one compare-exchange split as a GPU kernel.
// Exactly `dist` independent comparisons exist (i in [0, dist)), each
// touching only a[i] and a[i+dist] -- so we launch exactly `dist`
// threads, one comparison each, with zero coordination between them.
__global__ void compare_exchange_kernel(int* g_a, int dist, int ascending) {
    int i = threadIdx.x;
    if (i >= dist) return;
    int lo = g_a[i];
    int hi = g_a[i + dist];
    bool should_swap = ascending ? (lo > hi) : (lo < hi);
    if (should_swap) {
        g_a[i] = hi;
        g_a[i + dist] = lo;
    }
}

// [COMMON TRAP], runnable with --trap: the same kernel pairing the WRONG
// elements -- thread t compares the adjacent pair (2t, 2t+1) instead of
// (t, t+dist). The pairs are still disjoint (so no two threads touch the
// same element and the result is deterministic), but none of them
// straddles the two halves.
__global__ void compare_exchange_adjacent_trap_kernel(int* g_a, int dist, int ascending) {
    int t = threadIdx.x;
    if (t >= dist) return;
    int i = 2 * t;
    int lo = g_a[i];
    int hi = g_a[i + 1];
    bool should_swap = ascending ? (lo > hi) : (lo < hi);
    if (should_swap) {
        g_a[i] = hi;
        g_a[i + 1] = lo;
    }
}

// Section 12.1's is_bitonic (as in 58), used to show the trap's halves.
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

// ---- CPU reference: the printed book replays the identical per-thread
// ---- logic on the host, one thread's worth of work per loop iteration.
// ---- This companion launches the kernel above for real and keeps that
// ---- replay only as the reference the GPU's result is checked against.
std::vector<int> cpu_reference_split(std::vector<int> a, int dist) {
    for (int i = 0; i < dist; i++) {
        int lo = a[i];
        int hi = a[i + dist];
        bool should_swap = (lo > hi);
        if (should_swap) {
            a[i] = hi;
            a[i + dist] = lo;
        }
    }
    return a;
}

int main(int argc, char** argv) {
    bool trap = (argc == 2 && std::strcmp(argv[1], "--trap") == 0);
    if (argc > 1 && !trap) {
        fprintf(stderr, "usage: %s [--trap]\n"
                        "  --trap   run the 12.1 COMMON TRAP on the GPU: each thread compares an\n"
                        "           adjacent pair (2t, 2t+1) instead of (t, t+dist)\n", argv[0]);
        return 2;
    }
    ch12::require_cuda_device("59_bitonic_split_kernel");

    printf("=== Section 12.1 main: compare-exchange split as a CUDA kernel ===\n\n");
    if (trap) {
        printf("COMMON TRAP (--trap): each thread t compares the adjacent pair (2t, 2t+1)\n");
        printf("instead of (t, t+dist) -- the wrong pairs for a split.\n\n");
    }

    std::vector<int> a = {2, 4, 6, 8, 9, 7, 5, 3};
    int dist = 4;

    printf("input (up-then-down bitonic): ");
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    std::vector<int> reference = cpu_reference_split(a, dist);

    // On the GPU: copy in, one launch of `dist` threads, copy back.
    int* d_a = nullptr;
    size_t bytes = a.size() * sizeof(int);
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice));
    if (trap) {
        compare_exchange_adjacent_trap_kernel<<<1, dist>>>(d_a, dist, /*ascending=*/1);
    } else {
        compare_exchange_kernel<<<1, dist>>>(d_a, dist, /*ascending=*/1);
    }
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(a.data(), d_a, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_a));

    if (trap) {
        printf("after one ascending compare-exchange of ADJACENT pairs (%d threads, trap): ", dist);
    } else {
        printf("after one ascending compare-exchange split (distance %d, %d threads): ", dist, dist);
    }
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    std::vector<int> left(a.begin(), a.begin() + 4);
    std::vector<int> right(a.begin() + 4, a.end());
    int left_max = *std::max_element(left.begin(), left.end());
    int right_min = *std::min_element(right.begin(), right.end());

    printf("left half:  ");
    for (int v : left) printf("%d ", v);
    if (trap) printf(" -- is_bitonic: %s", is_bitonic(left) ? "true" : "false");
    printf("\nright half: ");
    for (int v : right) printf("%d ", v);
    if (trap) printf(" -- is_bitonic: %s", is_bitonic(right) ? "true" : "false");
    printf("\n\nleft half's max (%d) <= right half's min (%d): %s\n",
           left_max, right_min, (left_max <= right_min) ? "yes" : "NO -- BUG");

    std::vector<int> expected = {2, 4, 5, 3, 9, 7, 6, 8};
    bool ok = (a == reference) && (a == expected) && (left_max <= right_min);

    printf("\nexpected: 2 4 5 3 9 7 6 8\n");
    if (trap) {
        printf("\nthe GPU did exactly what it was told: %d threads compared (0,1) (2,3) (4,5)\n", dist);
        printf("(6,7). None of those pairs straddles the halves, so the 8 that belongs on\n");
        printf("the right and the 3 that belongs on the left never meet, and the half\n");
        printf("ordering the recursion depends on is lost.\n");
        printf("\nself-check: kernel result matches CPU baseline: %s\n", ok ? "confirmed" : "MISMATCH");
        return ok ? 0 : 1;
    }
    printf("\nthis matches the CPU baseline exactly: %d independent threads did the\n", dist);
    printf("same %d comparisons the CPU loop did sequentially, in parallel, with no\n", dist);
    printf("shared state and no synchronization needed within this single pass.\n");
    printf("\nself-check: kernel result matches CPU baseline: %s\n", ok ? "confirmed" : "MISMATCH");
    return ok ? 0 : 1;
}
