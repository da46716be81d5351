// Chapter 12 extra -- how fast is a bitonic sort, and where does it win?
//
//   bitonic_sort_bench [--sizes 10-26] [--batched [--batch-totals LIST] [--batch-lens LIST]] [--runs R]
//                      [--csv FILE] [--only LIST] [--seed S] [--profile NAME] [--window LIST]
//
// Two sections, each timed in ONE run on the same keys:
//  single   one array of n uint32 keys, n = 2^10 .. 2^26 (--sizes): the four
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
// best, >1 meaning faster; and the roofline of each bitonic design: its
// plan's trips through global memory, the floor those bytes take at the
// copy bandwidth measured on the same words, and the efficiency floor / time)
// and writes every measurement to CSV -- through a
// temporary file, renamed over FILE only when the whole run succeeded (a
// failed or skipped run leaves FILE as it was). --profile plans the bitonic
// sorts as on a smaller GPU (tuning.h): emulated, and labelled so. --window
// adds variants of the window design, pinned (sort_cases.h's window_pin),
// to the single arrays: one process compares them.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include "bitonic/bitonic_sort.cuh"
#include "cli.h"
#include "cuda_check.h"  // require_cuda_device(): no GPU, exit 77
#include "device_buffer.h"
#include "sort_cases.h"
#include "sort_programs.h"

using ch12::DeviceBuffer;
using ch12::Status;

// ---- what one timed sort works on ------------------------------------------------------
// count arrays of len keys back to back (single: count = 1, len = total),
// keys only or pairs. `keys` / `values` are the working copies the in-place
// methods sort, restored from `in_keys` / `in_values` before every run; the
// out-of-place methods write to out_keys / out_values.
struct Job {
    uint64_t total = 0, len = 0, count = 1;
    int len_bits = 0;
    bool pairs = false;
    const uint32_t *in_keys = nullptr, *in_values = nullptr;
    uint32_t *keys = nullptr, *values = nullptr, *out_keys = nullptr, *out_values = nullptr;
    const int64_t* offsets = nullptr;  // count + 1 segment offsets (CUB's segmented sort)
    const int* offsets32 = nullptr;    // the same as int (CUB's segmented radix sort)
    uint64_t* words = nullptr;         // total 64-bit words (the segment-id trick)
};

// thrust allocates temporary memory inside every sort call; timing that
// cudaMalloc would be unfair to it. This allocator keeps one block around
// (a failed allocation throws, as thrust expects: run_thrust() says so).
struct CachedAllocator {
    typedef char value_type;
    DeviceBuffer<char> block;
    char* allocate(std::ptrdiff_t bytes) {
        if ((size_t)bytes > block.size() && block.allocate((size_t)bytes) != cudaSuccess) throw std::bad_alloc();
        return block.get();
    }
    void deallocate(char*, size_t) {}
};

// A variant of the window design (--window): a profile of the device's
// limits (lowered by --profile) that pins it, and a Sorter of its own.
struct Variant {
    std::string name;  // "window:" + the spec
    bitonic::Profile profile;
    std::unique_ptr<bitonic::Sorter> sorter;
};

// What every method's run shares: the bitonic Sorter (with its profile), one
// per window variant, thrust's allocator, and CUB's temporary storage.
struct Context {
    bitonic::Sorter sorter;
    std::vector<Variant> variants;
    CachedAllocator thrust_alloc;
    DeviceBuffer<char> temp;
    explicit Context(const bitonic::Profile* profile) : sorter(profile) {}
};

// thrust::sort with a user comparator cannot use radix sort: it merge-sorts.
struct KeyLess {
    __host__ __device__ bool operator()(uint32_t a, uint32_t b) const { return a < b; }
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

// ---- each CUB call, written once: a null `temp` asks for its size ---------------------
static cudaError_t cub_radix(void* temp, size_t& bytes, const Job& j, cudaStream_t s) {
    return cub::DeviceRadixSort::SortKeys(temp, bytes, j.keys, j.out_keys, (int)j.total, 0, 32, s);
}
static cudaError_t cub_segmented_sort(void* temp, size_t& bytes, const Job& j, cudaStream_t s) {
    if (j.pairs)
        return cub::DeviceSegmentedSort::SortPairs(temp, bytes, j.keys, j.out_keys, j.values, j.out_values,
                                                   (int64_t)j.total, (int64_t)j.count, j.offsets, j.offsets + 1, s);
    return cub::DeviceSegmentedSort::SortKeys(temp, bytes, j.keys, j.out_keys, (int64_t)j.total, (int64_t)j.count,
                                              j.offsets, j.offsets + 1, s);
}
static cudaError_t cub_segmented_radix(void* temp, size_t& bytes, const Job& j, cudaStream_t s) {
    if (j.pairs)
        return cub::DeviceSegmentedRadixSort::SortPairs(temp, bytes, j.keys, j.out_keys, j.values, j.out_values,
                                                        (int)j.total, (int)j.count, j.offsets32, j.offsets32 + 1, 0, 32, s);
    return cub::DeviceSegmentedRadixSort::SortKeys(temp, bytes, j.keys, j.out_keys, (int)j.total, (int)j.count,
                                                   j.offsets32, j.offsets32 + 1, 0, 32, s);
}

// ---- the methods ----------------------------------------------------------------------------
using CubCall = cudaError_t (*)(void*, size_t&, const Job&, cudaStream_t);
struct Method {
    const char* name;
    const char* what;
    bool single, batched;
    bool capturable;    // its launches can be captured into a CUDA graph
    bool out_of_place;  // writes out_keys / out_values
    int design;         // a bitonic design (bitonic::Design), or -1
    CubCall cub;        // a CUB call (its temporary storage is sized first), or null
    Status (*run)(Context&, const Method&, const Job&, cudaStream_t);  // null: on the host (std_sort)
    int variant = -1;   // a window variant (Context::variants), or -1
};

static bitonic::Sorter& sorter_of(Context& c, const Method& m) {
    return m.variant >= 0 ? *c.variants[(size_t)m.variant].sorter : c.sorter;
}

static bitonic::Request request_of(const Method& m, const Job& j) {
    bitonic::Request r;
    r.design = (bitonic::Design)m.design;
    r.with_values = j.pairs;
    r.count = j.count;
    r.len = j.len;
    return r;
}
static Status run_bitonic(Context& c, const Method& m, const Job& j, cudaStream_t s) {
    return sorter_of(c, m).sort(request_of(m, j), j.keys, j.pairs ? j.values : nullptr, s);
}
static Status run_cub(Context& c, const Method& m, const Job& j, cudaStream_t s) {
    size_t bytes = c.temp.size();
    CH12_TRY(m.cub(c.temp.get(), bytes, j, s));
    return {};
}
// A thrust call: thrust reports its errors (and the allocator's) by throwing.
template <typename F>
static Status run_thrust(const char* what, F sort) {
    try {
        sort();
    } catch (const std::exception& e) {
        return ch12::failure(ch12::Errc::failed, std::string(what) + ": " + e.what());
    }
    CH12_TRY(ch12::kernel_launch(what));
    return {};
}
static Status run_thrust_merge(Context& c, const Method&, const Job& j, cudaStream_t s) {
    return run_thrust("thrust::sort", [&] {
        thrust::sort(thrust::cuda::par_nosync(c.thrust_alloc).on(s), j.keys, j.keys + j.total, KeyLess());
    });
}
static Status run_thrust_segid(Context& c, const Method&, const Job& j, cudaStream_t s) {
    segid_pack<<<1024, 256, 0, s>>>(j.keys, j.words, j.total, (uint32_t)j.len_bits);
    CH12_TRY(ch12::kernel_launch("segid_pack launch"));
    CH12_TRY(run_thrust("thrust::sort of the segment ids and keys", [&] {
        auto policy = thrust::cuda::par_nosync(c.thrust_alloc).on(s);
        if (j.pairs) thrust::sort_by_key(policy, j.words, j.words + j.total, j.values);
        else thrust::sort(policy, j.words, j.words + j.total);
    }));
    segid_unpack<<<1024, 256, 0, s>>>(j.words, j.keys, j.total);
    CH12_TRY(ch12::kernel_launch("segid_unpack launch"));
    return {};
}

static std::vector<Method> methods() {
    std::vector<Method> m;
    for (const bitonic::DesignInfo* d = bitonic::kDesigns; d->name; ++d)
        m.push_back({d->name, d->what, true, true, true, false, (int)d->design, nullptr, run_bitonic});
    m.push_back({"cub_radix", "CUB DeviceRadixSort::SortKeys", true, false, true, true, -1, cub_radix, run_cub});
    m.push_back({"thrust_merge", "thrust::sort with a comparator (a merge sort)", true, false, true, false, -1, nullptr,
                 run_thrust_merge});
    m.push_back({"std_sort", "std::sort on the host, one core", true, false, false, false, -1, nullptr, nullptr});
    // DeviceSegmentedSort synchronises inside (cudaErrorStreamCaptureUnsupported
    // when captured): it is timed as plain launches only.
    m.push_back({"cub_segmented_sort", "CUB DeviceSegmentedSort::SortKeys / SortPairs", false, true, false, true, -1,
                 cub_segmented_sort, run_cub});
    m.push_back({"cub_segmented_radix", "CUB DeviceSegmentedRadixSort::SortKeys / SortPairs", false, true, true, true, -1,
                 cub_segmented_radix, run_cub});
    m.push_back({"thrust_segid", "thrust::sort_by_key of segment << 32 | key (one 64-bit radix sort)", false, true, true,
                 false, -1, nullptr, run_thrust_segid});
    return m;
}

// ---- timing ------------------------------------------------------------------------------
static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

struct Timing {
    double launch_ms, graph_ms;  // graph_ms: NaN when the method cannot be captured
    double best() const { return std::isnan(graph_ms) ? launch_ms : std::min(launch_ms, graph_ms); }
};

// The input back in place (and the outputs poisoned, so a stale result
// cannot pass), outside the timed region.
static Status restore(const Method& m, const Job& j, cudaStream_t s) {
    CH12_TRY(cudaMemcpyAsync(j.keys, j.in_keys, j.total * 4, cudaMemcpyDeviceToDevice, s));
    if (j.pairs) CH12_TRY(cudaMemcpyAsync(j.values, j.in_values, j.total * 4, cudaMemcpyDeviceToDevice, s));
    if (m.out_of_place) {
        CH12_TRY(cudaMemsetAsync(j.out_keys, 0xAB, j.total * 4, s));
        if (j.pairs) CH12_TRY(cudaMemsetAsync(j.out_values, 0xAB, j.total * 4, s));
    }
    return {};
}

// Times method m on job j: a warm-up, then `runs` runs as plain launches and
// as a graph replay; the medians.
static Status time_gpu(Context& c, const Method& m, const Job& j, cudaStream_t stream, int runs, Timing* out) {
    if (m.cub) {  // CUB's temporary storage, once per method and shape
        size_t need = 0;
        CH12_TRY(m.cub(nullptr, need, j, stream));
        if (need > c.temp.size()) CH12_TRY(c.temp.allocate(need));
    }
    if (m.design >= 0) CH12_TRY(sorter_of(c, m).reserve(request_of(m, j)));
    cudaEvent_t start, stop;
    CH12_TRY(cudaEventCreate(&start));
    CH12_TRY(cudaEventCreate(&stop));
    Timing t{NAN, NAN};
    for (int mode = 0; mode < (m.capturable ? 2 : 1); mode++) {
        cudaGraphExec_t exec = nullptr;
        if (mode == 1) {
            cudaGraph_t graph;
            CH12_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
            CH12_TRY(m.run(c, m, j, stream));
            CH12_TRY(cudaStreamEndCapture(stream, &graph));
            CH12_TRY(cudaGraphInstantiate(&exec, graph, 0));
            CH12_TRY(cudaGraphDestroy(graph));
        }
        std::vector<double> times;
        for (int r = 0; r <= runs; r++) {  // run 0 is the warm-up
            CH12_TRY(restore(m, j, stream));
            CH12_TRY(cudaEventRecord(start, stream));
            if (mode == 0) CH12_TRY(m.run(c, m, j, stream));
            else CH12_TRY(cudaGraphLaunch(exec, stream));
            CH12_TRY(cudaEventRecord(stop, stream));
            CH12_TRY(cudaEventSynchronize(stop));
            float ms = 0;
            CH12_TRY(cudaEventElapsedTime(&ms, start, stop));
            if (r > 0) times.push_back(ms);
        }
        if (exec) CH12_TRY(cudaGraphExecDestroy(exec));
        (mode == 0 ? t.launch_ms : t.graph_ms) = median(times);
    }
    CH12_TRY(cudaEventDestroy(stop));
    CH12_TRY(cudaEventDestroy(start));
    *out = t;
    return {};
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

struct Options {
    std::vector<uint64_t> sizes, totals, lens;
    bool batched = false;
    int runs = 7;
    uint32_t seed = 1;
    std::vector<bool> selected;  // per method
    const bitonic::Profile* profile = nullptr;
    std::string csv_path;
    // --window: each variant's method name ("window:" + the spec) and pin.
    std::vector<std::pair<std::string, bitonic::WindowPin>> variants;
};

// The roofline of one bitonic method on one job: its plan's trips through
// global memory and their bytes (bitonic::traffic, from the plan the sort
// runs), the device's copy bandwidth measured on the same job (bytes read
// plus written per second), the floor = bytes / that bandwidth, and
// efficiency = floor / time. trips = 0: not a bitonic method.
struct Roofline {
    int trips = 0;
    uint64_t bytes = 0;
    double copy_gbps = NAN, floor_ms = NAN;
};

// One row of results: printed, and written to the CSV.
static void report(FILE* csv, const char* section, uint64_t n, uint64_t len, bool pairs, const Method& m, const Timing& t,
                   double vs, bool ok, bool batched_layout, const Roofline& roof) {
    const double gkeys = n / (t.best() * 1e-3) / 1e9;
    const double efficiency = roof.floor_ms / t.best();
    char trips[16] = "-", floor[16] = "-", eff[16] = "-";
    if (roof.trips > 0) {
        snprintf(trips, sizeof trips, "%d", roof.trips);
        snprintf(floor, sizeof floor, "%.4f", roof.floor_ms);
        snprintf(eff, sizeof eff, "%.0f%%", 100.0 * efficiency);
    }
    if (batched_layout)
        printf("%10llu %7llu %-5s  %-19s %11.4f %11.4f %9.3f %8.2f %5s %9s %5s  %s\n", (unsigned long long)n,
               (unsigned long long)len, pairs ? "pairs" : "keys", m.name, t.launch_ms, t.graph_ms, gkeys, vs, trips, floor,
               eff, ok ? "ok" : "WRONG");
    else
        printf("%12llu  %-13s %11.4f %11.4f %9.3f %8.2f %5s %9s %5s  %s\n", (unsigned long long)n, m.name, t.launch_ms,
               t.graph_ms, gkeys, vs, trips, floor, eff, ok ? "ok" : "WRONG");
    fprintf(csv, "%s,%llu,%llu,%s,%s,%.6f,%.6f,%.6f,%.6f,%.4f,%s,", section, (unsigned long long)n,
            (unsigned long long)len, pairs ? "pairs" : "keys", m.name, t.launch_ms, t.graph_ms, t.best(), gkeys, vs,
            ok ? "yes" : "no");
    if (roof.trips > 0)
        fprintf(csv, "%d,%llu,%.1f,%.6f,%.4f\n", roof.trips, (unsigned long long)roof.bytes, roof.copy_gbps, roof.floor_ms,
                efficiency);
    else
        fprintf(csv, ",,%.1f,,\n", roof.copy_gbps);
}

// The device's copy bandwidth on this job's words: a device-to-device
// cudaMemcpy of the keys (and the values), timed like the sorts (a warm-up,
// the median of `runs`); bytes read plus bytes written, per second.
static Status copy_gbps(const Job& j, cudaStream_t stream, int runs, double* gbps) {
    cudaEvent_t start, stop;
    CH12_TRY(cudaEventCreate(&start));
    CH12_TRY(cudaEventCreate(&stop));
    std::vector<double> times;
    for (int r = 0; r <= runs; r++) {
        CH12_TRY(cudaEventRecord(start, stream));
        CH12_TRY(cudaMemcpyAsync(j.out_keys, j.in_keys, j.total * 4, cudaMemcpyDeviceToDevice, stream));
        if (j.pairs) CH12_TRY(cudaMemcpyAsync(j.out_values, j.in_values, j.total * 4, cudaMemcpyDeviceToDevice, stream));
        CH12_TRY(cudaEventRecord(stop, stream));
        CH12_TRY(cudaEventSynchronize(stop));
        float ms = 0;
        CH12_TRY(cudaEventElapsedTime(&ms, start, stop));
        if (r > 0) times.push_back(ms);
    }
    CH12_TRY(cudaEventDestroy(stop));
    CH12_TRY(cudaEventDestroy(start));
    const double bytes = 2.0 * j.total * 4 * (j.pairs ? 2 : 1);
    *gbps = bytes / (median(times) * 1e-3) / 1e9;
    return {};
}

static Status roofline(Context& c, const Method& m, const Job& j, double gbps, Roofline* out) {
    Roofline roof;
    roof.copy_gbps = gbps;
    if (m.design >= 0) {
        bitonic::Traffic t;
        CH12_TRY(bitonic::traffic(request_of(m, j), &t, sorter_of(c, m).profile()));
        roof.trips = t.trips;
        roof.bytes = t.bytes;
        roof.floor_ms = t.bytes / (gbps * 1e9) * 1e3;
    }
    *out = roof;
    return {};
}

static size_t index_of(const std::vector<Method>& table, const char* name) {
    for (size_t i = 0; i < table.size(); i++)
        if (std::strcmp(table[i].name, name) == 0) return i;
    return table.size();
}

// ================= single arrays =================
// *all_ok: every result of the section checked.
static Status single_section(const std::vector<Method>& table, const Options& o, Context& c, cudaStream_t stream,
                             FILE* csv, bool* all_ok) {
    bool any = false;
    for (size_t i = 0; i < table.size(); i++) any = any || (o.selected[i] && table[i].single);
    if (!any || o.sizes.empty()) return {};
    const uint64_t max_n = *std::max_element(o.sizes.begin(), o.sizes.end());
    DeviceBuffer<uint32_t> input, work, out;
    for (DeviceBuffer<uint32_t>* b : {&input, &work, &out}) CH12_TRY(b->allocate(max_n));
    printf("single arrays of uint32 keys\n%12s  %-13s %11s %11s %9s %8s %5s %9s %5s  %s\n", "n", "method", "launches ms",
           "graph ms", "Gkeys/s", "vs CUB", "trips", "floor ms", "eff", "check");
    for (uint64_t n : o.sizes) {
        std::vector<uint32_t> keys = cases::make_keys(cases::Input::uniform, bitonic::KeyType::u32, n, o.seed);
        CH12_TRY(cudaMemcpy(input.get(), keys.data(), n * 4, cudaMemcpyHostToDevice));
        Job j;
        j.total = j.len = n;
        j.in_keys = input.get();
        j.keys = work.get();
        j.out_keys = out.get();
        // std::sort, one core, which also gives the answer every method must match.
        std::vector<double> host_ms;
        std::vector<uint32_t> want;
        const bool host = o.selected[index_of(table, "std_sort")];
        const int host_runs = (host && n <= (1u << 22)) ? o.runs : 1;  // std::sort of 2^26 keys takes 10 s
        for (int r = 0; r < host_runs; r++) {
            want = keys;
            const auto t0 = std::chrono::steady_clock::now();
            std::sort(want.begin(), want.end());
            host_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        std::vector<Timing> t(table.size(), Timing{NAN, NAN});
        std::vector<bool> ok(table.size(), true);
        std::vector<uint32_t> got(n);
        for (size_t m = 0; m < table.size(); m++) {
            if (!o.selected[m] || !table[m].single) continue;
            if (!table[m].run) {  // on the host
                t[m] = {median(host_ms), median(host_ms)};
                continue;
            }
            CH12_TRY(time_gpu(c, table[m], j, stream, o.runs, &t[m]));
            CH12_TRY(cudaMemcpy(got.data(), table[m].out_of_place ? j.out_keys : j.keys, n * 4, cudaMemcpyDeviceToHost));
            ok[m] = (got == want);
        }
        const double cub = t[index_of(table, "cub_radix")].best();
        double gbps = NAN;
        CH12_TRY(copy_gbps(j, stream, o.runs, &gbps));
        for (size_t m = 0; m < table.size(); m++) {
            if (!o.selected[m] || !table[m].single) continue;
            Roofline roof;
            CH12_TRY(roofline(c, table[m], j, gbps, &roof));
            report(csv, "single", n, n, false, table[m], t[m], cub / t[m].best(), ok[m], false, roof);
            *all_ok = *all_ok && ok[m];
        }
        printf("%12s  copy: %.1f GB/s (cudaMemcpy of the keys, device to device, read + write)\n\n", "", gbps);
        std::fflush(stdout);
    }
    return {};
}

// ================= batched =================
// *all_ok: every result of the section checked.
static Status batched_section(const std::vector<Method>& table, const Options& o, Context& c, cudaStream_t stream,
                              FILE* csv, bool* all_ok) {
    if (!o.batched) return {};
    const uint64_t max_total = *std::max_element(o.totals.begin(), o.totals.end());
    const uint64_t min_len = *std::min_element(o.lens.begin(), o.lens.end());
    DeviceBuffer<uint32_t> in_keys, in_values, keys, values, out_keys, out_values;
    for (DeviceBuffer<uint32_t>* b : {&in_keys, &in_values, &keys, &values, &out_keys, &out_values})
        CH12_TRY(b->allocate(max_total));
    DeviceBuffer<uint64_t> words;
    DeviceBuffer<int64_t> offsets;
    DeviceBuffer<int> offsets32;
    CH12_TRY(words.allocate(max_total));
    CH12_TRY(offsets.allocate(max_total / min_len + 1));
    CH12_TRY(offsets32.allocate(max_total / min_len + 1));
    printf("batched: count arrays of len uint32 keys (pairs: with a uint32 value each)\n"
           "%10s %7s %-5s  %-19s %11s %11s %9s %8s %5s %9s %5s  %s\n", "total", "len", "kind", "method", "launches ms",
           "graph ms", "Gkeys/s", "vs CUB", "trips", "floor ms", "eff", "check");
    for (uint64_t total : o.totals) {
        std::vector<uint32_t> host_keys = cases::make_keys(cases::Input::uniform, bitonic::KeyType::u32, total, o.seed + 1);
        std::vector<uint32_t> host_values(total);
        for (uint64_t i = 0; i < total; i++) host_values[i] = (uint32_t)(i * 2654435761u);
        CH12_TRY(cudaMemcpy(in_keys.get(), host_keys.data(), total * 4, cudaMemcpyHostToDevice));
        CH12_TRY(cudaMemcpy(in_values.get(), host_values.data(), total * 4, cudaMemcpyHostToDevice));
        const uint64_t want_print = fingerprint(host_keys, host_values);
        for (uint64_t len : o.lens) {
            if (len > total) continue;
            Job j;
            j.total = total;
            j.len = len;
            j.count = total / len;
            while ((uint64_t(1) << j.len_bits) < len) j.len_bits++;
            std::vector<int64_t> off(j.count + 1);
            std::vector<int> off32(j.count + 1);
            for (uint64_t s = 0; s <= j.count; s++) { off[s] = (int64_t)(s * len); off32[s] = (int)(s * len); }
            CH12_TRY(cudaMemcpy(offsets.get(), off.data(), (j.count + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
            CH12_TRY(cudaMemcpy(offsets32.get(), off32.data(), (j.count + 1) * sizeof(int), cudaMemcpyHostToDevice));
            j.in_keys = in_keys.get();
            j.in_values = in_values.get();
            j.keys = keys.get();
            j.values = values.get();
            j.out_keys = out_keys.get();
            j.out_values = out_values.get();
            j.offsets = offsets.get();
            j.offsets32 = offsets32.get();
            j.words = words.get();
            // The CPU's sorted keys, per array.
            std::vector<uint32_t> want = host_keys;
            cases::parallel_for(j.count, [&](size_t s) { std::sort(want.begin() + s * len, want.begin() + (s + 1) * len); });
            for (int pairs = 0; pairs < 2; pairs++) {
                j.pairs = pairs;
                std::vector<Timing> t(table.size(), Timing{NAN, NAN});
                std::vector<bool> ok(table.size(), true);
                for (size_t m = 0; m < table.size(); m++) {
                    if (!o.selected[m] || !table[m].batched) continue;
                    CH12_TRY(time_gpu(c, table[m], j, stream, o.runs, &t[m]));
                    std::vector<uint32_t> got(total), got_values(pairs ? total : 0);
                    CH12_TRY(cudaMemcpy(got.data(), table[m].out_of_place ? j.out_keys : j.keys, total * 4,
                                        cudaMemcpyDeviceToHost));
                    if (pairs)
                        CH12_TRY(cudaMemcpy(got_values.data(), table[m].out_of_place ? j.out_values : j.values,
                                            total * 4, cudaMemcpyDeviceToHost));
                    ok[m] = (got == want) && (!pairs || fingerprint(got, got_values) == want_print);
                }
                // Speed against CUB's best segmented sort.
                double cub_best = INFINITY;
                for (const char* name : {"cub_segmented_sort", "cub_segmented_radix"})
                    if (o.selected[index_of(table, name)]) cub_best = std::min(cub_best, t[index_of(table, name)].best());
                double gbps = NAN;
                CH12_TRY(copy_gbps(j, stream, o.runs, &gbps));
                for (size_t m = 0; m < table.size(); m++) {
                    if (!o.selected[m] || !table[m].batched) continue;
                    Roofline roof;
                    CH12_TRY(roofline(c, table[m], j, gbps, &roof));
                    report(csv, "batched", total, len, pairs, table[m], t[m], cub_best / t[m].best(), ok[m], true, roof);
                    *all_ok = *all_ok && ok[m];
                }
                printf("%10s  copy: %.1f GB/s (cudaMemcpy of the keys%s, device to device, read + write)\n\n", "", gbps,
                       pairs ? " and values" : "");
                std::fflush(stdout);
            }
        }
    }
    return {};
}

// --window LIST: one variant of the window design per spec, its method
// named "window:" + the spec, and its pin (sort_cases.h's window_pin).
static std::vector<std::pair<std::string, bitonic::WindowPin>> window_variants(const ch12::CommandLine& cl) {
    std::vector<std::pair<std::string, bitonic::WindowPin>> variants;
    const char* list = cl.value("--window");
    if (list == nullptr) return variants;
    const std::string text = list;
    for (size_t pos = 0;;) {
        const size_t comma = text.find(',', pos);
        const std::string spec = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        bitonic::WindowPin pin;
        if (!cases::window_pin(spec, &pin))
            cl.fail("--window wants a comma list of auto, 13, 14, 15, 13+tile, 14+tile, 15+tile, not '" + spec + "'");
        for (const auto& v : variants)
            if (v.first == "window:" + spec) cl.fail("--window: '" + spec + "' given twice");
        variants.push_back({"window:" + spec, pin});
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return variants;
}

// The command line (exit 2 on a bad one, before any GPU is looked for).
static Options parse(ch12::CommandLine& cl, const std::vector<Method>& table, const std::string& names) {
    cl.option("--sizes").flag("--batched").option("--batch-totals").option("--batch-lens").option("--runs")
      .option("--csv").option("--only").option("--seed").option("--profile").option("--window");
    cl.parse();
    Options o;
    o.variants = window_variants(cl);
    auto sizes_of = [&](const char* option, const char* fallback, std::vector<uint64_t>* out) {
        const char* text = cl.value(option) ? cl.value(option) : fallback;
        if (!ch12::parse_sizes(text, 31, uint64_t(1) << 31, out))
            cl.fail(std::string(option) + " wants A-B (2^A .. 2^B, A <= B <= 31) or a comma list of exponents and "
                    "key counts, not '" + text + "'");
    };
    sizes_of("--sizes", "10-26", &o.sizes);
    sizes_of("--batch-totals", "24,26", &o.totals);
    sizes_of("--batch-lens", "32,256,1024,4096,65536", &o.lens);
    for (uint64_t l : o.lens)
        if ((l & (l - 1)) != 0) cl.fail("--batch-lens wants powers of two, not " + std::to_string(l));
    o.batched = cl.has("--batched");
    if (!o.batched && (cl.has("--batch-totals") || cl.has("--batch-lens")))
        cl.fail("--batch-totals and --batch-lens go with --batched");
    o.runs = (int)cl.number("--runs", 3, 1000, 7);
    o.seed = (uint32_t)cl.number("--seed", 0, 0xFFFFFFFFu, 1);
    o.selected.assign(table.size(), !cl.has("--only"));
    if (const char* only = cl.value("--only")) {
        std::string list = only;
        size_t pos = 0;
        for (;;) {
            const size_t comma = list.find(',', pos);
            const std::string item = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
            const size_t i = index_of(table, item.c_str());
            if (i == table.size()) cl.fail("--only: no method '" + item + "' (the methods: " + names + ")");
            o.selected[i] = true;
            if (comma == std::string::npos) break;
            pos = comma + 1;
        }
    }
    o.profile = ch12::profile_option(cl);
    o.csv_path = cl.value("--csv") ? cl.value("--csv") : "bitonic_bench.csv";
    const std::string unwritable = ch12::SafeOutput::check(o.csv_path);  // opens nothing
    if (!unwritable.empty()) cl.fail("--csv: " + unwritable);
    return o;
}

// One more method per --window variant, selected whatever --only says (o's
// variants name them: o is not changed after this), single arrays only: where
// the crossover is.
static void add_window_methods(Options& o, std::vector<Method>* table) {
    const Method window = (*table)[index_of(*table, "window")];
    for (size_t v = 0; v < o.variants.size(); v++) {
        Method m = window;
        m.name = o.variants[v].first.c_str();
        m.what = "the window design, pinned (--window)";
        m.variant = (int)v;
        m.batched = false;
        table->push_back(m);
        o.selected.push_back(true);
    }
}

// Each --window variant: the device's limits (lowered by --profile) and its
// pin, a Sorter of its own.
static Status add_variants(Context& c, const Options& o, const char* gpu) {
    bitonic::Limits limits;
    CH12_TRY(bitonic::device_limits(&limits, o.profile));
    c.variants.resize(o.variants.size());
    for (size_t v = 0; v < o.variants.size(); v++) {
        Variant& x = c.variants[v];
        x.name = o.variants[v].first;
        x.profile = cases::pinned_profile(o.profile, limits, o.variants[v].second, gpu);
        x.sorter.reset(new bitonic::Sorter(&x.profile));
    }
    return {};
}

// The heading (on stdout and in the CSV), then both sections; *all_ok: every
// result checked.
static Status run(const std::vector<Method>& table, const Options& o, FILE* csv, bool* all_ok) {
    int device = 0;
    CH12_TRY(cudaGetDevice(&device));
    cudaDeviceProp prop;
    CH12_TRY(cudaGetDeviceProperties(&prop, device));
    int driver = 0, runtime = 0;
    CH12_TRY(cudaDriverGetVersion(&driver));
    CH12_TRY(cudaRuntimeGetVersion(&runtime));
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    std::string emulated;
    if (o.profile)
        emulated = std::string("; the bitonic sorts planned as on ") + o.profile->gpu + " (profile " + o.profile->name +
                   "), EMULATED on this GPU";
    printf("bitonic sort benchmark -- %s (%d SMs), driver %d, runtime %d, %s%s\n", prop.name, prop.multiProcessorCount,
           driver, runtime, date, emulated.c_str());
    printf("uniform random uint32 keys (mt19937, seed %u); GPU: CUDA events, device to device, sort only,\n"
           "median of %d runs after a warm-up, as plain launches and as a CUDA graph replay (the better\n"
           "counts); every result checked on the CPU. host: std::sort, one core (one run above 2^22 keys).\n\n",
           o.seed, o.runs);
    fprintf(csv, "# %s; %s%s\nsection,n,len,kind,method,launch_ms,graph_ms,best_ms,gkeys_per_s,speed_vs_cub,verified,"
                 "trips,bytes,copy_gbps,floor_ms,efficiency\n",
            prop.name, date, emulated.c_str());

    cudaStream_t stream;
    CH12_TRY(cudaStreamCreate(&stream));
    {
        Context c(o.profile);
        CH12_TRY(add_variants(c, o, prop.name));
        CH12_TRY(single_section(table, o, c, stream, csv, all_ok));
        CH12_TRY(batched_section(table, o, c, stream, csv, all_ok));
        printf("scratch memory of the bitonic sorts: %zu bytes at most\n", c.sorter.scratch_allocated());
    }
    CH12_TRY(cudaStreamDestroy(stream));
    return {};
}

// The run, and its CSV: replaced only when every result checked.
static Status run_and_write(const std::vector<Method>& table, const Options& o, bool* all_ok) {
    ch12::SafeOutput out;
    const std::string not_opened = out.open(o.csv_path);
    if (!not_opened.empty()) return ch12::failure(ch12::Errc::failed, "--csv: " + not_opened);
    CH12_TRY(run(table, o, out.file(), all_ok));
    if (!*all_ok) {
        out.discard();
        printf("every result checked on the CPU: SOME WRONG\n");
        printf("CSV not written: %s is left as it was\n", o.csv_path.c_str());
        return {};
    }
    const std::string not_written = out.commit();
    if (!not_written.empty()) return ch12::failure(ch12::Errc::failed, "--csv " + o.csv_path + ": " + not_written);
    printf("CSV written to %s\n", o.csv_path.c_str());
    printf("every result checked on the CPU: all correct\n");
    return {};
}

int main(int argc, char** argv) {
    std::vector<Method> table = methods();
    std::string names;
    for (const Method& m : table) names += (names.empty() ? "" : ", ") + std::string(m.name);
    const std::string profiles = ch12::profile_list();
    const std::string details =
        "  --sizes LIST   single arrays: exponents A-B (2^A .. 2^B), or a comma list of exponents\n"
        "                 (<= 31) and key counts (> 31); default 10-26\n"
        "  --batched      also the batched section: 2^24 and 2^26 keys in arrays of 32 .. 65536\n"
        "  --batch-totals LIST, --batch-lens LIST   its sizes (same forms; default 24,26 and 32,256,1024,4096,65536)\n"
        "  --runs R       timed runs per method and size, the median reported (3 .. 1000, default 7)\n"
        "  --csv FILE     write every measurement to FILE (default bitonic_bench.csv), replaced only\n"
        "                 when the whole run succeeds\n"
        "  --only LIST    a comma list of methods to time (default: all): " + names + "\n"
        "  --seed S       seed of the random keys (default 1)\n"
        "  --profile NAME plan the bitonic sorts as on this GPU, emulated on the one here: " + profiles + "\n"
        "  --window LIST  also time these variants of the window design, each taking every array\n"
        "                 it can (methods window:SPEC): auto (the tuning's window), 13, 14, 15\n"
        "                 (windows of 2^N keys), N+tile (after the fast design's tile kernel)\n";
    ch12::CommandLine cl(argc, argv,
                         "[--sizes LIST] [--batched [--batch-totals LIST] [--batch-lens LIST]] [--runs R] [--csv FILE]\n"
                         "       [--only LIST] [--seed S] [--profile NAME] [--window LIST]",
                         details);
    Options o = parse(cl, table, names);
    add_window_methods(o, &table);
    ch12::require_cuda_device(cl.name());  // before anything is opened for writing
    bool all_ok = true;
    const Status s = run_and_write(table, o, &all_ok);
    return ch12::exit_status(s, cl.name(), all_ok ? 0 : 1);
}
