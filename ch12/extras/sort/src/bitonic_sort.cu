// ch12/extras/sort/src/bitonic_sort.cu -- the library's one CUDA translation
// unit: the designs are compiled here once, and run, test and bench link it.
//
// How a request is carried out (the plan: sort_request.cpp):
//   1. A design with a fused sort (fast), arrays of at most one tile (65536
//      words with clusters, 4096 without), a sort: one tile kernel reads the
//      caller's arrays, sorts every array in registers and shared memory,
//      writes them back.
//   2. Otherwise the words must be dense -- each array a power of two long,
//      back to back -- and hold raw order bits. Arrays that already are
//      (uint32 keys, ascending, len = P, stride = len) are sorted in place.
//      Dense arrays of other key types or order get their keys turned into
//      order bits in place, and back afterwards. Anything else is copied,
//      padded, into scratch memory and back.
//   3. A merge (bitonic input) is step 2 with the design's last stage only.
//      Padding an array with the largest word would break its bitonic shape;
//      copies of its last word keep it (a flat run beside that word), and
//      the unpack leaves exactly that many copies out again.
#include "bitonic/bitonic_sort.cuh"

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>

#include "design.cuh"
#include "device_buffer.h"  // the Sorter's scratch: ch12::DeviceBuffer
#include "words.cuh"
// The designs: one header each (and one line of BITONIC_DESIGNS).
#include "design_chapter.cuh"
#include "design_fast.cuh"
#include "design_workgroup.cuh"
#include "design_window.cuh"

namespace bitonic {

// ---- the designs' table -------------------------------------------------------------
#define BITONIC_DESIGN_INFO(name, what) {Design::name, #name, what},
const DesignInfo kDesigns[] = {BITONIC_DESIGNS(BITONIC_DESIGN_INFO){Design::fast, nullptr, nullptr}};
#undef BITONIC_DESIGN_INFO

namespace {

using detail::Launch;
using detail::Planes;
using Run = Status (*)(const Planes&, const Launch&);

// One row per design, built from its Ops: [0] keys (uint32 words), [1] pairs (uint64).
struct DesignRow {
    uint64_t (*fused_words)(const Tuning&);
    Run sort_fused[2], sort_dense[2], merge_dense[2];
};
template <class Ops>
constexpr DesignRow row() {
    return {&Ops::fused_words,
            {&Ops::template sort_fused<uint32_t>, &Ops::template sort_fused<uint64_t>},
            {&Ops::template sort_dense<uint32_t>, &Ops::template sort_dense<uint64_t>},
            {&Ops::template merge_dense<uint32_t>, &Ops::template merge_dense<uint64_t>}};
}
#define BITONIC_DESIGN_ROW(name, what) row<name::Ops>(),
const DesignRow kRows[] = {BITONIC_DESIGNS(BITONIC_DESIGN_ROW)};
#undef BITONIC_DESIGN_ROW
static_assert(sizeof kRows / sizeof kRows[0] == sizeof kDesigns / sizeof kDesigns[0] - 1, "one row per design");

// ---- the devices' limits, read once per device ---------------------------------------
Status read_limits(int device, Limits* out) {
    int major = 0, minor = 0, sms = 0, threads = 0, optin = 0, per_sm = 0, reserved = 0, clusters = 0;
    CH12_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CH12_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    CH12_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CH12_TRY(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    CH12_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    CH12_TRY(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    CH12_TRY(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
    CH12_TRY(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device));
    Limits l;
    l.cc = major * 10 + minor;
    l.sms = sms;
    l.threads_per_sm = threads;
    l.smem_per_block = (size_t)optin;
    l.smem_per_sm = (size_t)per_sm;
    l.smem_reserved = (size_t)reserved;
    l.max_cluster = 1;
    if (clusters) CH12_TRY(fast::max_cluster(device, l.cc, &l.max_cluster));
    *out = l;
    return {};
}

struct DeviceSlot {
    std::mutex mutex;
    bool ready = false;
    Limits limits;
};
std::once_flag g_slots_once;
std::unique_ptr<DeviceSlot[]> g_slots;
int g_slot_count = 0;

// The current device and its limits: read the first time, kept after (a
// failed read is not kept: it is tried again next time).
Status current_device(int* device, Limits* limits) {
    CH12_TRY(cudaGetDevice(device));
    std::call_once(g_slots_once, [] {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess || n < 0) {
            (void)cudaGetLastError();
            n = 0;
        }
        g_slots.reset(new DeviceSlot[(size_t)n + 1]);
        g_slot_count = n;
    });
    if (*device < 0 || *device >= g_slot_count) return read_limits(*device, limits);
    DeviceSlot& slot = g_slots[*device];
    std::lock_guard<std::mutex> lock(slot.mutex);
    if (!slot.ready) {
        CH12_TRY(read_limits(*device, &slot.limits));
        slot.ready = true;
    }
    *limits = slot.limits;
    return {};
}

// The device, its tuning under the profile, and the plan of a request that
// check() accepted.
struct Context {
    int device = 0;
    Tuning tuning;
    Plan plan;
};
Status prepare(const Request& r, const Profile* profile, Context* c) {
    Limits device;
    CH12_TRY(current_device(&c->device, &device));
    CH12_TRY(tune(lowered(device, profile), &c->tuning));
    if (profile) CH12_TRY(pin_window(profile->window, &c->tuning));
    c->plan = make_plan(r, kRows[(int)r.design].fused_words(c->tuning));
    return {};
}

}  // namespace

namespace detail {

// The padded copy: the caller's arrays -> dense planes of order bits (pack),
// and back (unpack). Padding is the largest word -- or, for a merge
// (pad_last), copies of the array's last word. One thread per padded index.
__global__ void pack_kernel(Planes from, uint32_t* keys, uint32_t* values, bool pad_last) {
    for (uint64_t x = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; x < from.total;
         x += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t a;
        if (address_of(from, x, &a)) {
            keys[x] = encode(from.keys[a], from.in);
            if (values && values != from.values) values[x] = from.values[a];
        } else if (pad_last) {  // x < total: its array s exists, and has len >= 2 keys
            a = (x >> from.seg_bits) * from.stride + (from.len - 1);
            keys[x] = encode(from.keys[a], from.in);
            if (values) values[x] = from.values[a];
        } else {
            keys[x] = 0xFFFFFFFFu;
            if (values) values[x] = 0xFFFFFFFFu;
        }
    }
}

// For a merge padded with copies: where each sorted array's run of its last
// word w ends (the first index whose word is larger), by binary search. The
// unpack leaves the P - len copies just before that index out.
template <typename W>
__global__ void bounds_kernel(Planes user, const uint32_t* keys, const uint32_t* values, uint32_t* bounds) {
    const uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= user.count) return;
    const uint64_t last = s * user.stride + (user.len - 1);
    const W w = make_word<W>(encode(user.keys[last], user.in), sizeof(W) == 8 ? user.values[last] : 0u);
    const uint64_t base = s << user.seg_bits;
    uint64_t lo = 0, hi = uint64_t(1) << user.seg_bits;  // the first index in [lo, hi) whose word > w
    while (lo < hi) {
        const uint64_t mid = (lo + hi) / 2;
        const W m = make_word<W>(keys[base + mid], sizeof(W) == 8 ? values[base + mid] : 0u);
        if (m <= w) lo = mid + 1;
        else hi = mid;
    }
    bounds[s] = (uint32_t)lo;
}

// bounds: null, or (a merge padded with copies) each array's bound above.
__global__ void unpack_kernel(const uint32_t* keys, const uint32_t* values, Planes to, const uint32_t* bounds) {
    for (uint64_t x = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; x < to.total;
         x += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t a;
        if (address_of(to, x, &a)) {
            uint64_t from = x;
            if (bounds) {  // padded index o < len: skip the P - len copies that end at the bound
                const uint64_t s = x >> to.seg_bits, o = x & ((uint64_t(1) << to.seg_bits) - 1);
                const uint64_t pad = (uint64_t(1) << to.seg_bits) - to.len;
                if (o + pad >= bounds[s]) from = x + pad;
            }
            to.keys[a] = decode(keys[from], to.out);
            if (values && values != to.values) to.values[a] = values[from];
        }
    }
}

}  // namespace detail

namespace {

// A request that check() accepted, with arguments that check_call() accepted.
Status run(const Request& r, const Context& c, void* d_keys, uint32_t* d_values, void* d_scratch,
           cudaStream_t stream) {
    const Plan& plan = c.plan;
    const Launch launch{c.tuning, c.device, stream};
    const DesignRow& design = kRows[(int)r.design];
    const int w = plan.pairs ? 1 : 0;

    // The caller's arrays, as words.
    Planes user = {};
    user.keys = static_cast<uint32_t*>(d_keys);
    user.values = plan.pairs ? d_values : nullptr;
    user.in = user.out = plan.codec;
    user.count = r.count;
    user.stride = plan.stride;
    user.len = (uint32_t)r.len;
    user.seg_bits = plan.seg_bits;
    user.total = plan.total;
    user.dense = plan.dense;
    user.vec = plan.dense;
    if (plan.fused) return design.sort_fused[w](user, launch);

    // Dense planes of raw order bits: the caller's arrays, or scratch.
    Planes work = user;
    work.in = work.out = kIdentity;
    work.stride = plan.P;
    work.len = (uint32_t)plan.P;
    work.dense = work.vec = true;
    uint32_t* bounds = nullptr;
    if (!plan.dense) {
        char* scratch = static_cast<char*>(d_scratch);
        work.keys = reinterpret_cast<uint32_t*>(scratch);
        work.values = plan.pairs ? reinterpret_cast<uint32_t*>(scratch + plan.values_offset) : nullptr;
        if (plan.pad_copies) bounds = reinterpret_cast<uint32_t*>(scratch + plan.bounds_offset);
    }
    const bool convert = !plan.raw;  // to order bits and back (in place when dense)
    const uint32_t threads = kStreamThreads;
    const uint32_t blocks = (uint32_t)std::min<uint64_t>((plan.total + threads - 1) / threads, c.tuning.stream_blocks);
    if (convert) {
        detail::pack_kernel<<<blocks, threads, 0, stream>>>(user, work.keys, work.values, plan.pad_copies);
        CH12_TRY(::ch12::kernel_launch("pack_kernel launch"));
    }
    CH12_TRY((plan.merge ? design.merge_dense[w] : design.sort_dense[w])(work, launch));
    if (bounds) {
        const uint32_t b = (uint32_t)((r.count + threads - 1) / threads);
        if (plan.pairs) detail::bounds_kernel<uint64_t><<<b, threads, 0, stream>>>(user, work.keys, work.values, bounds);
        else detail::bounds_kernel<uint32_t><<<b, threads, 0, stream>>>(user, work.keys, work.values, bounds);
        CH12_TRY(::ch12::kernel_launch("bounds_kernel launch"));
    }
    if (convert) {
        detail::unpack_kernel<<<blocks, threads, 0, stream>>>(work.keys, work.values, user, bounds);
        CH12_TRY(::ch12::kernel_launch("unpack_kernel launch"));
    }
    return {};
}

bool nothing_to_do(const Request& r) { return r.count == 0 || r.len <= 1; }

}  // namespace

Status check(const Request& r) { return check_request(r); }

Status device_limits(Limits* out, const Profile* profile) {
    int device = 0;
    Limits l;
    CH12_TRY(current_device(&device, &l));
    *out = lowered(l, profile);
    return {};
}

Status traffic(const Request& r, Traffic* out, const Profile* profile) {
    *out = Traffic{};
    CH12_TRY(check(r));
    if (nothing_to_do(r)) return {};
    Context c;
    CH12_TRY(prepare(r, profile, &c));
    *out = traffic(r, c.plan, c.tuning);
    return {};
}

Status scratch_bytes(const Request& r, size_t* bytes, const Profile* profile) {
    *bytes = 0;
    CH12_TRY(check(r));
    if (nothing_to_do(r)) return {};
    Context c;
    CH12_TRY(prepare(r, profile, &c));
    *bytes = c.plan.scratch;
    return {};
}

Status sort(const Request& r, void* d_keys, uint32_t* d_values, void* d_scratch, size_t scratch_size,
            cudaStream_t stream, const Profile* profile) {
    CH12_TRY(check(r));
    if (nothing_to_do(r)) return {};
    Context c;
    CH12_TRY(prepare(r, profile, &c));
    CH12_TRY(check_call(r, c.plan, d_keys, d_values, d_scratch, scratch_size));
    return run(r, c, d_keys, d_values, d_scratch, stream);
}

// The Sorter's scratch: device memory on one device, grown when a request
// needs more (or needs it on another device).
struct Sorter::Scratch {
    ch12::DeviceBuffer<unsigned char> memory;
    int device = -1;  // where it lives

    // At least `need` bytes on `device` (the current one).
    static Status grow(std::unique_ptr<Scratch>& scratch, size_t need, int on) {
        if (!scratch) scratch.reset(new Scratch);  // a Sorter moved from is empty, and usable again
        return scratch->grow(need, on);
    }
    Status grow(size_t need, int on) {
        if (need == 0 || (need <= memory.size() && on == device)) return {};
        device = -1;
        CH12_TRY(memory.allocate(need));  // the old scratch freed first
        device = on;
        return {};
    }
};

Sorter::Sorter(const Profile* profile) : profile_(profile), scratch_(new Scratch) {}
Sorter::Sorter(Sorter&&) noexcept = default;
Sorter& Sorter::operator=(Sorter&&) noexcept = default;
Sorter::~Sorter() = default;

size_t Sorter::scratch_allocated() const { return scratch_ ? scratch_->memory.size() : 0; }

Status Sorter::reserve(const Request& r) {
    CH12_TRY(check(r));
    if (nothing_to_do(r)) return {};
    Context c;
    CH12_TRY(prepare(r, profile_, &c));
    return Scratch::grow(scratch_, c.plan.scratch, c.device);
}

Status Sorter::sort(const Request& r, void* d_keys, uint32_t* d_values, cudaStream_t stream) {
    CH12_TRY(check(r));
    if (nothing_to_do(r)) return {};
    Context c;
    CH12_TRY(prepare(r, profile_, &c));
    CH12_TRY(Scratch::grow(scratch_, c.plan.scratch, c.device));
    void* scratch = scratch_->memory.get();
    CH12_TRY(check_call(r, c.plan, d_keys, d_values, scratch, scratch_->memory.size()));
    return run(r, c, d_keys, d_values, scratch, stream);
}

namespace fast {

Status max_cluster(int device, int cc, int* out) {
    *out = 1;
    if (cc < 90) return {};
    auto kernel = tile_kernel<kBlockBits + 4, true, uint32_t>;
    cudaFuncAttributes attributes;
    CH12_TRY(cudaFuncGetAttributes(&attributes, kernel));
    if (attributes.ptxVersion < 90) return {};  // compiled for an older GPU: its cluster code is a trap
    *out = 8;                                   // the portable cluster size
    CH12_TRY((configure_tiles<kBlockBits + 4, true, uint32_t>(device, 0)));
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(16);
    config.blockDim = dim3(kThreads);
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim = {16u, 1u, 1u};
    config.attrs = attribute;
    config.numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) == cudaSuccess && clusters > 0) *out = 16;
    (void)cudaGetLastError();  // a refused size is an answer, not an error
    return {};
}

}  // namespace fast
}  // namespace bitonic
