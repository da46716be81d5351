#include <cstdio>
#include <vector>
#include <algorithm>

#include "../../common/cli.h"         // companion: --help, --replay, a check that stdout was written
#include "../../common/cuda_check.h"  // companion: CUDA error checks and the no-GPU rule

// Chapter 12.2 -- COMMON TRAP on the GPU: tid < dist on every pass.
//
// 61_bitonic_merge_multipass.cu's kernel with ONE line changed (marked THE
// TRAP): the active-thread test is the simpler tid < dist, which is right for
// the first pass only. The active pairs are still disjoint, so there is no
// race and the result is deterministic -- just wrong: from dist = 2 on, only
// the first group of size 2*dist is ever compared.
//
// As in 61, each thread copies its element into g_trace after every pass, so
// each printed pass is what the GPU left behind; here each thread also
// records in g_compared whether it compared a pair, to show who was left out.
__global__ void bitonic_merge_kernel(int* g_a, int cnt, int ascending, int* g_trace, int* g_compared) {
    int tid = threadIdx.x;
    if (tid >= cnt) return;

    int pass = 0;
    for (int dist = cnt / 2; dist >= 1; dist /= 2) {
        bool active = (tid < dist);  // <-- THE TRAP: the book's test is (tid % (2 * dist)) < dist
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
        g_trace[pass * cnt + tid] = g_a[tid];
        __syncthreads();
        pass++;
    }
}

// What one run leaves behind: the array after each pass, and which threads compared.
struct Run {
    std::vector<std::vector<int>> passes, compared;
};

// ---- The book's host replay of the kernel's threads, with the same trap
// ---- (--replay: no GPU needed). ----
Run host_replay(std::vector<int> a, bool ascending) {
    int n = (int)a.size();
    Run run;
    for (int dist = n / 2; dist >= 1; dist /= 2) {
        std::vector<int> next_a = a, compared(n, 0);
        for (int tid = 0; tid < n; tid++) {
            if (tid < dist) {  // <-- THE TRAP, as in the kernel
                compared[tid] = 1;
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
        run.passes.push_back(a);
        run.compared.push_back(compared);
    }
    return run;
}

// ---- Companion: the real launch -- one block of n threads runs every pass. ----
Run run_on_gpu(const std::vector<int>& a, bool ascending) {
    int n = (int)a.size();
    int num_passes = 0;
    for (int dist = n / 2; dist >= 1; dist /= 2) num_passes++;
    int *d_a = nullptr, *d_trace = nullptr, *d_compared = nullptr;
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_trace, num_passes * n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_compared, num_passes * n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_a, a.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    bitonic_merge_kernel<<<1, n>>>(d_a, n, ascending ? 1 : 0, d_trace, d_compared);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<int> trace(num_passes * n), compared(num_passes * n);
    CUDA_CHECK(cudaMemcpy(trace.data(), d_trace, trace.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(compared.data(), d_compared, compared.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_compared));
    CUDA_CHECK(cudaFree(d_trace));
    CUDA_CHECK(cudaFree(d_a));
    Run run;
    for (int p = 0; p < num_passes; p++) {
        run.passes.emplace_back(trace.begin() + p * n, trace.begin() + (p + 1) * n);
        run.compared.emplace_back(compared.begin() + p * n, compared.begin() + (p + 1) * n);
    }
    return run;
}

int main(int argc, char** argv) {
    bool replay = ch12::lesson_args(argc, argv, "Section 12.2 COMMON TRAP on the GPU: tid < dist on every pass", true);
    if (replay) printf("[--replay: the book's CPU replay -- a host loop plays the kernel's threads; no GPU was used]\n");
    else ch12::require_cuda_device(ch12::program_name(argv[0]), ch12::kReplayHint);

    printf("=== Section 12.2 COMMON TRAP on the GPU: tid < dist on every pass ===\n\n");

    std::vector<int> a = {2, 4, 6, 8, 9, 7, 5, 3};
    int n = (int)a.size();
    bool ascending = true;

    printf("input (up-then-down bitonic): ");
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    Run run = replay ? host_replay(a, ascending) : run_on_gpu(a, ascending);
    int pass_num = 0;
    for (int dist = n / 2; dist >= 1; dist /= 2) {
        a = run.passes[pass_num];
        printf("pass %d (dist=%d): ", pass_num + 1, dist);
        for (int v : a) printf("%d ", v);
        printf("  <- threads that compared:");
        for (int tid = 0; tid < n; tid++)
            if (run.compared[pass_num][tid]) printf(" %d", tid);
        printf("\n");
        pass_num++;
    }
    printf("\n");

    // Pass 2 is dist = 2: its groups are {0,1,2,3} and {4,5,6,7}.
    bool group2_compared = false;
    for (int tid = 4; tid < 8; tid++) group2_compared = group2_compared || (run.compared[1][tid] != 0);
    printf("at dist=2 threads 4..7 compared %s: group {4,5,6,7} was %s\n",
           group2_compared ? "a pair" : "nothing", group2_compared ? "compared" : "never compared");
    const std::vector<int>& p1 = run.passes[0];
    const std::vector<int>& p2 = run.passes[1];
    bool unchanged = std::equal(p1.begin() + 4, p1.end(), p2.begin() + 4);
    printf("positions 4..7 after pass 1: %d %d %d %d, after pass 2: %d %d %d %d%s\n",
           p1[4], p1[5], p1[6], p1[7], p2[4], p2[5], p2[6], p2[7], unchanged ? " (unchanged)" : "");
    printf("(compare 61's own pass 2 line: its group-aware test compares this group too)\n\n");

    std::vector<int> expected = {2, 3, 4, 5, 6, 7, 8, 9};
    bool sorted = std::is_sorted(a.begin(), a.end());
    bool ok = sorted && (a == expected);

    printf("expected: 2 3 4 5 6 7 8 9\n\n");
    printf("tid < dist is only the first pass's condition: from dist=2 on it activates\n");
    printf("the first group alone, and every later group is silently left out.\n");
    printf("\nself-check: iterative kernel matches recursive CPU baseline: %s\n",
           ok ? "confirmed" : "MISMATCH");
    return ok ? 0 : 1;
}
