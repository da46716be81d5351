#include <cstdio>
#include <vector>
#include <algorithm>

#include "../../common/cli.h"  // companion: --help, and a check that stdout was written

// ---- trap only: what this file is ----
// Chapter 12.1 -- COMMON TRAP, run on purpose: pairing the wrong elements.
//
// The book: "pairing the wrong elements (say, adjacent ones) does not
// preserve the bitonic property of the resulting halves". This file is
// 58_bitonic_split_cpu_baseline.cpp with the line marked THE TRAP changed:
// compare_exchange_split compares element 2i with its neighbour 2i+1 instead
// of i with i + dist. Every other line that differs from 58 is marked "trap
// only": the report of what went wrong and, because on the book's own input
// both halves happen to stay bitonic, a search of the bitonic arrangements of
// the same values for one after which a half is not.
// ---- end of trap only ----
// Chapter 12.1 -- The Sequential (CPU) Baseline.
// A single thread can check "is this bitonic" and perform one
// compare-exchange split with two ordinary loops -- nothing here needs
// more than one thread, because there is no independent work to divide:
// each comparison only touches two elements, and one thread can simply
// do all of them, one after another, with no coordination required.

// A sequence is bitonic if SOME rotation of it is non-decreasing then
// non-increasing (this includes purely monotonic sequences, "up-then-
// down" shapes, and "down-then-up" shapes, since rotating a valley to
// start at its own minimum turns it into an up-then-down shape).
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

// One compare-exchange split: for each i in the first half, put the
// smaller of a[i] and a[i+dist] at position i, the larger at i+dist
// (ascending), or the reverse (descending).
void compare_exchange_split(std::vector<int>& a, int dist, bool ascending) {
    for (int i = 0; i < dist; i++) {
        int p = 2 * i, q = 2 * i + 1;  // <-- THE TRAP: adjacent pairs; the split compares p = i with q = i + dist
        bool should_swap = ascending ? (a[p] > a[q]) : (a[p] < a[q]);  // <-- trap only: p, q for i, i + dist
        if (should_swap) std::swap(a[p], a[q]);                          // <-- trap only
    }
}

int main(int argc, char** argv) {
    ch12::lesson_args(argc, argv, "Section 12.1 COMMON TRAP: adjacent pairs instead of (i, i+dist)");  // <-- trap only

    printf("=== Section 12.1 COMMON TRAP: compare-exchange of adjacent pairs ===\n\n");  // <-- trap only

    std::vector<int> a = {2, 4, 6, 8, 9, 7, 5, 3};
    printf("input (up-then-down bitonic): ");
    for (int v : a) printf("%d ", v);
    printf("\nis_bitonic(input): %s\n\n", is_bitonic(a) ? "true" : "false");

    compare_exchange_split(a, 4, true);
    printf("after one ascending compare-exchange split (distance 4): ");
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    std::vector<int> left(a.begin(), a.begin() + 4);
    std::vector<int> right(a.begin() + 4, a.end());
    int left_max = *std::max_element(left.begin(), left.end());
    int right_min = *std::min_element(right.begin(), right.end());

    printf("left half:  ");
    for (int v : left) printf("%d ", v);
    printf(" -- is_bitonic: %s\n", is_bitonic(left) ? "true" : "false");
    printf("right half: ");
    for (int v : right) printf("%d ", v);
    printf(" -- is_bitonic: %s\n\n", is_bitonic(right) ? "true" : "false");

    printf("left half's max (%d) <= right half's min (%d): %s\n",
           left_max, right_min, (left_max <= right_min) ? "yes" : "NO -- BUG");

    std::vector<int> expected = {2, 4, 5, 3, 9, 7, 6, 8};
    bool ok = (a == expected) && is_bitonic(left) && is_bitonic(right) && (left_max <= right_min);

    printf("\nexpected after split: 2 4 5 3 9 7 6 8\n");
    // ---- trap only: what went wrong, and an input on which bitonicity breaks too ----
    // (58 prints here that both halves stayed bitonic and ordered.)
    printf("\nadjacent pairs (0,1) (2,3) (4,5) (6,7) never compare a left-half value with a\n");
    printf("right-half value, so no value can cross between the halves: the left half\n");
    printf("kept its %d and the right half its %d, and the half ordering is lost. Both\n", left_max, right_min);
    printf("halves happen to stay bitonic on this input, where the book says they do\n");
    printf("not (see ch12/ERRATA.md); they do not on every input:\n");

    // Every bitonic arrangement of the same eight values, in lexicographic order.
    std::vector<int> values = {2, 4, 6, 8, 9, 7, 5, 3};
    std::sort(values.begin(), values.end());
    int bitonic_count = 0, breaks_bitonic = 0, breaks_order = 0;
    std::vector<int> found, found_split;
    do {
        if (!is_bitonic(values)) continue;
        bitonic_count++;
        std::vector<int> b = values;
        compare_exchange_split(b, 4, true);
        std::vector<int> l(b.begin(), b.begin() + 4), r(b.begin() + 4, b.end());
        bool halves_bitonic = is_bitonic(l) && is_bitonic(r);
        if (!halves_bitonic) breaks_bitonic++;
        if (*std::max_element(l.begin(), l.end()) > *std::min_element(r.begin(), r.end())) breaks_order++;
        if (!halves_bitonic && found.empty()) { found = values; found_split = b; }
    } while (std::next_permutation(values.begin(), values.end()));

    printf("\nthe first bitonic arrangement of the same values (lexicographic order) after\n");
    printf("which a half is not bitonic, found by searching: ");
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
    int h = is_bitonic(found_right) ? 0 : 4;  // the half that is not bitonic
    printf("(a swap inside the %s half turned %d %d %d %d into %d %d %d %d)\n", h ? "right" : "left",
           found[h], found[h + 1], found[h + 2], found[h + 3],
           found_split[h], found_split[h + 1], found_split[h + 2], found_split[h + 3]);
    printf("\nof the %d bitonic arrangements of these eight values, adjacent pairs leave\n", bitonic_count);
    printf("a half that is not bitonic after %d and break the half ordering after %d.\n",
           breaks_bitonic, breaks_order);
    printf("The recursion of 12.2 and 12.3 needs both promises at every level;\n");
    printf("adjacent pairs guarantee neither.\n");
    // ---- end of trap only ----
    printf("\nself-check: split preserves bitonicity and establishes half ordering: %s\n",
           ok ? "confirmed" : "MISMATCH");
    return ok ? 0 : 1;
}
