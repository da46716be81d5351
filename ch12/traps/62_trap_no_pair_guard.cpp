#include <cstdio>
#include <vector>
#include <algorithm>

#include "../../common/cli.h"  // companion: --help, and a check that stdout was written

// Chapter 12.3 -- COMMON TRAP, run by one thread: the double loop without its
// pair guard.
//
// The book: "The guard if l > i is easy to forget, and without it every pair
// gets processed TWICE (once as (i, l) and once as (l, i)), which for a
// compare-and-conditionally-swap operation silently undoes half of the
// intended swaps." Section 12.3's iterative double loop -- the form 63
// launches on the GPU -- is run here sequentially, on 62's input, with the
// guard line missing (marked THE TRAP). Sequentially the damage is exact:
// i orders each pair, then l, seeing the same pair from the other side with
// the same direction bit, swaps it straight back. Every compare-exchange ends
// up reversed, so the network sorts the wrong way round. (On the GPU, 63's
// trap, the two visits are two threads at once: a data race.)
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

int main(int argc, char** argv) {
    ch12::lesson_args(argc, argv, "Section 12.3 COMMON TRAP, sequential: the double loop without if (l > i)");

    printf("=== Section 12.3 COMMON TRAP, one thread: the double loop without if (l > i) ===\n\n");

    std::vector<int> a = {5, 2, 8, 1, 9, 3, 7, 4};
    printf("input (arbitrary order): ");
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    bitonic_sort_iterative(a);
    printf("after the iterative double loop with no pair guard: ");
    for (int v : a) printf("%d ", v);
    printf("\n\n");

    std::vector<int> a0 = {5, 2, 8, 1, 9, 3, 7, 4};
    std::sort(a0.begin(), a0.end());
    bool ok = (a == a0) && std::is_sorted(a.begin(), a.end());

    printf("expected (via std::sort reference): ");
    for (int v : a0) printf("%d ", v);
    printf("\n\n");

    std::vector<int> descending(a0.rbegin(), a0.rend());
    printf("is the result the input sorted the other way round (descending): %s\n\n",
           a == descending ? "yes" : "no");
    printf("each pair (i, l) is visited twice: from i, which orders it correctly, and\n");
    printf("then from l, which sees the same pair from the other side and, with the\n");
    printf("same direction bit, swaps it straight back. Every comparison ends up\n");
    printf("reversed, so the network sorts the wrong way round.\n");
    printf("\nself-check: iterative double loop matches std::sort reference: %s\n",
           ok ? "confirmed" : "MISMATCH");
    return ok ? 0 : 1;
}
