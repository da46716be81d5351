// Chapter 12 extra -- how fast is a bitonic sort, and where does it win?
//
//   bitonic_sort_bench [--sizes 10-26] [--batched] [--runs R] [--csv FILE] [--only LIST] [--seed S]
//
// Two sections, each timed in ONE run on the same keys:
//  single   one array of n uint32 keys, n = 2^10 .. 2^26 (--sizes): the three
//           bitonic designs against CUB's radix sort, thrust's merge sort and
//           std::sort on one core;
//  batched  (--batched) a batch of arrays of len keys, 2^24 and 2^26 keys in
//           all, len = 32, 256, 1024, 4096, 65536, keys only and (key, value)
//           pairs: the bitonic designs against CUB's two segmented sorts and
//           thrust's sort_by_key with the segment-id trick (one radix sort of
//           segment << 32 | key, which keeps every array apart).
// GPU times: CUDA events around the sort alone (device memory to device
// memory), a warm-up run, then the median of --runs runs, each as plain
// launches and as a CUDA graph replay of the same launches (the better one
// counts); inputs restored before each run, outside the timed region; every
// result checked on the CPU. Prints tables (Gkeys/s; speed against CUB's
// best, >1 meaning faster) and writes every measurement to CSV.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include "bitonic_sort.cuh"
#include "cli.h"
#include "cuda_check.h"
#include "sort_cases.h"

// The methods the benchmark times, by name (the bitonic designs come from the
// library's own table, bitonic::kDesigns).
struct Method {
    const char* name;
    bool single, batched;
    const char* what;
    bool capturable = true;  // its launches can be captured into a CUDA graph
};
static std::vector<Method> methods() {
    std::vector<Method> m;
    for (const bitonic::DesignInfo* d = bitonic::kDesigns; d->name; ++d) m.push_back({d->name, true, true, d->what});
    m.push_back({"cub_radix", true, false, "CUB DeviceRadixSort::SortKeys"});
    m.push_back({"thrust_merge", true, false, "thrust::sort with a comparator (a merge sort)"});
    m.push_back({"std_sort", true, false, "std::sort on the host, one core"});
    // DeviceSegmentedSort synchronises inside (cudaErrorStreamCaptureUnsupported
    // when captured): it is timed as plain launches only.
    m.push_back({"cub_segmented_sort", false, true, "CUB DeviceSegmentedSort::SortKeys / SortPairs", false});
    m.push_back({"cub_segmented_radix", false, true, "CUB DeviceSegmentedRadixSort::SortKeys / SortPairs"});
    m.push_back({"thrust_segid", false, true, "thrust::sort_by_key of segment << 32 | key (one 64-bit radix sort)"});
    return m;
}

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

// The segment-id trick: word = segment << 32 | key (uint32 keys), so one sort
// of the words sorts every segment on its own.
__global__ void segid_pack(const uint32_t* keys, uint64_t* words, uint64_t n, uint32_t len_bits) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        words[i] = ((i >> len_bits) << 32) | keys[i];
}
__global__ void segid_unpack(const uint64_t* words, uint32_t* keys, uint64_t n) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        keys[i] = (uint32_t)words[i];
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// A list of sizes: "A-B" (2^A .. 2^B) or a comma list of exponents (<= 31)
// and key counts (> 31).
static bool parse_sizes(const std::string& spec, std::vector<uint64_t>* out) {
    out->clear();
    const size_t dash = spec.find('-');
    if (dash != std::string::npos && spec.find(',') == std::string::npos) {
        uint64_t a = 0, b = 0;
        if (!ch12::parse_number(spec.substr(0, dash).c_str(), 1, 31, &a) ||
            !ch12::parse_number(spec.substr(dash + 1).c_str(), 1, 31, &b) || a > b) return false;
        for (uint64_t e = a; e <= b; e++) out->push_back(uint64_t(1) << e);
        return true;
    }
    size_t pos = 0;
    for (;;) {
        const size_t comma = spec.find(',', pos);
        uint64_t v = 0;
        if (!ch12::parse_number(spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos).c_str(),
                                1, uint64_t(1) << 31, &v)) return false;
        out->push_back(v <= 31 ? (uint64_t(1) << v) : v);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return !out->empty();
}

// Times `run` (which sorts, on `stream`) after `restore` (which puts the
// input back), as plain launches and as a graph replay; returns the medians.
struct Timing {
    double launch_ms, graph_ms;  // graph_ms: NaN when the method cannot be captured
    double best() const { return std::isnan(graph_ms) ? launch_ms : std::min(launch_ms, graph_ms); }
};
template <typename Restore, typename Run>
static Timing time_gpu(cudaStream_t stream, int runs, bool capturable, Restore restore, Run run) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    Timing t{NAN, NAN};
    for (int mode = 0; mode < (capturable ? 2 : 1); mode++) {
        cudaGraphExec_t exec = nullptr;
        if (mode == 1) {
            cudaGraph_t graph;
            CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
            run();
            CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
            CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
            CUDA_CHECK(cudaGraphDestroy(graph));
        }
        std::vector<double> times;
        for (int r = 0; r <= runs; r++) {  // run 0 is the warm-up
            restore();
            CUDA_CHECK(cudaEventRecord(start, stream));
            if (mode == 0) run();
            else CUDA_CHECK(cudaGraphLaunch(exec, stream));
            CUDA_CHECK(cudaEventRecord(stop, stream));
            CUDA_CHECK(cudaEventSynchronize(stop));
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
            if (r > 0) times.push_back(ms);
        }
        if (exec) CUDA_CHECK(cudaGraphExecDestroy(exec));
        (mode == 0 ? t.launch_ms : t.graph_ms) = median(times);
    }
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaEventDestroy(start));
    return t;
}

// An order-independent fingerprint of (key, value) pairs: equal multisets,
// equal fingerprints (and different ones, different fingerprints but with
// probability about 2^-64).
static uint64_t fingerprint(const std::vector<uint32_t>& keys, const std::vector<uint32_t>& values) {
    uint64_t sum = 0;
    for (size_t i = 0; i < keys.size(); i++) {
        uint64_t z = ((uint64_t)keys[i] << 32 | (values.empty() ? 0u : values[i])) + 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        sum += z ^ (z >> 31);
    }
    return sum;
}

int main(int argc, char** argv) {
    const std::vector<Method> table = methods();
    std::string names;
    for (const Method& m : table) names += (names.empty() ? "" : ", ") + std::string(m.name);
    const std::string details =
        "  --sizes LIST   single arrays: exponents A-B (2^A .. 2^B), or a comma list of exponents\n"
        "                 (<= 31) and key counts (> 31); default 10-26\n"
        "  --batched      also the batched section: 2^24 and 2^26 keys in arrays of 32 .. 65536\n"
        "  --batch-totals LIST, --batch-lens LIST   its sizes (same forms; default 24,26 and 32,256,1024,4096,65536)\n"
        "  --runs R       timed runs per method and size, the median reported (3 .. 1000, default 7)\n"
        "  --csv FILE     write every measurement to FILE (default bitonic_bench.csv)\n"
        "  --only LIST    a comma list of methods to time (default: all): " + names + "\n"
        "  --seed S       seed of the random keys (default 1)\n";
    ch12::CommandLine cl(argc, argv, "[--sizes LIST] [--batched] [--runs R] [--csv FILE] [--only LIST] [--seed S]",
                         details);
    cl.option("--sizes").flag("--batched").option("--batch-totals").option("--batch-lens").option("--runs")
      .option("--csv").option("--only").option("--seed");
    cl.parse();

    std::vector<uint64_t> sizes, totals, lens;
    auto sizes_of = [&](const char* option, const char* fallback, std::vector<uint64_t>* out) {
        const char* text = cl.value(option) ? cl.value(option) : fallback;
        if (!parse_sizes(text, out))
            cl.fail(std::string(option) + " wants A-B (2^A .. 2^B, A <= B <= 31) or a comma list of exponents and "
                    "key counts, not '" + text + "'");
    };
    sizes_of("--sizes", "10-26", &sizes);
    sizes_of("--batch-totals", "24,26", &totals);
    sizes_of("--batch-lens", "32,256,1024,4096,65536", &lens);
    for (uint64_t l : lens)
        if ((l & (l - 1)) != 0) cl.fail("--batch-lens wants powers of two, not " + std::to_string(l));
    const bool batched = cl.has("--batched");
    if (!batched && (cl.has("--batch-totals") || cl.has("--batch-lens"))) cl.fail("--batch-totals and --batch-lens go with --batched");
    const int runs = (int)cl.number("--runs", 3, 1000, 7);
    const uint32_t seed = (uint32_t)cl.number("--seed", 0, 0xFFFFFFFFu, 1);
    std::vector<bool> selected(table.size(), !cl.has("--only"));
    if (const char* only = cl.value("--only")) {
        std::string list = only;
        size_t pos = 0;
        for (;;) {
            const size_t comma = list.find(',', pos);
            const std::string item = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
            size_t i = 0;
            while (i < table.size() && item != table[i].name) i++;
            if (i == table.size()) cl.fail("--only: no method '" + item + "' (the methods: " + names + ")");
            selected[i] = true;
            if (comma == std::string::npos) break;
            pos = comma + 1;
        }
    }
    const std::string csv_path = cl.value("--csv") ? cl.value("--csv") : "bitonic_bench.csv";
    FILE* csv = std::fopen(csv_path.c_str(), "w");
    if (!csv) cl.fail("--csv: cannot write " + csv_path + ": " + std::strerror(errno));

    ch12::require_cuda_device(cl.name());

    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    printf("bitonic sort benchmark -- %s (%d SMs), driver %d, runtime %d, %s\n", prop.name,
           prop.multiProcessorCount, driver, runtime, date);
    printf("uniform random uint32 keys (mt19937, seed %u); GPU: CUDA events, device to device, sort only,\n"
           "median of %d runs after a warm-up, as plain launches and as a CUDA graph replay (the better\n"
           "counts); every result checked on the CPU. host: std::sort, one core (one run above 2^22 keys).\n\n",
           seed, runs);
    fprintf(csv, "# %s; %s\nsection,n,len,kind,method,launch_ms,graph_ms,best_ms,gkeys_per_s,speed_vs_cub,verified\n",
            prop.name, date);

    auto index_of = [&](const char* name) {
        for (size_t i = 0; i < table.size(); i++) if (std::strcmp(table[i].name, name) == 0) return i;
        return table.size();
    };
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    CachedAllocator thrust_alloc;
    bitonic::Sorter sorter;
    bool all_ok = true;

    // ================= single arrays =================
    bool any_single = false;
    for (size_t i = 0; i < table.size(); i++) any_single = any_single || (selected[i] && table[i].single);
    if (any_single && !sizes.empty()) {
        const uint64_t max_n = *std::max_element(sizes.begin(), sizes.end());
        uint32_t *d_input = nullptr, *d_work = nullptr, *d_out = nullptr;
        CUDA_CHECK(cudaMalloc(&d_input, max_n * 4));
        CUDA_CHECK(cudaMalloc(&d_work, max_n * 4));
        CUDA_CHECK(cudaMalloc(&d_out, max_n * 4));
        void* d_cub_temp = nullptr;
        size_t cub_temp_bytes = 0;
        CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, cub_temp_bytes, d_work, d_out, (int)max_n));
        CUDA_CHECK(cudaMalloc(&d_cub_temp, cub_temp_bytes));

        printf("single arrays of uint32 keys\n%12s  %-13s %11s %11s %9s %8s  %s\n", "n", "method", "launches ms",
               "graph ms", "Gkeys/s", "vs CUB", "check");
        for (uint64_t n : sizes) {
            std::vector<uint32_t> keys = cases::make_keys(cases::Input::uniform, bitonic::KeyType::u32, n, seed);
            CUDA_CHECK(cudaMemcpy(d_input, keys.data(), n * 4, cudaMemcpyHostToDevice));
            std::vector<double> host_ms;
            std::vector<uint32_t> want;
            const bool host = selected[index_of("std_sort")];
            const int host_runs = (host && n <= (1u << 22)) ? runs : 1;  // std::sort of 2^26 keys takes 10 s
            for (int r = 0; r < host_runs; r++) {
                want = keys;
                const auto t0 = std::chrono::steady_clock::now();
                std::sort(want.begin(), want.end());
                host_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            }
            bitonic::Request req;
            req.len = n;
            std::vector<Timing> t(table.size(), Timing{NAN, NAN});
            std::vector<bool> ok(table.size(), true);
            std::vector<uint32_t> got(n);
            for (size_t m = 0; m < table.size(); m++) {
                if (!selected[m] || !table[m].single) continue;
                const std::string name = table[m].name;
                if (name == "std_sort") {
                    t[m] = {median(host_ms), median(host_ms)};
                    continue;
                }
                bitonic::Design design;
                const bool is_bitonic = bitonic::design_by_name(name.c_str(), &design);
                if (is_bitonic) {
                    req.design = design;
                    cases::or_exit(sorter.reserve(req), cl.name());
                }
                uint32_t* result = (name == "cub_radix") ? d_out : d_work;
                auto restore = [&] {
                    CUDA_CHECK(cudaMemcpyAsync(d_work, d_input, n * 4, cudaMemcpyDeviceToDevice, stream));
                    if (result == d_out) CUDA_CHECK(cudaMemsetAsync(d_out, 0xAB, n * 4, stream));  // no stale pass
                };
                auto run = [&] {
                    if (is_bitonic) cases::or_exit(sorter.sort(req, d_work, nullptr, stream), cl.name());
                    else if (name == "cub_radix")
                        CUDA_CHECK(cub::DeviceRadixSort::SortKeys(d_cub_temp, cub_temp_bytes, d_work, d_out, (int)n, 0, 32, stream));
                    else thrust::sort(thrust::cuda::par_nosync(thrust_alloc).on(stream), d_work, d_work + n, KeyLess());
                    CUDA_CHECK_LAUNCH();
                };
                t[m] = time_gpu(stream, runs, table[m].capturable, restore, run);
                CUDA_CHECK(cudaMemcpy(got.data(), result, n * 4, cudaMemcpyDeviceToHost));
                ok[m] = (got == want);
            }
            const size_t cub = index_of("cub_radix");
            for (size_t m = 0; m < table.size(); m++) {
                if (!selected[m] || !table[m].single) continue;
                const double gkeys = n / (t[m].best() * 1e-3) / 1e9;
                const double vs = t[cub].best() / t[m].best();
                printf("%12llu  %-13s %11.4f %11.4f %9.3f %8.2f  %s\n", (unsigned long long)n, table[m].name,
                       t[m].launch_ms, t[m].graph_ms, gkeys, vs, ok[m] ? "ok" : "WRONG");
                fprintf(csv, "single,%llu,%llu,keys,%s,%.6f,%.6f,%.6f,%.6f,%.4f,%s\n", (unsigned long long)n,
                        (unsigned long long)n, table[m].name, t[m].launch_ms, t[m].graph_ms, t[m].best(), gkeys, vs,
                        ok[m] ? "yes" : "no");
                all_ok = all_ok && ok[m];
            }
            printf("\n");
            std::fflush(stdout);
        }
        CUDA_CHECK(cudaFree(d_cub_temp));
        CUDA_CHECK(cudaFree(d_out));
        CUDA_CHECK(cudaFree(d_work));
        CUDA_CHECK(cudaFree(d_input));
    }

    // ================= batched =================
    if (batched) {
        const uint64_t max_total = *std::max_element(totals.begin(), totals.end());
        uint32_t *d_in_keys, *d_in_values, *d_keys, *d_values, *d_out_keys, *d_out_values;
        int64_t* d_offsets;
        uint64_t* d_words;
        CUDA_CHECK(cudaMalloc(&d_in_keys, max_total * 4));
        CUDA_CHECK(cudaMalloc(&d_in_values, max_total * 4));
        CUDA_CHECK(cudaMalloc(&d_keys, max_total * 4));
        CUDA_CHECK(cudaMalloc(&d_values, max_total * 4));
        CUDA_CHECK(cudaMalloc(&d_out_keys, max_total * 4));
        CUDA_CHECK(cudaMalloc(&d_out_values, max_total * 4));
        CUDA_CHECK(cudaMalloc(&d_words, max_total * 8));
        const uint64_t min_len = *std::min_element(lens.begin(), lens.end());
        CUDA_CHECK(cudaMalloc(&d_offsets, (max_total / min_len + 1) * sizeof(int64_t)));
        int* d_ioffsets;
        CUDA_CHECK(cudaMalloc(&d_ioffsets, (max_total / min_len + 1) * sizeof(int)));
        void* d_temp = nullptr;
        size_t temp_bytes = 0;

        printf("batched: count arrays of len uint32 keys (pairs: with a uint32 value each)\n"
               "%10s %7s %-5s  %-19s %11s %11s %9s %8s  %s\n", "total", "len", "kind", "method", "launches ms",
               "graph ms", "Gkeys/s", "vs CUB", "check");
        for (uint64_t total : totals) {
            std::vector<uint32_t> keys = cases::make_keys(cases::Input::uniform, bitonic::KeyType::u32, total, seed + 1);
            std::vector<uint32_t> values(total);
            for (uint64_t i = 0; i < total; i++) values[i] = (uint32_t)(i * 2654435761u);
            CUDA_CHECK(cudaMemcpy(d_in_keys, keys.data(), total * 4, cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemcpy(d_in_values, values.data(), total * 4, cudaMemcpyHostToDevice));
            for (uint64_t len : lens) {
                if (len > total) continue;
                const uint64_t count = total / len;
                int len_bits = 0;
                while ((uint64_t(1) << len_bits) < len) len_bits++;
                std::vector<int64_t> offsets(count + 1);
                std::vector<int> offsets32(count + 1);
                for (uint64_t s = 0; s <= count; s++) { offsets[s] = (int64_t)(s * len); offsets32[s] = (int)(s * len); }
                CUDA_CHECK(cudaMemcpy(d_offsets, offsets.data(), (count + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
                CUDA_CHECK(cudaMemcpy(d_ioffsets, offsets32.data(), (count + 1) * sizeof(int), cudaMemcpyHostToDevice));
                // The CPU's sorted keys, per array, and the pairs' fingerprint.
                std::vector<uint32_t> want = keys;
                cases::parallel_for(count, [&](size_t s) { std::sort(want.begin() + s * len, want.begin() + (s + 1) * len); });
                const uint64_t want_print = fingerprint(keys, values);
                for (int pairs = 0; pairs < 2; pairs++) {
                    std::vector<Timing> t(table.size(), Timing{NAN, NAN});
                    std::vector<bool> ok(table.size(), true);
                    for (size_t m = 0; m < table.size(); m++) {
                        if (!selected[m] || !table[m].batched) continue;
                        const std::string name = table[m].name;
                        bitonic::Design design;
                        const bool is_bitonic = bitonic::design_by_name(name.c_str(), &design);
                        bitonic::Request req;
                        req.design = design;
                        req.with_values = pairs;
                        req.count = count;
                        req.len = len;
                        if (is_bitonic) cases::or_exit(sorter.reserve(req), cl.name());
                        // CUB's temporary storage, once per method and shape, outside the timing.
                        size_t need = 0;
                        if (name == "cub_segmented_sort") {
                            if (pairs) CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(nullptr, need, d_keys, d_out_keys, d_values, d_out_values, (int64_t)total, (int64_t)count, d_offsets, d_offsets + 1, stream));
                            else CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, need, d_keys, d_out_keys, (int64_t)total, (int64_t)count, d_offsets, d_offsets + 1, stream));
                        } else if (name == "cub_segmented_radix") {
                            if (pairs) CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(nullptr, need, d_keys, d_out_keys, d_values, d_out_values, (int)total, (int)count, d_ioffsets, d_ioffsets + 1, 0, 32, stream));
                            else CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortKeys(nullptr, need, d_keys, d_out_keys, (int)total, (int)count, d_ioffsets, d_ioffsets + 1, 0, 32, stream));
                        }
                        if (need > temp_bytes) {
                            if (d_temp) CUDA_CHECK(cudaFree(d_temp));
                            CUDA_CHECK(cudaMalloc(&d_temp, need));
                            temp_bytes = need;
                        }
                        const bool out_of_place = name == "cub_segmented_sort" || name == "cub_segmented_radix";
                        auto restore = [&] {
                            CUDA_CHECK(cudaMemcpyAsync(d_keys, d_in_keys, total * 4, cudaMemcpyDeviceToDevice, stream));
                            CUDA_CHECK(cudaMemcpyAsync(d_values, d_in_values, total * 4, cudaMemcpyDeviceToDevice, stream));
                            CUDA_CHECK(cudaMemsetAsync(d_out_keys, 0xAB, total * 4, stream));  // no stale pass
                            CUDA_CHECK(cudaMemsetAsync(d_out_values, 0xAB, total * 4, stream));
                        };
                        auto run = [&] {
                            size_t bytes = temp_bytes;
                            if (is_bitonic) {
                                cases::or_exit(sorter.sort(req, d_keys, pairs ? d_values : nullptr, stream), cl.name());
                            } else if (name == "cub_segmented_sort") {
                                if (pairs) CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(d_temp, bytes, d_keys, d_out_keys, d_values, d_out_values, (int64_t)total, (int64_t)count, d_offsets, d_offsets + 1, stream));
                                else CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(d_temp, bytes, d_keys, d_out_keys, (int64_t)total, (int64_t)count, d_offsets, d_offsets + 1, stream));
                            } else if (name == "cub_segmented_radix") {
                                if (pairs) CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(d_temp, bytes, d_keys, d_out_keys, d_values, d_out_values, (int)total, (int)count, d_ioffsets, d_ioffsets + 1, 0, 32, stream));
                                else CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortKeys(d_temp, bytes, d_keys, d_out_keys, (int)total, (int)count, d_ioffsets, d_ioffsets + 1, 0, 32, stream));
                            } else {  // thrust_segid
                                segid_pack<<<1024, 256, 0, stream>>>(d_keys, d_words, total, (uint32_t)len_bits);
                                CUDA_CHECK_LAUNCH();
                                auto policy = thrust::cuda::par_nosync(thrust_alloc).on(stream);
                                if (pairs) thrust::sort_by_key(policy, d_words, d_words + total, d_values);
                                else thrust::sort(policy, d_words, d_words + total);
                                segid_unpack<<<1024, 256, 0, stream>>>(d_words, d_keys, total);
                            }
                            CUDA_CHECK_LAUNCH();
                        };
                        t[m] = time_gpu(stream, runs, table[m].capturable, restore, run);
                        std::vector<uint32_t> got(total), got_values(pairs ? total : 0);
                        CUDA_CHECK(cudaMemcpy(got.data(), out_of_place ? d_out_keys : d_keys, total * 4, cudaMemcpyDeviceToHost));
                        if (pairs)
                            CUDA_CHECK(cudaMemcpy(got_values.data(), out_of_place ? d_out_values : d_values, total * 4, cudaMemcpyDeviceToHost));
                        ok[m] = (got == want) && (!pairs || fingerprint(got, got_values) == want_print);
                    }
                    // Speed against CUB's best segmented sort.
                    double cub_best = INFINITY;
                    for (const char* c : {"cub_segmented_sort", "cub_segmented_radix"})
                        if (selected[index_of(c)]) cub_best = std::min(cub_best, t[index_of(c)].best());
                    for (size_t m = 0; m < table.size(); m++) {
                        if (!selected[m] || !table[m].batched) continue;
                        const double gkeys = total / (t[m].best() * 1e-3) / 1e9;
                        const double vs = cub_best / t[m].best();
                        printf("%10llu %7llu %-5s  %-19s %11.4f %11.4f %9.3f %8.2f  %s\n", (unsigned long long)total,
                               (unsigned long long)len, pairs ? "pairs" : "keys", table[m].name, t[m].launch_ms,
                               t[m].graph_ms, gkeys, vs, ok[m] ? "ok" : "WRONG");
                        fprintf(csv, "batched,%llu,%llu,%s,%s,%.6f,%.6f,%.6f,%.6f,%.4f,%s\n", (unsigned long long)total,
                                (unsigned long long)len, pairs ? "pairs" : "keys", table[m].name, t[m].launch_ms,
                                t[m].graph_ms, t[m].best(), gkeys, vs, ok[m] ? "yes" : "no");
                        all_ok = all_ok && ok[m];
                    }
                    printf("\n");
                    std::fflush(stdout);
                }
            }
        }
        if (d_temp) CUDA_CHECK(cudaFree(d_temp));
        for (void* p : {(void*)d_in_keys, (void*)d_in_values, (void*)d_keys, (void*)d_values, (void*)d_out_keys,
                        (void*)d_out_values, (void*)d_words, (void*)d_offsets, (void*)d_ioffsets})
            CUDA_CHECK(cudaFree(p));
    }

    std::fclose(csv);
    CUDA_CHECK(cudaStreamDestroy(stream));
    printf("scratch memory of the bitonic sorts: %zu bytes at most\n", sorter.scratch_allocated());
    printf("CSV written to %s\n", csv_path.c_str());
    printf("every result checked on the CPU: %s\n", all_ok ? "all correct" : "SOME WRONG");
    return all_ok ? 0 : 1;
}
