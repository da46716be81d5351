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
// a smaller GPU (tuning.h).

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bitonic_sort.cuh"
#include "cli.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "sort_cases.h"

// A library call that failed: its message on stderr, exit 1 (the library
// itself never ends the process; its programs turn statuses into exit codes).
static void or_exit(const bitonic::Status& s, const char* program) {
    if (s.ok()) return;
    std::fflush(stdout);
    std::fprintf(stderr, "%s: %s\n", program, bitonic::message(s).c_str());
    std::exit(1);
}

int main(int argc, char** argv) {
    const std::vector<const char*> profile_names = cases::profile_names();
    const std::string profiles = cases::profile_list();
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
        "  --input KIND   uniform, sorted, reverse, equal, few-unique or special (default uniform)\n"
        "  --seed S       seed of the random keys, 0 .. 4294967295 (default 1)\n"
        "  --merge        make every array bitonic (an ascending run, then a descending one,\n"
        "                 rotated), and run only the last merge stage (Request::bitonic_input)\n"
        "  --profile NAME plan as on this GPU, emulated on the one here: " + profiles + "\n"
        "  --window SPEC  the window design pinned to a variant that takes every array it can:\n"
        "                 auto, 13, 14, 15 (windows of 2^N keys), N+tile (after the fast design's tiles)\n");
    cl.option("--n").option("--count").option("--len").option("--stride").option("--design").option("--keys")
      .flag("--pairs").option("--order").option("--input").option("--seed").flag("--merge").option("--profile")
      .option("--window");
    cl.parse();

    bitonic::Request r;
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
    const cases::Input input = (cases::Input)cl.choice("--input", cases::kInputNames, 0);
    const uint32_t seed = (uint32_t)cl.number("--seed", 0, 0xFFFFFFFFu, 1);
    const bitonic::Profile* profile = nullptr;
    if (cl.has("--profile")) profile = &bitonic::kProfiles[cl.choice("--profile", profile_names.data(), 0)];
    bitonic::WindowPin pin;
    if (cl.has("--window") && !cases::window_pin(cl.value("--window"), &pin))
        cl.fail(std::string("--window wants auto, 13, 14, 15, 13+tile, 14+tile or 15+tile, not '") + cl.value("--window") + "'");
    const bitonic::Status checked = bitonic::check(r);
    if (!checked.ok())
        cl.fail(std::string(cl.has("--n") ? "--n " : "--count, --len and --stride: ") + std::to_string(r.len) + " keys" +
                (r.count > 1 ? " x " + std::to_string(r.count) + " arrays" : "") + ": " + checked.detail);

    ch12::require_cuda_device(cl.name());

    const char* me = cl.name();
    bitonic::Limits limits;
    or_exit(bitonic::device_limits(&limits, profile), me);
    // --window: a profile of these limits (nothing lowered further) that pins the window design.
    bitonic::Profile pinned{profile ? profile->name : "device", profile ? profile->gpu : "this GPU", limits, pin};
    const bool emulated = profile != nullptr;
    if (cl.has("--window")) profile = &pinned;
    size_t scratch = 0;
    or_exit(bitonic::scratch_bytes(r, &scratch, profile), me);
    const size_t stride = r.stride ? r.stride : r.len;
    const size_t span = r.count == 0 ? 0 : (r.count - 1) * stride + r.len;  // keys the batch covers (check(): <= 2^40)
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const double need = (double)(span + cases::kGuard) * 4.0 * (r.with_values ? 2 : 1) + (double)scratch;
    if (need > (double)free_bytes) {
        fprintf(stderr, "%s: this sort needs %.1f MiB of GPU memory, but only %.1f MiB of %.1f MiB are free\n", me,
                need / 1048576.0, free_bytes / 1048576.0, total_bytes / 1048576.0);
        return 1;
    }
    cases::Batch batch;
    const std::string refused = cases::make_batch(r, input, seed, &batch);
    if (!refused.empty()) {
        fprintf(stderr, "%s: %s\n", me, refused.c_str());
        return 1;
    }

    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    ch12::DeviceBuffer<uint32_t> d_keys(batch.keys.size()), d_values(batch.values.size());
    d_keys.upload(batch.keys);
    d_values.upload(batch.values);
    bitonic::Sorter sorter(profile);
    or_exit(sorter.reserve(r), me);

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    or_exit(sorter.sort(r, d_keys.get(), r.with_values ? d_values.get() : nullptr), me);
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaEventDestroy(start));
    std::vector<uint32_t> out_keys, out_values;
    d_keys.download(&out_keys);
    d_values.download(&out_values);

    // Every array on the CPU, and every word outside the arrays.
    const cases::Verdict v = cases::check_batch(r, batch, out_keys, out_values);

    printf("device:   %s\n", prop.name);
    printf("limits:   sm_%d, %d SMs, %zu KiB of shared memory per block, %s", limits.cc, limits.sms,
           limits.smem_per_block / 1024, limits.max_cluster >= 16 ? "clusters of 16" : "no clusters of 16");
    if (emulated) printf(" (profile %s: %s, emulated)", profile->name, profile->gpu);
    if (cl.has("--window")) printf("; window design pinned to %s", cl.value("--window"));
    printf("\n");
    printf("%s %s design, %zu %s of %zu %s key%s%s, %s (%s input%s, seed %u)\n", r.bitonic_input ? "merge:   " : "sort:    ",
           bitonic::design_name(r.design), r.count, r.count == 1 ? "array" : "arrays", r.len,
           bitonic::key_type_name(r.key_type), r.len == 1 ? "" : "s", r.with_values ? " with uint32 values" : "",
           bitonic::order_name(r.order), cases::input_name(input), r.bitonic_input ? ", made bitonic" : "", seed);
    if (stride != r.len) printf("layout:   arrays %zu keys apart (gaps of %zu keys)\n", stride, stride - r.len);
    printf("scratch:  %zu bytes of GPU memory\n", sorter.scratch_allocated());
    printf("time:     %.3f ms on the GPU (one run, first launch included; the benchmark gives medians)\n", ms);
    printf("arrays:   %zu of %zu sorted, with their own keys%s", r.count - v.bad_arrays, r.count,
           r.with_values ? " and values" : "");
    if (v.bad_arrays) printf(" -- array %zu: %s", v.first_bad, v.first_problem.c_str());
    printf("\nguards:   %zu words outside the arrays changed\n", v.touched);
    const bool ok = v.ok();
    printf("verdict:  %s\n", ok ? "correct" : "WRONG");
    return ok ? 0 : 1;
}
