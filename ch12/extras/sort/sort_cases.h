// ch12/extras/sort/sort_cases.h -- what the sort library's runner,
// tests and benchmark share on the host (no part of the library): the key
// sets of each input kind (ch12/extras/support/input_kinds.h), the batches (bitonic ones
// for merges), and the check of a result against the CPU (std::sort, by the
// library's own order: bitonic/key_types.h). Plain C++: the CPU-only test
// (test_sort_request.cpp) makes batches with it too.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

#include "bitonic/sort_request.h"
#include "bitonic/tuning.h"
#include "input_kinds.h"

namespace cases {

using ch12::Input;  // the one list of input kinds
using ch12::input_name;

// n raw 32-bit keys of the given kind for key type t, from the one generator
// (input_kinds.h: ch12::input_key; key i depends on (kind, type, i, n, seed)
// only).
static_assert((int)ch12::KeyBits::uint32 == (int)bitonic::KeyType::u32 &&
                  (int)ch12::KeyBits::int32 == (int)bitonic::KeyType::i32 &&
                  (int)ch12::KeyBits::float32 == (int)bitonic::KeyType::f32,
              "input_kinds.h's key types are the library's, in its order");
inline std::vector<uint32_t> make_keys(Input kind, bitonic::KeyType t, size_t n, uint32_t seed) {
    std::vector<uint32_t> keys(n);
    for (size_t i = 0; i < n; i++) keys[i] = ch12::input_key(kind, (ch12::KeyBits)t, i, n, seed);
    return keys;
}

// The CPU's answer for one array: keys (and values) sorted by the library's
// order; pairs by (key order, value), the same as any correct order of equal
// keys once compared as multisets.
struct Expected {
    std::vector<uint32_t> keys, values;
};

inline uint32_t order_bits(bitonic::KeyType t, bitonic::Order o, uint32_t key) {
    return bitonic::encode(key, bitonic::codec(t, o));
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

// A batch as the library sees it: count arrays of len keys, array a at
// a * stride, with a sentinel in every gap between arrays and in kGuard words
// after the last, so that a write outside the arrays shows.
constexpr size_t kGuard = 64;
constexpr uint32_t kSentinel = 0xA5A5A5A5u;

struct Batch {
    std::vector<uint32_t> keys, values;  // values: empty unless the request has pairs
    size_t stride = 0, span = 0;         // span: keys from the first array's start to the last's end
};

// Makes one array bitonic in the sort's own order (words: the key's order
// bits, then the value): a random part of it ascending, the rest
// descending after it, the whole rotated by a random amount.
inline void make_bitonic(const bitonic::Request& r, uint32_t* keys, uint32_t* values, size_t len, uint32_t seed) {
    if (len < 2) return;
    std::mt19937 rng(seed ^ 0x5bd1e995u);
    std::vector<std::pair<uint64_t, size_t>> w(len);  // (word, index of its key)
    for (size_t i = 0; i < len; i++)
        w[i] = {(uint64_t)order_bits(r.key_type, r.order, keys[i]) << 32 | (values ? values[i] : 0u), i};
    const size_t up = rng() % (len + 1);  // the ascending part's length
    std::sort(w.begin(), w.begin() + up);
    std::sort(w.begin() + up, w.end(), [](const auto& a, const auto& b) { return a > b; });
    std::rotate(w.begin(), w.begin() + rng() % len, w.end());
    std::vector<uint32_t> k(keys, keys + len), v(values ? values : keys, (values ? values : keys) + len);
    for (size_t i = 0; i < len; i++) {
        keys[i] = k[w[i].second];
        if (values) values[i] = v[w[i].second];
    }
}

// The batch of a request that bitonic::check() accepts, or "" and the reason
// it cannot be made here (more host memory than this machine has). With
// r.bitonic_input every array is made bitonic (make_bitonic).
inline std::string make_batch(const bitonic::Request& r, Input input, uint32_t seed, Batch* out) {
    if (!bitonic::check_request(r).ok()) return "the request is refused by bitonic::check()";
    Batch& b = *out;
    b = Batch{};
    b.stride = r.stride ? r.stride : r.len;
    b.span = r.count == 0 ? 0 : (r.count - 1) * b.stride + r.len;  // <= 2^40: check() says so
    const double bytes = (double)(b.span + kGuard) * 4.0 * (r.with_values ? 2 : 1);
    const double host = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
    if (host > 0 && bytes > host / 2)
        return "the batch needs " + std::to_string((long long)(bytes / 1048576)) + " MiB of host memory, more than half of this machine's " +
               std::to_string((long long)(host / 1048576)) + " MiB";
    try {
        b.keys.assign(b.span + kGuard, kSentinel);
        if (r.with_values) b.values.assign(b.span + kGuard, kSentinel);
    } catch (const std::bad_alloc&) {
        b = Batch{};
        return "not enough host memory for the batch (" + std::to_string((long long)(bytes / 1048576)) + " MiB)";
    }
    // Array a's keys: make_keys(input, r.key_type, r.len, seed + 7919 a), made
    // in pieces of 2^16 on all cores (one big array as well as many small).
    const size_t piece = (size_t)1 << 16, pieces = (r.len + piece - 1) / piece;
    parallel_for(r.count * pieces, [&](size_t w) {
        const size_t a = w / pieces, first = (w % pieces) * piece, last = std::min(r.len, first + piece);
        const uint32_t s = seed + (uint32_t)a * 7919u;
        for (size_t i = first; i < last; i++)
            b.keys[a * b.stride + i] = ch12::input_key(input, (ch12::KeyBits)r.key_type, i, r.len, s);
        if (r.with_values)
            for (size_t i = a * b.stride + first; i < a * b.stride + last; i++) b.values[i] = (uint32_t)(i * 2654435761u) ^ seed;
    });
    if (r.bitonic_input)
        parallel_for(r.count, [&](size_t a) {
            make_bitonic(r, b.keys.data() + a * b.stride, r.with_values ? b.values.data() + a * b.stride : nullptr,
                         r.len, seed + (uint32_t)a * 7919u);
        });
    return "";
}

// What the CPU found in a sorted copy of a batch.
struct Verdict {
    size_t bad_arrays = 0, first_bad = 0;  // arrays not sorted, or not with their own keys (and values)
    std::string first_problem;
    size_t touched = 0, first_touched = 0;  // words outside the arrays that changed
    bool ok() const { return bad_arrays == 0 && touched == 0; }
};

inline Verdict check_batch(const bitonic::Request& r, const Batch& in, const std::vector<uint32_t>& out_keys,
                           const std::vector<uint32_t>& out_values) {
    auto problem = [&](size_t a) {
        const size_t o = a * in.stride;
        return check_array(r.key_type, r.order, in.keys.data() + o, r.with_values ? in.values.data() + o : nullptr,
                           out_keys.data() + o, r.with_values ? out_values.data() + o : nullptr, r.len);
    };
    // Per worker: how many arrays are wrong, and the first.
    constexpr size_t kWorkers = 64;
    std::vector<size_t> bad(kWorkers, 0), first(kWorkers, SIZE_MAX);
    parallel_for(kWorkers, [&](size_t w) {
        for (size_t a = w * r.count / kWorkers; a < (w + 1) * r.count / kWorkers; a++)
            if (!problem(a).empty()) {
                bad[w]++;
                first[w] = std::min(first[w], a);
            }
    });
    Verdict v;
    for (size_t w = 0; w < kWorkers; w++) {
        v.bad_arrays += bad[w];
        if (bad[w] && v.bad_arrays == bad[w]) v.first_bad = first[w];
    }
    if (v.bad_arrays) v.first_problem = problem(v.first_bad);
    for (size_t i = in.keys.size(); i-- > 0;) {
        const bool inside = i < in.span && (i % in.stride) < r.len;
        if (!inside && (out_keys[i] != in.keys[i] || (r.with_values && out_values[i] != in.values[i]))) {
            v.touched++;
            v.first_touched = i;
        }
    }
    return v;
}

// A --window option's value (the benchmark's and the test suite's): the
// window design pinned to one variant, which takes every array its route can
// give the windows (WindowPin::from_bits = 1):
//   auto        the tuning's own window size and presort;
//   BITS        windows of 2^BITS keys (2^(BITS-1) pairs), 13 .. 15, each
//               sort's first stages in a window pass;
//   BITS+tile   the same after the fast design's tile kernel.
// False for anything else.
inline bool window_pin(const std::string& spec, bitonic::WindowPin* out) {
    bitonic::WindowPin pin;
    pin.from_bits = 1;
    if (spec != "auto") {
        const bool tile = spec.size() > 5 && spec.compare(spec.size() - 5, 5, "+tile") == 0;
        const std::string bits = tile ? spec.substr(0, spec.size() - 5) : spec;
        if (bits != "13" && bits != "14" && bits != "15") return false;
        pin.bits = std::stoi(bits);
        pin.presort = tile ? 1 : 0;
    }
    *out = pin;
    return true;
}

// The profile a --window option plans with: `limits` (the device's, already
// lowered by `emulated`, the --profile, when there is one: nothing is
// lowered further) and the pin; named after `emulated`, else "device" on
// `gpu`.
inline bitonic::Profile pinned_profile(const bitonic::Profile* emulated, const bitonic::Limits& limits,
                                       const bitonic::WindowPin& pin, const char* gpu = "this GPU") {
    return bitonic::Profile{emulated ? emulated->name : "device", emulated ? emulated->gpu : gpu, limits, pin};
}

}  // namespace cases
