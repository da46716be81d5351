// Chapter 12 extra -- the correctness suite of the three bitonic sorts.
//
// Every variant (chapter, workgroup, fast) on a few hundred (n, input, seed)
// cases: sizes around every power of two and tile boundary the code cares
// about (0, 1, 2, 3, 1023, 1024, 1025, 4097, 2^20 + 7, ...), all five inputs,
// two seeds for the random ones. Each result must equal std::sort's, and the
// words just past the n keys (a guard zone filled with a sentinel) must be
// untouched: nothing lost, nothing invented, nothing written out of bounds.
//
//   bitonic_sort_test [--long] [--variant chapter|workgroup|fast]
//
// --long adds sizes up to 2^25. Ends with "N passed, N failed".

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cuda_check.h"
#include "bitonic_sort.cuh"
#include "sort_inputs.h"

static int usage(const char* prog) {
    fprintf(stderr, "usage: %s [--long] [--variant chapter|workgroup|fast]\n", prog);
    return 2;
}

int main(int argc, char** argv) {
    bool longer = false;
    std::vector<ch12::Variant> variants = {ch12::Variant::chapter, ch12::Variant::workgroup, ch12::Variant::fast};
    for (int a = 1; a < argc; a++) {
        if (std::strcmp(argv[a], "--long") == 0) {
            longer = true;
        } else if (std::strcmp(argv[a], "--variant") == 0 && a + 1 < argc) {
            ch12::Variant v;
            if (!ch12::parse_variant(argv[++a], &v)) return usage(argv[0]);
            variants = {v};
        } else {
            return usage(argv[0]);
        }
    }
    ch12::require_cuda_device("bitonic_sort_test");

    std::vector<size_t> sizes = {0, 1, 2, 3, 4, 5, 7, 8, 31, 33, 100, 1000, 1023, 1024, 1025, 2047, 2048,
                                 4095, 4096, 4097, 8191, 8192, 8193, 12345, 16384, 65535, 65536, 65537,
                                 100003, 262144, 262145, (1u << 20), (1u << 20) + 7};
    if (longer) sizes = {(1u << 22) + 3, (1u << 24), (1u << 24) + 1, (1u << 25) - 1};
    const ch12::InputKind kinds[] = {ch12::InputKind::uniform, ch12::InputKind::sorted, ch12::InputKind::reverse,
                                     ch12::InputKind::equal, ch12::InputKind::few_unique};
    const size_t kGuard = 64;
    const uint32_t kSentinel = 0xA5A5A5A5u;

    size_t max_n = *std::max_element(sizes.begin(), sizes.end());
    uint32_t *d_keys = nullptr, *d_scratch = nullptr;
    size_t max_padded = 0;
    for (auto v : variants) max_padded = std::max(max_padded, ch12::padded_count(v, max_n));
    CUDA_CHECK(cudaMalloc(&d_keys, (max_n + kGuard) * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&d_scratch, std::max<size_t>(max_padded, 1) * sizeof(uint32_t)));

    int passed = 0, failed = 0;
    for (auto v : variants) {
        int v_passed = 0, v_failed = 0;
        for (size_t n : sizes) {
            for (auto kind : kinds) {
                const bool random = (kind == ch12::InputKind::uniform || kind == ch12::InputKind::few_unique);
                for (uint32_t seed = 1; seed <= (random ? 2u : 1u); seed++) {
                    std::vector<uint32_t> keys = ch12::make_keys(kind, n, seed * 7919u + (uint32_t)n);
                    std::vector<uint32_t> want = keys;
                    std::sort(want.begin(), want.end());
                    keys.resize(n + kGuard, kSentinel);
                    CUDA_CHECK(cudaMemcpy(d_keys, keys.data(), (n + kGuard) * sizeof(uint32_t), cudaMemcpyHostToDevice));
                    ch12::sort_keys(v, d_keys, n, d_scratch);
                    CUDA_CHECK(cudaDeviceSynchronize());
                    CUDA_CHECK(cudaMemcpy(keys.data(), d_keys, (n + kGuard) * sizeof(uint32_t), cudaMemcpyDeviceToHost));
                    bool sorted_ok = std::equal(want.begin(), want.end(), keys.begin());
                    bool guard_ok = std::all_of(keys.begin() + n, keys.end(), [&](uint32_t x) { return x == kSentinel; });
                    if (sorted_ok && guard_ok) {
                        v_passed++;
                    } else {
                        v_failed++;
                        size_t first_bad = 0;
                        while (first_bad < n && keys[first_bad] == want[first_bad]) first_bad++;
                        printf("FAIL: %s n=%zu input=%s seed=%u: %s\n", ch12::variant_name(v), n,
                               ch12::input_name(kind), seed,
                               !sorted_ok ? "result differs from std::sort" : "wrote past the end (guard zone changed)");
                        if (!sorted_ok)
                            printf("      first difference at %zu: got %u, std::sort has %u\n", first_bad,
                                   keys[first_bad], want[first_bad]);
                    }
                }
            }
        }
        printf("%-9s %4d cases passed, %d failed (n from %zu to %zu, %zu sizes x 5 inputs, 2 seeds for the random ones)\n",
               ch12::variant_name(v), v_passed, v_failed, sizes.front(), max_n, sizes.size());
        passed += v_passed;
        failed += v_failed;
    }
    CUDA_CHECK(cudaFree(d_scratch));
    CUDA_CHECK(cudaFree(d_keys));
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
