// ch12/extras/sort/include/bitonic/key_types.h -- part of the sort library's
// API: what a key type means, written once: its name, and the map between a
// key's 32 bits and the 32 "order bits" whose unsigned order is the key's
// order, both ways. The library uses it in its kernels and on the host; its
// runner, tests and benchmark, and the GLSL host (ch12/extras/glsl), use it
// on the host.
//
// The order of each key type, as an unsigned order of 32 bits:
//   uint32  the key itself;
//   int32   the key with its sign bit flipped;
//   float   IEEE 754's totalOrder,
//             -NaN < -inf < ... < -denormals < -0.0 < +0.0 < +denormals < ... < +inf < +NaN
//           (NaNs by their sign bit, then by payload): a negative float has
//           every bit flipped, a positive one its sign bit set.
// Descending order is ascending order of the complemented bits.
//
// One formula does all of it (a Codec): encode(x) = x ^ (x's sign bit ? a : 0) ^ b,
// two instructions per key in a kernel.
//
// Plain C++17, header-only: g++ compiles it as well as nvcc.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define CH12_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define CH12_HOST_DEVICE inline
#endif

namespace bitonic {

enum class KeyType : int { u32, i32, f32 };
enum class Order : int { ascending, descending };

// The names the programs take and print, in enum order, null-terminated (as
// ch12::CommandLine::choice() takes a list).
constexpr const char* kKeyTypeNames[] = {"uint32", "int32", "float", nullptr};
constexpr const char* kOrderNames[] = {"ascending", "descending", nullptr};
constexpr int kKeyTypeCount = 3;
constexpr int kOrderCount = 2;

inline bool valid(KeyType t) { return (int)t >= 0 && (int)t < kKeyTypeCount; }
inline bool valid(Order o) { return (int)o >= 0 && (int)o < kOrderCount; }
inline const char* key_type_name(KeyType t) { return valid(t) ? kKeyTypeNames[(int)t] : "?"; }
inline const char* order_name(Order o) { return valid(o) ? kOrderNames[(int)o] : "?"; }
inline bool key_type_by_name(const char* name, KeyType* out) {
    for (int i = 0; i < kKeyTypeCount; i++)
        if (std::strcmp(kKeyTypeNames[i], name) == 0) { *out = (KeyType)i; return true; }
    return false;
}

// ---- keys <-> order bits -------------------------------------------------------------
//   uint32: a = 0, b = 0          int32: a = 0, b = 0x80000000
//   float:  a = 0x7FFFFFFF, b = 0x80000000 (negative: every bit flipped;
//           positive: the sign bit set)      descending: b ^= 0xFFFFFFFF
struct Codec {
    uint32_t a, b;
};
constexpr Codec kIdentity = {0u, 0u};

CH12_HOST_DEVICE constexpr Codec codec(KeyType t, Order o) {
    return {t == KeyType::f32 ? 0x7FFFFFFFu : 0u,
            (t == KeyType::u32 ? 0u : 0x80000000u) ^ (o == Order::descending ? 0xFFFFFFFFu : 0u)};
}
CH12_HOST_DEVICE constexpr bool is_identity(Codec c) { return c.a == 0 && c.b == 0; }

CH12_HOST_DEVICE uint32_t encode(uint32_t key, Codec c) {
    return key ^ ((uint32_t)((int32_t)key >> 31) & c.a) ^ c.b;
}
CH12_HOST_DEVICE uint32_t decode(uint32_t order_bits, Codec c) {
    const uint32_t u = order_bits ^ c.b;  // u has the key's sign bit: a never touches bit 31
    return u ^ ((uint32_t)((int32_t)u >> 31) & c.a);
}

// A key's order bits (ascending), and the key whose order bits these are.
CH12_HOST_DEVICE uint32_t to_order(KeyType t, uint32_t key) { return encode(key, codec(t, Order::ascending)); }
CH12_HOST_DEVICE uint32_t from_order(KeyType t, uint32_t order_bits) {
    return decode(order_bits, codec(t, Order::ascending));
}

// A float's 32 bits, and back.
inline uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline float bits_float(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

}  // namespace bitonic
