// Exercise 1's check: the sort must put every input in descending order.
// Included after your file (ex1_descending.cuh), by ex1_gpu.cu (the GPU) and
// ex1_sim.cpp (the block simulator).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "exercise.h"

namespace ex1 {

// Your kernel, launched as 63 launches it: one launch of n threads per pass
// (k, j), n <= 1024 (one block). Returns what the simulator saw go wrong ("").
inline std::string sort(exercise::Device& dev, std::vector<int>& a) {
    int n = (int)a.size();
    int* g_a = dev.malloc<int>(n, "g_a");
    dev.upload(g_a, a);
    dev.clear();
    for (int k = 2; k <= n; k *= 2)
        for (int j = k / 2; j > 0; j /= 2) dev.launch(bitonic_sort_kernel, dim3(1), dim3(n), g_a, n, k, j);
    dev.sync();
    dev.download(a, g_a);
    dev.free(g_a);
    return dev.problem();
}

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

inline int check() {
    exercise::Report report(1, "63's sort, descending");
    exercise::Device dev;

    std::vector<int> input(16);
    for (int i = 0; i < 16; i++) input[i] = (i * 13 + 5) % 16;  // 63's input
    std::vector<int> got = input, want = input;
    std::string sim = sort(dev, got);
    std::sort(want.begin(), want.end(), std::greater<int>());
    printf("63's input:  %s\n", exercise::show(input).c_str());
    printf("your sort:   %s\n", exercise::show(got).c_str());
    printf("want:        %s   (std::sort, reversed)\n\n", exercise::show(want).c_str());
    std::string p = sim.empty() ? problem(input, got) : sim;
    report.check("63's input, n = 16", p.empty(), p);

    exercise::FirstProblem random;
    uint32_t state = 2024;
    for (int n = 2; n <= 1024; n *= 2) {
        for (int r = 0; r < 3; r++) {
            std::vector<int> a(n);
            for (auto& x : a) { state = state * 1664525u + 1013904223u; x = (int)((state >> 8) % (uint32_t)n); }
            std::vector<int> b = a;
            std::string s = sort(dev, b);
            random.add("n = " + std::to_string(n), s.empty() ? problem(a, b) : s);
        }
    }
    report.check("30 random inputs, n = 2 .. 1024 (with repeated keys)", random.ok(), random.text("inputs"));
    return report.verdict("the network sorts descending");
}

inline int main(int argc, char** argv) {
    ch12::CommandLine cl = exercise::command_line(argc, argv, "Exercise 1: 63's sort, descending");
    cl.parse();
    exercise::need_gpu(cl.name());
    return check();
}

}  // namespace ex1
