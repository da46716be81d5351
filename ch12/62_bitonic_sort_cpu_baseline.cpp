#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstring>

// Chapter 12.3 -- The Sequential (CPU) Baseline.
// A full bitonic sort builds a bitonic sequence out of ARBITRARY data,
// then merges it. The construction is recursive: sort the left half
// ascending, sort the right half descending (each half is itself built
// the same way), then concatenate. Two oppositely-sorted runs placed
// back to back always form a bitonic whole -- one monotonic run up,
// then one monotonic run down -- so no special-casing is needed once
// both halves are internally sorted in opposite directions.

void compare_exchange_split(std::vector<int>& a, int lo, int dist, bool ascending) {
    for (int i = lo; i < lo + dist; i++) {
        bool should_swap = ascending ? (a[i] > a[i + dist]) : (a[i] < a[i + dist]);
        if (should_swap) std::swap(a[i], a[i + dist]);
    }
}

void bitonic_merge_cpu(std::vector<int>& a, int lo, int cnt, bool ascending) {
    if (cnt <= 1) return;
    int dist = cnt / 2;
    compare_exchange_split(a, lo, dist, ascending);
    bitonic_merge_cpu(a, lo, dist, ascending);
    bitonic_merge_cpu(a, lo + dist, dist, ascending);
}

// Turns ARBITRARY a[lo .. lo+cnt) into fully sorted order (direction
// `ascending`), by first building a bitonic sequence, then merging it.
void bitonic_sort_cpu(std::vector<int>& a, int lo, int cnt, bool ascending) {
    if (cnt <= 1) return;
    int half = cnt / 2;
    bitonic_sort_cpu(a, lo, half, true);          // left half ascending
    bitonic_sort_cpu(a, lo + half, half, false);  // right half descending
    bitonic_merge_cpu(a, lo, cnt, ascending);      // now bitonic -- merge it
}

// [COMMON TRAP], runnable with --trap: the iterative double loop of 12.3
// (the form 63 runs on the GPU), run here by one thread, but WITHOUT the
// guard if (l > i). Every pair is then processed twice, once from each end.
void bitonic_sort_iterative_no_guard_trap(std::vector<int>& a) {
    int n = (int)a.size();
    for (int k = 2; k <= n; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            for (int i = 0; i < n; i++) {
                int l = i ^ j;
                // THE TRAP: the book's `if (l > i)` is missing here
                bool ascending = ((i & k) == 0);
                bool should_swap = ascending ? (a[i] > a[l]) : (a[i] < a[l]);
                if (should_swap) std::swap(a[i], a[l]);
            }
        }
    }
}

int main(int argc, char** argv) {
    bool trap = (argc == 2 && std::strcmp(argv[1], "--trap") == 0);
    if (argc > 1 && !trap) {
        fprintf(stderr, "usage: %s [--trap]\n"
                        "  --trap   run the 12.3 COMMON TRAP sequentially: the iterative double\n"
                        "           loop without its pair guard if (l > i)\n", argv[0]);
        return 2;
    }

    printf("=== Section 12.3 CPU baseline: recursive bitonic sort ===\n\n");
    if (trap) {
        printf("COMMON TRAP (--trap): instead of the recursion, one thread runs the\n");
        printf("iterative double loop of 12.3 WITHOUT the pair guard if (l > i).\n\n");
    }

    std::vector<int> a = {5, 2, 8, 1, 9, 3, 7, 4};
    printf("input (arbitrary order): ");
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    if (trap) {
        bitonic_sort_iterative_no_guard_trap(a);
        printf("after the iterative double loop with no pair guard (trap): ");
    } else {
        bitonic_sort_cpu(a, 0, (int)a.size(), true);
        printf("after full recursive bitonic sort (ascending): ");
    }
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    std::vector<int> a0 = {5, 2, 8, 1, 9, 3, 7, 4};
    std::sort(a0.begin(), a0.end());
    bool ok = (a == a0) && std::is_sorted(a.begin(), a.end());

    printf("expected (via std::sort reference): ");
    for (int v : a0) printf("%d ", v);
    printf("\n\n");
    if (trap) {
        printf("each pair (i, l) is visited twice: from i, which orders it correctly, and\n");
        printf("then from l, which sees the same pair from the other side and, with the\n");
        printf("same direction bit, swaps it straight back. Every comparison ends up\n");
        printf("reversed, so the network sorts the wrong way round.\n");
        printf("\nself-check: recursive bitonic sort matches std::sort reference: %s\n",
               ok ? "confirmed" : "MISMATCH");
        return ok ? 0 : 1;
    }
    printf("construction step: left quarter {5,2,8,1} sorts ascending to {1,2,5,8},\n");
    printf("right quarter {9,3,7,4} sorts descending to {9,7,4,3}; concatenated\n");
    printf("{1,2,5,8,9,7,4,3} is bitonic (up then down); the final merge sorts it.\n");
    printf("\nself-check: recursive bitonic sort matches std::sort reference: %s\n",
           ok ? "confirmed" : "MISMATCH");
    return ok ? 0 : 1;
}
