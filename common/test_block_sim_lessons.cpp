// The lessons' own kernels in the block simulator (common/block_sim.h): 59, 61
// and 63 and their COMMON TRAPs, and the per-element extra's two passes, each
// taken unchanged from its source when CMake runs (ch12_extract_kernels), and
// launched as its program launches it.
//
// What must hold: no kernel races or meets a divergent barrier, except 63's
// trap -- threads i and i ^ j both read and write the same two words in one
// launch, the data race the trap's program can only report on a GPU -- and
// 61's kernel launched with more threads than it merges, whose early return
// leaves the extra threads short of its __syncthreads() (ERRATA 10).
//
//   test_block_sim_lessons     one line per kernel; exit 0 when each is as expected
#include "block_sim.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "lesson59_kernel.cuh"
#include "lesson61_kernel.cuh"
#include "lesson63_kernel.cuh"
#if CH12_HAVE_PER_ELEMENT  // (not in the student handout: it answers exercise 5)
#include "per_element_kernels.cuh"
#endif
#include "trap59_kernel.cuh"
#include "trap61_kernel.cuh"
#include "trap63_kernel.cuh"

namespace {

int failures = 0;

void report(const char* what, bool as_expected, const std::string& said) {
    if (!as_expected) failures++;
    std::printf("%s %s: %s\n", as_expected ? "as expected:" : "NOT AS EXPECTED:", what,
                said.empty() ? "no race, no divergent barrier, nothing out of range" : said.c_str());
}

bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// 59: one launch of dist threads on the book's bitonic input (8 values).
std::string split(block_sim::Device& dev, void (*kernel)(int*, int, int)) {
    const std::vector<int> input = {2, 4, 6, 8, 9, 7, 5, 3};
    int* g_a = dev.malloc<int>(8, "g_a");
    std::copy(input.begin(), input.end(), g_a);
    dev.clear();
    dev.launch(kernel, dim3(1), dim3(4), g_a, 4, 1);
    std::string said = dev.problem();
    dev.free(g_a);
    return said;
}

// 61: one launch of `threads` threads merging 8 bitonic values (with 61's
// trace and active-pair counters).
std::string merge(block_sim::Device& dev, void (*kernel)(int*, int, int, int*, int*), int threads) {
    const std::vector<int> input = {2, 4, 5, 7, 9, 8, 6, 3};
    int* g_a = dev.malloc<int>(8, "g_a");
    int* g_trace = dev.malloc<int>(3 * 8, "g_trace");
    int* g_active = dev.malloc<int>(3, "g_active");
    std::copy(input.begin(), input.end(), g_a);
    std::fill(g_active, g_active + 3, 0);
    dev.clear();
    dev.launch(kernel, dim3(1), dim3(threads), g_a, 8, 1, g_trace, g_active);
    std::string said = dev.problem();
    if (said.empty() && !std::is_sorted(g_a, g_a + 8) && kernel == lesson61::bitonic_merge_kernel)
        said = "61's merge did not sort";
    dev.free(g_active);
    dev.free(g_trace);
    dev.free(g_a);
    return said;
}

// 63: one launch of n threads per (k, j), as 63 launches it.
std::string sort63(block_sim::Device& dev, void (*kernel)(int*, int, int, int), std::vector<int>& a) {
    int n = (int)a.size();
    int* g_a = dev.malloc<int>(n, "g_a");
    std::copy(a.begin(), a.end(), g_a);
    dev.clear();
    for (int k = 2; k <= n && dev.ok(); k *= 2)
        for (int j = k / 2; j > 0 && dev.ok(); j /= 2) dev.launch(kernel, dim3(1), dim3(n), g_a, n, k, j);
    std::copy(g_a, g_a + n, a.begin());
    dev.free(g_a);
    return dev.problem();
}

std::vector<int> input63() {
    std::vector<int> a(16);
    for (int i = 0; i < 16; i++) a[i] = (i * 13 + 5) % 16;
    return a;
}

}  // namespace

int main() {
    block_sim::Device dev;

    std::string said = split(dev, lesson59::compare_exchange_kernel);
    report("59's kernel, the book's input, dist = 4 threads", said.empty(), said);
    said = split(dev, trap59::compare_exchange_kernel);
    report("59's trap (adjacent pairs): wrong pairs, but each word still has one thread", said.empty(), said);

    said = merge(dev, lesson61::bitonic_merge_kernel, 8);
    report("61's kernel, one block of exactly n = 8 threads, __syncthreads() between passes", said.empty(), said);
    said = merge(dev, trap61::bitonic_merge_kernel, 8);
    report("61's trap (tid < dist): pairs left out, but no two threads on one word", said.empty(), said);
    said = merge(dev, lesson61::bitonic_merge_kernel, 16);
    report("61's kernel launched with 16 threads for 8 values (ERRATA 10): the 8 that return early never reach "
           "its __syncthreads()",
           starts(said, "divergent barrier: threads 0 .. 7 wait at the __syncthreads() at 61_bitonic_merge_multipass.cu:") &&
               said.find("threads 8 .. 15 returned without reaching it") != std::string::npos,
           said);

    std::vector<int> a = input63();
    said = sort63(dev, lesson63::bitonic_sort_kernel, a);
    bool sorted = std::is_sorted(a.begin(), a.end());
    std::mt19937 rng(63);
    int inputs = 1;
    for (int n = 2; n <= 1024 && said.empty() && sorted; n *= 2) {
        for (int r = 0; r < 2; r++, inputs++) {
            std::vector<int> b(n);
            for (int& x : b) x = (int)(rng() % (uint32_t)n);
            said = sort63(dev, lesson63::bitonic_sort_kernel, b);
            sorted = sorted && std::is_sorted(b.begin(), b.end());
        }
    }
    report("63's kernel, 63's input and 20 random inputs of n = 2 .. 1024, every launch", said.empty() && sorted,
           sorted ? said : "not sorted: " + said);

    a = input63();
    said = sort63(dev, trap63::bitonic_sort_kernel, a);
    report("63's trap (no if (l > i)), 63's input", starts(said, "race on g_a["), said);

#if CH12_HAVE_PER_ELEMENT
    // The per-element extra: both spellings of the pass, blocks of 256, n = 8 .. 4096.
    std::string pe;
    bool agree = true, pe_sorted = true;
    std::mt19937 gen(12);
    for (uint32_t n = 8; n <= 2048 && pe.empty(); n *= 2) {
        uint32_t* in = dev.malloc<uint32_t>(n, "in");
        uint32_t* arith = dev.malloc<uint32_t>(n, "out");
        uint32_t* bits = dev.malloc<uint32_t>(n, "out");
        int* record = dev.malloc<int>(4 * n, "record");
        for (uint32_t i = 0; i < n; i++) in[i] = gen() % (n / 2);
        const uint32_t threads = std::min<uint32_t>(n, 256), blocks = (n + threads - 1) / threads;
        dev.clear();
        for (uint32_t stage = 2; stage <= n && pe.empty(); stage *= 2) {
            for (uint32_t stride = stage / 2; stride > 0 && pe.empty(); stride /= 2) {
                dev.launch(per_element::per_element_pass_arithmetic, dim3(blocks), dim3(threads), (const uint32_t*)in,
                           arith, n, stage, stride, stage == 2 ? record : (int*)nullptr);
                dev.launch(per_element::per_element_pass_bitwise, dim3(blocks), dim3(threads), (const uint32_t*)in,
                           bits, n, stage, stride);
                pe = dev.problem();
                agree = agree && std::equal(arith, arith + n, bits);
                std::copy(arith, arith + n, in);
            }
        }
        pe_sorted = pe_sorted && std::is_sorted(in, in + n);
        dev.free(record);
        dev.free(bits);
        dev.free(arith);
        dev.free(in);
    }
    report("the per-element pass, both spellings, every pass of full sorts of n = 8 .. 2048 (blocks of 256)",
           pe.empty() && agree && pe_sorted,
           !pe.empty() ? pe : !agree ? "the two spellings disagree" : !pe_sorted ? "not sorted" : "");
#endif

    std::printf("\n%s\n", failures == 0 ? "every lesson kernel as expected: 63's trap races, the others do not"
                                          : "some lesson kernel NOT as expected (see above)");
    return failures == 0 ? 0 : 1;
}
