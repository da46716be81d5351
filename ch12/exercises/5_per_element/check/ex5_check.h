// Exercise 5's check: every thread's new value, in every pass of full sorts,
// must be what 63's own kernel leaves at that index after the same pass.
// Included after your file (ex5_per_element.cuh), by ex5_gpu.cu (the GPU) and
// ex5_sim.cpp (the block simulator).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "exercise.h"
#include "lesson63_kernel.cuh"  // 63's kernel, taken from ch12/63_bitonic_sort_iterative.cu when CMake runs

namespace ex5 {

// Your kernel: one pass, one thread per element, blocks of 256. Returns what
// the simulator saw go wrong ("").
inline std::string pass(exercise::Device& dev, const std::vector<int>& in, std::vector<int>& out, int stage,
                        int stride) {
    int n = (int)in.size();
    int* g_in = dev.malloc<int>(n, "in");
    int* g_out = dev.malloc<int>(n, "out");
    dev.upload(g_in, in);
    dev.clear();
    int threads = std::min(n, 256);
    dev.launch(per_element_pass, dim3((n + threads - 1) / threads), dim3(threads), (const int*)g_in, g_out, n, stage,
               stride);
    dev.sync();
    std::string problem = dev.problem();
    out.assign(n, 0);
    dev.download(out, g_out);
    dev.free(g_out);
    dev.free(g_in);
    return problem;
}

// 63's kernel, pass (k = stage, j = stride), one thread per pair: the reference (n <= 1024).
inline std::vector<int> pass_63(exercise::Device& dev, const std::vector<int>& in, int stage, int stride) {
    int n = (int)in.size();
    std::vector<int> a(n);
    int* g_a = dev.malloc<int>(n, "g_a");
    dev.upload(g_a, in);
    dev.launch(lesson63::bitonic_sort_kernel, dim3(1), dim3(n), g_a, n, stage, stride);
    dev.sync();
    dev.download(a, g_a);
    dev.free(g_a);
    return a;
}

// What thread i did, in words -- what it kept, not what it should keep.
inline std::string what_it_did(const std::vector<int>& in, int i, int stride, int got, int want) {
    int partner = i ^ stride;  // stride is a power of two: i + stride or i - stride
    int me = in[i], other = in[partner];
    std::string pair = "its " + std::to_string(me) + " and its partner's " + std::to_string(other) + " (i=" +
                       std::to_string(partner) + ")";
    if (got != me && got != other)
        return std::to_string(got) + " is neither of " + pair + ": which element did it read?";
    if (got == me && me != other && got != want) {
        const char* which = me < other ? "the smaller" : "the larger";
        return "it kept its own value, " + std::string(which) + " of " + pair;
    }
    return std::string("it took ") + (got < want ? "the smaller" : "the larger") + " of " + pair;
}

// The first thread whose new value differs from 63's pass ("" if none): what
// it did, not the value it should have written.
inline std::string pass_problem(const std::vector<int>& in, const std::vector<int>& got, const std::vector<int>& want,
                                int stage, int stride) {
    int wrong = 0, first = -1;
    for (int i = 0; i < (int)in.size(); i++)
        if (got[i] != want[i] && wrong++ == 0) first = i;
    if (wrong == 0) return "";
    return "thread " + std::to_string(first) + " (stage " + std::to_string(stage) + ", stride " + std::to_string(stride) +
           "): its new value " + std::to_string(got[first]) + " is wrong -- " +
           what_it_did(in, first, stride, got[first], want[first]) + " (" + std::to_string(wrong) + " of " +
           std::to_string(in.size()) + " threads wrong in this pass)";
}

// An index outside the array, found by the simulator: where it came from.
inline std::string seen_problem(const std::string& seen) {
    if (seen.rfind("out of range", 0) == 0) return seen + ": a partner is in the array -- which way is it, from i?";
    return seen;
}

inline int check() {
    exercise::Report report(5, "the per-element pass, from its two bits");
    exercise::Device dev;

    const std::vector<int> input = {5, 2, 8, 1, 9, 3, 7, 4};  // Section 12.3's input
    std::vector<int> got, want = pass_63(dev, input, 2, 1);
    std::string seen = pass(dev, input, got, 2, 1);
    printf("the first pass (stage=2, stride=1) of Section 12.3's 8 values:\n\n");
    printf("  i  strideBit  dirBit  member  block       me  partner's  want  yours\n");
    for (int i = 0; i < 8; i++) {
        int strideBit = (i / 1) % 2, dirBit = (i / 2) % 2;
        printf("  %d  %9d  %6d  %-6s  %-10s  %2d  %9d  %4d  %5d%s\n", i, strideBit, dirBit,
               strideBit == 0 ? "low" : "high", dirBit == 0 ? "ascending" : "descending", input[i], input[i ^ 1],
               want[i], got[i], got[i] == want[i] ? "" : "  <-");
    }
    printf("\n");
    std::string p = seen.empty() ? pass_problem(input, got, want, 2, 1) : seen_problem(seen);
    report.check("the first pass of Section 12.3's input, thread by thread", p.empty(), p);

    exercise::FirstProblem passes;
    uint32_t state = 5;
    for (int n = 8; n <= 1024; n *= 2) {
        std::vector<int> a(n), out;
        for (auto& x : a) { state = state * 1664525u + 1013904223u; x = (int)((state >> 8) % (uint32_t)(n / 2)); }
        for (int stage = 2; stage <= n; stage *= 2) {
            for (int stride = stage / 2; stride > 0; stride /= 2) {
                std::string s = pass(dev, a, out, stage, stride);
                std::vector<int> ref = pass_63(dev, a, stage, stride);
                passes.add("n = " + std::to_string(n), s.empty() ? pass_problem(a, out, ref, stage, stride)
                                                                 : seen_problem(s));
                a = ref;  // the next pass starts from the right array
            }
        }
    }
    report.check("every pass of full sorts of n = 8 .. 1024, against 63's kernel", passes.ok(), passes.text("passes"));
    return report.verdict("every thread keeps what 63's pair would give it");
}

inline int main(int argc, char** argv) {
    ch12::CommandLine cl = exercise::command_line(argc, argv, "Exercise 5: the per-element pass, from its two bits");
    cl.parse();
    exercise::need_gpu(cl.name());
    return check();
}

}  // namespace ex5
