#include <cstdio>
#include <vector>
#include <algorithm>

#include "../common/cli.h"         // companion: --help, --replay, a check that stdout was written
#include "../common/cuda_check.h"  // companion: CUDA error checks and the no-GPU rule

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

// ---- Host-side replay of the identical per-thread logic, one thread's
// ---- worth of work per loop iteration -- exactly what `dist` independent
// ---- GPU threads would each do in parallel, with no shared state between
// ---- them to coordinate. ----
// (Companion: the book runs this loop inside main; here it is --replay.)
void host_replay(std::vector<int>& a, int dist) {
    for (int i = 0; i < dist; i++) {
        int lo = a[i];
        int hi = a[i + dist];
        bool should_swap = (lo > hi);
        if (should_swap) {
            a[i] = hi;
            a[i + dist] = lo;
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

int main(int argc, char** argv) {
    bool replay = ch12::lesson_args(argc, argv, "Section 12.1 main: the compare-exchange split as a CUDA kernel", true);
    if (replay) printf("[--replay: the book's CPU replay -- a host loop plays the kernel's threads; no GPU was used]\n");
    else ch12::require_cuda_device(ch12::program_name(argv[0]), ch12::kReplayHint);

    printf("=== Section 12.1 main: compare-exchange split as a CUDA kernel ===\n\n");

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
    printf("\nthis matches the CPU baseline exactly: %d independent threads did the\n", dist);
    printf("same %d comparisons the CPU loop did sequentially, in parallel, with no\n", dist);
    printf("shared state and no synchronization needed within this single pass.\n");
    printf("\nself-check: kernel result matches CPU baseline: %s\n", ok ? "confirmed" : "MISMATCH");
    if (replay) printf("[--replay: the checks above judged the host loop's result, on the CPU; no kernel ran]\n");  // companion
    return ok ? 0 : 1;
}
