// Exercise 4's check: one launch must leave, after every pass, the array that
// 63's one-launch-per-pass sort leaves, and end sorted; in the simulator, with
// no race and no divergent barrier. Included after your file
// (ex4_one_launch.cuh), by ex4_gpu.cu (the GPU) and ex4_sim.cpp (the simulator).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "exercise.h"
#include "lesson63_kernel.cuh"  // 63's kernel, taken from ch12/63_bitonic_sort_iterative.cu when CMake runs

namespace ex4 {

using Trace = std::vector<std::vector<int>>;  // the array after each pass
const int kNotWritten = -1;                   // the inputs are >= 0

inline int passes_of(int n) {
    int p = 0;
    for (int k = 2; k <= n; k *= 2)
        for (int j = k / 2; j > 0; j /= 2) p++;
    return p;
}

// Your kernel, one launch. The trace has room for twice 63's passes; rows the
// kernel never wrote hold kNotWritten. Returns what the simulator saw go wrong ("").
inline std::string run_one_launch(exercise::Device& dev, const std::vector<int>& input, std::vector<int>& got,
                                  Trace& trace) {
    int n = (int)input.size(), rows = 2 * passes_of(n);
    int* g_a = dev.malloc<int>(n, "g_a");
    int* g_trace = dev.malloc<int>((size_t)rows * n, "g_trace");
    dev.upload(g_a, input);
    dev.fill(g_trace, 0xFF, (size_t)rows * n * sizeof(int));  // every int -1
    dev.clear();
    dev.launch(bitonic_sort_one_launch, dim3(1), dim3(n), g_a, n, g_trace);
    dev.sync();
    std::string problem = dev.problem();
    std::vector<int> flat((size_t)rows * n);
    got.assign(n, 0);
    dev.download(got, g_a);
    dev.download(flat, g_trace);
    dev.free(g_trace);
    dev.free(g_a);
    trace.clear();
    for (int p = 0; p < rows; p++) trace.emplace_back(flat.begin() + (size_t)p * n, flat.begin() + (size_t)(p + 1) * n);
    return problem;
}

// 63 as 63 runs: its own kernel, one launch per pass, the array copied back after each.
inline void run_63(exercise::Device& dev, const std::vector<int>& input, Trace& trace) {
    int n = (int)input.size();
    int* g_a = dev.malloc<int>(n, "g_a");
    dev.upload(g_a, input);
    std::vector<int> a(n);
    trace.clear();
    for (int k = 2; k <= n; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            dev.launch(lesson63::bitonic_sort_kernel, dim3(1), dim3(n), g_a, n, k, j);
            dev.download(a, g_a);
            trace.push_back(a);
        }
    }
    dev.free(g_a);
}

inline std::string pass_name(int n, int p) {
    int q = 0;
    for (int k = 2; k <= n; k *= 2)
        for (int j = k / 2; j > 0; j /= 2)
            if (q++ == p) return "pass " + std::to_string(p + 1) + " (k=" + std::to_string(k) + ", j=" + std::to_string(j) + ")";
    return "pass " + std::to_string(p + 1) + " (after 63's last)";
}

// What is wrong with your run of `input` against 63's ("" if nothing). What
// the simulator saw (a race, a divergent barrier) comes first: it is the cause.
inline std::string problem(const std::string& seen, const std::vector<int>& input, const std::vector<int>& got,
                           const Trace& yours, const Trace& ref) {
    if (seen.rfind("race on", 0) == 0)
        return seen + " -- every thread's pass must be done before any thread starts the next";
    if (!seen.empty()) return seen;
    int n = (int)input.size();
    for (size_t p = 0; p < ref.size(); p++) {
        if (std::count(yours[p].begin(), yours[p].end(), kNotWritten) == (long)n)
            return pass_name(n, (int)p) + " was never written: the loops over k and j, with a pass "
                   "counter, go around compare_exchange_step";
        for (int x = 0; x < n; x++) {
            if (yours[p][x] != ref[p][x])
                return pass_name(n, (int)p) + " differs from 63's at position " + std::to_string(x) + " (yours " +
                       std::to_string(yours[p][x]) + ", 63's " + std::to_string(ref[p][x]) +
                       "): check the loops' bounds and order, the pass counter, and the __syncthreads() "
                       "that must end every pass";
        }
    }
    for (size_t p = ref.size(); p < yours.size(); p++)
        if (std::count(yours[p].begin(), yours[p].end(), kNotWritten) != (long)n)
            return "your kernel wrote " + pass_name(n, (int)p) + ", but 63 has only " + std::to_string(ref.size()) +
                   " passes: the loops run too far";
    std::vector<int> want = input;
    std::sort(want.begin(), want.end());
    if (got != want) return "every pass matches 63's, but the array left in g_a is not sorted: " + exercise::show(got);
    return "";
}

inline int check() {
    exercise::Report report(4, "63 in one launch");
    exercise::Device dev;

    std::vector<int> input(16), got;
    for (int i = 0; i < 16; i++) input[i] = (i * 13 + 5) % 16;  // 63's input
    Trace yours, ref;
    std::string seen = run_one_launch(dev, input, got, yours);
    run_63(dev, input, ref);
    printf("63's input: %s\n\n", exercise::show(input).c_str());
    for (size_t p = 0; p < ref.size(); p++) {
        bool written = std::count(yours[p].begin(), yours[p].end(), kNotWritten) != 16;
        printf("%-19s yours: %-40s %s\n", pass_name(16, (int)p).c_str(),
               written ? exercise::show(yours[p]).c_str() : "(not written)",
               yours[p] == ref[p] ? "= 63's" : ("63's: " + exercise::show(ref[p])).c_str());
    }
    printf("\n");
    std::string p = problem(seen, input, got, yours, ref);
    report.check("63's input, n = 16, pass by pass", p.empty(), p);

    exercise::FirstProblem random;
    uint32_t state = 63;
    for (int n = 2; n <= 1024; n *= 2) {
        for (int r = 0; r < 3; r++) {
            std::vector<int> a(n), g;
            for (auto& x : a) { state = state * 1664525u + 1013904223u; x = (int)((state >> 8) % (uint32_t)n); }
            std::string s = run_one_launch(dev, a, g, yours);
            run_63(dev, a, ref);
            random.add("n = " + std::to_string(n), problem(s, a, g, yours, ref));
        }
    }
    report.check("30 random inputs, n = 2 .. 1024, pass by pass", random.ok(), random.text("inputs"));
    return report.verdict("one launch sorts, pass for pass as 63 does");
}

inline int main(int argc, char** argv) {
    ch12::CommandLine cl = exercise::command_line(argc, argv, "Exercise 4: 63 in one launch, __syncthreads() between passes");
    cl.parse();
    exercise::need_gpu(cl.name());
    return check();
}

}  // namespace ex4
