// Chapter 12 extra -- the correctness suite of the sort library.
//
//   bitonic_sort_test [--design NAME] [--quick | --long]
//
// Two sets of cases, every one checked on the CPU (sorted in the asked
// order, the same keys or (key, value) pairs as the input, and every word
// between and after the arrays untouched):
//   single arrays  uint32 keys, ascending, at every size the code cares about
//                  (0, 1, 2, 3, 1023, 1024, 1025, 4097, 2^20 + 7, ...) and
//                  five inputs;
//   combinations   every key type x keys or pairs x both orders, for
//                  len = 1, 2, 3, 1023, 1024, 1025, 65536, 65537 and
//                  count = 1, 7, 1000 (count 1000 of the 65536-key lengths
//                  only with --long), some of them with gaps between arrays,
//                  the inputs taking turns (floats: ±0, NaN, ±inf, denormals).
// --quick: a few small cases per design (for compute-sanitizer); --long runs
// single arrays of 2^22 + 3 and 2^24 + 1 keys and 1000 arrays of 65536 and
// 65537 keys instead. Ends with "N passed, N failed".

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bitonic_sort.cuh"
#include "cli.h"
#include "cuda_check.h"
#include "sort_cases.h"

struct Case {
    bitonic::Request r;
    cases::Input input;
    uint32_t seed;
};

static std::string describe(const Case& c) {
    char buf[256];
    const size_t stride = c.r.stride ? c.r.stride : c.r.len;
    snprintf(buf, sizeof buf, "%s: %zu x %zu %s%s, %s, %s, seed %u%s", bitonic::design_name(c.r.design), c.r.count,
             c.r.len, bitonic::key_type_name(c.r.key_type), c.r.with_values ? " pairs" : "",
             c.r.order == bitonic::Order::ascending ? "ascending" : "descending", cases::input_name(c.input), c.seed,
             stride != c.r.len ? ", with gaps" : "");
    return buf;
}

// Runs one case; returns "" or what went wrong.
static std::string run_case(const Case& c, bitonic::Sorter& sorter) {
    const bitonic::Request& r = c.r;
    const cases::Batch batch = cases::make_batch(r, c.input, c.seed);
    const std::vector<uint32_t>& keys = batch.keys;
    const std::vector<uint32_t>& values = batch.values;
    uint32_t *d_keys = nullptr, *d_values = nullptr;
    CUDA_CHECK(cudaMalloc(&d_keys, keys.size() * 4));
    CUDA_CHECK(cudaMemcpy(d_keys, keys.data(), keys.size() * 4, cudaMemcpyHostToDevice));
    if (r.with_values) {
        CUDA_CHECK(cudaMalloc(&d_values, values.size() * 4));
        CUDA_CHECK(cudaMemcpy(d_values, values.data(), values.size() * 4, cudaMemcpyHostToDevice));
    }
    cases::or_exit(sorter.sort(r, d_keys, d_values), "bitonic_sort_test");
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> out_keys(keys.size()), out_values(values.size());
    CUDA_CHECK(cudaMemcpy(out_keys.data(), d_keys, keys.size() * 4, cudaMemcpyDeviceToHost));
    if (r.with_values) CUDA_CHECK(cudaMemcpy(out_values.data(), d_values, values.size() * 4, cudaMemcpyDeviceToHost));
    if (d_values) CUDA_CHECK(cudaFree(d_values));
    CUDA_CHECK(cudaFree(d_keys));

    const cases::Verdict v = cases::check_batch(r, batch, out_keys, out_values);
    if (v.bad_arrays) return "array " + std::to_string(v.first_bad) + ": " + v.first_problem;
    if (v.touched) return "wrote outside the arrays, at word " + std::to_string(v.first_touched);
    return "";
}

int main(int argc, char** argv) {
    ch12::CommandLine cl(argc, argv, "[--design NAME] [--quick | --long]",
                         "  --design NAME  only this design (chapter, workgroup or fast; default: all three)\n"
                         "  --quick        a few small cases per design (for compute-sanitizer)\n"
                         "  --long         instead: single arrays of 2^22 + 3 and 2^24 + 1 keys, and batches of\n"
                         "                 1000 arrays of 65536 and 65537 keys\n");
    cl.option("--design").flag("--quick").flag("--long");
    cl.parse();
    if (cl.has("--quick") && cl.has("--long")) cl.fail("--quick and --long do not go together");
    std::vector<const char*> names;
    for (const bitonic::DesignInfo* d = bitonic::kDesigns; d->name; ++d) names.push_back(d->name);
    names.push_back(nullptr);
    std::vector<bitonic::Design> designs;
    if (cl.has("--design")) {
        designs.push_back(bitonic::kDesigns[cl.choice("--design", names.data(), 0)].design);
    } else {
        for (const bitonic::DesignInfo* d = bitonic::kDesigns; d->name; ++d) designs.push_back(d->design);
    }
    const bool quick = cl.has("--quick"), longer = cl.has("--long");
    ch12::require_cuda_device(cl.name());

    const cases::Input all_inputs[] = {cases::Input::uniform, cases::Input::sorted, cases::Input::reverse,
                                       cases::Input::equal, cases::Input::few_unique, cases::Input::special};
    int passed = 0, failed = 0;
    bitonic::Sorter sorter;
    for (bitonic::Design design : designs) {
        std::vector<Case> list;
        // ---- single arrays, uint32, ascending
        std::vector<size_t> sizes = {0, 1, 2, 3, 4, 5, 7, 8, 31, 33, 100, 1000, 1023, 1024, 1025, 2047, 2048,
                                     4095, 4096, 4097, 8191, 8192, 8193, 12345, 16384, 65535, 65536, 65537,
                                     100003, 262144, 262145, (1u << 20), (1u << 20) + 7};
        if (quick) sizes = {0, 3, 4097};
        if (longer) sizes = {(1u << 22) + 3, (1u << 24) + 1};
        for (size_t n : sizes)
            for (int i = 0; i < (quick ? 1 : longer ? 2 : 5); i++)
                for (uint32_t seed = 1; seed <= (i == 0 || i == 4 ? 2u : 1u); seed++) {
                    Case c{};
                    c.r.design = design;
                    c.r.len = n;
                    c.input = all_inputs[i];
                    c.seed = seed * 7919u + (uint32_t)n;
                    list.push_back(c);
                }
        // ---- every key type x keys/pairs x order x len x count
        std::vector<bitonic::KeyType> types = {bitonic::KeyType::u32, bitonic::KeyType::i32, bitonic::KeyType::f32};
        if (quick) types = {bitonic::KeyType::f32};
        std::vector<size_t> lens = {1, 2, 3, 1023, 1024, 1025, 65536, 65537};
        std::vector<size_t> counts = {1, 7, 1000};
        if (quick) { lens = {3, 1025}; counts = {7}; }  // and floats only, below
        if (longer) { lens = {65536, 65537}; counts = {1000}; types = {bitonic::KeyType::u32, bitonic::KeyType::f32}; }
        int turn = 0;

        for (bitonic::KeyType t : types)
            for (bool pairs : {false, true})
                for (bitonic::Order o : {bitonic::Order::ascending, bitonic::Order::descending})
                    for (size_t len : lens)
                        for (size_t count : counts) {
                            if (!longer && len >= 65536 && count == 1000) continue;  // --long
                            Case c{};
                            c.r.design = design;
                            c.r.key_type = t;
                            c.r.with_values = pairs;
                            c.r.order = o;
                            c.r.count = count;
                            c.r.len = len;
                            // every third batch with gaps between its arrays
                            if (count > 1 && turn % 3 == 1) c.r.stride = len + 3;
                            // floats see their special values every other case
                            c.input = (t == bitonic::KeyType::f32 && turn % 2 == 0) ? cases::Input::special
                                                                                    : all_inputs[turn % 6];
                            c.seed = 1000u + (uint32_t)turn;
                            list.push_back(c);
                            turn++;
                        }
        int d_passed = 0, d_failed = 0;
        for (const Case& c : list) {
            const std::string problem = run_case(c, sorter);
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
        failed += d_failed;
    }
    printf("scratch memory used at most: %zu bytes\n", sorter.scratch_allocated());
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
