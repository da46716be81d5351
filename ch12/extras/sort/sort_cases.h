// ch12/extras/sort/sort_cases.h -- what the runner, the tests and the
// benchmark share on the host: the key sets, and the check of a result
// against the CPU (std::sort, by the library's own order, key_order()).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bitonic_sort.cuh"

namespace cases {

enum class Input { uniform, sorted, reverse, equal, few_unique, special };
constexpr const char* kInputNames[] = {"uniform", "sorted", "reverse", "equal", "few-unique", "special", nullptr};
inline const char* input_name(Input i) { return kInputNames[(int)i]; }

// Floats that every float sort must get right: both zeros, both infinities,
// NaNs of both signs (two payloads), denormals, the extremes, and repeats.
inline std::vector<uint32_t> special_float_bits() {
    return {0x00000000u, 0x80000000u,              // +0.0, -0.0
            0x7F800000u, 0xFF800000u,              // +inf, -inf
            0x7FC00000u, 0xFFC00000u,              // quiet NaN, -NaN
            0x7F800001u, 0xFFBFFFFFu,              // signalling NaN payloads
            0x00000001u, 0x80000001u,              // smallest denormals
            0x007FFFFFu, 0x807FFFFFu,              // largest denormals
            0x00800000u, 0x80800000u,              // smallest normals
            0x7F7FFFFFu, 0xFF7FFFFFu,              // largest finite
            0x3F800000u, 0xBF800000u, 0x3F800000u};  // 1.0, -1.0, 1.0 again
}

// n raw 32-bit keys of the given kind for key type t; `seed` drives the random ones.
//   uniform     any 32 bits (floats: random bits, so NaNs and denormals appear too)
//   sorted      ascending in the key type's order, with repeats
//   reverse     descending, with repeats
//   equal       one value, n times
//   few-unique  8 distinct values, shuffled (the largest possible key among them)
//   special     the special floats above (ints: 0, 1, the extremes), shuffled
inline std::vector<uint32_t> make_keys(Input kind, bitonic::KeyType t, size_t n, uint32_t seed) {
    std::vector<uint32_t> keys(n);
    std::mt19937 rng(seed);
    // A key whose order bits are `order` (the inverse of key_order()).
    auto from_order = [t](uint32_t order) -> uint32_t {
        switch (t) {
            case bitonic::KeyType::i32: return order ^ 0x80000000u;
            case bitonic::KeyType::f32: return (order & 0x80000000u) ? (order ^ 0x80000000u) : ~order;
            default: return order;
        }
    };
    switch (kind) {
        case Input::uniform:
            for (auto& k : keys) k = (uint32_t)rng();
            break;
        case Input::sorted:
            for (size_t i = 0; i < n; i++) keys[i] = from_order(0x40000000u + (uint32_t)(i / 3) * 7u + (seed % 5));
            break;
        case Input::reverse:
            for (size_t i = 0; i < n; i++) keys[i] = from_order(0x40000000u + (uint32_t)((n - i) / 3) * 7u + (seed % 5));
            break;
        case Input::equal:
            for (auto& k : keys) k = 0x9E3779B9u ^ seed;
            break;
        case Input::few_unique: {
            uint32_t values[8];
            for (auto& v : values) v = (uint32_t)rng();
            values[7] = from_order(0xFFFFFFFFu);  // the largest key, as a real key
            for (auto& k : keys) k = values[rng() % 8];
            break;
        }
        case Input::special: {
            std::vector<uint32_t> pool = special_float_bits();
            if (t != bitonic::KeyType::f32) pool = {0u, 1u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0x80000001u, 1u};
            for (auto& k : keys) k = pool[rng() % pool.size()];
            break;
        }
    }
    return keys;
}

// The CPU's answer for one array: keys (and values) sorted by the library's
// order; pairs by (key order, value), the same as any correct order of equal
// keys once compared as multisets.
struct Expected {
    std::vector<uint32_t> keys, values;
};

inline uint32_t order_bits(bitonic::KeyType t, bitonic::Order o, uint32_t key) {
    const uint32_t b = bitonic::key_order(t, key);
    return o == bitonic::Order::descending ? ~b : b;
}

// Checks one array of a result: sorted by the requested order; the same
// multiset of keys (or of (key, value) pairs) as the input. Returns "" or
// what is wrong.
inline std::string check_array(bitonic::KeyType t, bitonic::Order o, const uint32_t* in_keys, const uint32_t* in_values,
                               const uint32_t* out_keys, const uint32_t* out_values, size_t len) {
    for (size_t i = 1; i < len; i++)
        if (order_bits(t, o, out_keys[i - 1]) > order_bits(t, o, out_keys[i]))
            return "not sorted at position " + std::to_string(i);
    std::vector<std::pair<uint32_t, uint32_t>> a(len), b(len);
    for (size_t i = 0; i < len; i++) {
        a[i] = {in_keys[i], in_values ? in_values[i] : 0u};
        b[i] = {out_keys[i], out_values ? out_values[i] : 0u};
    }
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b) return in_values ? "the (key, value) pairs are not the input's pairs" : "the keys are not the input's keys";
    return "";
}

// Runs f(i) for i in [0, n) on all cores.
template <typename F>
void parallel_for(size_t n, F f) {
    const size_t workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (size_t w = 0; w < workers; w++)
        pool.emplace_back([&, w] { for (size_t i = w; i < n; i += workers) f(i); });
    for (auto& t : pool) t.join();
}

}  // namespace cases
