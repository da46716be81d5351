#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstring>

#include "../common/cuda_check.h"

// Chapter 12.2 main -- iterative, multi-pass bitonic merge on the GPU.
// The recursive CPU version peels off one distance per call. On the GPU
// we instead loop over distances (cnt/2, cnt/4, ..., 1) as separate
// synchronized passes within one block, because every thread must finish
// the CURRENT distance's comparisons before ANY thread starts the NEXT,
// smaller distance -- the next pass's groups are built out of the
// previous pass's results.
//
// IMPORTANT: at distance `dist`, the range does NOT act as a single
// group of `dist` independent comparisons the way the very first pass
// does. It splits into multiple independent groups of size 2*dist, and
// thread `tid` only participates if (tid % (2*dist)) < dist, comparing
// itself against tid+dist. Using the simpler "tid < dist" is WRONG for
// every pass after the first, because it only touches the first group
// and silently leaves every other group untouched.
//
// Companion addition: so that every "pass N" line printed below is what
// the GPU itself left behind, the kernel also copies the array into row
// `pass` of g_trace (cnt ints per row) after each pass. The copy sits
// between two barriers: the book's __syncthreads() makes the pass's
// swaps visible, and the second one keeps any thread from starting the
// next pass (and overwriting an element) while another is still copying.
__global__ void bitonic_merge_kernel(int* g_a, int cnt, int ascending, int* g_trace) {
    int tid = threadIdx.x;
    if (tid >= cnt) return;

    int pass = 0;
    for (int dist = cnt / 2; dist >= 1; dist /= 2) {
        if ((tid % (2 * dist)) < dist) {
            int i = tid;
            int j = tid + dist;
            int lo = g_a[i];
            int hi = g_a[j];
            bool should_swap = ascending ? (lo > hi) : (lo < hi);
            if (should_swap) {
                g_a[i] = hi;
                g_a[j] = lo;
            }
        }
        __syncthreads();
        g_trace[pass * cnt + tid] = g_a[tid];  // snapshot of this pass
        __syncthreads();
        pass++;
    }
}

// [COMMON TRAP], runnable with --trap: the same kernel with the simpler
// active-thread condition tid < dist on EVERY pass. It is right for the
// first pass only. The active pairs are still disjoint, so there is no race
// and the result is deterministic -- just wrong. To make "never compared"
// visible, each thread also records in g_compared whether it compared a
// pair in each pass.
__global__ void bitonic_merge_kernel_trap(int* g_a, int cnt, int ascending, int* g_trace,
                                          int* g_compared) {
    int tid = threadIdx.x;
    if (tid >= cnt) return;

    int pass = 0;
    for (int dist = cnt / 2; dist >= 1; dist /= 2) {
        bool active = (tid < dist);  // THE TRAP: should be (tid % (2 * dist)) < dist
        if (active) {
            int i = tid;
            int j = tid + dist;
            int lo = g_a[i];
            int hi = g_a[j];
            bool should_swap = ascending ? (lo > hi) : (lo < hi);
            if (should_swap) {
                g_a[i] = hi;
                g_a[j] = lo;
            }
        }
        g_compared[pass * cnt + tid] = active ? 1 : 0;
        __syncthreads();
        g_trace[pass * cnt + tid] = g_a[tid];  // snapshot of this pass
        __syncthreads();
        pass++;
    }
}

// ---- CPU reference: the printed book replays the identical per-pass,
// ---- per-thread logic on the host (every thread's action at a given
// ---- distance depends only on values the PREVIOUS pass finished writing,
// ---- exactly what __syncthreads() enforces between passes on real
// ---- hardware). Here that replay is the reference each pass the GPU
// ---- reports is checked against; it returns the array after every pass.
std::vector<std::vector<int>> cpu_reference_passes(std::vector<int> a, bool ascending) {
    int n = (int)a.size();
    std::vector<std::vector<int>> passes;
    for (int dist = n / 2; dist >= 1; dist /= 2) {
        std::vector<int> next_a = a;
        for (int tid = 0; tid < n; tid++) {
            if ((tid % (2 * dist)) < dist) {
                int i = tid;
                int j = tid + dist;
                bool should_swap = ascending ? (a[i] > a[j]) : (a[i] < a[j]);
                if (should_swap) {
                    next_a[i] = a[j];
                    next_a[j] = a[i];
                }
            }
        }
        a = next_a;
        passes.push_back(a);
    }
    return passes;
}

int main(int argc, char** argv) {
    bool trap = (argc == 2 && std::strcmp(argv[1], "--trap") == 0);
    if (argc > 1 && !trap) {
        fprintf(stderr, "usage: %s [--trap]\n"
                        "  --trap   run the 12.2 COMMON TRAP on the GPU: the active-thread test\n"
                        "           tid < dist on every pass instead of (tid %% (2*dist)) < dist\n", argv[0]);
        return 2;
    }
    ch12::require_cuda_device("61_bitonic_merge_multipass");

    printf("=== Section 12.2 main: iterative multi-pass bitonic merge kernel ===\n\n");
    if (trap) {
        printf("COMMON TRAP (--trap): every pass activates threads with tid < dist instead\n");
        printf("of the group-aware (tid %% (2*dist)) < dist.\n\n");
    }

    std::vector<int> a = {2, 4, 6, 8, 9, 7, 5, 3};
    int n = (int)a.size();
    bool ascending = true;

    printf("input (up-then-down bitonic): ");
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    int num_passes = 0;
    for (int dist = n / 2; dist >= 1; dist /= 2) num_passes++;

    // On the GPU: one block of n threads runs every pass; the trace buffer
    // holds the array as the GPU left it after each pass.
    int* d_a = nullptr;
    int* d_trace = nullptr;
    int* d_compared = nullptr;
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_trace, num_passes * n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_compared, num_passes * n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_a, a.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    if (trap) {
        bitonic_merge_kernel_trap<<<1, n>>>(d_a, n, ascending ? 1 : 0, d_trace, d_compared);
    } else {
        bitonic_merge_kernel<<<1, n>>>(d_a, n, ascending ? 1 : 0, d_trace);
    }
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<int> trace(num_passes * n);
    std::vector<int> compared(num_passes * n);
    CUDA_CHECK(cudaMemcpy(trace.data(), d_trace, trace.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(compared.data(), d_compared, compared.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(a.data(), d_a, n * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_compared));
    CUDA_CHECK(cudaFree(d_trace));
    CUDA_CHECK(cudaFree(d_a));

    std::vector<std::vector<int>> reference = cpu_reference_passes({2, 4, 6, 8, 9, 7, 5, 3}, ascending);
    bool passes_match = true;
    int pass_num = 0;
    for (int dist = n / 2; dist >= 1; dist /= 2) {
        std::vector<int> gpu_pass(trace.begin() + pass_num * n, trace.begin() + (pass_num + 1) * n);
        if (gpu_pass != reference[pass_num]) passes_match = false;
        pass_num++;
        printf("pass %d (dist=%d): ", pass_num, dist);
        for (int v : gpu_pass) printf("%d ", v);
        if (trap) {
            printf("  <- threads that compared:");
            for (int tid = 0; tid < n; tid++)
                if (compared[(pass_num - 1) * n + tid]) printf(" %d", tid);
        }
        printf("\n");
    }
    printf("\n");

    if (trap) {
        // Pass 2 is dist = 2: the groups are {0,1,2,3} and {4,5,6,7}.
        bool group2_compared = false;
        for (int tid = 4; tid < 8; tid++) group2_compared |= (compared[1 * n + tid] != 0);
        printf("at dist=2 the GPU's threads 4..7 compared %s: group {4,5,6,7} was %s\n",
               group2_compared ? "a pair" : "nothing", group2_compared ? "compared" : "never compared");
        bool unchanged = std::equal(trace.begin() + 4, trace.begin() + 8, trace.begin() + n + 4);
        printf("positions 4..7 after pass 1: %d %d %d %d, after pass 2: %d %d %d %d%s\n",
               trace[4], trace[5], trace[6], trace[7],
               trace[n + 4], trace[n + 5], trace[n + 6], trace[n + 7],
               unchanged ? " (unchanged)" : "");
        printf("the group-aware condition leaves them as %d %d %d %d after pass 2\n\n",
               reference[1][4], reference[1][5], reference[1][6], reference[1][7]);
    }

    std::vector<int> expected = {2, 3, 4, 5, 6, 7, 8, 9};
    bool sorted = std::is_sorted(a.begin(), a.end());
    bool ok = sorted && (a == expected) && passes_match;

    printf("expected: 2 3 4 5 6 7 8 9\n\n");
    if (trap) {
        printf("tid < dist is only the first pass's condition: from dist=2 on it activates\n");
        printf("the first group alone, and every later group is silently left out.\n");
        printf("\nself-check: iterative kernel matches recursive CPU baseline: %s\n",
               ok ? "confirmed" : "MISMATCH");
        return ok ? 0 : 1;
    }
    printf("exactly n/2 = %d independent pairs are active at every single pass,\n", n / 2);
    printf("regardless of dist -- the group-based condition (tid %% (2*dist)) < dist\n");
    printf("is what keeps every group correctly paired as dist shrinks, matching the\n");
    printf("recursive CPU baseline's own pass-by-pass results exactly.\n");
    printf("\nself-check: iterative kernel matches recursive CPU baseline: %s\n",
           ok ? "confirmed" : "MISMATCH");
    return ok ? 0 : 1;
}
