// Chapter 12 extra -- bitonic sort across GPUs: the XOR partner at the scale of devices.
//
//   bitonic_sort_multi_gpu --n N [--gpus P] [--pairs] [--input KIND] [--seed S] [--max-block B] [--chunk C]
//   bitonic_sort_multi_gpu --bench [--gpus P] [--sizes LIST] [--runs R] [--csv FILE] [--pairs]
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

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#if CH12_HAVE_NCCL
#include <nccl.h>
#endif

#include "bitonic_sort.cuh"
#include "cli.h"
#include "cuda_check.h"
#include "safe_output.h"  // the sort extra's: a CSV through a temporary file, renamed only on success
#include "schedule.h"

using multi_gpu::Layout;

// ================================================================================================
// Errors. The GPUs are driven by one thread each; when one of them fails, its
// partner may be waiting for it inside NCCL, and exit()'s clean-up could wait
// forever too. So an error here prints the same line CUDA_CHECK does, and
// ends the process at once (status 1), leaving no temporary file behind.
// ================================================================================================
static cases::SafeOutput* g_csv = nullptr;  // the benchmark's CSV, while it is being written
[[noreturn]] static void die(const std::string& line) {
    if (g_csv) g_csv->discard();  // _Exit runs no atexit clean-up: remove the temporary file here
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
    std::_Exit(1);
}
static void check_cuda(cudaError_t err, const char* call, const char* file, int line) {
    if (err != cudaSuccess)
        die(std::string("CUDA error: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " +
            cudaGetErrorString(err) + " (" + cudaGetErrorName(err) + ")");
}
#define GPU_CHECK(call) check_cuda((call), #call, __FILE__, __LINE__)
#define GPU_CHECK_LAUNCH() check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
#if CH12_HAVE_NCCL
static void check_nccl(ncclResult_t r, const char* call, const char* file, int line) {
    if (r != ncclSuccess && r != ncclInProgress)
        die(std::string("NCCL error: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " +
            ncclGetErrorString(r) + " (" + ncclGetLastError(nullptr) + ")");
}
#define NCCL_CHECK(call) check_nccl((call), #call, __FILE__, __LINE__)
#endif
static void check_library(const bitonic::Status& s, const char* what) {
    if (!s.ok()) die(std::string("bitonic::") + what + ": " + bitonic::message(s));
}

// ================================================================================================
// The input: a function of the global index, the same on the GPU and the CPU.
// ================================================================================================
enum class Input { uniform, few_unique, sorted, reverse, equal };
static const char* const kInputNames[] = {"uniform", "few-unique", "sorted", "reverse", "equal", nullptr};

MULTI_GPU_HD inline uint64_t mix_a(uint64_t z) {  // splitmix64's finalizer: a bijection of 64 bits
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
MULTI_GPU_HD inline uint64_t mix_b(uint64_t z) {  // MurmurHash3's finalizer: another bijection
    z ^= z >> 33;
    z *= 0xFF51AFD7ED558CCDull;
    z ^= z >> 33;
    z *= 0xC4CEB9FE1A85EC53ull;
    return z ^ (z >> 33);
}
// Key i of n. `shift` keeps sorted keys in 32 bits: i >> shift (0 up to 2^32 keys).
MULTI_GPU_HD inline uint32_t input_key(Input kind, uint64_t i, int shift, uint32_t seed) {
    switch (kind) {
        case Input::uniform: return (uint32_t)(mix_a(i ^ ((uint64_t)seed << 40)) >> 32);
        case Input::few_unique: return (uint32_t)(mix_a(i ^ ((uint64_t)seed << 40)) >> 60);  // 16 values
        case Input::sorted: return (uint32_t)(i >> shift);
        case Input::reverse: return ~(uint32_t)(i >> shift);
        default: return 42u;
    }
}
static int sorted_shift(uint64_t n) {
    int shift = 0;
    while ((n - 1) >> shift > 0xFFFFFFFFull) shift++;
    return shift;
}

// ================================================================================================
// The two kernels of this program (the sorting itself is the library's).
// ================================================================================================
// This GPU's part of the input: keys [first, first + count), values = index.
// flip_block S > 0 (the sort's pairs): the values of an odd block r = index / S,
// which the first sort puts in descending order, stored complemented (schedule.h).
__global__ void fill_kernel(uint32_t* keys, uint32_t* values, uint64_t first, uint64_t count, Input kind, int shift,
                            uint32_t seed, uint64_t flip_block) {
    for (uint64_t x = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; x < count; x += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t i = first + x;
        keys[x] = input_key(kind, i, shift, seed);
        if (values)
            values[x] = (uint32_t)i ^ (flip_block && multi_gpu::values_flipped(i / flip_block, 0) ? ~0u : 0u);
    }
}

// The compare-split, position by position (schedule.h's split_position):
// a[x] takes b[x] when b[x] is on its side (smaller when keep_min, larger
// otherwise, by key and then value), with its value. With write_b (two blocks
// of the same GPU), b[x] takes a[x] in turn: a swap. Without (b is the
// partner GPU's chunk, just received), b is only read: the partner does the
// mirror image of this on its own copy. Values are rewritten when they move
// or change between plain and complemented; keys only when they move.
__global__ void compare_split_kernel(uint32_t* a_keys, uint32_t* a_values, uint32_t* b_keys, uint32_t* b_values,
                                     uint64_t count, multi_gpu::Split split, bool write_b) {
    const bool pairs = a_values != nullptr;
    for (uint64_t x = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; x < count; x += (uint64_t)gridDim.x * blockDim.x) {
        const multi_gpu::Pair a{a_keys[x], pairs ? a_values[x] : 0u}, b{b_keys[x], pairs ? b_values[x] : 0u};
        const multi_gpu::Pair a2 = multi_gpu::split_position(a, b, pairs, split);
        if (a2.key != a.key) a_keys[x] = a2.key;
        if (pairs && a2.value != a.value) a_values[x] = a2.value;
        if (write_b) {
            const multi_gpu::Pair b2 = multi_gpu::split_position(b, a, pairs, split.mirrored());
            if (b2.key != b.key) b_keys[x] = b2.key;
            if (pairs && b2.value != b.value) b_values[x] = b2.value;
        }
    }
}

// ================================================================================================
// One GPU: its streams, its sorter, its NCCL communicator, its arrays.
// ================================================================================================
constexpr int kSlots = 3;  // receive buffers of an exchange: chunk c lands in slot c % 3

struct Gpu {
    int device = 0;
    cudaStream_t compute = nullptr, comm = nullptr;
    cudaEvent_t arrived[kSlots] = {}, consumed[kSlots] = {};
    std::unique_ptr<bitonic::Sorter> sorter;
#if CH12_HAVE_NCCL
    ncclComm_t nccl = nullptr;
#endif
    uint32_t *keys = nullptr, *values = nullptr;            // this GPU's array
    uint32_t *slot_keys = nullptr, *slot_values = nullptr;  // kSlots chunks
    uint64_t slot_len = 0;
};

// Blocks of 256 threads, 8 keys a thread: many short blocks rather than a
// few that loop, so that SMs come free all the time and NCCL's kernel (on the
// higher-priority communication stream) gets them while a compare-split runs.
static unsigned launch_blocks(uint64_t count) {
    const uint64_t want = (count + 256 * 8 - 1) / (256 * 8);
    return (unsigned)std::max<uint64_t>(1, std::min<uint64_t>(want, 0x7FFFFFFF));
}

// The time of each phase, on one GPU (milliseconds).
struct Phases {
    double total = 0, sort = 0, exchange = 0, compare_split = 0, merge = 0;
    uint64_t exchange_bytes = 0;  // sent to partners (as much is received)
};
enum Phase { kSort, kExchange, kCompareSplit, kMerge };

// Event pairs around the work of each phase, read after the run.
struct Timer {
    struct Mark {
        Phase phase;
        cudaEvent_t start, stop;
    };
    std::vector<Mark> marks;
    cudaEvent_t start(cudaStream_t s) {
        cudaEvent_t e;
        GPU_CHECK(cudaEventCreate(&e));
        GPU_CHECK(cudaEventRecord(e, s));
        return e;
    }
    void stop(Phase phase, cudaEvent_t start, cudaStream_t s) {
        cudaEvent_t e;
        GPU_CHECK(cudaEventCreate(&e));
        GPU_CHECK(cudaEventRecord(e, s));
        marks.push_back({phase, start, e});
    }
    void add_to(Phases* p) {
        for (const Mark& m : marks) {
            float ms = 0;
            GPU_CHECK(cudaEventElapsedTime(&ms, m.start, m.stop));
            double* slot[] = {&p->sort, &p->exchange, &p->compare_split, &p->merge};
            *slot[m.phase] += ms;
            GPU_CHECK(cudaEventDestroy(m.start));
            GPU_CHECK(cudaEventDestroy(m.stop));
        }
        marks.clear();
    }
};

struct SortSpec {
    Layout layout;
    bool pairs = false;
    uint64_t chunk = 0;  // keys per exchange chunk
};

static bitonic::Request block_request(const SortSpec& spec, bool ascending, bool bitonic_input) {
    bitonic::Request r;
    r.design = bitonic::Design::fast;
    r.key_type = bitonic::KeyType::u32;
    r.order = ascending ? bitonic::Order::ascending : bitonic::Order::descending;
    r.with_values = spec.pairs;
    r.count = 1;
    r.len = spec.layout.sub;
    r.bitonic_input = bitonic_input;
    return r;
}

// ================================================================================================
// The executor of schedule.h's run_step() on one GPU (the CPU test has its twin).
// ================================================================================================
struct GpuSteps {
    Gpu& g;
    const SortSpec& spec;
    Timer& timer;
    uint64_t* exchange_bytes;

    uint32_t* keys(uint64_t b) const { return g.keys + b * spec.layout.sub; }
    uint32_t* values(uint64_t b) const { return g.values ? g.values + b * spec.layout.sub : nullptr; }
    void library(uint64_t b, bool up, bool bitonic_input, Phase phase) {
        cudaEvent_t t = timer.start(g.compute);
        check_library(g.sorter->sort(block_request(spec, up, bitonic_input), keys(b), values(b), g.compute),
                      bitonic_input ? "sort (merge of a bitonic block)" : "sort");
        timer.stop(phase, t, g.compute);
    }
    void sort(uint64_t b, bool up) { library(b, up, false, kSort); }
    void merge(uint64_t b, bool up) { library(b, up, true, kMerge); }
    void compare_local(uint64_t lower, uint64_t upper, const multi_gpu::Split& split) {
        cudaEvent_t t = timer.start(g.compute);
        compare_split_kernel<<<launch_blocks(spec.layout.sub), 256, 0, g.compute>>>(
            keys(lower), values(lower), keys(upper), values(upper), spec.layout.sub, split, true);
        GPU_CHECK_LAUNCH();
        timer.stop(kCompareSplit, t, g.compute);
    }
    void exchange(uint64_t peer, const multi_gpu::Split& split) {
#if CH12_HAVE_NCCL
        // The comm stream starts once this GPU's array is final.
        cudaEvent_t ready;
        GPU_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
        GPU_CHECK(cudaEventRecord(ready, g.compute));
        GPU_CHECK(cudaStreamWaitEvent(g.comm, ready, 0));
        GPU_CHECK(cudaEventDestroy(ready));  // released once recorded and waited on
        cudaEvent_t t = timer.start(g.comm);
        const std::vector<multi_gpu::Chunk> pieces = multi_gpu::chunks(spec.layout.per_gpu(), spec.chunk);
        for (size_t c = 0; c < pieces.size(); c++) {
            const multi_gpu::Chunk& p = pieces[c];
            const int slot = (int)(c % kSlots);
            uint32_t* in_keys = g.slot_keys + slot * g.slot_len;
            uint32_t* in_values = g.values ? g.slot_values + slot * g.slot_len : nullptr;
            // Slot reuse: chunk c - kSlots must have been compare-split.
            if (c >= (size_t)kSlots) GPU_CHECK(cudaStreamWaitEvent(g.comm, g.consumed[slot], 0));
            NCCL_CHECK(ncclGroupStart());
            NCCL_CHECK(ncclSend(g.keys + p.offset, p.count, ncclUint32, (int)peer, g.nccl, g.comm));
            NCCL_CHECK(ncclRecv(in_keys, p.count, ncclUint32, (int)peer, g.nccl, g.comm));
            if (g.values) {
                NCCL_CHECK(ncclSend(g.values + p.offset, p.count, ncclUint32, (int)peer, g.nccl, g.comm));
                NCCL_CHECK(ncclRecv(in_values, p.count, ncclUint32, (int)peer, g.nccl, g.comm));
            }
            NCCL_CHECK(ncclGroupEnd());
            GPU_CHECK(cudaEventRecord(g.arrived[slot], g.comm));
            // Chunk c is sent and received: keep this GPU's side of it, while chunk c + 1 travels.
            GPU_CHECK(cudaStreamWaitEvent(g.compute, g.arrived[slot], 0));
            cudaEvent_t k = timer.start(g.compute);
            compare_split_kernel<<<launch_blocks(p.count), 256, 0, g.compute>>>(
                g.keys + p.offset, g.values ? g.values + p.offset : nullptr, in_keys, in_values, p.count, split, false);
            GPU_CHECK_LAUNCH();
            timer.stop(kCompareSplit, k, g.compute);
            GPU_CHECK(cudaEventRecord(g.consumed[slot], g.compute));
        }
        timer.stop(kExchange, t, g.comm);
        *exchange_bytes += spec.layout.per_gpu() * sizeof(uint32_t) * (g.values ? 2 : 1);
#else
        (void)peer;
        (void)split;
        die("an exchange between GPUs needs NCCL, which this build does not have");
#endif
    }
};

// ================================================================================================
// The machine: P GPUs, a thread each.
// ================================================================================================
class Barrier {  // C++17 has no std::barrier
  public:
    explicit Barrier(int n) : n_(n) {}
    void wait() {
        std::unique_lock<std::mutex> lock(m_);
        const uint64_t gen = gen_;
        if (++waiting_ == n_) {
            waiting_ = 0;
            gen_++;
            cv_.notify_all();
        } else {
            cv_.wait(lock, [&] { return gen_ != gen; });
        }
    }

  private:
    std::mutex m_;
    std::condition_variable cv_;
    int n_, waiting_ = 0;
    uint64_t gen_ = 0;
};

// f(gpu, index) on every GPU at once, each on a thread of its own with its device current.
template <typename F>
static void on_each_gpu(std::vector<std::unique_ptr<Gpu>>& gpus, size_t count, F f) {
    std::vector<std::thread> threads;
    for (size_t i = 0; i < count; i++)
        threads.emplace_back([&, i] {
            GPU_CHECK(cudaSetDevice(gpus[i]->device));
            f(*gpus[i], i);
        });
    for (std::thread& t : threads) t.join();
}

struct Machine {
    std::vector<std::unique_ptr<Gpu>> gpus;  // the first P visible devices
    int nccl_version = 0;
    bool has_nccl = false;
};

static void setup_machine(Machine& m, int P) {
    for (int i = 0; i < P; i++) {
        auto g = std::make_unique<Gpu>();
        g->device = i;
        GPU_CHECK(cudaSetDevice(i));
        int least = 0, greatest = 0;  // the communication stream goes first
        GPU_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        GPU_CHECK(cudaStreamCreateWithPriority(&g->compute, cudaStreamNonBlocking, least));
        GPU_CHECK(cudaStreamCreateWithPriority(&g->comm, cudaStreamNonBlocking, greatest));
        for (int s = 0; s < kSlots; s++) {
            GPU_CHECK(cudaEventCreateWithFlags(&g->arrived[s], cudaEventDisableTiming));
            GPU_CHECK(cudaEventCreateWithFlags(&g->consumed[s], cudaEventDisableTiming));
        }
        g->sorter = std::make_unique<bitonic::Sorter>();
        m.gpus.push_back(std::move(g));
    }
#if CH12_HAVE_NCCL
    if (P > 1) {
        // One communicator per GPU, all made here, used by the GPUs' threads.
        std::vector<ncclComm_t> comms(P);
        std::vector<int> devices(P);
        for (int i = 0; i < P; i++) devices[i] = i;
        NCCL_CHECK(ncclCommInitAll(comms.data(), P, devices.data()));
        for (int i = 0; i < P; i++) m.gpus[i]->nccl = comms[i];
        NCCL_CHECK(ncclGetVersion(&m.nccl_version));
        m.has_nccl = true;
        // NCCL connects two GPUs at their first send/recv: do that now, for
        // every pair the schedule uses, outside any timed region.
        on_each_gpu(m.gpus, P, [&](Gpu& g, size_t i) {
            uint32_t* word;
            GPU_CHECK(cudaMalloc(&word, 2 * sizeof(uint32_t)));
            for (int bit = 0; (1 << bit) < P; bit++) {
                const int peer = (int)i ^ (1 << bit);
                NCCL_CHECK(ncclGroupStart());
                NCCL_CHECK(ncclSend(word, 1, ncclUint32, peer, g.nccl, g.comm));
                NCCL_CHECK(ncclRecv(word + 1, 1, ncclUint32, peer, g.nccl, g.comm));
                NCCL_CHECK(ncclGroupEnd());
            }
            GPU_CHECK(cudaStreamSynchronize(g.comm));
            GPU_CHECK(cudaFree(word));
        });
    }
#endif
}

static std::string nccl_text(const Machine& m) {
    const int v = m.nccl_version;  // 2.9 on: major * 10000 + minor * 100 + patch
    if (!m.has_nccl) return "not used";
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

static void teardown_machine(Machine& m) {
    for (auto& g : m.gpus) {
        GPU_CHECK(cudaSetDevice(g->device));
#if CH12_HAVE_NCCL
        if (g->nccl) NCCL_CHECK(ncclCommDestroy(g->nccl));
#endif
        g->sorter.reset();
        for (int s = 0; s < kSlots; s++) {
            GPU_CHECK(cudaEventDestroy(g->arrived[s]));
            GPU_CHECK(cudaEventDestroy(g->consumed[s]));
        }
        GPU_CHECK(cudaStreamDestroy(g->compute));
        GPU_CHECK(cudaStreamDestroy(g->comm));
    }
    m.gpus.clear();
}

// Device memory one GPU needs for a sort (bytes): its array, the receive
// slots, the library's scratch.
static double bytes_needed(const SortSpec& spec, size_t scratch) {
    const double words = spec.pairs ? 2 : 1;
    double b = (double)spec.layout.per_gpu() * 4 * words + (double)scratch + 256.0 * 1048576;  // + a margin
    if (spec.layout.log_gpus > 0) b += (double)kSlots * (double)std::min(spec.chunk, spec.layout.per_gpu()) * 4 * words;
    return b;
}

// Allocates the arrays of a sort on the first P GPUs, and the library's
// scratch; returns "" or why it cannot (memory).
static std::string allocate(Machine& m, const SortSpec& spec) {
    const uint64_t P = spec.layout.gpus();
    for (uint64_t i = 0; i < P; i++) {
        Gpu& g = *m.gpus[i];
        GPU_CHECK(cudaSetDevice(g.device));
        size_t scratch = 0, s1 = 0, s2 = 0;
        check_library(bitonic::scratch_bytes(block_request(spec, true, false), &s1), "scratch_bytes");
        check_library(bitonic::scratch_bytes(block_request(spec, true, true), &s2), "scratch_bytes");
        scratch = std::max(s1, s2);
        size_t free_bytes = 0, total_bytes = 0;
        GPU_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        const double need = bytes_needed(spec, scratch > g.sorter->scratch_allocated() ? scratch : 0);
        if (need > (double)free_bytes) {
            char line[256];
            std::snprintf(line, sizeof line, "it needs %.2f GiB on GPU %d, which has %.2f GiB free of %.2f GiB",
                          need / 1073741824.0, g.device, free_bytes / 1073741824.0, total_bytes / 1073741824.0);
            return line;
        }
        const uint64_t per = spec.layout.per_gpu();
        GPU_CHECK(cudaMalloc(&g.keys, per * sizeof(uint32_t)));
        if (spec.pairs) GPU_CHECK(cudaMalloc(&g.values, per * sizeof(uint32_t)));
        if (P > 1) {
            g.slot_len = std::min(spec.chunk, per);
            GPU_CHECK(cudaMalloc(&g.slot_keys, kSlots * g.slot_len * sizeof(uint32_t)));
            if (spec.pairs) GPU_CHECK(cudaMalloc(&g.slot_values, kSlots * g.slot_len * sizeof(uint32_t)));
        }
        // The library's scratch, now, outside the timed region.
        check_library(g.sorter->reserve(block_request(spec, true, false)), "Sorter::reserve");
        check_library(g.sorter->reserve(block_request(spec, true, true)), "Sorter::reserve");
    }
    return "";
}

static void release(Machine& m, const SortSpec& spec) {
    for (uint64_t i = 0; i < spec.layout.gpus(); i++) {
        Gpu& g = *m.gpus[i];
        GPU_CHECK(cudaSetDevice(g.device));
        for (uint32_t** p : {&g.keys, &g.values, &g.slot_keys, &g.slot_values}) {
            if (*p) GPU_CHECK(cudaFree(*p));
            *p = nullptr;
        }
        g.slot_len = 0;
    }
}

struct InputSpec {
    Input kind = Input::uniform;
    uint32_t seed = 1;
};

// Writes the input into every GPU's array (not timed).
static void fill(Machine& m, const SortSpec& spec, const InputSpec& in) {
    const uint64_t n = spec.layout.total(), per = spec.layout.per_gpu();
    on_each_gpu(m.gpus, spec.layout.gpus(), [&](Gpu& g, size_t i) {
        fill_kernel<<<launch_blocks(per), 256, 0, g.compute>>>(g.keys, g.values, i * per, per, in.kind,
                                                                 sorted_shift(n), in.seed, spec.layout.sub);
        GPU_CHECK_LAUNCH();
        GPU_CHECK(cudaStreamSynchronize(g.compute));
    });
}

// One sort on the first P GPUs of the arrays fill() wrote. Returns each GPU's phases.
static std::vector<Phases> run_sort(Machine& m, const SortSpec& spec) {
    const uint64_t P = spec.layout.gpus();
    std::vector<Phases> phases(P);
    const std::vector<multi_gpu::Step> steps = multi_gpu::schedule(spec.layout.log_ranks());
    Barrier barrier((int)P);
    on_each_gpu(m.gpus, P, [&](Gpu& g, size_t i) {
        Timer timer;
        Phases& ph = phases[i];
        GpuSteps x{g, spec, timer, &ph.exchange_bytes};
        GPU_CHECK(cudaStreamSynchronize(g.compute));
        GPU_CHECK(cudaStreamSynchronize(g.comm));
        barrier.wait();  // every GPU starts together
        cudaEvent_t begin = timer.start(g.compute);
        for (const multi_gpu::Step& step : steps) multi_gpu::run_step(step, spec.layout, i, x);
        cudaEvent_t end = timer.start(g.compute);  // after the last merge, which follows every exchange
        GPU_CHECK(cudaStreamSynchronize(g.compute));
        GPU_CHECK(cudaStreamSynchronize(g.comm));
        float ms = 0;
        GPU_CHECK(cudaEventElapsedTime(&ms, begin, end));
        ph.total = ms;
        GPU_CHECK(cudaEventDestroy(begin));
        GPU_CHECK(cudaEventDestroy(end));
        timer.add_to(&ph);
    });
    return phases;
}

// The run's figures: the slowest GPU's total, sort and merge; the exchange of
// the GPU that spent least on it (the others include waiting for their partner
// to arrive), and what it moved.
static Phases summary(const std::vector<Phases>& per_gpu) {
    Phases s = per_gpu[0];
    for (const Phases& p : per_gpu) {
        s.total = std::max(s.total, p.total);
        s.sort = std::max(s.sort, p.sort);
        s.compare_split = std::max(s.compare_split, p.compare_split);
        s.merge = std::max(s.merge, p.merge);
        s.exchange = std::min(s.exchange, p.exchange);
        s.exchange_bytes = std::max(s.exchange_bytes, p.exchange_bytes);
    }
    return s;
}

// ================================================================================================
// The check, on the CPU.
// ================================================================================================
struct Fingerprint {  // order-free: the sums of two bijective mixes of each (key, value) word
    uint64_t a = 0, b = 0;
    void add(uint32_t key, uint32_t value) {
        const uint64_t w = (uint64_t)key << 32 | value;
        a += mix_a(w);
        b += mix_b(w);
    }
    void add(const Fingerprint& o) {
        a += o.a;
        b += o.b;
    }
    bool operator==(const Fingerprint& o) const { return a == o.a && b == o.b; }
};

// What one stretch of the result looked like, and how stretches join.
struct Stretch {
    uint64_t start = 0;  // global index of its first key
    uint64_t count = 0;
    uint32_t first = 0, last = 0;
    bool sorted = true;
    uint64_t first_bad = 0;  // global index of the first key smaller than the key before it
    Fingerprint print;
    void append(const Stretch& next) {  // `next` follows this stretch
        if (next.count == 0) return;
        if (count == 0) {
            *this = next;
            return;
        }
        if (sorted && last > next.first) {
            sorted = false;
            first_bad = next.start;
        } else if (sorted && !next.sorted) {
            sorted = false;
            first_bad = next.first_bad;
        }
        count += next.count;
        last = next.last;
        print.add(next.print);
    }
};

static unsigned host_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// The input's fingerprint, from its formula, on every core.
static Fingerprint input_fingerprint(uint64_t n, const InputSpec& in, bool pairs) {
    const unsigned T = host_threads();
    std::vector<Fingerprint> parts(T);
    std::vector<std::thread> threads;
    const int shift = sorted_shift(n);
    for (unsigned t = 0; t < T; t++)
        threads.emplace_back([&, t] {
            Fingerprint f;
            for (uint64_t i = n * t / T; i < n * (t + 1) / T; i++)
                f.add(input_key(in.kind, i, shift, in.seed), pairs ? (uint32_t)i : 0u);
            parts[t] = f;
        });
    for (std::thread& t : threads) t.join();
    Fingerprint all;
    for (const Fingerprint& f : parts) all.add(f);
    return all;
}

// Reads count keys (and values) of one GPU back, on `workers` threads, in
// pieces through pinned buffers, and describes them; `base` is the global
// index of the first key.
static Stretch read_back(int device, const uint32_t* keys, const uint32_t* values, uint64_t count, uint64_t base,
                         unsigned workers) {
    std::vector<Stretch> parts(workers);
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < workers; w++)
        threads.emplace_back([&, w] {
            GPU_CHECK(cudaSetDevice(device));
            const uint64_t lo = count * w / workers, hi = count * (w + 1) / workers;
            const uint64_t piece = uint64_t(1) << 20;
            uint32_t *hk = nullptr, *hv = nullptr;
            GPU_CHECK(cudaMallocHost(&hk, piece * sizeof(uint32_t)));
            if (values) GPU_CHECK(cudaMallocHost(&hv, piece * sizeof(uint32_t)));
            Stretch s;
            for (uint64_t o = lo; o < hi; o += piece) {
                const uint64_t len = std::min(piece, hi - o);
                GPU_CHECK(cudaMemcpy(hk, keys + o, len * sizeof(uint32_t), cudaMemcpyDeviceToHost));
                if (values) GPU_CHECK(cudaMemcpy(hv, values + o, len * sizeof(uint32_t), cudaMemcpyDeviceToHost));
                Stretch p;
                p.count = len;
                p.first = hk[0];
                p.last = hk[len - 1];
                p.start = base + o;
                for (uint64_t i = 0; i < len; i++) {
                    if (i > 0 && p.sorted && hk[i - 1] > hk[i]) {
                        p.sorted = false;
                        p.first_bad = base + o + i;
                    }
                    p.print.add(hk[i], values ? hv[i] : 0u);
                }
                s.append(p);
            }
            GPU_CHECK(cudaFreeHost(hk));
            if (hv) GPU_CHECK(cudaFreeHost(hv));
            parts[w] = s;
        });
    for (std::thread& t : threads) t.join();
    Stretch all;
    for (const Stretch& s : parts) all.append(s);
    return all;
}

struct Verdict {
    bool sorted = false, same = false;
    uint64_t first_bad = 0;
    bool ok() const { return sorted && same; }
};

static Verdict check_result(Machine& m, const SortSpec& spec, const Fingerprint& want) {
    const uint64_t P = spec.layout.gpus(), per = spec.layout.per_gpu();
    std::vector<Stretch> parts(P);
    const unsigned workers = std::max(1u, host_threads() / (unsigned)P);
    on_each_gpu(m.gpus, P, [&](Gpu& g, size_t i) {
        parts[i] = read_back(g.device, g.keys, g.values, per, i * per, workers);
    });
    Stretch all;
    for (const Stretch& s : parts) all.append(s);
    Verdict v;
    v.sorted = all.sorted && all.count == spec.layout.total();
    v.first_bad = all.first_bad;
    v.same = all.print == want;
    return v;
}

// ================================================================================================
// CUB's radix sort on one GPU: the reference of the benchmark.
// ================================================================================================
struct CubRun {
    double ms = 0;
    Verdict verdict;
    std::string skipped;  // why not, when it could not run
};
static CubRun cub_reference(Machine& m, uint64_t n, bool pairs, const InputSpec& in, int runs, const Fingerprint& want,
                            std::vector<double>* times) {
    CubRun out;
    Gpu& g = *m.gpus[0];
    GPU_CHECK(cudaSetDevice(g.device));
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
    GPU_CHECK(radix_sort(nullptr, temp_bytes));
    size_t free_bytes = 0, total_bytes = 0;
    GPU_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const double need = (double)n * 4 * 2 * (pairs ? 2 : 1) + (double)temp_bytes;
    if (need > (double)free_bytes) {
        char line[160];
        std::snprintf(line, sizeof line, "needs %.1f GiB, %.1f GiB free", need / 1073741824.0, free_bytes / 1073741824.0);
        out.skipped = line;
        return out;
    }
    uint32_t *k0, *k1, *v0 = nullptr, *v1 = nullptr;
    void* temp = nullptr;
    GPU_CHECK(cudaMalloc(&k0, n * 4));
    GPU_CHECK(cudaMalloc(&k1, n * 4));
    if (pairs) {
        GPU_CHECK(cudaMalloc(&v0, n * 4));
        GPU_CHECK(cudaMalloc(&v1, n * 4));
    }
    GPU_CHECK(cudaMalloc(&temp, std::max<size_t>(temp_bytes, 1)));
    cudaEvent_t start, stop;
    GPU_CHECK(cudaEventCreate(&start));
    GPU_CHECK(cudaEventCreate(&stop));
    const uint32_t* result_keys = nullptr;
    const uint32_t* result_values = nullptr;
    for (int r = 0; r <= runs; r++) {  // run 0 warms up
        fill_kernel<<<launch_blocks(n), 256, 0, g.compute>>>(k0, v0, 0, n, in.kind, sorted_shift(n), in.seed, 0);
        GPU_CHECK_LAUNCH();
        k = cub::DoubleBuffer<uint32_t>(k0, k1);
        v = cub::DoubleBuffer<uint32_t>(v0, v1);
        size_t bytes = temp_bytes;
        GPU_CHECK(cudaEventRecord(start, g.compute));
        GPU_CHECK(radix_sort(temp, bytes));
        GPU_CHECK(cudaEventRecord(stop, g.compute));
        GPU_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        GPU_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (r > 0) times->push_back(ms);
        result_keys = k.Current();
        result_values = pairs ? v.Current() : nullptr;
    }
    const Stretch s = read_back(g.device, result_keys, result_values, n, 0, host_threads());
    out.verdict.sorted = s.sorted && s.count == n;
    out.verdict.first_bad = s.first_bad;
    out.verdict.same = s.print == want;
    GPU_CHECK(cudaEventDestroy(start));
    GPU_CHECK(cudaEventDestroy(stop));
    for (void* p : {(void*)k0, (void*)k1, (void*)v0, (void*)v1, temp})
        if (p) GPU_CHECK(cudaFree(p));
    return out;
}

// ================================================================================================
// The command line.
// ================================================================================================
struct Options {
    bool bench = false;
    int gpus = 0;  // 0: every visible GPU (the largest power of two of them)
    uint64_t n = 0;
    bool pairs = false;
    InputSpec input;
    uint64_t max_block = uint64_t(1) << 31;
    uint64_t chunk = uint64_t(1) << 26;
    std::vector<uint64_t> sizes;
    int runs = 5;
    std::string csv;
};
constexpr int kMaxLogSub = 12;  // at most 4096 blocks on a GPU
constexpr uint64_t kMaxKeys = uint64_t(1) << 36;

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
    o.input.kind = (Input)cl.choice("--input", kInputNames, 0);
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
    "       --bench [--gpus P] [--sizes LIST] [--runs R] [--csv FILE] [--pairs] [--max-block B] [--chunk C]";
static const char* const kDetails =
    "  Sorts n uint32 keys spread evenly over P GPUs with a bitonic network: the sort library\n"
    "  on each GPU, and for each distance that spans GPUs a compare-split of partner GPUs'\n"
    "  arrays exchanged through NCCL. The result is checked on the CPU.\n"
    "  --n N          keys in all, 1 .. 2^36 (decimal, or 2^K); N / P must split into equal blocks\n"
    "  --gpus P       GPUs to use, a power of two, 1 .. 64 (default: every visible GPU, or the\n"
    "                 largest power of two of them); fewer visible than P: exit 77\n"
    "  --pairs        sort (key, value) pairs: a uint32 value (the key's input index) with each key\n"
    "  --input KIND   uniform, few-unique (16 values), sorted, reverse or equal (default uniform)\n"
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

static void print_phases(const Phases& s, uint64_t P) {
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

static std::string verdict_text(const Verdict& v, bool pairs) {
    std::string t = v.sorted ? "in order" : "OUT OF ORDER at key " + std::to_string(v.first_bad);
    t += v.same ? (pairs ? ", the same (key, value) pairs" : ", the same keys")
                : (pairs ? ", NOT the same (key, value) pairs" : ", NOT the same keys");
    return t;
}

static int run_once(Machine& m, const Options& o, int P, const std::string& device_line) {
    SortSpec spec;
    multi_gpu::choose_layout(o.n, multi_gpu::log2_exact((uint64_t)P), o.max_block, kMaxLogSub, &spec.layout);
    spec.pairs = o.pairs;
    spec.chunk = o.chunk;
    const std::string no_room = allocate(m, spec);
    if (!no_room.empty()) {
        std::fflush(stdout);
        std::fprintf(stderr, "bitonic_sort_multi_gpu: skipped: %llu keys do not fit: %s\n", (unsigned long long)o.n,
                     no_room.c_str());
        return ch12::kSkipExitCode;
    }
    fill(m, spec, o.input);
    const std::vector<Phases> per_gpu = run_sort(m, spec);
    const Phases s = summary(per_gpu);
    const Fingerprint want = input_fingerprint(o.n, o.input, o.pairs);
    const Verdict v = check_result(m, spec, want);
    release(m, spec);

    const Layout& L = spec.layout;
    printf("%s\n", device_line.c_str());
    printf("sort:     %llu uint32 keys%s, %s input (seed %u), ascending\n", (unsigned long long)o.n,
           o.pairs ? " with uint32 values" : "", kInputNames[(int)o.input.kind], o.input.seed);
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
    return v.ok() ? 0 : 1;
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

static int run_bench(Machine& m, const Options& o, int P, const std::string& device_line, const std::string& device_name) {
    // The CSV goes to a temporary file beside FILE, renamed over it when all is done and correct.
    cases::SafeOutput out;
    const std::string cannot = out.open(o.csv);
    if (!cannot.empty()) die("bitonic_sort_multi_gpu: --csv: " + cannot);
    g_csv = &out;
    FILE* csv = out.file();
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    std::fprintf(csv, "# %s; %s; %d GPUs; NCCL %s; %s\n", device_name.c_str(), date, P, nccl_text(m).c_str(),
                 o.pairs ? "pairs" : "keys");
    std::fprintf(csv, "n,kind,method,gpus,blocks_per_gpu,block_keys,total_ms,sort_ms,exchange_ms,compare_split_ms,"
                      "merge_ms,exchange_bytes_per_gpu,exchange_gb_per_s,gkeys_per_s,speed_vs_cub,verified\n");
    printf("%s\n", device_line.c_str());
    printf("bitonic sort on 1 and %d GPU%s against CUB's radix sort on one GPU; %s, %s input (seed %u); %s\n",
           P, P == 1 ? "" : "s", o.pairs ? "(key, value) pairs" : "uint32 keys", kInputNames[(int)o.input.kind],
           o.input.seed, date);
    printf("GPU events; the median of %d runs after a warm-up (its phases from the same run); every result checked\n"
           "on the CPU. Phases: the slowest GPU's, the exchange the least-waiting GPU's. vs CUB > 1: faster.\n\n",
           o.runs);
    printf("%12s %-8s %4s %6s %10s %9s %9s %9s %9s %9s %8s %7s  %s\n", "n", "method", "GPUs", "blocks", "total ms",
           "sort ms", "exch ms", "c-s ms", "merge ms", "exch GB/s", "Gkeys/s", "vs CUB", "check");
    bool all_ok = true;
    for (uint64_t n : o.sizes) {
        const Fingerprint want = input_fingerprint(n, o.input, o.pairs);
        std::vector<double> cub_times;
        const CubRun cub = cub_reference(m, n, o.pairs, o.input, o.runs, want, &cub_times);
        const double cub_ms = cub.skipped.empty() ? median(cub_times) : NAN;
        struct Row {
            std::string method;
            int gpus;
            Layout L;
            Phases s;
            Verdict v;
            std::string skipped;
        };
        std::vector<Row> rows;
        for (int p : {1, P}) {
            if (p == P && P == 1 && !rows.empty()) break;
            Row row;
            row.method = "bitonic";
            row.gpus = p;
            SortSpec spec;
            multi_gpu::choose_layout(n, multi_gpu::log2_exact((uint64_t)p), o.max_block, kMaxLogSub, &spec.layout);
            spec.pairs = o.pairs;
            spec.chunk = o.chunk;
            row.L = spec.layout;
            row.skipped = allocate(m, spec);
            if (row.skipped.empty()) {
                std::vector<std::vector<Phases>> runs;
                for (int r = 0; r <= o.runs; r++) {  // run 0 warms up
                    fill(m, spec, o.input);
                    std::vector<Phases> ph = run_sort(m, spec);
                    if (r > 0) runs.push_back(ph);
                }
                std::vector<std::pair<double, size_t>> totals;
                for (size_t r = 0; r < runs.size(); r++) totals.push_back({summary(runs[r]).total, r});
                std::sort(totals.begin(), totals.end());
                row.s = summary(runs[totals[totals.size() / 2].second]);
                row.v = check_result(m, spec, want);
            }
            release(m, spec);
            rows.push_back(row);
        }
        Row c;
        c.method = "cub";
        c.gpus = 1;
        c.L.sub = n;
        c.s.total = cub_ms;
        c.v = cub.verdict;
        c.skipped = cub.skipped;
        rows.push_back(c);
        for (const Row& r : rows) {
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
                all_ok = all_ok && r.v.ok();
            } else {
                printf("%12llu %-8s %4d  skipped: %s\n", (unsigned long long)n, r.method.c_str(), r.gpus, r.skipped.c_str());
            }
            std::fprintf(csv, "%llu,%s,%s,%d,%llu,%llu,%.4f,%.4f,%.4f,%.4f,%.4f,%llu,%.2f,%.4f,%.4f,%s\n",
                         (unsigned long long)n, o.pairs ? "pairs" : "keys", r.method.c_str(), r.gpus,
                         (unsigned long long)(bitonic ? r.L.subs_per_gpu() : 1), (unsigned long long)r.L.sub,
                         ran ? r.s.total : NAN, ran ? r.s.sort : NAN, ran ? r.s.exchange : NAN,
                         ran ? r.s.compare_split : NAN, ran ? r.s.merge : NAN, (unsigned long long)r.s.exchange_bytes, gbs,
                         gkeys, vs, !ran ? "skipped" : r.v.ok() ? "yes" : "no");
        }
        printf("\n");
        std::fflush(stdout);
    }
    g_csv = nullptr;
    if (!all_ok) {
        out.discard();
        printf("CSV not written: some results were wrong (%s left as it was)\n", o.csv.c_str());
    } else {
        const std::string problem = out.commit();
        if (problem.empty()) {
            printf("CSV written to %s\n", o.csv.c_str());
        } else {
            printf("CSV not written: %s\n", problem.c_str());
            all_ok = false;
        }
    }
    printf("every result checked on the CPU: %s\n", all_ok ? "all correct" : "SOME WRONG");
    return all_ok ? 0 : 1;
}

int main(int argc, char** argv) {
    ch12::CommandLine cl(argc, argv, kUsage, kDetails);
    Options o = parse(cl);
    keep_nvls_off(cl);
    if (o.bench) {  // can the CSV be written there? (its temporary file is made after the GPU check)
        const std::string problem = cases::SafeOutput::check(o.csv);
        if (!problem.empty()) cl.fail("--csv: cannot write " + o.csv + ": " + problem);
    }

    // ---- the GPUs: none usable, or fewer than asked: exit 77
    ch12::require_cuda_device(cl.name());
    int visible = 0;
    CUDA_CHECK(cudaGetDeviceCount(&visible));
    int P = o.gpus;
    if (P == 0) {
        P = 1;
        while (P * 2 <= visible && P * 2 <= 64) P *= 2;
        for (uint64_t n : o.sizes) {
            const std::string problem = layout_problem(n, multi_gpu::log2_exact((uint64_t)P), o.max_block);
            if (!problem.empty()) cl.fail((o.bench ? "--sizes on " : "--n on ") + std::to_string(P) + " GPUs: " + problem);
        }
    }
    if (P > visible) {
        std::fprintf(stderr, "%s: skipped: --gpus %d asks for %d GPUs, but this machine has %d usable\n", cl.name(), P, P,
                     visible);
        return ch12::kSkipExitCode;
    }
#if !CH12_HAVE_NCCL
    if (P > 1) {
        std::fprintf(stderr, "%s: skipped: %d GPUs need NCCL, and this build has none (CMake found no nccl.h and "
                     "libnccl: install NCCL, e.g. pip install nvidia-nccl-cu13, and re-run cmake)\n", cl.name(), P);
        return ch12::kSkipExitCode;
    }
#endif

    Machine m;
    setup_machine(m, P);
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::string device_line = "device:   " + std::to_string(P) + " x " + prop.name;
    if (o.gpus == 0 && P < visible) device_line += " (" + std::to_string(P) + " of the " + std::to_string(visible) + " visible: a power of two)";
    if (P > 1) device_line += ", NCCL " + nccl_text(m);
    const int rc = o.bench ? run_bench(m, o, P, device_line, prop.name) : run_once(m, o, P, device_line);
    teardown_machine(m);
    return rc;
}
