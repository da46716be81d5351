// Exercise 2 (Section 12.3): any n, not only powers of two -- pad, sort, drop.
//
// The bitonic network exists for powers of two only: pass (k, j) pairs i
// with i ^ j, and for any other length some partners fall off the end.
// bitonic_sort_pow2 below is 63's double loop, run by one thread, and it
// refuses any other length. Write sort_any_n, in the region marked "your
// code", so that it sorts every length with it. The check (ex2_check.h) tries
// every n from 1 to 300 and random lengths up to 5000 against std::sort, and
// counts the comparisons your sort makes: a sorting network makes the same
// ones on every input of one length. README.md has a hint.
//
// Key is int -- and, in the check's last part, a key that counts how often it
// is compared (it converts from an int, and std::numeric_limits<Key>::max()
// is its largest value).
//
//   ex2_any_n      (C++ only: no GPU, no nvcc)

#include <algorithm>
#include <climits>
#include <cstdio>
#include <limits>
#include <vector>

#include "cli.h"

// 63's double loop (the book's host replay of its kernel), sorting `a`
// ascending -- when a.size() is a power of two. For any other size it leaves
// `a` as it is and returns false.
template <typename Key>
bool bitonic_sort_pow2(std::vector<Key>& a) {
    int n = (int)a.size();
    if (n == 0 || (n & (n - 1)) != 0) return false;
    for (int k = 2; k <= n; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            for (int i = 0; i < n; i++) {
                int l = i ^ j;
                if (l > i) {
                    bool ascending = ((i & k) == 0);
                    bool should_swap = ascending ? (a[i] > a[l]) : (a[i] < a[l]);
                    if (should_swap) std::swap(a[i], a[l]);
                }
            }
        }
    }
    return true;
}

// Returns `a`, of any length, sorted ascending by bitonic_sort_pow2.
template <typename Key>
std::vector<Key> sort_any_n(std::vector<Key> a) {
    // ---- exercise 2: your code ----
    size_t n = a.size(), padded = 1;
    while (padded < n) padded *= 2;                       // the next power of two
    a.resize(padded, std::numeric_limits<Key>::max());  // padding no key exceeds: it sorts to the end
    bitonic_sort_pow2(a);
    a.resize(n);                                          // drop it (if a key was the largest too, the values dropped are equal)
    return a;
    // ---- end of your code ----
}

#define EXERCISE_HOST_ONLY
#include "ex2_check.h"

int main(int argc, char** argv) {
    ch12::lesson_args(argc, argv, "Exercise 2: bitonic sort for any n -- pad, sort, drop");
    return ex2::check([](std::vector<int> a) { return sort_any_n(a); },
                      [](std::vector<ex2::Counted> a) { return sort_any_n(a); });
}
