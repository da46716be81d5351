// ch12/extras/multi_gpu/exchange.cu -- the schedule (schedule.h) run on the
// GPUs, and the exchange ring between them. Each GPU's thread walks the same
// list of steps: the library sorts and merges its blocks (one Sorter per
// GPU, ascending or descending as the rank needs); two blocks of the same GPU
// meet in device memory (compare_split_kernel, writing both); two GPUs meet
// through NCCL. That exchange is chunked and overlapped: chunk c travels
// (ncclSend/ncclRecv on the communication stream) while the compare-split of
// chunk c-1 runs (on the compute stream), and chunks land in a ring of
// kSlots = 3 receive buffers, so a GPU needs its array plus three chunks, not
// two arrays; events keep a slot from being refilled before its chunk was
// used. The input is made on each GPU from the global index (fill_kernel),
// and every phase is timed with event pairs read after the run.
#include <algorithm>
#include <string>

#include "multi_gpu.h"

namespace multi_gpu {

// ================================================================================================
// The two kernels of this program (the sorting itself is the library's).
// ================================================================================================
// This GPU's part of the input: keys [first, first + count), values = index.
// flip_block S > 0 (the sort's pairs): the values of an odd block r = index / S,
// which the first sort puts in descending order, stored complemented (schedule.h).
__global__ void fill_kernel(uint32_t* keys, uint32_t* values, uint64_t first, uint64_t count, uint64_t n, Input kind,
                            uint32_t seed, uint64_t flip_block) {
    for (uint64_t x = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; x < count; x += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t i = first + x;
        keys[x] = input_key(kind, i, n, seed);
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

// Blocks of 256 threads, 8 keys a thread: many short blocks rather than a
// few that loop, so that SMs come free all the time and NCCL's kernel (on the
// higher-priority communication stream) gets them while a compare-split runs.
unsigned launch_blocks(uint64_t count) {
    const uint64_t want = (count + 256 * 8 - 1) / (256 * 8);
    return (unsigned)std::max<uint64_t>(1, std::min<uint64_t>(want, 0x7FFFFFFF));
}

Status launch_fill(uint32_t* keys, uint32_t* values, uint64_t first, uint64_t count, uint64_t n, const InputSpec& in,
                   uint64_t flip_block, cudaStream_t stream) {
    fill_kernel<<<launch_blocks(count), 256, 0, stream>>>(keys, values, first, count, n, in.kind, in.seed, flip_block);
    CH12_TRY(ch12::kernel_launch("fill_kernel launch"));
    return {};
}

// ================================================================================================
// The timing of the phases, and the executor of schedule.h's run_step() on one
// GPU (the CPU test has its twin).
// ================================================================================================
enum Phase { kSort, kExchange, kCompareSplit, kMerge };

// Event pairs around the work of each phase, read after the run.
struct Timer {
    struct Mark {
        Phase phase;
        cudaEvent_t start, stop;
    };
    std::vector<Mark> marks;
    static Status start(cudaStream_t s, cudaEvent_t* e) {
        CH12_TRY(cudaEventCreate(e));
        CH12_TRY(cudaEventRecord(*e, s));
        return {};
    }
    Status stop(Phase phase, cudaEvent_t start, cudaStream_t s) {
        cudaEvent_t e;
        CH12_TRY(cudaEventCreate(&e));
        CH12_TRY(cudaEventRecord(e, s));
        marks.push_back({phase, start, e});
        return {};
    }
    Status add_to(Phases* p) {
        for (const Mark& m : marks) {
            float ms = 0;
            CH12_TRY(cudaEventElapsedTime(&ms, m.start, m.stop));
            double* slot[] = {&p->sort, &p->exchange, &p->compare_split, &p->merge};
            *slot[m.phase] += ms;
            CH12_TRY(cudaEventDestroy(m.start));
            CH12_TRY(cudaEventDestroy(m.stop));
        }
        marks.clear();
        return {};
    }
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

// run_step() calls these; the first failure is kept in `status`, and every
// step after it does nothing.
struct GpuSteps {
    Gpu& g;
    const SortSpec& spec;
    Timer& timer;
    uint64_t* exchange_bytes;
    Status status;

    uint32_t* keys(uint64_t b) const { return g.keys.get() + b * spec.layout.sub; }
    uint32_t* values(uint64_t b) const { return g.values.get() ? g.values.get() + b * spec.layout.sub : nullptr; }
    Status library(uint64_t b, bool up, bool bitonic_input, Phase phase) {
        cudaEvent_t t;
        CH12_TRY(Timer::start(g.compute, &t));
        CH12_TRY(g.sorter->sort(block_request(spec, up, bitonic_input), keys(b), values(b), g.compute));
        return timer.stop(phase, t, g.compute);
    }
    void sort(uint64_t b, bool up) {
        if (status.ok()) status = library(b, up, false, kSort);
    }
    void merge(uint64_t b, bool up) {
        if (status.ok()) status = library(b, up, true, kMerge);
    }
    Status local(uint64_t lower, uint64_t upper, const multi_gpu::Split& split) {
        cudaEvent_t t;
        CH12_TRY(Timer::start(g.compute, &t));
        compare_split_kernel<<<launch_blocks(spec.layout.sub), 256, 0, g.compute>>>(
            keys(lower), values(lower), keys(upper), values(upper), spec.layout.sub, split, true);
        CH12_TRY(ch12::kernel_launch("compare_split_kernel launch"));
        return timer.stop(kCompareSplit, t, g.compute);
    }
    void compare_local(uint64_t lower, uint64_t upper, const multi_gpu::Split& split) {
        if (status.ok()) status = local(lower, upper, split);
    }
    Status ring(uint64_t peer, const multi_gpu::Split& split);
    void exchange(uint64_t peer, const multi_gpu::Split& split) {
        if (status.ok()) status = ring(peer, split);
    }
};

// The exchange with GPU `peer`: this GPU's whole array sent, the partner's
// received chunk by chunk into the ring of slots, each chunk compare-split
// on the compute stream while the next one travels.
Status GpuSteps::ring(uint64_t peer, const multi_gpu::Split& split) {
#if CH12_HAVE_NCCL
    // The comm stream starts once this GPU's array is final.
    cudaEvent_t ready;
    CH12_TRY(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    CH12_TRY(cudaEventRecord(ready, g.compute));
    CH12_TRY(cudaStreamWaitEvent(g.comm, ready, 0));
    CH12_TRY(cudaEventDestroy(ready));  // released once recorded and waited on
    cudaEvent_t t;
    CH12_TRY(Timer::start(g.comm, &t));
    uint32_t* const my_values = g.values.get();
    const std::vector<multi_gpu::Chunk> pieces = multi_gpu::chunks(spec.layout.per_gpu(), spec.chunk);
    for (size_t c = 0; c < pieces.size(); c++) {
        const multi_gpu::Chunk& p = pieces[c];
        const int slot = (int)(c % kSlots);
        uint32_t* in_keys = g.slot_keys.get() + slot * g.slot_len;
        uint32_t* in_values = my_values ? g.slot_values.get() + slot * g.slot_len : nullptr;
        // Slot reuse: chunk c - kSlots must have been compare-split.
        if (c >= (size_t)kSlots) CH12_TRY(cudaStreamWaitEvent(g.comm, g.consumed[slot], 0));
        CH12_TRY(ncclGroupStart());
        CH12_TRY(ncclSend(g.keys.get() + p.offset, p.count, ncclUint32, (int)peer, g.nccl, g.comm));
        CH12_TRY(ncclRecv(in_keys, p.count, ncclUint32, (int)peer, g.nccl, g.comm));
        if (my_values) {
            CH12_TRY(ncclSend(my_values + p.offset, p.count, ncclUint32, (int)peer, g.nccl, g.comm));
            CH12_TRY(ncclRecv(in_values, p.count, ncclUint32, (int)peer, g.nccl, g.comm));
        }
        CH12_TRY(ncclGroupEnd());
        CH12_TRY(cudaEventRecord(g.arrived[slot], g.comm));
        // Chunk c is sent and received: keep this GPU's side of it, while chunk c + 1 travels.
        CH12_TRY(cudaStreamWaitEvent(g.compute, g.arrived[slot], 0));
        cudaEvent_t k;
        CH12_TRY(Timer::start(g.compute, &k));
        compare_split_kernel<<<launch_blocks(p.count), 256, 0, g.compute>>>(
            g.keys.get() + p.offset, my_values ? my_values + p.offset : nullptr, in_keys, in_values, p.count, split,
            false);
        CH12_TRY(ch12::kernel_launch("compare_split_kernel launch"));
        CH12_TRY(timer.stop(kCompareSplit, k, g.compute));
        CH12_TRY(cudaEventRecord(g.consumed[slot], g.compute));
    }
    CH12_TRY(timer.stop(kExchange, t, g.comm));
    *exchange_bytes += spec.layout.per_gpu() * sizeof(uint32_t) * (my_values ? 2 : 1);
    return {};
#else
    (void)peer;
    (void)split;
    return ch12::failure(Errc::failed, "an exchange between GPUs needs NCCL, which this build does not have");
#endif
}

// ================================================================================================
// A sort's arrays, its input, and the sort itself.
// ================================================================================================
// Device memory one GPU needs for a sort (bytes): its array, the receive
// slots, the library's scratch.
static double bytes_needed(const SortSpec& spec, size_t scratch) {
    const double words = spec.pairs ? 2 : 1;
    double b = (double)spec.layout.per_gpu() * 4 * words + (double)scratch + 256.0 * 1048576;  // + a margin
    if (spec.layout.log_gpus > 0) b += (double)kSlots * (double)std::min(spec.chunk, spec.layout.per_gpu()) * 4 * words;
    return b;
}

Status allocate(Machine& m, const SortSpec& spec, std::string* no_room) {
    no_room->clear();
    const uint64_t P = spec.layout.gpus();
    for (uint64_t i = 0; i < P; i++) {
        Gpu& g = *m.gpus[i];
        CH12_TRY(cudaSetDevice(g.device));
        size_t scratch = 0, s1 = 0, s2 = 0;
        CH12_TRY(bitonic::scratch_bytes(block_request(spec, true, false), &s1));
        CH12_TRY(bitonic::scratch_bytes(block_request(spec, true, true), &s2));
        scratch = std::max(s1, s2);
        size_t free_bytes = 0, total_bytes = 0;
        CH12_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
        const double need = bytes_needed(spec, scratch > g.sorter->scratch_allocated() ? scratch : 0);
        if (need > (double)free_bytes) {
            char line[256];
            std::snprintf(line, sizeof line, "it needs %.2f GiB on GPU %d, which has %.2f GiB free of %.2f GiB",
                          need / 1073741824.0, g.device, free_bytes / 1073741824.0, total_bytes / 1073741824.0);
            *no_room = line;
            return {};
        }
        const uint64_t per = spec.layout.per_gpu();
        CH12_TRY(g.keys.allocate(per));
        if (spec.pairs) CH12_TRY(g.values.allocate(per));
        if (P > 1) {
            g.slot_len = std::min(spec.chunk, per);
            CH12_TRY(g.slot_keys.allocate(kSlots * g.slot_len));
            if (spec.pairs) CH12_TRY(g.slot_values.allocate(kSlots * g.slot_len));
        }
        // The library's scratch, now, outside the timed region.
        CH12_TRY(g.sorter->reserve(block_request(spec, true, false)));
        CH12_TRY(g.sorter->reserve(block_request(spec, true, true)));
    }
    return {};
}

void release(Machine& m, const SortSpec& spec) {
    for (uint64_t i = 0; i < spec.layout.gpus(); i++) {
        Gpu& g = *m.gpus[i];
        for (ch12::DeviceBuffer<uint32_t>* b : {&g.keys, &g.values, &g.slot_keys, &g.slot_values}) b->release();
        g.slot_len = 0;
    }
}

Status fill(Machine& m, const SortSpec& spec, const InputSpec& in) {
    const uint64_t n = spec.layout.total(), per = spec.layout.per_gpu();
    return on_each_gpu(m, spec.layout.gpus(), [&](Gpu& g, size_t i) -> Status {
        CH12_TRY(launch_fill(g.keys.get(), g.values.get(), i * per, per, n, in, spec.layout.sub, g.compute));
        CH12_TRY(cudaStreamSynchronize(g.compute));
        return {};
    });
}

Status run_sort(Machine& m, const SortSpec& spec, std::vector<Phases>* phases) {
    const uint64_t P = spec.layout.gpus();
    phases->assign(P, Phases{});
    const std::vector<multi_gpu::Step> steps = multi_gpu::schedule(spec.layout.log_ranks());
    Barrier barrier((int)P);
    return on_each_gpu(m, P, [&](Gpu& g, size_t i) -> Status {
        Timer timer;
        Phases& ph = (*phases)[i];
        GpuSteps x{g, spec, timer, &ph.exchange_bytes, {}};
        CH12_TRY(cudaStreamSynchronize(g.compute));
        CH12_TRY(cudaStreamSynchronize(g.comm));
        barrier.wait();  // every GPU starts together
        cudaEvent_t begin, end;
        CH12_TRY(Timer::start(g.compute, &begin));
        for (const multi_gpu::Step& step : steps) multi_gpu::run_step(step, spec.layout, i, x);
        CH12_TRY(x.status);
        CH12_TRY(Timer::start(g.compute, &end));  // after the last merge, which follows every exchange
        CH12_TRY(cudaStreamSynchronize(g.compute));
        CH12_TRY(cudaStreamSynchronize(g.comm));
        float ms = 0;
        CH12_TRY(cudaEventElapsedTime(&ms, begin, end));
        ph.total = ms;
        CH12_TRY(cudaEventDestroy(begin));
        CH12_TRY(cudaEventDestroy(end));
        return timer.add_to(&ph);
    });
}

Phases summary(const std::vector<Phases>& per_gpu) {
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

}  // namespace multi_gpu
