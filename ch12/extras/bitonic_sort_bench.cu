// Chapter 12 extra -- how fast is a bitonic sort, really?
//
// Times, in ONE run on the same keys, for n = 2^10 .. 2^26 (or --sizes):
//   chapter       Section 12.3's kernel at scale: one launch per (k, j)
//   workgroup     1024-key shared-memory tiles + global steps (classic design)
//   fast          the engineered bitonic sort (bitonic_sort.cuh)
//   cub_radix     CUB DeviceRadixSort::SortKeys (what production code uses)
//   thrust_merge  thrust::sort with a comparator (a merge sort)
//   std_sort      std::sort on the host, one core
// GPU times: CUDA events around the sort alone (device memory to device
// memory), after a warm-up run, median of --runs runs (default 7, at least
// 5); the input is restored before every run. Each GPU variant is timed
// twice: as plain launches, and as the same launches captured once into a
// CUDA graph and replayed. Every result is compared with std::sort's. Prints
// a table (Gkeys/s and speed relative to CUB and to the workgroup design,
// >1 meaning faster, from each variant's better mode) and writes CSV.
//
//   bitonic_sort_bench [--sizes 10-26 | --sizes 16,20,24 | --sizes 1000,65536]
//                      [--runs R] [--csv FILE] [--seed S]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include "cuda_check.h"
#include "bitonic_sort.cuh"
#include "sort_inputs.h"

// thrust::sort with a user comparator cannot use radix sort: it merge-sorts.
struct KeyLess {
    __host__ __device__ bool operator()(uint32_t a, uint32_t b) const { return a < b; }
};

// thrust allocates temporary memory inside every sort call; timing that
// cudaMalloc would be unfair to it. This allocator keeps one block around.
struct CachedAllocator {
    typedef char value_type;
    char* block = nullptr;
    size_t size = 0;
    char* allocate(std::ptrdiff_t bytes) {
        if ((size_t)bytes > size) {
            if (block) CUDA_CHECK(cudaFree(block));
            CUDA_CHECK(cudaMalloc(&block, (size_t)bytes));
            size = (size_t)bytes;
        }
        return block;
    }
    void deallocate(char*, size_t) {}
    ~CachedAllocator() { if (block) cudaFree(block); }
};

static int usage(const char* prog, const char* problem) {
    if (problem) fprintf(stderr, "%s: %s\n", prog, problem);
    fprintf(stderr,
            "usage: %s [--sizes LIST] [--runs R] [--csv FILE] [--seed S]\n"
            "  --sizes  exponents A-B (2^A .. 2^B), or a comma list of exponents (<= 31)\n"
            "           and key counts (> 31); default 10-26\n"
            "  --runs   timed runs per variant and size, median reported (5 .. 1000, default 7)\n"
            "  --csv    write every measurement to FILE (default bitonic_bench.csv)\n"
            "  --seed   seed of the uniform random keys (default 1)\n"
            "  --only   a comma list of variants to time (default: all six)\n",
            prog);
    return 2;
}

static bool parse_sizes(const std::string& spec, std::vector<uint64_t>* out) {
    out->clear();
    size_t dash = spec.find('-');
    if (dash != std::string::npos && spec.find(',') == std::string::npos) {
        uint64_t a = 0, b = 0;
        if (!ch12::parse_count(spec.substr(0, dash).c_str(), &a) ||
            !ch12::parse_count(spec.substr(dash + 1).c_str(), &b) || a > b || b > 31) return false;
        for (uint64_t e = a; e <= b; e++) out->push_back(uint64_t(1) << e);
        return true;
    }
    size_t pos = 0;
    while (pos <= spec.size()) {
        size_t comma = spec.find(',', pos);
        std::string item = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        uint64_t v = 0;
        if (!ch12::parse_count(item.c_str(), &v)) return false;
        out->push_back(v <= 31 ? (uint64_t(1) << v) : v);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    for (uint64_t n : *out) if (n == 0 || n > ch12::kMaxKeys) return false;
    return !out->empty();
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

int main(int argc, char** argv) {
    const char* prog = "bitonic_sort_bench";
    std::vector<uint64_t> sizes;
    parse_sizes("10-26", &sizes);
    uint64_t runs = 7, seed = 1;
    std::string csv_path = "bitonic_bench.csv";
    std::string only;
    for (int a = 1; a < argc; a++) {
        const char* opt = argv[a];
        if (std::strcmp(opt, "--help") == 0 || std::strcmp(opt, "-h") == 0) { usage(prog, nullptr); return 0; }
        if (a + 1 >= argc) return usage(prog, "every option needs a value");
        const char* val = argv[++a];
        if (std::strcmp(opt, "--sizes") == 0) {
            if (!parse_sizes(val, &sizes)) return usage(prog, "bad --sizes");
        } else if (std::strcmp(opt, "--runs") == 0) {
            if (!ch12::parse_count(val, &runs) || runs < 5 || runs > 1000) return usage(prog, "--runs wants 5 .. 1000");
        } else if (std::strcmp(opt, "--only") == 0) {
            only = std::string(",") + val + ",";
        } else if (std::strcmp(opt, "--csv") == 0) {
            csv_path = val;
        } else if (std::strcmp(opt, "--seed") == 0) {
            if (!ch12::parse_count(val, &seed) || seed > 0xFFFFFFFFull) return usage(prog, "bad --seed");
        } else {
            return usage(prog, "unknown option");
        }
    }
    ch12::require_cuda_device(prog);

    FILE* csv = std::fopen(csv_path.c_str(), "w");
    if (!csv) {
        fprintf(stderr, "%s: cannot write %s\n", prog, csv_path.c_str());
        return 1;
    }
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    char date[32];
    std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));

    printf("bitonic sort benchmark -- %s (%d SMs), driver %d, runtime %d, %s\n", prop.name,
           prop.multiProcessorCount, driver, runtime, date);
    printf("uniform random uint32 keys (mt19937, seed %llu); GPU: CUDA events, device to device,\n"
           "sort only, median of %llu runs after a warm-up, as plain launches and as a CUDA graph replay;\n"
           "Gkeys/s and the speed ratios (>1: faster) use each variant's better mode.\n"
           "host: std::sort, one core, median of %llu runs\n\n",
           (unsigned long long)seed, (unsigned long long)runs, (unsigned long long)runs);
    fprintf(csv, "# %s; %s\nn,variant,launch_median_ms,graph_median_ms,best_ms,gkeys_per_s,speed_vs_cub,"
                 "speed_vs_workgroup,verified\n", prop.name, date);

    const char* names[] = {"chapter", "workgroup", "fast", "cub_radix", "thrust_merge", "std_sort"};
    const int kVariants = 6;
    uint64_t max_n = *std::max_element(sizes.begin(), sizes.end());
    size_t max_padded = ch12::padded_count(ch12::Variant::chapter, max_n);
    max_padded = std::max(max_padded, ch12::padded_count(ch12::Variant::fast, max_n));
    max_padded = std::max(max_padded, ch12::padded_count(ch12::Variant::workgroup, max_n));

    uint32_t *d_input = nullptr, *d_work = nullptr, *d_out = nullptr, *d_scratch = nullptr;
    CUDA_CHECK(cudaMalloc(&d_input, max_n * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&d_work, max_n * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&d_out, max_n * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&d_scratch, max_padded * sizeof(uint32_t)));
    void* d_cub_temp = nullptr;
    size_t cub_temp_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, cub_temp_bytes, d_work, d_out, (int)max_n));
    CUDA_CHECK(cudaMalloc(&d_cub_temp, cub_temp_bytes));
    CachedAllocator thrust_alloc;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));

    printf("%12s  %-12s %11s %11s %9s %8s %9s  %s\n", "n", "variant", "launches ms", "graph ms", "Gkeys/s",
           "vs CUB", "vs wgroup", "check");
    bool all_ok = true;
    for (uint64_t n : sizes) {
        std::vector<uint32_t> keys = ch12::make_keys(ch12::InputKind::uniform, n, (uint32_t)seed);
        CUDA_CHECK(cudaMemcpy(d_input, keys.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));

        // the host baseline, which also gives the reference result
        auto selected = [&](int v) { return only.empty() || only.find(std::string(",") + names[v] + ",") != std::string::npos; };
        std::vector<double> host_ms;
        std::vector<uint32_t> want;
        for (uint64_t r = 0; r < (selected(5) ? runs : 1); r++) {
            want = keys;
            auto t0 = std::chrono::steady_clock::now();
            std::sort(want.begin(), want.end());
            auto t1 = std::chrono::steady_clock::now();
            host_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        }

        // Each GPU variant twice: as plain launches into the stream, and as
        // the same launches captured once into a CUDA graph and replayed
        // (which trims the per-launch cost of the many-launch variants).
        double launch_ms[kVariants], graph_ms[kVariants], best_ms[kVariants];
        bool ok[kVariants];
        std::vector<uint32_t> got(n);
        for (int v = 0; v < kVariants; v++) {
            if (!selected(v)) {
                launch_ms[v] = graph_ms[v] = best_ms[v] = NAN;
                ok[v] = true;
                continue;
            }
            if (v == 5) {
                launch_ms[v] = graph_ms[v] = best_ms[v] = median(host_ms);
                ok[v] = std::is_sorted(want.begin(), want.end());
                continue;
            }
            uint32_t* result = (v == 3) ? d_out : d_work;
            auto sort_once = [&]() {
                switch (v) {
                    case 0: ch12::sort_keys(ch12::Variant::chapter, d_work, n, d_scratch, stream); break;
                    case 1: ch12::sort_keys(ch12::Variant::workgroup, d_work, n, d_scratch, stream); break;
                    case 2: ch12::sort_keys(ch12::Variant::fast, d_work, n, d_scratch, stream); break;
                    case 3:
                        CUDA_CHECK(cub::DeviceRadixSort::SortKeys(d_cub_temp, cub_temp_bytes, d_work, d_out,
                                                                  (int)n, 0, 32, stream));
                        break;
                    case 4:
                        thrust::sort(thrust::cuda::par_nosync(thrust_alloc).on(stream), d_work, d_work + n, KeyLess());
                        break;
                }
                CUDA_CHECK_LAUNCH();
            };
            ok[v] = true;
            for (int mode = 0; mode < 2; mode++) {
                cudaGraphExec_t exec = nullptr;
                if (mode == 1) {
                    cudaGraph_t graph;
                    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
                    sort_once();
                    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
                    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
                    CUDA_CHECK(cudaGraphDestroy(graph));
                }
                std::vector<double> times;
                for (uint64_t r = 0; r <= runs; r++) {  // run 0 is the warm-up
                    CUDA_CHECK(cudaMemcpyAsync(d_work, d_input, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice, stream));
                    if (v == 3)  // poison CUB's separate output, so a stale result cannot pass
                        CUDA_CHECK(cudaMemsetAsync(d_out, 0xAB, n * sizeof(uint32_t), stream));
                    CUDA_CHECK(cudaEventRecord(start, stream));
                    if (mode == 0) sort_once();
                    else CUDA_CHECK(cudaGraphLaunch(exec, stream));
                    CUDA_CHECK(cudaEventRecord(stop, stream));
                    CUDA_CHECK(cudaEventSynchronize(stop));
                    float ms = 0;
                    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
                    if (r > 0) times.push_back(ms);
                }
                if (exec) CUDA_CHECK(cudaGraphExecDestroy(exec));
                CUDA_CHECK(cudaMemcpy(got.data(), result, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
                ok[v] = ok[v] && (got == want);
                (mode == 0 ? launch_ms : graph_ms)[v] = median(times);
            }
            best_ms[v] = std::min(launch_ms[v], graph_ms[v]);
        }
        for (int v = 0; v < kVariants; v++) {
            if (!selected(v)) continue;
            double gkeys = n / (best_ms[v] * 1e-3) / 1e9;
            double vs_cub = best_ms[3] / best_ms[v], vs_wg = best_ms[1] / best_ms[v];
            printf("%12llu  %-12s %11.4f %11.4f %9.3f %8.2f %9.2f  %s\n", (unsigned long long)n, names[v],
                   launch_ms[v], graph_ms[v], gkeys, vs_cub, vs_wg, ok[v] ? "ok" : "WRONG");
            fprintf(csv, "%llu,%s,%.6f,%.6f,%.6f,%.6f,%.4f,%.4f,%s\n", (unsigned long long)n, names[v],
                    launch_ms[v], graph_ms[v], best_ms[v], gkeys, vs_cub, vs_wg, ok[v] ? "yes" : "no");
            all_ok = all_ok && ok[v];
        }
        printf("\n");
        std::fflush(stdout);
    }
    std::fclose(csv);
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_cub_temp));
    CUDA_CHECK(cudaFree(d_scratch));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_work));
    CUDA_CHECK(cudaFree(d_input));
    printf("CSV written to %s\n", csv_path.c_str());
    printf("every result checked against std::sort: %s\n", all_ok ? "all correct" : "SOME WRONG");
    return all_ok ? 0 : 1;
}
