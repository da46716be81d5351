// Exercise 1's check: the sort must put every input in descending order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "exercise.h"

namespace ex1 {

// What is wrong with `got` as the descending sort of `input` ("" if nothing).
inline std::string problem(const std::vector<int>& input, const std::vector<int>& got) {
    std::vector<int> want = input;
    std::sort(want.begin(), want.end(), std::greater<int>());
    if (got == want) return "";
    std::vector<int> same = got, before = input;
    std::sort(same.begin(), same.end());
    std::sort(before.begin(), before.end());
    if (same != before) return "keys were lost or duplicated: got " + exercise::show(got);
    if (std::is_sorted(got.begin(), got.end()))
        return "the result is sorted ascending, as in 63: the direction test still sends the final merge up";
    return "the result is neither ascending nor descending (" + exercise::show(got) +
           "): within one stage the blocks must still alternate, and the final merge must go down";
}

inline int check(void (*sort)(std::vector<int>&), bool replay) {
    exercise::Report report(1, "63's sort, descending", replay);

    std::vector<int> input(16);
    for (int i = 0; i < 16; i++) input[i] = (i * 13 + 5) % 16;  // 63's input
    std::vector<int> got = input, want = input;
    sort(got);
    std::sort(want.begin(), want.end(), std::greater<int>());
    printf("63's input:  %s\n", exercise::show(input).c_str());
    printf("your sort:   %s\n", exercise::show(got).c_str());
    printf("want:        %s   (std::sort, reversed)\n\n", exercise::show(want).c_str());
    report.check("63's input, n = 16", problem(input, got).empty(), problem(input, got));

    int inputs = 0, wrong = 0;
    std::string first;
    uint32_t state = 2024;
    for (int n = 2; n <= 1024; n *= 2) {
        for (int r = 0; r < 3; r++) {
            std::vector<int> a(n);
            for (auto& x : a) { state = state * 1664525u + 1013904223u; x = (int)((state >> 8) % (uint32_t)n); }
            std::vector<int> b = a;
            sort(b);
            inputs++;
            std::string p = problem(a, b);
            if (!p.empty() && wrong++ == 0) first = "n = " + std::to_string(n) + ": " + p;
        }
    }
    report.check("30 random inputs, n = 2 .. 1024 (with repeated keys)", wrong == 0,
                 first + " (" + std::to_string(wrong) + " of " + std::to_string(inputs) + " inputs wrong)");
    return report.verdict("the network sorts descending");
}

}  // namespace ex1
