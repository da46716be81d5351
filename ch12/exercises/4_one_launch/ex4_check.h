// Exercise 4's check: one launch must leave, after every pass, the array that
// 63's one-launch-per-pass sort leaves, and end sorted.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "exercise.h"

namespace ex4 {

// 63's kernel, as 63 has it: the reference, launched once per pass.
__global__ void sort_pass_63(int* g_a, int n, int k, int j) {
    int i = threadIdx.x;
    if (i >= n) return;
    int l = i ^ j;
    if (l > i) {
        bool ascending = ((i & k) == 0);
        int a_i = g_a[i];
        int a_l = g_a[l];
        bool should_swap = ascending ? (a_i > a_l) : (a_i < a_l);
        if (should_swap) {
            g_a[i] = a_l;
            g_a[l] = a_i;
        }
    }
}

using Trace = std::vector<std::vector<int>>;  // the array after each pass
const int kNotWritten = -1;                   // the inputs are >= 0

inline int passes_of(int n) {
    int p = 0;
    for (int k = 2; k <= n; k *= 2)
        for (int j = k / 2; j > 0; j /= 2) p++;
    return p;
}

// Your kernel, one launch. The trace has room for twice 63's passes; rows the
// kernel never wrote hold kNotWritten. Returns the array it left.
inline std::vector<int> run_one_launch(const std::vector<int>& input, Trace& trace) {
    int n = (int)input.size(), rows = 2 * passes_of(n);
    int *d_a = nullptr, *d_trace = nullptr;
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_trace, (size_t)rows * n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_a, input.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_trace, 0xFF, (size_t)rows * n * sizeof(int)));  // every int -1
    bitonic_sort_one_launch<<<1, n>>>(d_a, n, d_trace);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<int> a(n), flat((size_t)rows * n);
    CUDA_CHECK(cudaMemcpy(a.data(), d_a, n * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(flat.data(), d_trace, flat.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_trace));
    CUDA_CHECK(cudaFree(d_a));
    trace.clear();
    for (int p = 0; p < rows; p++) trace.emplace_back(flat.begin() + (size_t)p * n, flat.begin() + (size_t)(p + 1) * n);
    return a;
}

// 63 as 63 runs: one launch per pass, the array copied back after each.
inline std::vector<int> run_63(const std::vector<int>& input, Trace& trace) {
    int n = (int)input.size();
    int* d_a = nullptr;
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_a, input.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    std::vector<int> a(n);
    trace.clear();
    for (int k = 2; k <= n; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            sort_pass_63<<<1, n>>>(d_a, n, k, j);
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaMemcpy(a.data(), d_a, n * sizeof(int), cudaMemcpyDeviceToHost));
            trace.push_back(a);
        }
    }
    CUDA_CHECK(cudaFree(d_a));
    return a;
}

inline std::string pass_name(int n, int p) {
    int q = 0;
    for (int k = 2; k <= n; k *= 2)
        for (int j = k / 2; j > 0; j /= 2)
            if (q++ == p) return "pass " + std::to_string(p + 1) + " (k=" + std::to_string(k) + ", j=" + std::to_string(j) + ")";
    return "pass " + std::to_string(p + 1) + " (after 63's last)";
}

// What is wrong with your run of `input` against 63's ("" if nothing).
inline std::string problem(const std::vector<int>& input, const std::vector<int>& got, const Trace& yours,
                           const Trace& ref) {
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
    exercise::Report report(4, "63 in one launch", false);

    std::vector<int> input(16);
    for (int i = 0; i < 16; i++) input[i] = (i * 13 + 5) % 16;  // 63's input
    Trace yours, ref;
    std::vector<int> got = run_one_launch(input, yours);
    run_63(input, ref);
    printf("63's input: %s\n\n", exercise::show(input).c_str());
    for (size_t p = 0; p < ref.size(); p++) {
        bool written = std::count(yours[p].begin(), yours[p].end(), kNotWritten) != 16;
        printf("%-19s yours: %-40s %s\n", pass_name(16, (int)p).c_str(),
               written ? exercise::show(yours[p]).c_str() : "(not written)",
               yours[p] == ref[p] ? "= 63's" : ("63's: " + exercise::show(ref[p])).c_str());
    }
    printf("\n");
    std::string p = problem(input, got, yours, ref);
    report.check("63's input, n = 16, pass by pass", p.empty(), p);

    int inputs = 0, wrong = 0;
    std::string first;
    uint32_t state = 63;
    for (int n = 2; n <= 1024; n *= 2) {
        for (int r = 0; r < 3; r++) {
            std::vector<int> a(n);
            for (auto& x : a) { state = state * 1664525u + 1013904223u; x = (int)((state >> 8) % (uint32_t)n); }
            std::vector<int> g = run_one_launch(a, yours);
            run_63(a, ref);
            inputs++;
            std::string q = problem(a, g, yours, ref);
            if (!q.empty() && wrong++ == 0) first = "n = " + std::to_string(n) + ": " + q;
        }
    }
    report.check("30 random inputs, n = 2 .. 1024, pass by pass", wrong == 0,
                 first + " (" + std::to_string(wrong) + " of " + std::to_string(inputs) + " inputs wrong)");
    return report.verdict("one launch sorts, pass for pass as 63 does");
}

}  // namespace ex4
