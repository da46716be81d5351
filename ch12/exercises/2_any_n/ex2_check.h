// Exercise 2's check: every length from 1 to 300, and random lengths up to
// 5000, must come out sorted, with the same values, and no more of them; and
// the sort must be a network: the same number of comparisons for every input
// of one length.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "exercise.h"

namespace ex2 {

// A key that counts how often it is compared.
struct Counted {
    int v;
    Counted(int x = 0) : v(x) {}  // NOLINT: converts from int on purpose (a.resize(m, INT_MAX))
    static long& comparisons() {
        static long count = 0;
        return count;
    }
    friend bool operator<(Counted a, Counted b) { return ++comparisons(), a.v < b.v; }
    friend bool operator>(Counted a, Counted b) { return ++comparisons(), a.v > b.v; }
    friend bool operator<=(Counted a, Counted b) { return ++comparisons(), a.v <= b.v; }
    friend bool operator>=(Counted a, Counted b) { return ++comparisons(), a.v >= b.v; }
    friend bool operator==(Counted a, Counted b) { return ++comparisons(), a.v == b.v; }
    friend bool operator!=(Counted a, Counted b) { return ++comparisons(), a.v != b.v; }
};

using IntSort = std::function<std::vector<int>(std::vector<int>)>;
using CountedSort = std::function<std::vector<Counted>(std::vector<Counted>)>;

inline size_t floor_pow2(size_t n) {
    size_t p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

// What is wrong with `got` as the ascending sort of `input` ("" if nothing).
inline std::string problem(const std::vector<int>& input, const std::vector<int>& got) {
    std::vector<int> want = input;
    std::sort(want.begin(), want.end());
    if (got == want) return "";
    std::vector<int> same = got;
    std::sort(same.begin(), same.end());
    // Rounded down instead of up: the first p values sorted, the rest lost.
    const size_t p = floor_pow2(input.size());
    if (same != want && p < input.size() && got.size() >= p) {
        std::vector<int> head(input.begin(), input.begin() + (long)p);
        std::sort(head.begin(), head.end());
        const size_t lost = input.size() - p;
        if (std::equal(head.begin(), head.end(), got.begin()))
            return "only the first " + std::to_string(p) + " values were sorted, and the other " +
                   (lost == 1 ? std::string("one was") : std::to_string(lost) + " were") +
                   " lost: the padding goes UP to the next power of two (" + std::to_string(2 * p) + " for n = " +
                   std::to_string(input.size()) + "), never down";
    }
    if (got.size() != input.size())
        return "the result has " + std::to_string(got.size()) + " values, not " + std::to_string(input.size()) +
               (got.size() > input.size() ? ": after sorting, drop the padding"
                                          : ": keys went with the padding (drop exactly as many values as you added, from the end)");
    if (same != want)
        return "the values changed: got " + exercise::show(got) + ", want " + exercise::show(want) +
               " (pad with a value no key can exceed, so that the padding sorts to the end)";
    return "not sorted: got " + exercise::show(got) +
           " (bitonic_sort_pow2 sorts only powers of two: pad to the next one first)";
}

inline std::vector<int> random_input(int n, uint32_t& state, bool extremes, int r) {
    std::vector<int> a(n);
    for (auto& x : a) {
        state = state * 1664525u + 1013904223u;
        x = (int)((state >> 8) % 201u) - 100;  // -100 .. 100: negatives and repeats
        if (extremes && (state & 0xF0000000u) == 0) x = INT_MAX;
        if (extremes && (state & 0xF0000000u) == 0x10000000u) x = INT_MIN;
    }
    if (extremes) a[(r * 7) % n] = INT_MAX;  // at least one INT_MAX in every input
    return a;
}

// 3 inputs of every length from 1 to 300. Returns "" or the first problem.
inline std::string try_lengths(const IntSort& sort_any_n, bool extremes, int* right_sizes) {
    uint32_t state = extremes ? 7u : 1u;
    std::string first;
    *right_sizes = 0;
    for (int n = 1; n <= 300; n++) {
        bool size_ok = true;
        for (int r = 0; r < 3; r++) {
            std::vector<int> a = random_input(n, state, extremes, r);
            std::string p = problem(a, sort_any_n(a));
            if (!p.empty()) {
                size_ok = false;
                if (first.empty()) first = "n = " + std::to_string(n) + ": " + p;
            }
        }
        if (size_ok) (*right_sizes)++;
    }
    return first;
}

// The number of comparisons sort_any_n makes on `a`.
inline long comparisons(const CountedSort& sort_any_n, const std::vector<int>& a, std::vector<int>* out) {
    std::vector<Counted> keys(a.begin(), a.end());
    Counted::comparisons() = 0;
    std::vector<Counted> got = sort_any_n(keys);
    long count = Counted::comparisons();
    out->clear();
    for (const Counted& c : got) out->push_back(c.v);
    return count;
}

inline std::string times(long c) { return c == 1 ? "once" : std::to_string(c) + " times"; }

// A network compares the same pairs whatever the keys: for every length,
// sorted, reversed, equal and random keys must cost the same comparisons.
inline std::string oblivious(const CountedSort& sort_any_n) {
    uint32_t state = 11;
    for (int n = 1; n <= 300; n++) {
        std::vector<int> rnd = random_input(n, state, false, 0), up = rnd, down = rnd, same(n, 7), out;
        std::sort(up.begin(), up.end());
        std::sort(down.begin(), down.end(), std::greater<int>());
        const std::vector<int>* inputs[4] = {&rnd, &up, &down, &same};
        const char* names[4] = {"random keys", "sorted keys", "reversed keys", "equal keys"};
        long first = comparisons(sort_any_n, rnd, &out);
        for (int k = 1; k < 4; k++) {
            long c = comparisons(sort_any_n, *inputs[k], &out);
            if (c != first)
                return "n = " + std::to_string(n) + ": your sort compared keys " + times(first) + " on " + names[0] +
                       " and " + times(c) + " on " + names[k] +
                       ". A sorting network makes the same compare-exchanges on every input of one length: "
                       "let bitonic_sort_pow2 do all the sorting, and decide nothing from the keys";
        }
    }
    return "";
}

inline int check(const IntSort& sort_any_n, const CountedSort& sort_counted) {
    exercise::Report report(2, "bitonic sort for any n -- pad, sort, drop");

    std::vector<int> example = {9, -3, 7, 7, 0};
    printf("n = 5:      %s\n", exercise::show(example).c_str());
    printf("your sort:  %s\n\n", exercise::show(sort_any_n(example)).c_str());

    int right = 0;
    std::string p = try_lengths(sort_any_n, false, &right);
    report.check("n = 1 .. 300, 3 inputs each, values -100 .. 100", p.empty(),
                 p + " (" + std::to_string(right) + " of 300 lengths right)");
    p = try_lengths(sort_any_n, true, &right);
    report.check("n = 1 .. 300, 3 inputs each, INT_MAX and INT_MIN among the values", p.empty(),
                 p + " (" + std::to_string(right) + " of 300 lengths right)");

    exercise::FirstProblem big;
    uint32_t state = 5000;
    for (int r = 0; r < 20; r++) {
        state = state * 1664525u + 1013904223u;
        int n = 301 + (int)((state >> 8) % 4700u);
        std::vector<int> a = random_input(n, state, r % 2 == 1, r);
        big.add("n = " + std::to_string(n), problem(a, sort_any_n(a)));
    }
    report.check("20 random lengths from 301 to 5000", big.ok(), big.text("lengths"));

    p = oblivious(sort_counted);
    report.check("the same comparisons for every input of one length, n = 1 .. 300", p.empty(), p);
    return report.verdict("every length sorts, through the network");
}

}  // namespace ex2

namespace std {
template <>
class numeric_limits<ex2::Counted> : public numeric_limits<int> {
  public:
    static ex2::Counted max() noexcept { return ex2::Counted(numeric_limits<int>::max()); }
    static ex2::Counted min() noexcept { return ex2::Counted(numeric_limits<int>::min()); }
    static ex2::Counted lowest() noexcept { return ex2::Counted(numeric_limits<int>::lowest()); }
};
}  // namespace std
