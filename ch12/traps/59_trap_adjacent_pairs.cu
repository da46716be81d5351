#include <cstdio>
#include <vector>
#include <algorithm>

#include "../../common/cli.h"         // companion: --help, --replay, a check that stdout was written
#include "../../common/cuda_check.h"  // companion: CUDA error checks and the no-GPU rule

// Chapter 12.1 -- COMMON TRAP on the GPU: each thread compares the wrong pair.
//
// 59_bitonic_split_kernel.cu's kernel with ONE line changed (marked THE
// TRAP): thread t compares the adjacent pair (2t, 2t+1) instead of
// (t, t+dist). The pairs are still disjoint -- no two threads touch the same
// element, so the result is deterministic -- but none of them straddles the
// two halves. The program runs the trap kernel on the book's input, where
// only the half ordering breaks, and then on the first bitonic arrangement of
// the same values (lexicographic order) after which a half is not bitonic,
// found by launching the trap kernel on candidate after candidate.
__global__ void compare_exchange_kernel(int* g_a, int dist, int ascending) {
    int t = threadIdx.x;
    if (t >= dist) return;
    int i = 2 * t, l = 2 * t + 1;  // <-- THE TRAP: the book's thread compares i = t with l = t + dist
    int lo = g_a[i];
    int hi = g_a[l];
    bool should_swap = ascending ? (lo > hi) : (lo < hi);
    if (should_swap) {
        g_a[i] = hi;
        g_a[l] = lo;
    }
}

// Section 12.1's is_bitonic, as in 58.
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

// ---- The book's host replay of the kernel's threads, with the same wrong
// ---- pairing (--replay: no GPU needed). ----
void host_replay(std::vector<int>& a, int dist) {
    for (int t = 0; t < dist; t++) {
        int i = 2 * t, l = 2 * t + 1;  // <-- THE TRAP, as in the kernel
        int lo = a[i];
        int hi = a[l];
        bool should_swap = (lo > hi);
        if (should_swap) {
            a[i] = hi;
            a[l] = lo;
        }
    }
}

// ---- Companion: the real launch -- copy in, one block of `dist` threads, copy back. ----
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

// Both promises of the split, checked on a result.
bool halves_bitonic(const std::vector<int>& a) {
    return is_bitonic(std::vector<int>(a.begin(), a.begin() + 4)) && is_bitonic(std::vector<int>(a.begin() + 4, a.end()));
}
bool halves_ordered(const std::vector<int>& a) {
    return *std::max_element(a.begin(), a.begin() + 4) <= *std::min_element(a.begin() + 4, a.end());
}

// Prints one run the way 59 does. Returns true when both promises held.
bool report(const std::vector<int>& input, const std::vector<int>& a, int dist) {
    printf("input: ");
    for (int v : input) printf("%d ", v);
    printf("\nafter one ascending compare-exchange of ADJACENT pairs (%d threads): ", dist);
    for (int v : a) printf("%d ", v);
    printf("\n");
    std::vector<int> left(a.begin(), a.begin() + 4);
    std::vector<int> right(a.begin() + 4, a.end());
    printf("left half:  ");
    for (int v : left) printf("%d ", v);
    printf(" -- is_bitonic: %s\nright half: ", is_bitonic(left) ? "true" : "false");
    for (int v : right) printf("%d ", v);
    printf(" -- is_bitonic: %s\n", is_bitonic(right) ? "true" : "false");
    int left_max = *std::max_element(left.begin(), left.end());
    int right_min = *std::min_element(right.begin(), right.end());
    printf("left half's max (%d) <= right half's min (%d): %s\n",
           left_max, right_min, (left_max <= right_min) ? "yes" : "NO -- BUG");
    return halves_bitonic(a) && halves_ordered(a);
}

int main(int argc, char** argv) {
    bool replay = ch12::lesson_args(argc, argv, "Section 12.1 COMMON TRAP on the GPU: adjacent pairs instead of (t, t+dist)", true);
    if (replay) printf("[--replay: the book's CPU replay -- a host loop plays the kernel's threads; no GPU was used]\n");
    else ch12::require_cuda_device(ch12::program_name(argv[0]), ch12::kReplayHint);

    printf("=== Section 12.1 COMMON TRAP on the GPU: each thread compares (2t, 2t+1) ===\n\n");
    int dist = 4;

    printf("1. the book's input\n");
    std::vector<int> book_input = {2, 4, 6, 8, 9, 7, 5, 3};
    std::vector<int> a = book_input;
    if (replay) host_replay(a, dist);
    else run_on_gpu(a, dist);
    bool book_ok = report(book_input, a, dist);

    // The search: bitonic arrangements of the same values, in lexicographic
    // order, each split by the trap until a half is not bitonic.
    std::vector<int> candidate = book_input, found, found_split;
    std::sort(candidate.begin(), candidate.end());
    int tried = 0;
    do {
        if (!is_bitonic(candidate)) continue;
        std::vector<int> b = candidate;
        if (replay) host_replay(b, dist);
        else run_on_gpu(b, dist);
        tried++;
        if (!halves_bitonic(b)) { found = candidate; found_split = b; break; }
    } while (std::next_permutation(candidate.begin(), candidate.end()));

    printf("\n2. the first bitonic arrangement of the same values (lexicographic order)\n");
    printf("   after which a half is no longer bitonic: candidate %d, found by splitting\n", tried);
    printf("   candidate after candidate with the trap\n");
    bool found_ok = found.empty() || report(found, found_split, dist);

    printf("\nthe %d threads did exactly what they were told: they compared (0,1) (2,3)\n", dist);
    printf("(4,5) (6,7). None of those pairs straddles the halves, so no value can cross\n");
    printf("between them: on the book's input the 8 stays left and the 3 stays right\n");
    printf("(the ordering is lost, though each half happens to stay bitonic); on the\n");
    printf("found input a swap inside a half leaves that half not bitonic.\n");

    bool ok = book_ok && found_ok;
    printf("\nself-check: kernel result matches CPU baseline: %s\n", ok ? "confirmed" : "MISMATCH");
    return ok ? 0 : 1;
}
