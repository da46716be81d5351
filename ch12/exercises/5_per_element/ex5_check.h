// Exercise 5's check: every thread's new value, in every pass of full sorts,
// must be what 63's pair-per-thread pass leaves at that index.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "exercise.h"

namespace ex5 {

// 63's pass (k = stage, j = stride), one thread per pair, on the CPU: the reference.
inline std::vector<int> pass_63(std::vector<int> a, int k, int j) {
    for (int i = 0; i < (int)a.size(); i++) {
        int l = i ^ j;
        if (l > i) {
            bool ascending = ((i & k) == 0);
            bool should_swap = ascending ? (a[i] > a[l]) : (a[i] < a[l]);
            if (should_swap) std::swap(a[i], a[l]);
        }
    }
    return a;
}

// Thread i's case, in words.
inline std::string case_of(const std::vector<int>& in, int i, int stage, int stride) {
    int strideBit = (i / stride) % 2, dirBit = (i / stage) % 2;
    int partner = strideBit == 0 ? i + stride : i - stride;
    return std::string(strideBit == 0 ? "low" : "high") + " member of " +
           (dirBit == 0 ? "an ascending" : "a descending") + " block: the bits " +
           (strideBit == dirBit ? "agree, so it keeps the min" : "differ, so it keeps the max") + " of its " +
           std::to_string(in[i]) + " and its partner's " + std::to_string(in[partner]) + ", at i=" +
           std::to_string(partner);
}

// The first thread whose new value differs from 63's pass ("" if none).
inline std::string pass_problem(const std::vector<int>& in, const std::vector<int>& got, int stage, int stride) {
    std::vector<int> want = pass_63(in, stage, stride);
    for (int i = 0; i < (int)in.size(); i++)
        if (got[i] != want[i])
            return "thread " + std::to_string(i) + " (" + case_of(in, i, stage, stride) + "): new value " +
                   std::to_string(got[i]) + ", want " + std::to_string(want[i]);
    return "";
}

inline int check(void (*pass)(const std::vector<int>&, std::vector<int>&, int, int), bool replay) {
    exercise::Report report(5, "the per-element pass, from its two bits", replay);

    const std::vector<int> input = {5, 2, 8, 1, 9, 3, 7, 4};  // Section 12.3's input
    std::vector<int> got(8), want = pass_63(input, 2, 1);
    pass(input, got, 2, 1);
    printf("the first pass (stage=2, stride=1) of Section 12.3's 8 values:\n\n");
    printf("  i  strideBit  dirBit  member  block       keeps  me  partner's  want  yours\n");
    for (int i = 0; i < 8; i++) {
        int strideBit = (i / 1) % 2, dirBit = (i / 2) % 2;
        printf("  %d  %9d  %6d  %-6s  %-10s  %-5s  %2d  %9d  %4d  %5d%s\n", i, strideBit, dirBit,
               strideBit == 0 ? "low" : "high", dirBit == 0 ? "ascending" : "descending",
               strideBit == dirBit ? "min" : "max", input[i], input[i ^ 1], want[i], got[i],
               got[i] == want[i] ? "" : "  <-");
    }
    printf("\n");
    std::string p = pass_problem(input, got, 2, 1);
    report.check("the first pass of Section 12.3's input, thread by thread", p.empty(), p);

    int passes = 0, wrong = 0;
    std::string first;
    uint32_t state = 5;
    for (int n = 8; n <= 4096; n *= 2) {
        std::vector<int> a(n), out(n);
        for (auto& x : a) { state = state * 1664525u + 1013904223u; x = (int)((state >> 8) % (uint32_t)(n / 2)); }
        for (int stage = 2; stage <= n; stage *= 2) {
            for (int stride = stage / 2; stride > 0; stride /= 2) {
                pass(a, out, stage, stride);
                passes++;
                std::string q = pass_problem(a, out, stage, stride);
                if (!q.empty() && wrong++ == 0)
                    first = "n = " + std::to_string(n) + ", pass (stage=" + std::to_string(stage) +
                            ", stride=" + std::to_string(stride) + "), " + q;
                a = pass_63(a, stage, stride);  // the next pass starts from the right array
            }
        }
        if (!std::is_sorted(a.begin(), a.end())) first = "the reference did not sort: a bug in the check";
    }
    report.check("every pass of full sorts of n = 8 .. 4096, against 63's pass", wrong == 0,
                 first + " (" + std::to_string(wrong) + " of " + std::to_string(passes) + " passes wrong)");
    return report.verdict("every thread keeps what 63's pair would give it");
}

}  // namespace ex5
