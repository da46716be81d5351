// Chapter 12 extra -- bitonic sort across GPUs: the XOR partner at the scale of devices.
//
//   bitonic_sort_multi_gpu --n N [--gpus P] [--pairs] [--input KIND] [--seed S] [--max-block B] [--chunk C]
//   bitonic_sort_multi_gpu --bench [--gpus P] [--sizes LIST] [--runs R] [--csv FILE] [--pairs] [--input KIND]
//                          [--seed S] [--max-block B] [--chunk C]
//
// n uint32 keys (or (key, value) pairs) spread evenly over P GPUs, one host
// thread and one NCCL communicator per GPU. The steps are schedule.h's: each
// GPU sorts its blocks with the sort library (ascending or descending, as its
// rank needs); at every stage, for each distance that spans GPUs, partner
// GPUs swap their whole arrays with ncclSend/ncclRecv and each keeps one side
// of every pair, position by position (a compare-split: no re-sort); then each
// GPU finishes the stage's distances inside its blocks with the library's
// merge of a bitonic block. A GPU's array is cut into blocks ("virtual ranks")
// of at most --max-block keys (2^31, the library's limit, by default): blocks
// on the same GPU meet in device memory, by the same schedule.
//
// The exchange is chunked and overlapped: chunk c travels (NCCL, one stream)
// while the compare-split of chunk c-1 runs (a kernel, another stream); chunks
// land in a ring of three receive buffers, so a GPU needs its array plus three
// chunks, not two arrays.
//
// The input is made on each GPU from the global index (so 2^33 keys need no
// upload), and checked on the CPU afterwards: every key in order, across the
// GPU boundaries too, and the same multiset of keys (or pairs) as the input
// (two order-free 64-bit fingerprints, computed on the CPU from the input's
// formula and from the keys read back).
//
// NCCL's NVLink multicast (NVLS) stays off: the program sets NCCL_NVLS_ENABLE=0
// before NCCL starts, and refuses to run when it is set to anything else.
//
// This file is the command line, one checked sort (--n), and main; the
// other parts of the program are listed in multi_gpu.h.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli.h"
#include "cuda_check.h"  // require_cuda_device(): no GPU, exit 77
#include "multi_gpu.h"
#include "sort_programs.h"

using namespace multi_gpu;

// ================================================================================================
// The command line.
// ================================================================================================
static std::string layout_problem(uint64_t n, int log_gpus, uint64_t max_block) {
    Layout L;
    const char* problem = multi_gpu::choose_layout(n, log_gpus, max_block, kMaxLogSub, &L);
    if (!problem) {
        if (L.log_sub > 0 && L.sub % 4 != 0)  // block b starts at key b * S
            return std::to_string(n) + " keys make blocks of " + std::to_string(L.sub) + " keys, " +
                   std::to_string(1 << L.log_sub) + " on each GPU; with several on a GPU a block must be a multiple "
                   "of 4 keys (the sort library wants 16-byte aligned arrays)";
        return "";
    }
    const uint64_t ranks = uint64_t(1) << L.log_ranks();
    if (L.log_sub > kMaxLogSub)
        return std::to_string(n) + " keys on " + std::to_string(1 << log_gpus) + " GPU(s) in blocks of at most " +
               std::to_string(max_block) + " keys would need more than " + std::to_string(1 << kMaxLogSub) +
               " blocks on each GPU: give a larger --max-block";
    return std::to_string(n) + " keys do not split into " + std::to_string(ranks) + " equal blocks (" +
           std::to_string(1 << log_gpus) + " GPU(s) x " + std::to_string(1 << L.log_sub) + ", at most " +
           std::to_string(max_block) + " keys each)";
}

static Options parse(ch12::CommandLine& cl) {
    cl.option("--n").option("--gpus").flag("--pairs").option("--input").option("--seed").option("--max-block")
        .option("--chunk").flag("--bench").option("--sizes").option("--runs").option("--csv");
    cl.parse();
    Options o;
    o.bench = cl.has("--bench");
    if (cl.has("--gpus")) {
        const uint64_t p = cl.number("--gpus", 1, 64, 1);
        if (!multi_gpu::is_power_of_two(p)) cl.fail("--gpus wants a power of two from 1 to 64, not " + std::to_string(p));
        o.gpus = (int)p;
    }
    o.pairs = cl.has("--pairs");
    o.input.kind = ch12::input_option(cl);
    o.input.seed = (uint32_t)cl.number("--seed", 0, 0xFFFFFFFFu, 1);
    if (const char* b = cl.value("--max-block")) {
        uint64_t v = 0;
        if (!ch12::parse_number(b, 1024, uint64_t(1) << 31, &v, true) || !multi_gpu::is_power_of_two(v))
            cl.fail(std::string("--max-block wants a power of two from 2^10 to 2^31, not '") + b + "'");
        o.max_block = v;
    }
    o.chunk = cl.number("--chunk", 256, uint64_t(1) << 30, o.chunk, true);
    if (o.bench) {
        if (cl.has("--n")) cl.fail("--n goes without --bench (the benchmark's sizes are --sizes)");
        const char* sizes = cl.value("--sizes") ? cl.value("--sizes") : "26-33";
        if (!ch12::parse_sizes(sizes, 36, kMaxKeys, &o.sizes))
            cl.fail(std::string("--sizes wants A-B (2^A .. 2^B keys, 1 <= A <= B <= 36) or a comma list of exponents "
                                "and key counts (at most 2^36), not '") + sizes + "'");
        o.runs = (int)cl.number("--runs", 3, 100, 5);
        o.csv = cl.value("--csv") ? cl.value("--csv") : "multi_gpu_bench.csv";
    } else {
        for (const char* only : {"--sizes", "--runs", "--csv"})
            if (cl.has(only)) cl.fail(std::string(only) + " goes with --bench");
        if (!cl.has("--n")) cl.fail("give --n N, the number of keys (or --bench)");
        o.n = cl.number("--n", 1, kMaxKeys, 0, true);
        o.sizes = {o.n};
    }
    // Every size must split evenly: on one GPU (the benchmark's baseline) and on --gpus.
    for (uint64_t n : o.sizes)
        for (int p : {1, o.gpus}) {
            if (p == 0 || (p == 1 && !o.bench && o.gpus != 1)) continue;
            const std::string problem = layout_problem(n, multi_gpu::log2_exact((uint64_t)p), o.max_block);
            if (!problem.empty()) cl.fail((o.bench ? "--sizes: " : "--n: ") + problem);
        }
    return o;
}

// NCCL_NVLS_ENABLE: 0 here, always (NVLink multicast can take a shared
// machine's GPUs out of service). Unset: set to 0. Set to anything else: refused.
static void keep_nvls_off(ch12::CommandLine& cl) {
    const char* v = std::getenv("NCCL_NVLS_ENABLE");
    if (v == nullptr) {
#if defined(_WIN32)
        _putenv_s("NCCL_NVLS_ENABLE", "0");
#else
        setenv("NCCL_NVLS_ENABLE", "0", 1);
#endif
    } else if (std::strcmp(v, "0") != 0) {
        cl.fail(std::string("NCCL_NVLS_ENABLE is set to '") + v +
                "': this program keeps NCCL's NVLink multicast off; unset it, or set it to 0");
    }
}

// ================================================================================================
// main
// ================================================================================================
static const char* const kUsage =
    "--n N [--gpus P] [--pairs] [--input KIND] [--seed S] [--max-block B] [--chunk C]\n"
    "       --bench [--gpus P] [--sizes LIST] [--runs R] [--csv FILE] [--pairs] [--input KIND] [--seed S]\n"
    "               [--max-block B] [--chunk C]";
static const std::string kDetails =
    "  Sorts n uint32 keys spread evenly over P GPUs with a bitonic network: the sort library\n"
    "  on each GPU, and for each distance that spans GPUs a compare-split of partner GPUs'\n"
    "  arrays exchanged through NCCL. The result is checked on the CPU.\n"
    "  --n N          keys in all, 1 .. 2^36 (decimal, or 2^K); N / P must split into equal blocks\n"
    "  --gpus P       GPUs to use, a power of two, 1 .. 64 (default: every visible GPU, or the\n"
    "                 largest power of two of them); fewer visible than P: exit 77\n"
    "  --pairs        sort (key, value) pairs: a uint32 value (the key's input index) with each key\n"
    "  --input KIND   the keys' kind (default uniform): " + ch12::input_choices() + "\n"
    "  --seed S       seed of the random keys, 0 .. 4294967295 (default 1)\n"
    "  --max-block B  blocks (virtual ranks) of at most B keys, a power of two, 2^10 .. 2^31\n"
    "                 (default 2^31, the library's limit); a GPU holds at most 4096 of them\n"
    "  --chunk C      keys per exchange chunk, 256 .. 2^30 (default 2^26)\n"
    "  --bench        the benchmark: for each size, 1 GPU (the library, in blocks past 2^31 keys)\n"
    "                 against P GPUs, and CUB's radix sort on one GPU; a table, and a CSV\n"
    "  --sizes LIST   its sizes: A-B (2^A .. 2^B) or a comma list of exponents (<= 36) and key\n"
    "                 counts (default 26-33)\n"
    "  --runs R       timed runs of each, after a warm-up; the median counts (3 .. 100, default 5)\n"
    "  --csv FILE     where the benchmark's CSV goes (default multi_gpu_bench.csv); written to a\n"
    "                 temporary file first, renamed over FILE only when every result checked\n"
    "  Environment: NCCL_NVLS_ENABLE must be unset (the program sets it to 0) or 0.\n";

void multi_gpu::print_phases(const Phases& s, uint64_t P) {
    printf("  local sort     %10.3f ms\n", s.sort);
    if (P > 1) {
        const double gbs = s.exchange > 0 ? (double)s.exchange_bytes / (s.exchange * 1e-3) / 1e9 : 0.0;
        printf("  exchange       %10.3f ms   %.1f MiB each way per GPU, %.1f GB/s (the GPU that waited least)\n",
               s.exchange, s.exchange_bytes / 1048576.0, gbs);
    }
    printf("  compare-split  %10.3f ms   %s\n", s.compare_split,
           P > 1 ? "(runs inside the exchange: chunk c while chunk c+1 travels)" : "(blocks of the same GPU)");
    printf("  merge          %10.3f ms\n", s.merge);
}

// --n: one sort on P GPUs, checked; *correct says whether it was.
static Status run_once(Machine& m, const Options& o, int P, const std::string& device_line, bool* correct) {
    SortSpec spec;
    multi_gpu::choose_layout(o.n, multi_gpu::log2_exact((uint64_t)P), o.max_block, kMaxLogSub, &spec.layout);
    spec.pairs = o.pairs;
    spec.chunk = o.chunk;
    std::string no_room;
    CH12_TRY(allocate(m, spec, &no_room));
    if (!no_room.empty())
        return ch12::failure(Errc::cannot_run_here,
                             "skipped: " + std::to_string(o.n) + " keys do not fit: " + no_room);
    CH12_TRY(fill(m, spec, o.input));
    std::vector<Phases> per_gpu;
    CH12_TRY(run_sort(m, spec, &per_gpu));
    const Phases s = summary(per_gpu);
    const Fingerprint want = input_fingerprint(o.n, o.input, o.pairs);
    Verdict v;
    CH12_TRY(check_result(m, spec, want, &v));
    release(m, spec);

    const Layout& L = spec.layout;
    printf("%s\n", device_line.c_str());
    printf("sort:     %llu uint32 keys%s, %s input (seed %u), ascending\n", (unsigned long long)o.n,
           o.pairs ? " with uint32 values" : "", ch12::input_name(o.input.kind), o.input.seed);
    printf("layout:   %d GPU%s x %llu block%s of %llu keys (%llu ranks of the network)\n", P, P == 1 ? "" : "s",
           (unsigned long long)L.subs_per_gpu(), L.subs_per_gpu() == 1 ? "" : "s", (unsigned long long)L.sub,
           (unsigned long long)(uint64_t(1) << L.log_ranks()));
    printf("steps:    1 sort and %d merge%s of each block; %d compare-split%s across GPUs (NCCL), %d in device memory\n",
           L.log_ranks(), L.log_ranks() == 1 ? "" : "s", multi_gpu::cross_gpu_steps(L.log_gpus),
           multi_gpu::cross_gpu_steps(L.log_gpus) == 1 ? "" : "s", multi_gpu::in_memory_steps(L));
    printf("time:     %.3f ms (GPU events, the slowest GPU; one run, first launches included; --bench gives medians)\n",
           s.total);
    print_phases(s, (uint64_t)P);
    printf("check:    %s (on the CPU, all %llu keys, across the GPU boundaries too)\n", verdict_text(v, o.pairs).c_str(),
           (unsigned long long)o.n);
    printf("verdict:  %s\n", v.ok() ? "correct" : "WRONG");
    *correct = v.ok();
    return {};
}

// How many GPUs: --gpus, or every visible one (the largest power of two of
// them, whose layouts are checked here). Fewer visible than asked, or several
// without NCCL: Errc::cannot_run_here.
static Status choose_gpus(ch12::CommandLine& cl, const Options& o, int* gpus, int* visible) {
    CH12_TRY(cudaGetDeviceCount(visible));
    int P = o.gpus;
    if (P == 0) {
        P = 1;
        while (P * 2 <= *visible && P * 2 <= 64) P *= 2;
        for (uint64_t n : o.sizes) {
            const std::string problem = layout_problem(n, multi_gpu::log2_exact((uint64_t)P), o.max_block);
            if (!problem.empty()) cl.fail((o.bench ? "--sizes on " : "--n on ") + std::to_string(P) + " GPUs: " + problem);
        }
    }
    if (P > *visible)
        return ch12::failure(Errc::cannot_run_here, "skipped: --gpus " + std::to_string(P) + " asks for " +
                                                        std::to_string(P) + " GPUs, but this machine has " +
                                                        std::to_string(*visible) + " usable");
#if !CH12_HAVE_NCCL
    if (P > 1)
        return ch12::failure(Errc::cannot_run_here,
                             "skipped: " + std::to_string(P) + " GPUs need NCCL, and this build has none (CMake found no "
                             "nccl.h and libnccl: install NCCL, e.g. pip install nvidia-nccl-cu13, and re-run cmake)");
#endif
    *gpus = P;
    return {};
}

// The machine, the run (--n or --bench), and the machine taken down again.
static Status run(ch12::CommandLine& cl, const Options& o, bool* ok) {
    int P = 0, visible = 0;
    CH12_TRY(choose_gpus(cl, o, &P, &visible));
    Machine m;
    m.program = cl.name();
    CH12_TRY(setup_machine(m, P));
    cudaDeviceProp prop;
    CH12_TRY(cudaGetDeviceProperties(&prop, 0));
    std::string device_line = "device:   " + std::to_string(P) + " x " + prop.name;
    if (o.gpus == 0 && P < visible) device_line += " (" + std::to_string(P) + " of the " + std::to_string(visible) + " visible: a power of two)";
    if (P > 1) device_line += ", NCCL " + nccl_text(m);
    CH12_TRY(o.bench ? run_bench(m, o, P, device_line, prop.name, ok) : run_once(m, o, P, device_line, ok));
    return teardown_machine(m);
}

int main(int argc, char** argv) {
    ch12::CommandLine cl(argc, argv, kUsage, kDetails.c_str());
    Options o = parse(cl);
    keep_nvls_off(cl);
    if (o.bench) {  // can the CSV be written there? (its temporary file is made after the GPU check)
        const std::string problem = ch12::SafeOutput::check(o.csv);
        if (!problem.empty()) cl.fail("--csv: " + problem);
    }
    // ---- the GPUs: none usable, or fewer than asked: exit 77
    ch12::require_cuda_device(cl.name());
    bool ok = false;
    const Status s = run(cl, o, &ok);
    return ch12::exit_status(s, cl.name(), ok ? 0 : 1);
}
