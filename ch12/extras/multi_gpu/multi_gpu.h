// ch12/extras/multi_gpu/multi_gpu.h -- what the parts of the multi-GPU sort
// share. The program bitonic_sort_multi_gpu is made of:
//   schedule.h          the network at the scale of blocks (plain C++, also
//                       run on the CPU by test_schedule.cpp)
//   communicator.cu     the machine: one thread, two streams, a sorter and an
//                       NCCL communicator per GPU, and how work runs on all
//   exchange.cu         the exchange ring and the schedule on the GPUs: the
//                       input, the library's sorts and merges, compare-splits
//                       in device memory and across GPUs through NCCL
//   check.cu            the result, read back and checked on the CPU
//   benchmark.cu        1 GPU against P GPUs and CUB, a table and a CSV
//   multi_gpu_sort.cu   the command line, one checked sort, and main
// Every part returns the companion's Status (ch12/status.h, CH12_TRY); the
// program's main ends the process on it (see on_each_gpu() for the one
// exception: a GPU that fails while its partners may wait for it in NCCL).
// Device memory lives in ch12::DeviceBuffer, pinned host memory in
// ch12::PinnedBuffer (common/device_buffer.h).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <cuda_runtime.h>
#if CH12_HAVE_NCCL
#include <nccl.h>
#endif

#include "bitonic/bitonic_sort.cuh"
#include "ch12/status.h"
#include "cuda_status.h"
#include "device_buffer.h"
#include "input_kinds.h"
#include "schedule.h"
#include "sort_programs.h"  // SafeOutput::abandon() for a process that must end at once

#if CH12_HAVE_NCCL
namespace ch12 {
// An NCCL call's result as a Status (ncclInProgress: accepted, not failed).
inline Status status_of(ncclResult_t r, const char* call, const char* file, int line) {
    if (r == ncclSuccess || r == ncclInProgress) return {};
    return failure(Errc::nccl,
                   std::string("NCCL error: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " +
                       ncclGetErrorString(r) + " (" + ncclGetLastError(nullptr) + ")",
                   (int)r);
}
}  // namespace ch12
#endif

namespace multi_gpu {

using ch12::Errc;
using ch12::Input;
using ch12::Status;

// ================================================================================================
// The input: a function of the global index, the same on the GPU and the CPU.
// ================================================================================================
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
// Key i of n, of each input kind: the one generator's (ch12::input_key,
// ch12/extras/support/input_kinds.h, key type uint32), called by each GPU's
// threads for their keys and by the CPU for the input's fingerprint.
MULTI_GPU_HD inline uint32_t input_key(Input kind, uint64_t i, uint64_t n, uint32_t seed) {
    return ch12::input_key(kind, ch12::KeyBits::uint32, i, n, seed);
}

struct InputSpec {
    Input kind = Input::uniform;
    uint32_t seed = 1;
};

// ================================================================================================
// The communicator (communicator.cu): the machine, P GPUs, a thread each.
// ================================================================================================
constexpr int kSlots = 3;  // receive buffers of an exchange: chunk c lands in slot c % 3

// One GPU: its streams, its sorter, its NCCL communicator, its arrays.
struct Gpu {
    int device = 0;
    cudaStream_t compute = nullptr, comm = nullptr;
    cudaEvent_t arrived[kSlots] = {}, consumed[kSlots] = {};
    std::unique_ptr<bitonic::Sorter> sorter;
#if CH12_HAVE_NCCL
    ncclComm_t nccl = nullptr;
#endif
    ch12::DeviceBuffer<uint32_t> keys, values;            // this GPU's array (values: pairs only)
    ch12::DeviceBuffer<uint32_t> slot_keys, slot_values;  // kSlots chunks (several GPUs only)
    uint64_t slot_len = 0;
};

struct Machine {
    const char* program = "bitonic_sort_multi_gpu";  // for a failure that must end the process at once
    std::vector<std::unique_ptr<Gpu>> gpus;          // the first P visible devices
    int nccl_version = 0;
    bool has_nccl = false;
};

// The first P GPUs: streams (communication first), events, sorters, and with
// P > 1 the NCCL communicators, every pair the schedule uses connected.
Status setup_machine(Machine& m, int P);
Status teardown_machine(Machine& m);
std::string nccl_text(const Machine& m);  // "2.28.9", or "not used"

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

// f(gpu, index) -> Status on each of the first `count` GPUs at once, each on a
// thread of its own with its device current; the first failure, or ok.
// The one place this program ends the process outside its main: with two or
// more GPUs, one that fails may leave its partners waiting for it inside
// NCCL, where nothing wakes them, and the threads could never be joined. So
// a failure there ends the process at once, with the line and exit status
// main would give it (ch12::exit_status), the benchmark's temporary CSV
// removed first (std::_Exit runs no clean-up).
template <typename F>
Status on_each_gpu(Machine& m, size_t count, F f) {
    std::vector<Status> results(count);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < count; i++)
        threads.emplace_back([&, i] {
            Status s = ch12::status_of(cudaSetDevice(m.gpus[i]->device), "cudaSetDevice(m.gpus[i]->device)",
                                       __FILE__, __LINE__);
            if (s.ok()) s = f(*m.gpus[i], i);
            if (!s.ok() && count > 1) {
                ch12::SafeOutput::abandon();
                std::fflush(stdout);
                std::_Exit(ch12::exit_status(s, m.program));
            }
            results[i] = s;
        });
    for (std::thread& t : threads) t.join();
    for (Status& s : results)
        if (!s.ok()) return s;
    return {};
}

// ================================================================================================
// The exchange ring and the schedule on the GPUs (exchange.cu).
// ================================================================================================
// The time of each phase, on one GPU (milliseconds).
struct Phases {
    double total = 0, sort = 0, exchange = 0, compare_split = 0, merge = 0;
    uint64_t exchange_bytes = 0;  // sent to partners (as much is received)
};

// One sort: the layout of its keys, keys or pairs, and the exchange's chunks.
struct SortSpec {
    Layout layout;
    bool pairs = false;
    uint64_t chunk = 0;  // keys per exchange chunk
};

// Blocks of 256 threads for `count` keys, 8 keys a thread.
unsigned launch_blocks(uint64_t count);
// keys [first, first + count) of the n-key input into keys (and values = index),
// on `stream` (fill_kernel, exchange.cu).
Status launch_fill(uint32_t* keys, uint32_t* values, uint64_t first, uint64_t count, uint64_t n, const InputSpec& in,
                   uint64_t flip_block, cudaStream_t stream);
// The arrays of a sort on the first P GPUs, and the library's scratch;
// *no_room: "" or why it cannot (memory), nothing allocated then.
Status allocate(Machine& m, const SortSpec& spec, std::string* no_room);
void release(Machine& m, const SortSpec& spec);
// The input into every GPU's array (not timed).
Status fill(Machine& m, const SortSpec& spec, const InputSpec& in);
// One sort on the first P GPUs of the arrays fill() wrote: each GPU's phases.
Status run_sort(Machine& m, const SortSpec& spec, std::vector<Phases>* phases);
// The run's figures: the slowest GPU's total, sort and merge; the exchange of
// the GPU that spent least on it, and what it moved.
Phases summary(const std::vector<Phases>& per_gpu);

// ================================================================================================
// The check, on the CPU (check.cu).
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
    void append(const Stretch& next);  // `next` follows this stretch
};

struct Verdict {
    bool sorted = false, same = false;
    uint64_t first_bad = 0;
    bool ok() const { return sorted && same; }
};

unsigned host_threads();
// The input's fingerprint, from its formula, on every core.
Fingerprint input_fingerprint(uint64_t n, const InputSpec& in, bool pairs);
// count keys (and values) of one GPU, read back through pinned memory and
// described; `base` is the global index of the first key.
Status read_back(int device, const uint32_t* keys, const uint32_t* values, uint64_t count, uint64_t base,
                 unsigned workers, Stretch* out);
// Every GPU's array, in order, against the input's fingerprint.
Status check_result(Machine& m, const SortSpec& spec, const Fingerprint& want, Verdict* out);
std::string verdict_text(const Verdict& v, bool pairs);

// ================================================================================================
// The command line (multi_gpu_sort.cu) and the benchmark (benchmark.cu).
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

void print_phases(const Phases& s, uint64_t P);
// --bench: every size on 1 and P GPUs and with CUB, a table and the CSV
// (written only when every result checked); *all_ok says whether they did.
Status run_bench(Machine& m, const Options& o, int P, const std::string& device_line, const std::string& device_name,
                 bool* all_ok);

}  // namespace multi_gpu
