// ch12/extras/sort/bitonic_sort.cu -- the library's one translation unit:
// the three designs are compiled here once, and run, test and bench link it.
//
// How a request is carried out:
//   1. The fast design, arrays of at most one tile (65536 words with
//      clusters, 4096 without): one tile kernel reads the caller's arrays,
//      sorts every array in registers and shared memory, writes them back.
//   2. Otherwise the words must be dense -- each array a power of two long,
//      back to back -- and hold raw order bits. Arrays that already are
//      (uint32 keys, ascending, len = P, stride = len) are sorted in place.
//      Dense arrays of other key types or order get their keys turned into
//      order bits in place, and back afterwards. Anything else is copied,
//      padded, into scratch memory and back.
#include "bitonic_sort.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_check.h"
#include "design_chapter.cuh"
#include "design_fast.cuh"
#include "design_workgroup.cuh"
#include "words.cuh"

namespace bitonic {

const DesignInfo kDesigns[] = {
    {Design::chapter, "chapter", "63's kernel at scale: one launch per (k, j), every pass through global memory"},
    {Design::workgroup, "workgroup", "1024-word shared-memory tiles and global steps (the GLSL article's design)"},
    {Design::fast, "fast", "16 words per thread in registers, thread-block clusters, four distances per trip"},
    {Design::fast, nullptr, nullptr},
};

const char* design_name(Design d) {
    for (const DesignInfo* i = kDesigns; i->name; ++i)
        if (i->design == d) return i->name;
    return "?";
}

bool design_by_name(const char* name, Design* out) {
    for (const DesignInfo* i = kDesigns; i->name; ++i)
        if (std::strcmp(i->name, name) == 0) { *out = i->design; return true; }
    return false;
}

const char* key_type_name(KeyType t) {
    switch (t) {
        case KeyType::i32: return "int32";
        case KeyType::f32: return "float";
        default: return "uint32";
    }
}

bool key_type_by_name(const char* name, KeyType* out) {
    for (KeyType t : {KeyType::u32, KeyType::i32, KeyType::f32})
        if (std::strcmp(key_type_name(t), name) == 0) { *out = t; return true; }
    return false;
}

namespace detail {

__global__ void pack_kernel(Planes from, uint32_t* keys, uint32_t* values) {
    for (uint64_t x = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; x < from.total;
         x += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t a;
        if (address_of(from, x, &a)) {
            keys[x] = encode(from.keys[a], from.in);
            if (values && values != from.values) values[x] = from.values[a];
        } else {  // padding: the largest word
            keys[x] = 0xFFFFFFFFu;
            if (values) values[x] = 0xFFFFFFFFu;
        }
    }
}

__global__ void unpack_kernel(const uint32_t* keys, const uint32_t* values, Planes to) {
    for (uint64_t x = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; x < to.total;
         x += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t a;
        if (address_of(to, x, &a)) {
            to.keys[a] = decode(keys[x], to.out);
            if (values && values != to.values) to.values[a] = values[x];
        }
    }
}

static Codec make_codec(KeyType t, Order o) {
    Codec c = kIdentity;
    if (t == KeyType::i32) c.b = 0x80000000u;
    if (t == KeyType::f32) { c.a = 0x7FFFFFFFu; c.b = 0x80000000u; }
    if (o == Order::descending) c.b ^= 0xFFFFFFFFu;
    return c;
}

// What a request takes.
struct Plan {
    bool nothing = false;  // fewer than two keys per array, or no arrays
    uint64_t P = 1;
    int seg_bits = 0;
    uint64_t total = 0;    // count * P
    uint64_t stride = 0;
    bool pairs = false;
    bool fused = false;    // one tile kernel, straight from the caller's arrays
    bool dense = false;    // the caller's arrays are dense: len = P, back to back
    bool raw = false;      // ... and already hold order bits (uint32, ascending)
    Codec codec = kIdentity;
    size_t scratch = 0;    // bytes
};

static Plan make_plan(const Request& r) {
    Plan p;
    p.stride = r.stride ? r.stride : r.len;
    if (r.count == 0 || r.len <= 1) {
        p.nothing = true;
        return p;
    }
    while (p.P < r.len) { p.P *= 2; p.seg_bits++; }
    p.total = (uint64_t)r.count * p.P;
    p.pairs = r.with_values;
    p.codec = make_codec(r.key_type, r.order);
    p.dense = (r.len == p.P) && (r.count == 1 || p.stride == r.len);
    p.raw = p.dense && p.codec.a == 0 && p.codec.b == 0;
    p.fused = (r.design == Design::fast) && p.P <= fast::max_tile_words();
    if (!p.fused && !p.dense) p.scratch = p.total * (p.pairs ? 8 : 4);
    return p;
}

}  // namespace detail

const char* check(const Request& r) {
    const size_t stride = r.stride ? r.stride : r.len;
    if (stride < r.len) return "the stride is shorter than an array";
    if (r.count == 0 || r.len <= 1) return nullptr;
    uint64_t P = 1;
    while (P < r.len) P *= 2;
    if (P > (uint64_t(1) << 31) || (uint64_t)r.count > (uint64_t(1) << 31) / P)
        return "too many keys: count times len rounded up to a power of two must be at most 2^31";
    if ((uint64_t)(r.count - 1) * stride + r.len > (uint64_t(1) << 40))
        return "the batch spans more than 2^40 keys";
    return nullptr;
}

size_t scratch_bytes(const Request& r) {
    if (check(r)) return 0;
    return detail::make_plan(r).scratch;
}

namespace {

template <typename W>
void sort_dense(Design d, const detail::Planes& p, uint32_t P, int seg_bits, cudaStream_t stream) {
    switch (d) {
        case Design::chapter: chapter::sort_dense<W>(p, P, stream); break;
        case Design::workgroup: workgroup::sort_dense<W>(p, P, stream); break;
        case Design::fast: fast::sort_dense<W>(p, seg_bits, stream); break;
    }
}

[[noreturn]] void misuse(const char* what) {
    std::fflush(stdout);
    std::fprintf(stderr, "bitonic::sort: %s\n", what);
    std::exit(1);
}

}  // namespace

void sort(const Request& r, void* d_keys, uint32_t* d_values, void* d_scratch, size_t scratch_size,
          cudaStream_t stream) {
    if (const char* problem = check(r)) misuse(problem);
    const detail::Plan plan = detail::make_plan(r);
    if (plan.nothing) return;
    if (r.with_values && d_values == nullptr) misuse("with_values is set but there is no values array");
    if (((uintptr_t)d_keys | (uintptr_t)(r.with_values ? d_values : nullptr)) & 15)
        misuse("the keys and values must be 16-byte aligned (as cudaMalloc returns them)");
    if (plan.scratch > scratch_size) misuse("the scratch memory is smaller than scratch_bytes() asks for");

    // The caller's arrays, as words.
    detail::Planes user = {};
    user.keys = static_cast<uint32_t*>(d_keys);
    user.values = r.with_values ? d_values : nullptr;
    user.in = user.out = plan.codec;
    user.count = r.count;
    user.stride = plan.stride;
    user.len = (uint32_t)r.len;
    user.seg_bits = plan.seg_bits;
    user.total = plan.total;
    user.dense = plan.dense;
    user.vec = plan.dense;

    if (plan.fused) {
        if (plan.pairs) fast::sort_in_tiles<uint64_t>(user, plan.seg_bits, stream);
        else fast::sort_in_tiles<uint32_t>(user, plan.seg_bits, stream);
        return;
    }

    // Dense planes of raw order bits: the caller's arrays, or scratch.
    detail::Planes work = user;
    work.in = work.out = detail::kIdentity;
    work.stride = plan.P;
    work.len = (uint32_t)plan.P;
    work.dense = work.vec = true;
    if (!plan.dense) {
        work.keys = static_cast<uint32_t*>(d_scratch);
        work.values = plan.pairs ? work.keys + plan.total : nullptr;
    }
    const bool convert = !plan.raw;  // to order bits and back (in place when dense)
    const uint32_t threads = 256;
    const uint32_t blocks = (uint32_t)std::min<uint64_t>((plan.total + threads - 1) / threads, 65535u * 8);
    if (convert) {
        detail::pack_kernel<<<blocks, threads, 0, stream>>>(user, work.keys, work.values);
        CUDA_CHECK_LAUNCH();
    }
    if (plan.pairs) sort_dense<uint64_t>(r.design, work, (uint32_t)plan.P, plan.seg_bits, stream);
    else sort_dense<uint32_t>(r.design, work, (uint32_t)plan.P, plan.seg_bits, stream);
    if (convert) {
        detail::unpack_kernel<<<blocks, threads, 0, stream>>>(work.keys, work.values, user);
        CUDA_CHECK_LAUNCH();
    }
}

Sorter::~Sorter() {
    if (scratch_) cudaFree(scratch_);
}

void Sorter::reserve(const Request& r) {
    const size_t need = scratch_bytes(r);
    if (need <= bytes_) return;
    if (scratch_) CUDA_CHECK(cudaFree(scratch_));
    scratch_ = nullptr;
    bytes_ = 0;
    CUDA_CHECK(cudaMalloc(&scratch_, need));
    bytes_ = need;
}

void Sorter::sort(const Request& r, void* d_keys, uint32_t* d_values, cudaStream_t stream) {
    reserve(r);
    bitonic::sort(r, d_keys, d_values, scratch_, bytes_, stream);
}

namespace fast {

bool clusters_of_16() {
    static int answer = -1;
    if (answer < 0) {
        answer = 0;
        int device = 0, major = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        const char* env = std::getenv("CH12_FAST_NO_CLUSTERS");  // for tuning and tests: tiles of one block
        if (major >= 9 && !(env && env[0] == '1')) {
            auto kernel = tile_kernel<kBlockBits + 4, false, uint32_t>;
            CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
            cudaLaunchConfig_t config = {};
            config.gridDim = dim3(16);
            config.blockDim = dim3(kThreads);
            cudaLaunchAttribute attribute[1];
            attribute[0].id = cudaLaunchAttributeClusterDimension;
            attribute[0].val.clusterDim = {16u, 1u, 1u};
            config.attrs = attribute;
            config.numAttrs = 1;
            int clusters = 0;
            if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) == cudaSuccess && clusters > 0) answer = 1;
            (void)cudaGetLastError();  // a refused size is an answer, not an error
        }
    }
    return answer == 1;
}

}  // namespace fast
}  // namespace bitonic
