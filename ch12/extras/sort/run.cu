// Chapter 12 extra -- one bitonic sort on the GPU, checked against the CPU.
//
//   bitonic_sort_run --n 1000000 [--design fast] [--keys float] [--pairs] [--order descending]
//   bitonic_sort_run --count 1000 --len 1023 [--stride 1030] [--merge] [--profile t4] ...
//
// Sorts one array of n keys, or a batch of `count` arrays of `len` keys
// (array a starting at a * stride), with the library of bitonic_sort.cuh,
// then checks every array on the CPU: sorted in the asked order, the same
// keys (or (key, value) pairs) as before, and every key between and after
// the arrays left as it was. --merge makes every array bitonic first and asks
// the library for the last merge stage only; --profile plans the sort as on
// a smaller GPU (tuning.h); --window pins the window design to one variant
// (sort_cases.h's window_pin).

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bitonic/bitonic_sort.cuh"
#include "cli.h"
#include "cuda_check.h"  // require_cuda_device(): no GPU, exit 77
#include "device_buffer.h"
#include "sort_cases.h"
#include "sort_programs.h"

struct Options {
    bitonic::Request r;
    ch12::Input input = ch12::Input::uniform;
    uint32_t seed = 1;
    const bitonic::Profile* profile = nullptr;  // --profile: the GPU emulated
    const char* window = nullptr;               // --window: the spec (null: none), and its pin
    bitonic::WindowPin pin;
};

// The command line (exit 2 on a bad one, before any GPU is looked for).
static Options parse(ch12::CommandLine& cl) {
    cl.option("--n").option("--count").option("--len").option("--stride").option("--design").option("--keys")
      .flag("--pairs").option("--order").option("--input").option("--seed").flag("--merge").option("--profile")
      .option("--window");
    cl.parse();
    Options o;
    bitonic::Request& r = o.r;
    if (cl.has("--n") == (cl.has("--count") || cl.has("--len")))
        cl.fail("give either --n, or --count and --len");
    if (cl.has("--n")) {
        r.count = 1;
        r.len = cl.number("--n", 0, uint64_t(1) << 31, 0, true);
        if (cl.has("--stride")) cl.fail("--stride goes with --count and --len");
    } else {
        if (!cl.has("--count") || !cl.has("--len")) cl.fail("--count and --len go together");
        r.count = cl.number("--count", 1, uint64_t(1) << 31, 1, true);
        r.len = cl.number("--len", 1, uint64_t(1) << 31, 1, true);
        r.stride = cl.number("--stride", r.len, uint64_t(1) << 40, r.len, true);
    }
    r.design = (bitonic::Design)cl.choice("--design", bitonic::kDesignNames, (int)bitonic::Design::fast);
    r.key_type = (bitonic::KeyType)cl.choice("--keys", bitonic::kKeyTypeNames, 0);
    r.with_values = cl.has("--pairs");
    r.order = (bitonic::Order)cl.choice("--order", bitonic::kOrderNames, 0);
    r.bitonic_input = cl.has("--merge");
    o.input = ch12::input_option(cl);
    o.seed = (uint32_t)cl.number("--seed", 0, 0xFFFFFFFFu, 1);
    o.profile = ch12::profile_option(cl);
    o.window = cl.value("--window");
    if (o.window && !cases::window_pin(o.window, &o.pin))
        cl.fail(std::string("--window wants auto, 13, 14, 15, 13+tile, 14+tile or 15+tile, not '") + o.window + "'");
    const bitonic::Status checked = bitonic::check(r);
    if (!checked.ok())
        cl.fail(std::string(cl.has("--n") ? "--n " : "--count, --len and --stride: ") + std::to_string(r.len) + " keys" +
                (r.count > 1 ? " x " + std::to_string(r.count) + " arrays" : "") + ": " + checked.detail);
    return o;
}

// What one sort did: the keys (and values) it left, its time, its scratch.
struct Sorted {
    std::vector<uint32_t> keys, values;
    float ms = 0.0f;
    size_t scratch = 0;
};

// The batch into device memory, one sort (timed, first launch included) as
// planned under `profile`, and back.
static ch12::Status sort_once(const Options& o, const bitonic::Profile* profile, const cases::Batch& batch,
                              Sorted* out) {
    const bitonic::Request& r = o.r;
    ch12::DeviceBuffer<uint32_t> d_keys, d_values;
    CH12_TRY(d_keys.allocate(batch.keys.size()));
    CH12_TRY(d_values.allocate(batch.values.size()));
    CH12_TRY(d_keys.upload(batch.keys));
    CH12_TRY(d_values.upload(batch.values));
    bitonic::Sorter sorter(profile);
    CH12_TRY(sorter.reserve(r));

    cudaEvent_t start, stop;
    CH12_TRY(cudaEventCreate(&start));
    CH12_TRY(cudaEventCreate(&stop));
    CH12_TRY(cudaEventRecord(start));
    CH12_TRY(sorter.sort(r, d_keys.get(), r.with_values ? d_values.get() : nullptr));
    CH12_TRY(cudaEventRecord(stop));
    CH12_TRY(cudaEventSynchronize(stop));
    CH12_TRY(cudaEventElapsedTime(&out->ms, start, stop));
    CH12_TRY(cudaEventDestroy(stop));
    CH12_TRY(cudaEventDestroy(start));
    CH12_TRY(d_keys.download(&out->keys));
    CH12_TRY(d_values.download(&out->values));
    out->scratch = sorter.scratch_allocated();
    return {};
}

static void print_report(const Options& o, const char* device, const bitonic::Limits& limits, const Sorted& sorted,
                         const cases::Verdict& v) {
    const bitonic::Request& r = o.r;
    const size_t stride = r.stride ? r.stride : r.len;
    printf("device:   %s\n", device);
    printf("limits:   sm_%d, %d SMs, %zu KiB of shared memory per block, %s", limits.cc, limits.sms,
           limits.smem_per_block / 1024, limits.max_cluster >= 16 ? "clusters of 16" : "no clusters of 16");
    if (o.profile) printf(" (profile %s: %s, emulated)", o.profile->name, o.profile->gpu);
    if (o.window) printf("; window design pinned to %s", o.window);
    printf("\n");
    printf("%s %s design, %zu %s of %zu %s key%s%s, %s (%s input%s, seed %u)\n", r.bitonic_input ? "merge:   " : "sort:    ",
           bitonic::design_name(r.design), r.count, r.count == 1 ? "array" : "arrays", r.len,
           bitonic::key_type_name(r.key_type), r.len == 1 ? "" : "s", r.with_values ? " with uint32 values" : "",
           bitonic::order_name(r.order), ch12::input_name(o.input), r.bitonic_input ? ", made bitonic" : "", o.seed);
    if (stride != r.len) printf("layout:   arrays %zu keys apart (gaps of %zu keys)\n", stride, stride - r.len);
    printf("scratch:  %zu bytes of GPU memory\n", sorted.scratch);
    printf("time:     %.3f ms on the GPU (one run, first launch included; the benchmark gives medians)\n", sorted.ms);
    printf("arrays:   %zu of %zu sorted, with their own keys%s", r.count - v.bad_arrays, r.count,
           r.with_values ? " and values" : "");
    if (v.bad_arrays) printf(" -- array %zu: %s", v.first_bad, v.first_problem.c_str());
    printf("\nguards:   %zu words outside the arrays changed\n", v.touched);
    printf("verdict:  %s\n", v.ok() ? "correct" : "WRONG");
}

// The whole run on the current device: *correct says whether every array
// and every word around them checked.
static ch12::Status run(const Options& o, bool* correct) {
    const bitonic::Request& r = o.r;
    bitonic::Limits limits;
    CH12_TRY(bitonic::device_limits(&limits, o.profile));
    // --window: a profile of these limits (nothing lowered further) that pins the window design.
    const bitonic::Profile pinned = cases::pinned_profile(o.profile, limits, o.pin);
    const bitonic::Profile* profile = o.window ? &pinned : o.profile;
    size_t scratch = 0;
    CH12_TRY(bitonic::scratch_bytes(r, &scratch, profile));
    const size_t stride = r.stride ? r.stride : r.len;
    const size_t span = r.count == 0 ? 0 : (r.count - 1) * stride + r.len;  // keys the batch covers (check(): <= 2^40)
    size_t free_bytes = 0, total_bytes = 0;
    CH12_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    const double need = (double)(span + cases::kGuard) * 4.0 * (r.with_values ? 2 : 1) + (double)scratch;
    if (need > (double)free_bytes) {
        char text[160];
        snprintf(text, sizeof text, "this sort needs %.1f MiB of GPU memory, but only %.1f MiB of %.1f MiB are free",
                 need / 1048576.0, free_bytes / 1048576.0, total_bytes / 1048576.0);
        return ch12::failure(ch12::Errc::failed, text);
    }
    cases::Batch batch;
    const std::string refused = cases::make_batch(r, o.input, o.seed, &batch);
    if (!refused.empty()) return ch12::failure(ch12::Errc::failed, refused);

    int device = 0;
    CH12_TRY(cudaGetDevice(&device));
    cudaDeviceProp prop;
    CH12_TRY(cudaGetDeviceProperties(&prop, device));
    Sorted sorted;
    CH12_TRY(sort_once(o, profile, batch, &sorted));
    // Every array on the CPU, and every word outside the arrays.
    const cases::Verdict v = cases::check_batch(r, batch, sorted.keys, sorted.values);
    print_report(o, prop.name, limits, sorted, v);
    *correct = v.ok();
    return {};
}

int main(int argc, char** argv) {
    const std::string profiles = ch12::profile_list();
    ch12::CommandLine cl(argc, argv,
        "(--n N | --count C --len L [--stride S]) [--design NAME] [--keys TYPE] [--pairs]\n"
        "       [--order ascending|descending] [--input KIND] [--seed S] [--merge] [--profile NAME] [--window SPEC]",
        "  --n N          one array of N keys, 0 .. 2^31 (decimal, or 2^K)\n"
        "  --count C      a batch of C arrays ...\n"
        "  --len L        ... of L keys each (count * L rounded up to a power of two <= 2^31)\n"
        "  --stride S     keys from one array's start to the next's (default L; more leaves gaps)\n"
        "  --design NAME  chapter, workgroup, fast or window (default fast)\n"
        "  --keys TYPE    uint32, int32 or float (default uint32)\n"
        "  --pairs        sort (key, value) pairs: a uint32 value travels with each key\n"
        "  --order O      ascending (default) or descending\n"
        "  --input KIND   " + ch12::input_choices() + " (default uniform)\n"
        "  --seed S       seed of the random keys, 0 .. 4294967295 (default 1)\n"
        "  --merge        make every array bitonic (an ascending run, then a descending one,\n"
        "                 rotated), and run only the last merge stage (Request::bitonic_input)\n"
        "  --profile NAME plan as on this GPU, emulated on the one here: " + profiles + "\n"
        "  --window SPEC  the window design pinned to a variant that takes every array it can:\n"
        "                 auto, 13, 14, 15 (windows of 2^N keys), N+tile (after the fast design's tiles)\n");
    const Options o = parse(cl);
    ch12::require_cuda_device(cl.name());
    bool correct = false;
    const ch12::Status s = run(o, &correct);
    return ch12::exit_status(s, cl.name(), correct ? 0 : 1);
}
