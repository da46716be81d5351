#include <cstdio>
#include <vector>
#include <algorithm>

#include "../../common/cli.h"  // companion: --help, and a check that stdout was written

// ---- trap only: what this file is ----
// Chapter 12.3 -- COMMON TRAP, run by one thread: the double loop without its
// pair guard.
//
// The book: "The guard if l > i is easy to forget, and without it every pair
// gets processed TWICE (once as (i, l) and once as (l, i)), which for a
// compare-and-conditionally-swap operation silently undoes half of the
// intended swaps." This file is 62_bitonic_sort_cpu_baseline.cpp sorting its
// input with Section 12.3's iterative double loop -- the form 63 launches on
// the GPU, here run by one thread -- instead of the recursion, and with the
// loop's guard line missing (marked THE TRAP). 62 has no double loop, so the
// loop is trap-only code, as is the report of what went wrong. Sequentially
// the damage is exact, and it is not half: i orders each pair, then l, seeing
// the same pair from the other side with the same direction bit, swaps it
// straight back. Every compare-exchange ends up reversed, and the network
// sorts the wrong way round. (On the GPU, 63's trap, the two visits are two
// threads at once: a data race.)
// ---- end of trap only ----
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

// ---- trap only: Section 12.3's iterative double loop, run by one thread ----
void bitonic_sort_iterative(std::vector<int>& a) {
    int n = (int)a.size();
    for (int k = 2; k <= n; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            for (int i = 0; i < n; i++) {
                int l = i ^ j;
                {  // <-- THE TRAP: the book's `if (l > i) {` -- visit each pair from its lower end only
                    bool ascending = ((i & k) == 0);
                    bool should_swap = ascending ? (a[i] > a[l]) : (a[i] < a[l]);
                    if (should_swap) std::swap(a[i], a[l]);
                }
            }
        }
    }
}
// ---- end of trap only ----

int main(int argc, char** argv) {
    ch12::lesson_args(argc, argv, "Section 12.3 COMMON TRAP, sequential: the double loop without if (l > i)");  // <-- trap only

    printf("=== Section 12.3 COMMON TRAP, one thread: the double loop without if (l > i) ===\n\n");  // <-- trap only

    std::vector<int> a = {5, 2, 8, 1, 9, 3, 7, 4};
    printf("input (arbitrary order): ");
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    bitonic_sort_iterative(a);  // <-- trap only: 62 sorts with bitonic_sort_cpu(a, 0, (int)a.size(), true)

    printf("after the iterative double loop with no pair guard: ");  // <-- trap only
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    std::vector<int> a0 = {5, 2, 8, 1, 9, 3, 7, 4};
    std::sort(a0.begin(), a0.end());
    bool ok = (a == a0) && std::is_sorted(a.begin(), a.end());

    printf("expected (via std::sort reference): ");
    for (int v : a0) printf("%d ", v);
    printf("\n\n");
    // ---- trap only: what went wrong (62 explains its construction step here) ----
    std::vector<int> descending(a0.rbegin(), a0.rend());
    printf("is the result the input sorted the other way round (descending): %s\n\n",
           a == descending ? "yes" : "no");
    printf("each pair (i, l) is visited twice: from i, which orders it correctly, and\n");
    printf("then from l, which sees the same pair from the other side and, with the\n");
    printf("same direction bit, swaps it straight back. Every comparison ends up\n");
    printf("reversed -- not half of them, as the book says (see ch12/ERRATA.md) -- so\n");
    printf("the network sorts the wrong way round.\n");
    // ---- end of trap only ----
    printf("\nself-check: iterative double loop matches std::sort reference: %s\n",  // <-- trap only
           ok ? "confirmed" : "MISMATCH");
    return ok ? 0 : 1;
}
