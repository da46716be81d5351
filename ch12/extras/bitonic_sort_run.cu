// Chapter 12 extra -- run one bitonic sort of any size on the GPU, check it
// against std::sort, and print how long the GPU took.
//
//   bitonic_sort_run --n 1000000 --variant fast --input uniform --seed 7
//
// Variants (bitonic_sort.cuh): chapter (63's kernel, one launch per pass),
// workgroup (1024-key shared-memory tiles + global steps), fast.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cuda_check.h"
#include "bitonic_sort.cuh"
#include "sort_inputs.h"

static int usage(const char* prog, const char* problem) {
    if (problem) fprintf(stderr, "%s: %s\n", prog, problem);
    fprintf(stderr,
            "usage: %s --n N [--variant chapter|workgroup|fast] [--seed S]\n"
            "          [--input uniform|sorted|reverse|equal|few-unique]\n"
            "  --n N       number of uint32 keys, 0 .. 2^31 (decimal, or 2^K)\n"
            "  --variant   which bitonic sort (default fast)\n"
            "  --seed S    seed of the random keys, 0 .. 4294967295 (default 1)\n"
            "  --input     the key distribution (default uniform)\n",
            prog);
    return 2;
}

int main(int argc, char** argv) {
    const char* prog = "bitonic_sort_run";
    uint64_t n = 0, seed = 1;
    bool have_n = false;
    ch12::Variant variant = ch12::Variant::fast;
    ch12::InputKind input = ch12::InputKind::uniform;
    for (int a = 1; a < argc; a++) {
        const char* opt = argv[a];
        if (std::strcmp(opt, "--help") == 0 || std::strcmp(opt, "-h") == 0) { usage(prog, nullptr); return 0; }
        if (a + 1 >= argc) return usage(prog, "every option needs a value");
        const char* val = argv[++a];
        if (std::strcmp(opt, "--n") == 0) {
            if (!ch12::parse_count(val, &n)) return usage(prog, "--n wants a whole number of keys");
            have_n = true;
        } else if (std::strcmp(opt, "--seed") == 0) {
            if (!ch12::parse_count(val, &seed) || seed > 0xFFFFFFFFull)
                return usage(prog, "--seed wants a whole number from 0 to 4294967295");
        } else if (std::strcmp(opt, "--variant") == 0) {
            if (!ch12::parse_variant(val, &variant)) return usage(prog, "unknown --variant");
        } else if (std::strcmp(opt, "--input") == 0) {
            if (!ch12::parse_input_kind(val, &input)) return usage(prog, "unknown --input");
        } else {
            return usage(prog, "unknown option");
        }
    }
    if (!have_n) return usage(prog, "--n is required");

    ch12::require_cuda_device(prog);

    // Memory first: a size that cannot fit gets a clear error before any
    // large allocation is tried.
    const uint64_t padded = (n <= ch12::kMaxKeys) ? ch12::padded_count(variant, n) : n;
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const uint64_t free_keys = free_bytes / sizeof(uint32_t);
    const bool fits = n <= free_keys && (padded == n || padded <= free_keys - n);
    if (!fits) {
        const double need_mib = ((double)n + (padded != n ? (double)padded : 0.0)) * sizeof(uint32_t) / 1048576.0;
        fprintf(stderr, "%s: %llu keys need %.1f MiB of GPU memory, but only %.1f MiB of %.1f MiB are free\n",
                prog, (unsigned long long)n, need_mib, free_bytes / 1048576.0, total_bytes / 1048576.0);
        return 1;
    }
    if (n > ch12::kMaxKeys) return usage(prog, "--n is above 2^31, the most the 32-bit kernels index");

    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::vector<uint32_t> keys = ch12::make_keys(input, n, (uint32_t)seed);
    std::vector<uint32_t> want = keys;
    std::sort(want.begin(), want.end());

    uint32_t *d_keys = nullptr, *d_scratch = nullptr;
    CUDA_CHECK(cudaMalloc(&d_keys, std::max<uint64_t>(n, 1) * sizeof(uint32_t)));
    if (padded != n && padded > 0) CUDA_CHECK(cudaMalloc(&d_scratch, padded * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemcpy(d_keys, keys.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    ch12::sort_keys(variant, d_keys, n, d_scratch);
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

    CUDA_CHECK(cudaMemcpy(keys.data(), d_keys, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaEventDestroy(start));
    if (d_scratch) CUDA_CHECK(cudaFree(d_scratch));
    CUDA_CHECK(cudaFree(d_keys));

    const bool ok = (keys == want);
    printf("device:   %s\n", prop.name);
    printf("sort:     %s bitonic sort of %llu uint32 keys (%s, seed %llu), padded to %llu\n",
           ch12::variant_name(variant), (unsigned long long)n, ch12::input_name(input),
           (unsigned long long)seed, (unsigned long long)padded);
    printf("time:     %.3f ms on the GPU (one run, first launch included; the benchmark gives medians)\n", ms);
    printf("result:   sorted, same keys as std::sort: %s\n", ok ? "yes" : "NO -- MISMATCH");
    return ok ? 0 : 1;
}
