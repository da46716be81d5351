// ch12/extras/multi_gpu/benchmark.cu -- the benchmark (--bench): for each
// size, the bitonic sort on 1 GPU (the library, in blocks past --max-block)
// and on P GPUs, against CUB's radix sort on one GPU; the median of --runs
// runs after a warm-up (with that run's phases), every result checked on the
// CPU. A table on stdout, and a CSV written through a temporary file beside
// it, renamed over it only when every result checked (ch12::SafeOutput; a
// failure that ends the process at once removes the temporary file too).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include "multi_gpu.h"

namespace multi_gpu {

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// ================================================================================================
// CUB's radix sort on one GPU: the reference of the benchmark.
// ================================================================================================
struct CubRun {
    double ms = 0;
    Verdict verdict;
    std::string skipped;  // why not, when it could not run
};
static Status cub_reference(Machine& m, uint64_t n, bool pairs, const InputSpec& in, int runs, const Fingerprint& want,
                            CubRun* out) {
    Gpu& g = *m.gpus[0];
    CH12_TRY(cudaSetDevice(g.device));
    // CUB 3.x (CUDA 13) takes num_items of any integer type and counts with
    // 32-bit offsets for a type of 4 bytes, 64-bit ones for a wider one: a
    // uint32_t below 2^32 keys (its fastest), a uint64_t from 2^32 on.
    cub::DoubleBuffer<uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
    auto radix_sort = [&](void* temp, size_t& bytes) {
        if (n < (uint64_t(1) << 32)) {
            const uint32_t items = (uint32_t)n;
            return pairs ? cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, items, 0, 32, g.compute)
                         : cub::DeviceRadixSort::SortKeys(temp, bytes, k, items, 0, 32, g.compute);
        }
        const uint64_t items = n;
        return pairs ? cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, items, 0, 32, g.compute)
                     : cub::DeviceRadixSort::SortKeys(temp, bytes, k, items, 0, 32, g.compute);
    };
    size_t temp_bytes = 0;
    CH12_TRY(radix_sort(nullptr, temp_bytes));
    size_t free_bytes = 0, total_bytes = 0;
    CH12_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    const double need = (double)n * 4 * 2 * (pairs ? 2 : 1) + (double)temp_bytes;
    if (need > (double)free_bytes) {
        char line[160];
        std::snprintf(line, sizeof line, "needs %.1f GiB, %.1f GiB free", need / 1073741824.0, free_bytes / 1073741824.0);
        out->skipped = line;
        return {};
    }
    ch12::DeviceBuffer<uint32_t> k0, k1, v0, v1;
    ch12::DeviceBuffer<unsigned char> temp;
    CH12_TRY(k0.allocate(n));
    CH12_TRY(k1.allocate(n));
    if (pairs) {
        CH12_TRY(v0.allocate(n));
        CH12_TRY(v1.allocate(n));
    }
    CH12_TRY(temp.allocate(std::max<size_t>(temp_bytes, 1)));
    cudaEvent_t start, stop;
    CH12_TRY(cudaEventCreate(&start));
    CH12_TRY(cudaEventCreate(&stop));
    const uint32_t* result_keys = nullptr;
    const uint32_t* result_values = nullptr;
    std::vector<double> times;
    for (int r = 0; r <= runs; r++) {  // run 0 warms up
        CH12_TRY(launch_fill(k0.get(), v0.get(), 0, n, n, in, 0, g.compute));
        k = cub::DoubleBuffer<uint32_t>(k0.get(), k1.get());
        v = cub::DoubleBuffer<uint32_t>(v0.get(), v1.get());
        size_t bytes = temp_bytes;
        CH12_TRY(cudaEventRecord(start, g.compute));
        CH12_TRY(radix_sort(temp.get(), bytes));
        CH12_TRY(cudaEventRecord(stop, g.compute));
        CH12_TRY(cudaEventSynchronize(stop));
        float ms = 0;
        CH12_TRY(cudaEventElapsedTime(&ms, start, stop));
        if (r > 0) times.push_back(ms);
        result_keys = k.Current();
        result_values = pairs ? v.Current() : nullptr;
    }
    Stretch s;
    CH12_TRY(read_back(g.device, result_keys, result_values, n, 0, host_threads(), &s));
    out->verdict.sorted = s.sorted && s.count == n;
    out->verdict.first_bad = s.first_bad;
    out->verdict.same = s.print == want;
    out->ms = median(times);
    CH12_TRY(cudaEventDestroy(start));
    CH12_TRY(cudaEventDestroy(stop));
    return {};
}

// ================================================================================================
// One size: its rows, printed and written.
// ================================================================================================
struct Row {
    std::string method;
    int gpus = 1;
    Layout L;
    Phases s;
    Verdict v;
    std::string skipped;
};

// The bitonic sort of n keys on p GPUs: the median run of o.runs (after a
// warm-up), with its phases, and the check of the last result.
static Status bitonic_row(Machine& m, const Options& o, uint64_t n, int p, const Fingerprint& want, Row* row) {
    row->method = "bitonic";
    row->gpus = p;
    SortSpec spec;
    multi_gpu::choose_layout(n, multi_gpu::log2_exact((uint64_t)p), o.max_block, kMaxLogSub, &spec.layout);
    spec.pairs = o.pairs;
    spec.chunk = o.chunk;
    row->L = spec.layout;
    CH12_TRY(allocate(m, spec, &row->skipped));
    if (row->skipped.empty()) {
        std::vector<std::vector<Phases>> runs;
        for (int r = 0; r <= o.runs; r++) {  // run 0 warms up
            CH12_TRY(fill(m, spec, o.input));
            std::vector<Phases> ph;
            CH12_TRY(run_sort(m, spec, &ph));
            if (r > 0) runs.push_back(ph);
        }
        std::vector<std::pair<double, size_t>> totals;
        for (size_t r = 0; r < runs.size(); r++) totals.push_back({summary(runs[r]).total, r});
        std::sort(totals.begin(), totals.end());
        row->s = summary(runs[totals[totals.size() / 2].second]);
        CH12_TRY(check_result(m, spec, want, &row->v));
    }
    release(m, spec);
    return {};
}

// The rows of one size: bitonic on 1 and on P GPUs, and CUB.
static Status measure(Machine& m, const Options& o, int P, uint64_t n, std::vector<Row>* rows, double* cub_ms) {
    const Fingerprint want = input_fingerprint(n, o.input, o.pairs);
    CubRun cub;
    CH12_TRY(cub_reference(m, n, o.pairs, o.input, o.runs, want, &cub));
    *cub_ms = cub.skipped.empty() ? cub.ms : NAN;
    for (int p : {1, P}) {
        if (p == P && P == 1 && !rows->empty()) break;
        Row row;
        CH12_TRY(bitonic_row(m, o, n, p, want, &row));
        rows->push_back(row);
    }
    Row c;
    c.method = "cub";
    c.gpus = 1;
    c.L.sub = n;
    c.s.total = *cub_ms;
    c.v = cub.verdict;
    c.skipped = cub.skipped;
    rows->push_back(c);
    return {};
}

// A row on stdout and in the CSV; false when it ran and was wrong.
static bool print_row(FILE* csv, const Options& o, uint64_t n, const Row& r, double cub_ms) {
    const bool ran = r.skipped.empty();
    const double gkeys = ran ? n / (r.s.total * 1e-3) / 1e9 : NAN;
    const double vs = ran ? cub_ms / r.s.total : NAN;
    const double gbs = (ran && r.s.exchange > 0) ? r.s.exchange_bytes / (r.s.exchange * 1e-3) / 1e9 : NAN;
    const bool bitonic = r.method == "bitonic";
    if (ran) {
        printf("%12llu %-8s %4d %6llu %10.3f %9.3f %9.3f %9.3f %9.3f %9.1f %8.3f %7.3f  %s\n",
               (unsigned long long)n, r.method.c_str(), r.gpus, (unsigned long long)(bitonic ? r.L.subs_per_gpu() : 1),
               r.s.total, r.s.sort, r.s.exchange, r.s.compare_split, r.s.merge, gbs, gkeys, vs,
               r.v.ok() ? "ok" : verdict_text(r.v, o.pairs).c_str());
    } else {
        printf("%12llu %-8s %4d  skipped: %s\n", (unsigned long long)n, r.method.c_str(), r.gpus, r.skipped.c_str());
    }
    std::fprintf(csv, "%llu,%s,%s,%d,%llu,%llu,%.4f,%.4f,%.4f,%.4f,%.4f,%llu,%.2f,%.4f,%.4f,%s\n",
                 (unsigned long long)n, o.pairs ? "pairs" : "keys", r.method.c_str(), r.gpus,
                 (unsigned long long)(bitonic ? r.L.subs_per_gpu() : 1), (unsigned long long)r.L.sub,
                 ran ? r.s.total : NAN, ran ? r.s.sort : NAN, ran ? r.s.exchange : NAN,
                 ran ? r.s.compare_split : NAN, ran ? r.s.merge : NAN, (unsigned long long)r.s.exchange_bytes, gbs,
                 gkeys, vs, !ran ? "skipped" : r.v.ok() ? "yes" : "no");
    return !ran || r.v.ok();
}

// The heading of the table, and of the CSV.
static void print_heading(FILE* csv, const Machine& m, const Options& o, int P, const std::string& device_line,
                          const std::string& device_name) {
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    std::fprintf(csv, "# %s; %s; %d GPUs; NCCL %s; %s\n", device_name.c_str(), date, P, nccl_text(m).c_str(),
                 o.pairs ? "pairs" : "keys");
    std::fprintf(csv, "n,kind,method,gpus,blocks_per_gpu,block_keys,total_ms,sort_ms,exchange_ms,compare_split_ms,"
                      "merge_ms,exchange_bytes_per_gpu,exchange_gb_per_s,gkeys_per_s,speed_vs_cub,verified\n");
    printf("%s\n", device_line.c_str());
    printf("bitonic sort on 1 and %d GPU%s against CUB's radix sort on one GPU; %s, %s input (seed %u); %s\n",
           P, P == 1 ? "" : "s", o.pairs ? "(key, value) pairs" : "uint32 keys", ch12::input_name(o.input.kind),
           o.input.seed, date);
    printf("GPU events; the median of %d runs after a warm-up (its phases from the same run); every result checked\n"
           "on the CPU. Phases: the slowest GPU's, the exchange the least-waiting GPU's. vs CUB > 1: faster.\n\n",
           o.runs);
    printf("%12s %-8s %4s %6s %10s %9s %9s %9s %9s %9s %8s %7s  %s\n", "n", "method", "GPUs", "blocks", "total ms",
           "sort ms", "exch ms", "c-s ms", "merge ms", "exch GB/s", "Gkeys/s", "vs CUB", "check");
}

Status run_bench(Machine& m, const Options& o, int P, const std::string& device_line, const std::string& device_name,
                 bool* all_ok) {
    // The CSV goes to a temporary file beside FILE, renamed over it when all is done and correct.
    ch12::SafeOutput out;
    const std::string cannot = out.open(o.csv);
    if (!cannot.empty()) return ch12::failure(Errc::failed, "--csv: " + cannot);
    FILE* csv = out.file();
    print_heading(csv, m, o, P, device_line, device_name);
    *all_ok = true;
    for (uint64_t n : o.sizes) {
        std::vector<Row> rows;
        double cub_ms = NAN;
        CH12_TRY(measure(m, o, P, n, &rows, &cub_ms));
        for (const Row& r : rows) *all_ok = print_row(csv, o, n, r, cub_ms) && *all_ok;
        printf("\n");
        std::fflush(stdout);
    }
    if (!*all_ok) {
        out.discard();
        printf("CSV not written: some results were wrong (%s left as it was)\n", o.csv.c_str());
    } else {
        const std::string problem = out.commit();
        if (problem.empty()) {
            printf("CSV written to %s\n", o.csv.c_str());
        } else {
            printf("CSV not written: %s\n", problem.c_str());
            *all_ok = false;
        }
    }
    printf("every result checked on the CPU: %s\n", *all_ok ? "all correct" : "SOME WRONG");
    return {};
}

}  // namespace multi_gpu
