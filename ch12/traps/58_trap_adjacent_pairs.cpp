#include <cstdio>
#include <vector>
#include <algorithm>

#include "../../common/cli.h"  // companion: --help, and a check that stdout was written

// Chapter 12.1 -- COMMON TRAP, run on purpose: pairing the wrong elements.
//
// The book: "the compare-exchange split specifically pairs index i with
// i + dist where dist is exactly half the current range -- pairing the wrong
// elements (say, adjacent ones) does not preserve the bitonic property of the
// resulting halves". This is 58_bitonic_split_cpu_baseline.cpp with ONE line
// of compare_exchange_split changed (marked THE TRAP): element 2t is compared
// with its neighbour 2t+1.
//
// On the book's own input the trap hides half of the claim: both halves
// happen to stay bitonic, and only the half ordering breaks. So the program
// also searches, by itself, the bitonic arrangements of the same eight values
// (in lexicographic order) for the first one after which a half is NOT
// bitonic, and runs the trap on that input too.

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

// 58's compare_exchange_split, one line changed.
void compare_exchange_split(std::vector<int>& a, int dist, bool ascending) {
    for (int t = 0; t < dist; t++) {
        int i = 2 * t, l = 2 * t + 1;  // <-- THE TRAP: the split compares i = t with l = t + dist
        bool should_swap = ascending ? (a[i] > a[l]) : (a[i] < a[l]);
        if (should_swap) std::swap(a[i], a[l]);
    }
}

// Splits a copy of `input` with the trap and prints 58's report of it.
// Returns true when both of the split's promises held.
bool split_and_report(const std::vector<int>& input) {
    std::vector<int> a = input;
    printf("input: ");
    for (int v : a) printf("%d ", v);
    printf("\nis_bitonic(input): %s\n", is_bitonic(a) ? "true" : "false");

    compare_exchange_split(a, 4, true);
    printf("after one ascending compare-exchange of ADJACENT pairs: ");
    for (int v : a) printf("%d ", v);
    printf("\n");

    std::vector<int> left(a.begin(), a.begin() + 4);
    std::vector<int> right(a.begin() + 4, a.end());
    int left_max = *std::max_element(left.begin(), left.end());
    int right_min = *std::min_element(right.begin(), right.end());
    printf("left half:  ");
    for (int v : left) printf("%d ", v);
    printf(" -- is_bitonic: %s\n", is_bitonic(left) ? "true" : "false");
    printf("right half: ");
    for (int v : right) printf("%d ", v);
    printf(" -- is_bitonic: %s\n", is_bitonic(right) ? "true" : "false");
    printf("left half's max (%d) <= right half's min (%d): %s\n",
           left_max, right_min, (left_max <= right_min) ? "yes" : "NO -- BUG");
    return is_bitonic(left) && is_bitonic(right) && (left_max <= right_min);
}

int main(int argc, char** argv) {
    ch12::lesson_args(argc, argv, "Section 12.1 COMMON TRAP: adjacent pairs instead of (i, i+dist)");

    printf("=== Section 12.1 COMMON TRAP: compare-exchange of adjacent pairs ===\n\n");

    printf("1. the book's input\n");
    std::vector<int> book_input = {2, 4, 6, 8, 9, 7, 5, 3};
    bool book_ok = split_and_report(book_input);

    // Every bitonic arrangement of the same eight values, in lexicographic order.
    std::vector<int> values = book_input;
    std::sort(values.begin(), values.end());
    int bitonic_count = 0, breaks_bitonic = 0, breaks_order = 0;
    std::vector<int> found;
    do {
        if (!is_bitonic(values)) continue;
        bitonic_count++;
        std::vector<int> a = values;
        compare_exchange_split(a, 4, true);
        std::vector<int> left(a.begin(), a.begin() + 4), right(a.begin() + 4, a.end());
        bool halves_bitonic = is_bitonic(left) && is_bitonic(right);
        if (!halves_bitonic) breaks_bitonic++;
        if (*std::max_element(left.begin(), left.end()) > *std::min_element(right.begin(), right.end()))
            breaks_order++;
        if (!halves_bitonic && found.empty()) found = values;
    } while (std::next_permutation(values.begin(), values.end()));

    printf("\n2. the first bitonic arrangement of the same values (lexicographic order)\n");
    printf("   after which a half is no longer bitonic, found by searching\n");
    bool found_ok = split_and_report(found);

    printf("\nof the %d bitonic arrangements of these eight values, adjacent pairs leave\n", bitonic_count);
    printf("a half that is not bitonic after %d and break the half ordering after %d.\n",
           breaks_bitonic, breaks_order);
    std::vector<int> found_split = found;
    compare_exchange_split(found_split, 4, true);
    printf("\nwhy the two inputs differ: adjacent pairs (0,1) (2,3) (4,5) (6,7) never\n");
    printf("compare a left-half value with a right-half value, so no value can cross\n");
    printf("between the halves. On the book's input that shows as the lost ordering\n");
    printf("(the 8 stays left, the 3 stays right) while each half happens to stay\n");
    printf("bitonic. On the found input a swap inside the right half turns\n");
    printf("%d %d %d %d into %d %d %d %d, which is not bitonic. The recursion of 12.2\n",
           found[4], found[5], found[6], found[7],
           found_split[4], found_split[5], found_split[6], found_split[7]);
    printf("and 12.3 needs both promises at every level; adjacent pairs guarantee neither.\n");

    bool ok = book_ok && found_ok;
    printf("\nself-check: split preserves bitonicity and establishes half ordering: %s\n",
           ok ? "confirmed" : "MISMATCH");
    return ok ? 0 : 1;
}
