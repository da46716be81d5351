// ch12/extras/sort/src/words.cuh -- what the four designs share: the words
// they sort, how keys become words and back, and where words live.
//
// A word is what one compare-exchange orders with a plain unsigned min/max:
//   keys only:   uint32_t, the key's order bits (encode(), include/bitonic/key_types.h);
//   pairs:       uint64_t, order bits << 32 | value -- the value travels with
//                its key, and equal keys are ordered by value.
// Descending order is ascending order on complemented order bits.
//
// Words live in up to two planes of uint32 (the keys, and the values for
// pairs), addressed by a PADDED index x: array s = x / P holds x at offset
// o = x % P, P = 2^seg_bits the array length rounded up to a power of two.
// A padded index with no key behind it (o >= len, or s >= count) reads as the
// largest word and is never written.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

#include "bitonic/key_types.h"

namespace bitonic {
namespace detail {

// ---- keys <-> order bits: include/bitonic/key_types.h ---------------------------------------
// encode(x) = x ^ (x's sign bit ? a : 0) ^ b, one formula for every key type
// and both orders (a Codec); decode() is its inverse.
using bitonic::Codec;
using bitonic::decode;
using bitonic::encode;
using bitonic::kIdentity;

// ---- where the words live ---------------------------------------------------------
struct Planes {
    uint32_t* keys;
    uint32_t* values;   // pairs only
    Codec in, out;      // applied to keys on load / on store
    uint64_t count;     // arrays
    uint64_t stride;    // keys from one array's start to the next's
    uint32_t len;       // keys per array
    int seg_bits;       // P = 2^seg_bits
    uint64_t total;     // count * P padded indices
    bool dense;         // len == P and stride == P: padded index = address
    bool vec;           // dense, and both planes 16-byte aligned: 16-byte accesses
};

template <typename W> struct Word;
template <> struct Word<uint32_t> { static constexpr uint32_t kMax = 0xFFFFFFFFu; };
template <> struct Word<uint64_t> { static constexpr uint64_t kMax = ~0ull; };

// The address of padded index x, or false when x has no key behind it.
__device__ __forceinline__ bool address_of(const Planes& p, uint64_t x, uint64_t* addr) {
    if (x >= p.total) return false;
    if (p.dense) { *addr = x; return true; }
    const uint64_t s = x >> p.seg_bits;
    const uint32_t o = (uint32_t)(x & ((uint64_t(1) << p.seg_bits) - 1));
    if (o >= p.len) return false;
    *addr = s * p.stride + o;
    return true;
}

template <typename W>
__device__ __forceinline__ W make_word(uint32_t order_bits, uint32_t value) {
    if constexpr (sizeof(W) == 8) return ((uint64_t)order_bits << 32) | value;
    else { (void)value; return order_bits; }
}

template <typename W>
__device__ __forceinline__ W load_word(const Planes& p, uint64_t x) {
    uint64_t a;
    if (!address_of(p, x, &a)) return Word<W>::kMax;
    const uint32_t k = encode(p.keys[a], p.in);
    if constexpr (sizeof(W) == 8) return make_word<W>(k, p.values[a]);
    else return make_word<W>(k, 0);
}

template <typename W>
__device__ __forceinline__ void store_word(const Planes& p, uint64_t x, W w) {
    uint64_t a;
    if (!address_of(p, x, &a)) return;
    if constexpr (sizeof(W) == 8) {
        p.keys[a] = decode((uint32_t)(w >> 32), p.out);
        p.values[a] = (uint32_t)w;
    } else {
        p.keys[a] = decode(w, p.out);
    }
}

// 16 consecutive padded indices x0 .. x0+15 (x0 a multiple of 16): 16-byte
// accesses when they are 16 consecutive real keys, else one at a time.
template <typename W>
__device__ __forceinline__ void load16(const Planes& p, uint64_t x0, W (&v)[16]) {
    if (p.vec && x0 + 16 <= p.total) {
        const uint4* k4 = reinterpret_cast<const uint4*>(p.keys + x0);
        const Codec in = p.in;
#pragma unroll
        for (int m = 0; m < 4; ++m) {
            const uint4 k = k4[m];
            uint4 val = make_uint4(0, 0, 0, 0);
            if constexpr (sizeof(W) == 8) val = reinterpret_cast<const uint4*>(p.values + x0)[m];
            v[4 * m + 0] = make_word<W>(encode(k.x, in), val.x);
            v[4 * m + 1] = make_word<W>(encode(k.y, in), val.y);
            v[4 * m + 2] = make_word<W>(encode(k.z, in), val.z);
            v[4 * m + 3] = make_word<W>(encode(k.w, in), val.w);
        }
        return;
    }
#pragma unroll
    for (int r = 0; r < 16; ++r) v[r] = load_word<W>(p, x0 + r);
}

template <typename W>
__device__ __forceinline__ void store16(const Planes& p, uint64_t x0, const W (&v)[16]) {
    if (p.vec && x0 + 16 <= p.total) {
        uint4* k4 = reinterpret_cast<uint4*>(p.keys + x0);
#pragma unroll
        for (int m = 0; m < 4; ++m) {
            if constexpr (sizeof(W) == 8) {
                k4[m] = make_uint4(decode((uint32_t)(v[4 * m] >> 32), p.out), decode((uint32_t)(v[4 * m + 1] >> 32), p.out),
                                   decode((uint32_t)(v[4 * m + 2] >> 32), p.out), decode((uint32_t)(v[4 * m + 3] >> 32), p.out));
                reinterpret_cast<uint4*>(p.values + x0)[m] =
                    make_uint4((uint32_t)v[4 * m], (uint32_t)v[4 * m + 1], (uint32_t)v[4 * m + 2], (uint32_t)v[4 * m + 3]);
            } else {
                k4[m] = make_uint4(decode(v[4 * m], p.out), decode(v[4 * m + 1], p.out), decode(v[4 * m + 2], p.out),
                                   decode(v[4 * m + 3], p.out));
            }
        }
        return;
    }
#pragma unroll
    for (int r = 0; r < 16; ++r) store_word<W>(p, x0 + r, v[r]);
}

// One compare-exchange, both directions: min and max and two selects.
template <typename W>
__device__ __forceinline__ void compare_exchange(W& x, W& y, bool ascending) {
    const W lo = min(x, y), hi = max(x, y);
    x = ascending ? lo : hi;
    y = ascending ? hi : lo;
}

// The padded copy (bitonic_sort.cu): the caller's arrays -> dense planes of
// order bits (pack), and back (unpack). One thread per padded index.
__global__ void pack_kernel(Planes from, uint32_t* keys, uint32_t* values, bool pad_last);
__global__ void unpack_kernel(const uint32_t* keys, const uint32_t* values, Planes to, const uint32_t* bounds);

}  // namespace detail
}  // namespace bitonic
