// Chapter 12 extra -- the two numbers the tree evaluators' floor is made of,
// measured on this GPU (the README's table puts the floor beside the depth-20
// time):
//
//   tree_memory_probe [--dram-mb M]
//
// * the latency of one dependent load: one thread follows a chain of 16-byte
//   nodes, each holding the index of the next, read through L2 (__ldcg) as
//   the evaluators read their heap -- once in a buffer a quarter of the L2's
//   size (the loads hit L2), once in M megabytes (default 4096: they go to
//   DRAM). The chain visits the nodes in a scrambled order (a full-period
//   linear congruential sequence), so consecutive loads share no line.
// * the bandwidth: a device-to-device copy of half the DRAM buffer, counting
//   the bytes read and the bytes written.
//
// The sort's critical path (its longest chain of calls that wait on each
// other) times the first, and its heap traffic over the second, are the
// floor no evaluator goes under (README.md).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "ch12/status.h"
#include "cli.h"
#include "cuda_check.h"     // require_cuda_device(): no GPU, exit 77
#include "cuda_status.h"    // CH12_TRY of a CUDA call or a launch
#include "device_buffer.h"

namespace {

using ch12::Status;

// next(i) = (i * A + 1) mod n for n a power of two: A = 1 mod 4 makes it visit all n.
constexpr uint64_t kA = 0x5851F42D4C957F2Dull;

__global__ void link(ulonglong2* nodes, uint64_t n) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        nodes[i] = make_ulonglong2((i * kA + 1) & (n - 1), i);
}

__global__ void chase(const ulonglong2* nodes, uint64_t steps, uint64_t* out) {
    uint64_t i = 0;
    for (uint64_t s = 0; s < steps; ++s) i = __ldcg(&nodes[i]).x;
    *out = i;  // keeps the chain
}

// Two events, destroyed on every way out.
struct EventPair {
    cudaEvent_t a = nullptr, b = nullptr;
    ~EventPair() {
        if (a) cudaEventDestroy(a);
        if (b) cudaEventDestroy(b);
    }
    Status create() {
        CH12_TRY(cudaEventCreate(&a));
        CH12_TRY(cudaEventCreate(&b));
        return {};
    }
};

// *ns: nanoseconds per dependent load over `bytes` of nodes (rounded down to a power of two).
Status latency_ns(uint64_t bytes, uint64_t steps, double* ns) {
    uint64_t n = 1;
    while (n * 2 * sizeof(ulonglong2) <= bytes) n *= 2;
    ch12::DeviceBuffer<ulonglong2> nodes;
    ch12::DeviceBuffer<uint64_t> out;
    CH12_TRY(nodes.allocate(n));
    CH12_TRY(out.allocate(1));
    link<<<1024, 256>>>(nodes.get(), n);
    CH12_TRY(ch12::kernel_launch("link launch"));
    chase<<<1, 1>>>(nodes.get(), steps / 10, out.get());  // warm-up: TLB, and the L2 for the small buffer
    CH12_TRY(ch12::kernel_launch("chase launch (warm-up)"));
    EventPair ev;
    CH12_TRY(ev.create());
    CH12_TRY(cudaEventRecord(ev.a));
    chase<<<1, 1>>>(nodes.get(), steps, out.get());
    CH12_TRY(ch12::kernel_launch("chase launch"));
    CH12_TRY(cudaEventRecord(ev.b));
    CH12_TRY(cudaEventSynchronize(ev.b));
    float ms = 0;
    CH12_TRY(cudaEventElapsedTime(&ms, ev.a, ev.b));
    *ns = ms * 1e6 / steps;
    return {};
}

// *gbs: a device-to-device copy of `half` bytes, best of 5, in GB/s of bytes
// read and written.
Status copy_gbs(size_t half, double* gbs) {
    ch12::DeviceBuffer<unsigned char> buffer;
    CH12_TRY(buffer.allocate(2 * half));
    CH12_TRY(cudaMemset(buffer.get(), 1, 2 * half));
    EventPair ev;
    CH12_TRY(ev.create());
    float best = 0;
    for (int r = 0; r < 5; ++r) {
        CH12_TRY(cudaEventRecord(ev.a));
        CH12_TRY(cudaMemcpy(buffer.get() + half, buffer.get(), half, cudaMemcpyDeviceToDevice));
        CH12_TRY(cudaEventRecord(ev.b));
        CH12_TRY(cudaEventSynchronize(ev.b));
        float ms = 0;
        CH12_TRY(cudaEventElapsedTime(&ms, ev.a, ev.b));
        if (r == 0 || ms < best) best = ms;
    }
    *gbs = 2.0 * half / (best * 1e6);
    return {};
}

// The probe: the latencies in L2 and in `dram_bytes`, and the copy over half of it.
Status probe(uint64_t dram_bytes) {
    int device = 0, l2 = 0;
    CH12_TRY(cudaGetDevice(&device));
    CH12_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    cudaDeviceProp prop;
    CH12_TRY(cudaGetDeviceProperties(&prop, device));
    size_t free_bytes = 0, total = 0;
    CH12_TRY(cudaMemGetInfo(&free_bytes, &total));
    if (dram_bytes + (256ull << 20) > free_bytes)
        return ch12::failure(ch12::Errc::cannot_run_here,
                             "skipped: --dram-mb " + std::to_string(dram_bytes >> 20) + " needs more than the " +
                                 std::to_string((unsigned long long)(free_bytes >> 20)) + " MB of GPU memory free");

    const uint64_t small = std::max<uint64_t>(l2 / 4, 1 << 16);
    double l2_ns = 0, dram_ns = 0, gbs = 0;
    CH12_TRY(latency_ns(small, 200000, &l2_ns));
    CH12_TRY(latency_ns(dram_bytes, 200000, &dram_ns));
    const size_t half = dram_bytes / 2;
    CH12_TRY(copy_gbs(half, &gbs));

    std::printf("memory probe on %s\n", prop.name);
    std::printf("dependent 16-byte load, one thread, %.1f MB (L2 holds it): %.0f ns\n", small / 1048576.0, l2_ns);
    std::printf("dependent 16-byte load, one thread, %.0f MB (DRAM): %.0f ns\n", dram_bytes / 1048576.0, dram_ns);
    std::printf("device-to-device copy of %.0f MB: %.0f GB/s (bytes read + bytes written)\n", half / 1048576.0, gbs);
    return {};
}

}  // namespace

int main(int argc, char** argv) {
    ch12::CommandLine cl(argc, argv, "[--dram-mb M]",
                         "  the latency of a dependent 16-byte load (in L2, and in DRAM over M megabytes,\n"
                         "  64 .. 65536, default 4096) and the device-to-device copy bandwidth: the two\n"
                         "  numbers the tree evaluators' floor is made of\n");
    cl.option("--dram-mb");
    cl.parse();
    const uint64_t dram_bytes = cl.number("--dram-mb", 64, 65536, 4096) << 20;
    ch12::require_cuda_device(cl.name());
    return ch12::exit_status(probe(dram_bytes), cl.name());
}
