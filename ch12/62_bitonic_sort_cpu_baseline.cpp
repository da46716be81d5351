#include <cstdio>
#include <vector>
#include <algorithm>

#include "../common/cli.h"  // companion: --help, and a check that stdout was written

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

int main(int argc, char** argv) {
    ch12::lesson_args(argc, argv, "Section 12.3 CPU baseline: the recursive bitonic sort");

    printf("=== Section 12.3 CPU baseline: recursive bitonic sort ===\n\n");

    std::vector<int> a = {5, 2, 8, 1, 9, 3, 7, 4};
    printf("input (arbitrary order): ");
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    bitonic_sort_cpu(a, 0, (int)a.size(), true);

    printf("after full recursive bitonic sort (ascending): ");
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    std::vector<int> a0 = {5, 2, 8, 1, 9, 3, 7, 4};
    std::sort(a0.begin(), a0.end());
    bool ok = (a == a0) && std::is_sorted(a.begin(), a.end());

    printf("expected (via std::sort reference): ");
    for (int v : a0) printf("%d ", v);
    printf("\n\n");
    printf("construction step: left quarter {5,2,8,1} sorts ascending to {1,2,5,8},\n");
    printf("right quarter {9,3,7,4} sorts descending to {9,7,4,3}; concatenated\n");
    printf("{1,2,5,8,9,7,4,3} is bitonic (up then down); the final merge sorts it.\n");
    printf("\nself-check: recursive bitonic sort matches std::sort reference: %s\n",
           ok ? "confirmed" : "MISMATCH");
    return ok ? 0 : 1;
}
