// Exercise 2's check: every length from 1 to 100 must come out sorted, with
// the same values, and no more of them.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "exercise.h"

namespace ex2 {

// What is wrong with `got` as the ascending sort of `input` ("" if nothing).
inline std::string problem(const std::vector<int>& input, const std::vector<int>& got) {
    std::vector<int> want = input;
    std::sort(want.begin(), want.end());
    if (got == want) return "";
    if (got.size() != input.size())
        return "the result has " + std::to_string(got.size()) + " values, not " + std::to_string(input.size()) +
               (got.size() > input.size() ? ": after sorting, drop the padding"
                                          : ": keys went with the padding (drop exactly as many values as you added, from the end)");
    std::vector<int> same = got;
    std::sort(same.begin(), same.end());
    if (same != want)
        return "the values changed: got " + exercise::show(got) + ", want " + exercise::show(want) +
               " (pad with a value no key can exceed, so that the padding sorts to the end)";
    return "not sorted: got " + exercise::show(got) +
           " (bitonic_sort_pow2 sorts only powers of two: pad to the next one first)";
}

// Runs sort_any_n on 3 inputs of every length from 1 to 100; `extremes` puts
// INT_MIN and INT_MAX among the values. Returns "" or the first problem.
inline std::string try_lengths(std::vector<int> (*sort_any_n)(std::vector<int>), bool extremes, int* right_sizes) {
    uint32_t state = extremes ? 7u : 1u;
    std::string first;
    *right_sizes = 0;
    for (int n = 1; n <= 100; n++) {
        bool size_ok = true;
        for (int r = 0; r < 3; r++) {
            std::vector<int> a(n);
            for (auto& x : a) {
                state = state * 1664525u + 1013904223u;
                x = (int)((state >> 8) % 201u) - 100;  // -100 .. 100: negatives and repeats
                if (extremes && (state & 0xF0000000u) == 0) x = INT_MAX;
                if (extremes && (state & 0xF0000000u) == 0x10000000u) x = INT_MIN;
            }
            if (extremes) a[(r * 7) % n] = INT_MAX;  // at least one INT_MAX in every input
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

inline int check(std::vector<int> (*sort_any_n)(std::vector<int>)) {
    exercise::Report report(2, "bitonic sort for any n -- pad, sort, drop", false);

    std::vector<int> example = {9, -3, 7, 7, 0};
    printf("n = 5:      %s\n", exercise::show(example).c_str());
    printf("your sort:  %s\n\n", exercise::show(sort_any_n(example)).c_str());

    int right = 0;
    std::string p = try_lengths(sort_any_n, false, &right);
    report.check("n = 1 .. 100, 3 inputs each, values -100 .. 100", p.empty(),
                 p + " (" + std::to_string(right) + " of 100 lengths right)");
    p = try_lengths(sort_any_n, true, &right);
    report.check("n = 1 .. 100, 3 inputs each, INT_MAX and INT_MIN among the values", p.empty(),
                 p + " (" + std::to_string(right) + " of 100 lengths right)");
    return report.verdict("every length from 1 to 100 sorts");
}

}  // namespace ex2
