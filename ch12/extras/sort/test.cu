// Chapter 12 extra -- the correctness suite of the sort library.
//
//   bitonic_sort_test [--design NAME] [--quick | --long] [--profile NAME] [--window SPEC]
//
// Three sets of cases per design, every one checked on the CPU (sorted in the
// asked order, the same keys or (key, value) pairs as the input, and every
// word between and after the arrays untouched):
//   single arrays  uint32 keys, ascending, at every size the code cares about
//                  (0, 1, 2, 3, 1023, 1024, 1025, 4097, 2^20 + 7, ...) and
//                  five inputs;
//   combinations   every key type x keys or pairs x both orders, for
//                  len = 1, 2, 3, 1023, 1024, 1025, 65536, 65537 and
//                  count = 1, 7, 1000 (count 1000 of the 65536-key lengths
//                  only with --long), some of them with gaps between arrays,
//                  the inputs taking turns (floats: ±0, NaN, ±inf, denormals);
//   merges         the same combinations with Request::bitonic_input, every
//                  array made bitonic (an ascending run, then a descending
//                  one, rotated), and single arrays up to 2^22 + 1 keys;
//   medium batches arrays of 4096, 5000, 32768 and 65536 keys, every key
//                  type, keys and pairs, some with gaps, 2^18 keys and more
//                  in all (the window design's one-pass windows, and its
//                  passes in place).
// Then the error paths, through the public API: a bad request, null and
// misaligned pointers, too little scratch, limits the kernels cannot run
// within (a profile), and a launch that fails (a launch into the legacy
// default stream while another stream captures a graph: CUDA refuses it);
// after each, a sort must still work.
// --quick: a few small cases per design (for compute-sanitizer; the failing
// launch is left out, as the sanitizer counts CUDA's refusal as an error);
// --long: single arrays of 2^22 + 3 and 2^24 + 1 keys and 1000 arrays of
// 65536 and 65537 keys instead. --profile: plan every sort as on that GPU.
// --window: the window design pinned to one variant (sort_cases.h's
// window_pin), its window passes taking every array they can.
// Ends with "N passed, N failed".

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bitonic/bitonic_sort.cuh"
#include "check.h"
#include "cli.h"
#include "cuda_check.h"  // require_cuda_device(): no GPU, exit 77
#include "device_buffer.h"
#include "sort_cases.h"
#include "sort_programs.h"

struct Case {
    bitonic::Request r;
    cases::Input input;
    uint32_t seed;
};

static std::string describe(const Case& c) {
    char buf[256];
    const size_t stride = c.r.stride ? c.r.stride : c.r.len;
    snprintf(buf, sizeof buf, "%s: %s%zu x %zu %s%s, %s, %s, seed %u%s", bitonic::design_name(c.r.design),
             c.r.bitonic_input ? "merge of " : "", c.r.count, c.r.len, bitonic::key_type_name(c.r.key_type),
             c.r.with_values ? " pairs" : "", bitonic::order_name(c.r.order), cases::input_name(c.input), c.seed,
             stride != c.r.len ? ", with gaps" : "");
    return buf;
}

// Runs one case: *problem is "" or what went wrong with it (the library's
// Status included); the Status returned is an error of the program's own
// CUDA calls, which ends the run.
static ch12::Status run_case(const Case& c, bitonic::Sorter& sorter, std::string* problem) {
    const bitonic::Request& r = c.r;
    cases::Batch batch;
    *problem = cases::make_batch(r, c.input, c.seed, &batch);
    if (!problem->empty()) return {};
    ch12::DeviceBuffer<uint32_t> d_keys, d_values;
    CH12_TRY(d_keys.allocate(batch.keys.size()));
    CH12_TRY(d_values.allocate(batch.values.size()));
    CH12_TRY(d_keys.upload(batch.keys));
    CH12_TRY(d_values.upload(batch.values));
    const bitonic::Status s = sorter.sort(r, d_keys.get(), r.with_values ? d_values.get() : nullptr);
    if (!s.ok()) {
        *problem = bitonic::message(s);
        return {};
    }
    CH12_TRY(cudaDeviceSynchronize());
    std::vector<uint32_t> out_keys, out_values;
    CH12_TRY(d_keys.download(&out_keys));
    CH12_TRY(d_values.download(&out_values));
    const cases::Verdict v = cases::check_batch(r, batch, out_keys, out_values);
    if (v.bad_arrays) *problem = "array " + std::to_string(v.first_bad) + ": " + v.first_problem;
    else if (v.touched) *problem = "wrote outside the arrays, at word " + std::to_string(v.first_touched);
    return {};
}

// The k-th input kind of the one list (ch12/extras/support/input_kinds.h), round and round.
static cases::Input input_at(int k) { return (cases::Input)(k % ch12::kInputCount); }

// The cases of one design.
static std::vector<Case> cases_of(bitonic::Design design, bool quick, bool longer) {
    std::vector<Case> list;
    auto add = [&](const bitonic::Request& r, cases::Input input, uint32_t seed) {
        Case c{r, input, seed};
        c.r.design = design;
        list.push_back(c);
    };
    // ---- single arrays, uint32, ascending
    std::vector<size_t> sizes = {0, 1, 2, 3, 4, 5, 7, 8, 31, 33, 100, 1000, 1023, 1024, 1025, 2047, 2048,
                                 4095, 4096, 4097, 8191, 8192, 8193, 12345, 16384, 65535, 65536, 65537,
                                 100003, 262144, 262145, (1u << 20), (1u << 20) + 7};
    if (quick) sizes = {0, 3, 4097};
    if (longer) sizes = {(1u << 22) + 3, (1u << 24) + 1};
    for (size_t n : sizes)
        for (int i = 0; i < (quick ? 1 : longer ? 2 : 5); i++)
            for (uint32_t seed = 1; seed <= (i == 0 || i == 4 ? 2u : 1u); seed++) {
                bitonic::Request r;
                r.len = n;
                add(r, input_at(i), seed * 7919u + (uint32_t)n);
            }
    // ---- every key type x keys/pairs x order x len x count, sorts then merges
    std::vector<bitonic::KeyType> types = {bitonic::KeyType::u32, bitonic::KeyType::i32, bitonic::KeyType::f32};
    std::vector<size_t> lens = {1, 2, 3, 1023, 1024, 1025, 65536, 65537};
    std::vector<size_t> counts = {1, 7, 1000};
    if (quick) { types = {bitonic::KeyType::f32}; lens = {3, 1025}; counts = {7}; }
    if (longer) { lens = {65536, 65537}; counts = {1000}; types = {bitonic::KeyType::u32, bitonic::KeyType::f32}; }
    int turn = 0;
    for (bool merge : {false, true})
        for (bitonic::KeyType t : types)
            for (bool pairs : {false, true})
                for (bitonic::Order o : {bitonic::Order::ascending, bitonic::Order::descending})
                    for (size_t len : lens)
                        for (size_t count : counts) {
                            if (!longer && len >= 65536 && count == 1000) continue;  // --long
                            bitonic::Request r;
                            r.key_type = t;
                            r.with_values = pairs;
                            r.order = o;
                            r.count = count;
                            r.len = len;
                            r.bitonic_input = merge;
                            // every third batch with gaps between its arrays
                            if (count > 1 && turn % 3 == 1) r.stride = len + 3;
                            // floats see their special values every other case
                            const cases::Input input = (t == bitonic::KeyType::f32 && turn % 2 == 0)
                                                           ? cases::Input::special : input_at(turn);
                            add(r, input, 1000u + (uint32_t)turn);
                            turn++;
                        }
    // ---- batches of medium arrays in requests of more than 2^17 words: the
    // window design's one-pass windows straight from the caller's arrays
    // (any layout, key type and order), and its passes in place (dense
    // arrays longer than a window)
    if (!longer) {
        std::vector<size_t> medium = {4096, 5000, 32768, 65536};
        if (quick) medium = {5000};
        int k = 0;
        for (size_t len : medium)
            for (bitonic::KeyType t : types)
                for (bool pairs : {false, true}) {
                    bitonic::Request r;
                    r.key_type = t;
                    r.with_values = pairs;
                    r.order = k % 2 ? bitonic::Order::descending : bitonic::Order::ascending;
                    r.len = len;
                    r.count = (size_t(1) << 18) / len + 3;
                    if (k % 3 == 1) r.stride = len + 5;
                    add(r, t == bitonic::KeyType::f32 && k % 2 ? cases::Input::special : input_at(k), 3000u + (uint32_t)k);
                    k++;
                }
    }
    // ---- merges of single arrays: a block, a cluster, and beyond
    std::vector<size_t> merge_sizes = {2, 4096, 4097, 65536, 131072, 131073, (1u << 20), (1u << 22) + 1};
    if (quick) merge_sizes = {4096, 5000};
    if (longer) merge_sizes = {(1u << 24), (1u << 24) + 5};
    for (size_t n : merge_sizes)
        for (bool pairs : {false, true}) {
            bitonic::Request r;
            r.len = n;
            r.with_values = pairs;
            r.bitonic_input = true;
            add(r, pairs ? cases::Input::few_unique : cases::Input::uniform, 77u + (uint32_t)n);
        }
    return list;
}

// ---- the error paths ------------------------------------------------------------------
// Each through the public API, with 8192 keys (and values) on the device to
// point at; each records what it found in `expect`.
struct Errors {
    const bitonic::Profile* profile;
    ch12::DeviceBuffer<uint32_t> keys, values;
    std::vector<uint32_t> host;
    ch12::Checks expect{1 << 30, "error path: "};  // every failure printed

    // The status has this code, and a message that names its detail.
    void expect_status(const bitonic::Status& s, bitonic::Errc code, const std::string& what) {
        const std::string m = bitonic::message(s);
        expect(s.code == code && !m.empty() && m.find(s.detail) != std::string::npos,
               what + ": got '" + m + "', wanted " + bitonic::errc_name(code));
    }
    // A good sort, right after an error.
    ch12::Status works(const char* after) {
        bitonic::Request r;
        r.len = 5000;
        r.key_type = bitonic::KeyType::f32;
        bitonic::Sorter sorter(profile);
        std::string problem;
        CH12_TRY(run_case(Case{r, cases::Input::special, 5}, sorter, &problem));
        expect(problem.empty(), std::string("a sort after ") + after + ": " + problem);
        return {};
    }
};

// A bad request (nothing is launched, and the keys stay as they were), and
// null and misaligned pointers.
static ch12::Status refused_requests(Errors& e) {
    const bitonic::Profile* profile = e.profile;
    bitonic::Request bad;
    bad.count = 2;
    bad.len = 10;
    bad.stride = 5;
    e.expect_status(bitonic::sort(bad, e.keys.get(), nullptr, nullptr, 0, 0, profile), bitonic::Errc::bad_request,
                    "a stride shorter than an array");
    size_t bytes = 1;
    e.expect_status(bitonic::scratch_bytes(bad, &bytes, profile), bitonic::Errc::bad_request, "scratch_bytes of it");
    e.expect(bytes == 0, "scratch_bytes of a bad request reports 0 bytes");
    bitonic::Request overflow;
    overflow.count = 3;
    overflow.len = 2;
    overflow.stride = size_t(1) << 63;
    e.expect_status(bitonic::check(overflow), bitonic::Errc::bad_request, "count 3, stride 2^63");
    std::vector<uint32_t> after;
    CH12_TRY(e.keys.download(&after));
    e.expect(after == e.host, "a refused request leaves the keys as they were");

    // Null and misaligned pointers.
    bitonic::Request r;
    r.len = 4096;
    e.expect_status(bitonic::sort(r, nullptr, nullptr, nullptr, 0, 0, profile), bitonic::Errc::null_pointer, "null keys");
    r.with_values = true;
    e.expect_status(bitonic::sort(r, e.keys.get(), nullptr, nullptr, 0, 0, profile), bitonic::Errc::null_pointer,
                    "pairs without values");
    e.expect_status(bitonic::sort(r, e.keys.get() + 1, e.values.get(), nullptr, 0, 0, profile), bitonic::Errc::misaligned,
                    "keys 4 bytes off");
    e.expect_status(bitonic::sort(r, e.keys.get(), e.values.get() + 2, nullptr, 0, 0, profile), bitonic::Errc::misaligned,
                    "values 8 bytes off");
    bitonic::Sorter sorter(profile);
    e.expect_status(sorter.sort(r, e.keys.get() + 1, e.values.get()), bitonic::Errc::misaligned,
                    "Sorter::sort, keys 4 bytes off");
    return {};
}

// Too little scratch (the chapter design copies arrays with gaps into
// scratch), and limits the kernels cannot run within, forced through a profile.
static ch12::Status scratch_and_limits(Errors& e) {
    const bitonic::Profile* profile = e.profile;
    bitonic::Request gaps;
    gaps.design = bitonic::Design::chapter;
    gaps.count = 3;
    gaps.len = 1000;
    gaps.stride = 1001;
    size_t need = 0;
    e.expect(bitonic::scratch_bytes(gaps, &need, profile).ok() && need >= 3 * 1024 * 4, "scratch_bytes of 3 x 1000 keys with gaps");
    ch12::DeviceBuffer<unsigned char> scratch;
    CH12_TRY(scratch.allocate(need));
    e.expect_status(bitonic::sort(gaps, e.keys.get(), nullptr, scratch.get(), need - 1, 0, profile),
                    bitonic::Errc::scratch_too_small, "one byte too little scratch");
    e.expect_status(bitonic::sort(gaps, e.keys.get(), nullptr, nullptr, need, 0, profile), bitonic::Errc::null_pointer,
                    "no scratch pointer");
    e.expect(bitonic::sort(gaps, e.keys.get(), nullptr, scratch.get(), need, 0, profile).ok() &&
                 cudaDeviceSynchronize() == cudaSuccess,
             "the same sort with enough scratch");

    bitonic::Profile tiny = {"tiny", "a GPU with 16 KiB of shared memory per block", {}};
    tiny.limits = bitonic::profile_by_name("t4")->limits;
    tiny.limits.smem_per_block = 16 * 1024;
    bitonic::Request small;
    small.len = 1000;
    e.expect_status(bitonic::sort(small, e.keys.get(), nullptr, nullptr, 0, 0, &tiny), bitonic::Errc::unsupported,
                    "a profile with 16 KiB of shared memory per block");
    return e.works("an unsupported profile");
}

// A launch that fails: while a blocking stream captures a graph, the legacy
// default stream may not be used (it would wait for the capturing stream),
// and CUDA refuses a launch into it (cudaErrorStreamCaptureImplicit, not a
// sticky error). Relaxed mode: nothing else the sort calls is refused.
// (compute-sanitizer counts that refusal as an error: --quick leaves it out.)
static ch12::Status failed_launch(Errors& e) {
    bitonic::Request one;
    one.design = bitonic::Design::chapter;
    one.len = 1024;
    e.expect(bitonic::sort(one, e.keys.get(), nullptr, nullptr, 0, 0, e.profile).ok(), "a warm-up sort");
    CH12_TRY(cudaDeviceSynchronize());
    cudaStream_t capturing;
    CH12_TRY(cudaStreamCreate(&capturing));
    CH12_TRY(cudaStreamBeginCapture(capturing, cudaStreamCaptureModeRelaxed));
    const bitonic::Status s = bitonic::sort(one, e.keys.get(), nullptr, nullptr, 0, 0, e.profile);
    const cudaError_t left = cudaPeekAtLastError();
    cudaGraph_t graph = nullptr;
    (void)cudaStreamEndCapture(capturing, &graph);  // invalidated by the refused launch
    if (graph) CH12_TRY(cudaGraphDestroy(graph));
    (void)cudaGetLastError();
    CH12_TRY(cudaStreamDestroy(capturing));
    e.expect_status(s, bitonic::Errc::cuda, "a launch into the legacy stream during a capture");
    e.expect(s.error != cudaSuccess && s.detail.find("launch") != std::string::npos,
             std::string("the status carries CUDA's error and names the launch: ") + s.detail);
    e.expect(left == cudaSuccess, "CUDA's last error is cleared once the status carries it");
    return e.works("a failed launch");
}

static ch12::Status error_paths(const bitonic::Profile* profile, bool quick, int* passed, int* failed) {
    Errors e;
    e.profile = profile;
    CH12_TRY(e.keys.allocate(8192));
    CH12_TRY(e.values.allocate(8192));
    e.host.resize(8192);
    for (size_t i = 0; i < e.host.size(); i++) e.host[i] = (uint32_t)(e.host.size() - i);
    CH12_TRY(e.keys.upload(e.host));
    CH12_TRY(e.values.upload(e.host));
    CH12_TRY(refused_requests(e));
    CH12_TRY(scratch_and_limits(e));
    if (!quick) CH12_TRY(failed_launch(e));
    printf("%-9s %4d error paths returned their status, %d did not\n", "errors", e.expect.passed(), e.expect.failed());
    fflush(stdout);
    *passed += e.expect.passed();
    *failed += e.expect.failed();
    return {};
}

struct Options {
    std::vector<bitonic::Design> designs;
    const bitonic::Profile* profile = nullptr;
    bool quick = false, longer = false;
    const char* window = nullptr;  // --window: the spec (null: none), and its pin
    bitonic::WindowPin pin;
};

static Options parse(ch12::CommandLine& cl) {
    cl.option("--design").flag("--quick").flag("--long").option("--profile").option("--window");
    cl.parse();
    if (cl.has("--quick") && cl.has("--long")) cl.fail("--quick and --long do not go together");
    Options o;
    if (cl.has("--design")) {
        o.designs.push_back((bitonic::Design)cl.choice("--design", bitonic::kDesignNames, 0));
    } else {
        for (int d = 0; d < bitonic::kDesignCount; ++d) o.designs.push_back((bitonic::Design)d);
    }
    o.profile = ch12::profile_option(cl);
    o.window = cl.value("--window");
    if (o.window && !cases::window_pin(o.window, &o.pin))
        cl.fail(std::string("--window wants auto, 13, 14, 15, 13+tile, 14+tile or 15+tile, not '") + o.window + "'");
    o.quick = cl.has("--quick");
    o.longer = cl.has("--long");
    return o;
}

// Every case of every design asked for, then the error paths; *failed counts
// what did not hold.
static ch12::Status run_suite(const Options& o, int* failed) {
    bitonic::Limits limits;
    CH12_TRY(bitonic::device_limits(&limits, o.profile));
    // --window: a profile of these limits (nothing lowered further) that pins the window design.
    const bitonic::Profile pinned = cases::pinned_profile(o.profile, limits, o.pin);
    const bitonic::Profile* profile = o.window ? &pinned : o.profile;
    cudaDeviceProp prop;
    int device = 0;
    CH12_TRY(cudaGetDevice(&device));
    CH12_TRY(cudaGetDeviceProperties(&prop, device));
    printf("device:   %s; planned for sm_%d, %d SMs, %zu KiB of shared memory per block, %s%s%s\n", prop.name,
           limits.cc, limits.sms, limits.smem_per_block / 1024,
           limits.max_cluster >= 16 ? "clusters of 16" : "no clusters of 16", o.profile ? " -- profile " : "",
           o.profile ? o.profile->name : "");
    if (o.window) printf("window:   pinned to %s, windows for every array they can take\n", o.window);
    fflush(stdout);

    int passed = 0;
    bitonic::Sorter sorter(profile);
    for (bitonic::Design design : o.designs) {
        int d_passed = 0, d_failed = 0;
        for (const Case& c : cases_of(design, o.quick, o.longer)) {
            std::string problem;
            CH12_TRY(run_case(c, sorter, &problem));
            if (problem.empty()) {
                d_passed++;
            } else {
                d_failed++;
                printf("FAIL: %s: %s\n", describe(c).c_str(), problem.c_str());
                fflush(stdout);
            }
        }
        printf("%-9s %4d cases passed, %d failed\n", bitonic::design_name(design), d_passed, d_failed);
        fflush(stdout);
        passed += d_passed;
        *failed += d_failed;
    }
    if (!o.longer) CH12_TRY(error_paths(profile, o.quick, &passed, failed));
    printf("scratch memory used at most: %zu bytes\n", sorter.scratch_allocated());
    printf("%d passed, %d failed\n", passed, *failed);
    return {};
}

int main(int argc, char** argv) {
    const std::string profiles = ch12::profile_list();
    ch12::CommandLine cl(argc, argv, "[--design NAME] [--quick | --long] [--profile NAME] [--window SPEC]",
                         "  --design NAME  only this design (chapter, workgroup, fast or window; default: all four)\n"
                         "  --quick        a few small cases per design (for compute-sanitizer)\n"
                         "  --long         instead: single arrays of 2^22 + 3 and 2^24 + 1 keys, and batches of\n"
                         "                 1000 arrays of 65536 and 65537 keys\n"
                         "  --profile NAME plan every sort as on this GPU, emulated on the one here: " + profiles + "\n"
                         "  --window SPEC  the window design pinned to a variant that takes every array it can:\n"
                         "                 auto (the tuning's window), 13, 14, 15 (windows of 2^N keys), or\n"
                         "                 N+tile (after the fast design's tile kernel)\n");
    const Options o = parse(cl);
    ch12::require_cuda_device(cl.name());
    int failed = 0;
    const ch12::Status s = run_suite(o, &failed);
    return ch12::exit_status(s, cl.name(), failed == 0 ? 0 : 1);
}
