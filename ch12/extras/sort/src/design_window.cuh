// ch12/extras/sort/src/design_window.cuh -- the window design: the fewest trips
// through global memory, each a window of 2^12 .. 2^15 words over any set of
// index bits (window_core.h explains windows, layouts and directions;
// window_plan.h chooses them).
//
// A large sort is bound by how often it moves its words through global
// memory, not by its comparisons: one array of 2^24 keys takes the fast
// design 21 trips (a tile pass, then per stage its global steps four at a
// time and a tile pass for its tail). A window may hold the low index bits
// together with ANY high ones, so one trip can finish a stage's tail and
// start the next stage's global steps: windows of 2^15 keys sort 2^24 keys
// in 15 trips (2^14: 18).
//
// The kernel below is only the wrapper: it loads a thread's 2^E consecutive
// words (through shared memory, each warp whole 128-byte lines -- 512
// consecutive bytes, or 256 for 32 words a thread in some windows -- where the
// words are dense order bits and the windows whole; else 16-byte loads where
// the words are dense, through the caller's layout and key map where not)
// -- or, where the plan says so, its first layout's words one a register,
// each warp 32 consecutive words --, runs
// window_core.h's run_pass() -- the same function the CPU test runs over
// real arrays -- and stores them back the same way.
// Arrays of up to 2^11 words (and, with clusters, arrays of up to 2^16 in
// small requests) go to the fast design's one-kernel tiles instead, arrays
// shorter than the tuning's window_from (2^20 keys after the cluster tiles,
// 2^22 without: from there the H200 measured the windows faster) to the
// fast design whole, and on a GPU with clusters
// the fast design's tile kernel sorts each 2^16-word tile before the first
// window pass (window::route(), which the trip count asks too).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

#include "design.cuh"
#include "design_fast.cuh"
#include "window_core.h"
#include "window_plan.h"

namespace bitonic {
namespace window {

using detail::Launch;
using detail::Planes;

// The block as one thread sees it (window_core.h's Group): its own registers.
template <typename W, int N>
struct ThreadOfBlock {
    W (&v)[N];
    uint32_t thread;
    uint32_t* shared;
    uint32_t block_base;
    template <class F>
    __device__ __forceinline__ void each(F f) { f(v, thread); }
    __device__ __forceinline__ void sync() { __syncthreads(); }
    __device__ __forceinline__ uint32_t* smem() { return shared; }
};

// ---- loads and stores of the io layout, whole lines a warp -------------------------------
// Where every window is whole and the planes are dense, 16-byte aligned and
// carry no key map (the dense planes of order bits between passes, and the
// caller's arrays when they are dense and their key map is the identity),
// the io layout's words go through shared
// memory (window_core.h's io order): thread t copies chunks t + i * 2^(T-E),
// i < 2^(E-2), whose global indices are block_base | own | part[i].
template <int T, int E>
struct IoChunks {
    static constexpr int kChunks = 1 << (E - 2);
    uint32_t own, part[kChunks];
    __device__ __forceinline__ IoChunks(const Pass& p, uint32_t thread) {
        own = io_chunk_index(p, thread);
        uint32_t bit[E - 2];
#pragma unroll
        for (int b = 0; b < E - 2; ++b) bit[b] = 1u << p.window[T - E + b + 2];
#pragma unroll
        for (int i = 0; i < kChunks; ++i) {
            part[i] = 0;
#pragma unroll
            for (int b = 0; b < E - 2; ++b)
                if ((i >> b) & 1) part[i] |= bit[b];
        }
    }
};

// The window's words into the thread's registers (io layout), through s
// (2^T slots a plane; nothing else uses it yet).
template <int T, int E, typename W>
__device__ __forceinline__ void load_io(const Planes& io, const Pass& pass, uint32_t block_base, uint32_t thread,
                                        W (&v)[1 << E], uint32_t* s) {
    const IoChunks<T, E> ch(pass, thread);
#pragma unroll
    for (int i = 0; i < IoChunks<T, E>::kChunks; ++i) {
        const uint32_t c = thread + ((uint32_t)i << (T - E)), g = block_base | ch.own | ch.part[i];
        const uint32_t at = 4 * io_chunk_place<E>(c);
        *reinterpret_cast<uint4*>(s + at) = *reinterpret_cast<const uint4*>(io.keys + g);
        if constexpr (sizeof(W) == 8)
            *reinterpret_cast<uint4*>(s + (1u << T) + at) = *reinterpret_cast<const uint4*>(io.values + g);
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < (1 << E) / 4; ++q) {
        const uint32_t at = io_slot<E>(thread, 4 * q);
        const uint4 k = *reinterpret_cast<const uint4*>(s + at);
        uint4 x = make_uint4(0, 0, 0, 0);
        if constexpr (sizeof(W) == 8) x = *reinterpret_cast<const uint4*>(s + (1u << T) + at);
        v[4 * q] = from_planes<W>(k.x, x.x), v[4 * q + 1] = from_planes<W>(k.y, x.y);
        v[4 * q + 2] = from_planes<W>(k.z, x.z), v[4 * q + 3] = from_planes<W>(k.w, x.w);
    }
}
// ... and back (the first barrier: every thread's last reads of s are done).
template <int T, int E, typename W>
__device__ __forceinline__ void store_io(const Planes& io, const Pass& pass, uint32_t block_base, uint32_t thread,
                                         const W (&v)[1 << E], uint32_t* s) {
    const IoChunks<T, E> ch(pass, thread);
    __syncthreads();
#pragma unroll
    for (int q = 0; q < (1 << E) / 4; ++q) {
        const uint32_t at = io_slot<E>(thread, 4 * q);
        *reinterpret_cast<uint4*>(s + at) =
            make_uint4(plane_hi(v[4 * q]), plane_hi(v[4 * q + 1]), plane_hi(v[4 * q + 2]), plane_hi(v[4 * q + 3]));
        if constexpr (sizeof(W) == 8)
            *reinterpret_cast<uint4*>(s + (1u << T) + at) =
                make_uint4(plane_lo(v[4 * q]), plane_lo(v[4 * q + 1]), plane_lo(v[4 * q + 2]), plane_lo(v[4 * q + 3]));
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < IoChunks<T, E>::kChunks; ++i) {
        const uint32_t c = thread + ((uint32_t)i << (T - E)), g = block_base | ch.own | ch.part[i];
        const uint32_t at = 4 * io_chunk_place<E>(c);
        *reinterpret_cast<uint4*>(io.keys + g) = *reinterpret_cast<const uint4*>(s + at);
        if constexpr (sizeof(W) == 8)
            *reinterpret_cast<uint4*>(io.values + g) = *reinterpret_cast<const uint4*>(s + (1u << T) + at);
    }
}

// One pass: 2^(T-E) threads of 2^E words; shared memory 2^T words (dynamic).
// Blocks of 512 threads get 128 registers a thread, smaller ones as many
// with 2 or 4 blocks an SM.
template <int T, int E, typename W>
__global__ void __launch_bounds__(1 << (T - E), (1 << (T - E)) >= 512 ? 1 : 512 >> (T - E))
    window_kernel(Planes io, const __grid_constant__ Pass pass) {
    extern __shared__ uint32_t shared[];
    const uint32_t thread = threadIdx.x;
    const uint32_t block_base = block_index(pass, blockIdx.x);
    const uint32_t first = io_index(pass, block_base, thread);  // the thread's 2^E consecutive words
    W v[1 << E];
    // Direct loads and stores only happen in passes over dense planes: every
    // index has a word. With no key map to apply (every pass but a sort's
    // first and last) they are plain loads and stores.
    const bool raw_in = io.dense && is_identity(io.in), raw_out = io.dense && is_identity(io.out);
    // The io layout through shared memory: raw planes, 16-byte aligned, every window whole.
    const bool whole = io.vec && (io.total & ((uint64_t(1) << T) - 1)) == 0;
    if (pass.load_direct && raw_in) {
        for_each_direct<T, E>(pass.direct_load, block_base, thread, [&](int r, uint32_t g) {
            v[r] = detail::make_word<W>(io.keys[g], sizeof(W) == 8 ? io.values[g] : 0u);
        });
    } else if (pass.load_direct) {
        for_each_direct<T, E>(pass.direct_load, block_base, thread,
                              [&](int r, uint32_t g) { v[r] = detail::load_word<W>(io, g); });
    } else if (raw_in && whole) {
        load_io<T, E, W>(io, pass, block_base, thread, v, shared);
    } else {
#pragma unroll
        for (int c = 0; c < (1 << E) / 16; ++c) {
            W part[16];
            detail::load16<W>(io, first + 16 * c, part);
#pragma unroll
            for (int r = 0; r < 16; ++r) v[16 * c + r] = part[r];
        }
    }
    ThreadOfBlock<W, 1 << E> me{v, thread, shared, block_base};
    run_pass<T, E, W>(pass, me);
    if (pass.store_direct && raw_out) {
        for_each_direct<T, E>(pass.direct_store, block_base, thread, [&](int r, uint32_t g) {
            io.keys[g] = plane_hi(v[r]);
            if constexpr (sizeof(W) == 8) io.values[g] = plane_lo(v[r]);
        });
    } else if (pass.store_direct) {
        for_each_direct<T, E>(pass.direct_store, block_base, thread,
                              [&](int r, uint32_t g) { detail::store_word<W>(io, g, v[r]); });
    } else if (raw_out && whole) {
        store_io<T, E, W>(io, pass, block_base, thread, v, shared);
    } else {
#pragma unroll
        for (int c = 0; c < (1 << E) / 16; ++c) {
            W part[16];
#pragma unroll
            for (int r = 0; r < 16; ++r) part[r] = v[16 * c + r];
            detail::store16<W>(io, first + 16 * c, part);
        }
    }
}
static_assert(sizeof(Pass) + sizeof(Planes) <= 4096, "a pass travels as a kernel parameter");

// The dynamic shared memory above 48 KiB is allowed once per device and kernel.
template <int T, int E, typename W>
std::atomic<bool>* smem_allowed() {
    static std::atomic<bool> allowed[detail::kAttributeDevices] = {};
    return allowed;
}

template <int T, int E, typename W>
inline Status launch_pass(const Planes& io, const Pass& p, uint32_t blocks, const Launch& l) {
    auto kernel = window_kernel<T, E, W>;
    const size_t smem = sizeof(W) << T;
    if (smem > 48 * 1024) {
        std::atomic<bool>* allowed = smem_allowed<T, E, W>();
        const bool cached = l.device >= 0 && l.device < detail::kAttributeDevices;
        if (!(cached && allowed[l.device].load(std::memory_order_acquire))) {
            CH12_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
            if (cached) allowed[l.device].store(true, std::memory_order_release);
        }
    }
    kernel<<<blocks, 1 << (T - E), smem, l.stream>>>(io, p);
    CH12_TRY(::ch12::kernel_launch("window: window_kernel launch"));
    return {};
}

// The shapes shape_for() chooses: keys 2^12, 2^13 (32 words a thread),
// 2^14, 2^15 (64); pairs 2^12 .. 2^14 (32).
template <typename W>
inline Status launch_any(const Planes& io, const Pass& p, uint32_t blocks, const Launch& l) {
    if constexpr (sizeof(W) == 4) {
        switch (p.bits * 10 + p.reg_bits) {
            case 125: return launch_pass<12, 5, W>(io, p, blocks, l);
            case 135: return launch_pass<13, 5, W>(io, p, blocks, l);
            case 146: return launch_pass<14, 6, W>(io, p, blocks, l);
            case 156: return launch_pass<15, 6, W>(io, p, blocks, l);
        }
    } else {
        switch (p.bits * 10 + p.reg_bits) {
            case 125: return launch_pass<12, 5, W>(io, p, blocks, l);
            case 135: return launch_pass<13, 5, W>(io, p, blocks, l);
            case 145: return launch_pass<14, 5, W>(io, p, blocks, l);
        }
    }
    return ch12::failure(Errc::unsupported, "window: no kernel for this window shape");
}

// The fast design's tile kernel over tiles of 2^Tuning::fast_tile_bits
// words: stages 1 .. fast_tile_bits of every array (longer than a tile), the
// words left as the network leaves them (directions alternating by the
// tile's bit, nothing complemented) -- where a window plan with presorted > 0
// starts.
template <typename W>
inline Status presort_tiles(const Planes& p, const Launch& l) {
    const uint32_t blocks = (uint32_t)(p.total >> fast::kBlockBits);
    if (l.tuning.fast_tile_bits == fast::kBlockBits + 4)
        return fast::launch_tiles<fast::kBlockBits + 4, true, W>(p, blocks, 0, p.seg_bits, 0, l);
    return fast::launch_tiles<fast::kBlockBits, true, W>(p, blocks, 0, p.seg_bits, 0, l);
}

// Every pass of the plan, in order (after the presort, when the shape has
// one). The caller's key map (codec) applies on the first trip's loads and
// the last one's stores; in between, the words stay order bits (in the
// caller's arrays when they are dense).
template <typename W>
inline Status run_plan(const Planes& p, const Shape& shape, const Launch& l) {
    const char* why = nullptr;
    const std::vector<Pass>* passes = cached_plan(shape, &why);
    if (!passes) return ch12::failure(Errc::unsupported, why);
    if (shape.presorted > 0 && shape.presorted != l.tuning.fast_tile_bits)
        return ch12::failure(Errc::unsupported, "window: a presort other than the fast design's tile");
    const uint32_t blocks = (uint32_t)((p.total + (uint64_t(1) << shape.bits) - 1) >> shape.bits);
    const bool presort = shape.presorted > 0;
    if (presort) {
        Planes io = p;
        if (!passes->empty()) io.out = kIdentity;
        CH12_TRY(presort_tiles<W>(io, l));
    }
    for (size_t i = 0; i < passes->size(); ++i) {
        Planes io = p;
        if (i != 0 || presort) io.in = kIdentity;
        if (i + 1 != passes->size()) io.out = kIdentity;
        CH12_TRY(launch_any<W>(io, (*passes)[i], blocks, l));
    }
    return {};
}

template <typename W>
inline Status carry_out(const Planes& p, const Launch& l, bool fused, bool merge) {
    const Route r = route(l.tuning, (int)sizeof(W), p.seg_bits, p.total, fused, p.dense, merge);
    switch (r.kernel) {
        case Kernel::fast:
            if (merge) return fast::Ops::merge_dense<W>(p, l);
            return fused ? fast::Ops::sort_fused<W>(p, l) : fast::Ops::sort_dense<W>(p, l);
        case Kernel::fast_tile: return fast::sort_in_tiles<W>(p, l);
        case Kernel::window: break;
    }
    return run_plan<W>(p, r.shape, l);
}

struct Ops {
    static uint64_t fused_words(const Tuning& t) { return window::fused_words(t); }
    template <typename W>
    static Status sort_fused(const Planes& p, const Launch& l) { return carry_out<W>(p, l, true, false); }
    template <typename W>
    static Status sort_dense(const Planes& p, const Launch& l) { return carry_out<W>(p, l, false, false); }
    template <typename W>
    static Status merge_dense(const Planes& p, const Launch& l) { return carry_out<W>(p, l, false, true); }
};

}  // namespace window
}  // namespace bitonic
