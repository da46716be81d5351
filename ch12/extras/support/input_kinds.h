// ch12/extras/support/input_kinds.h -- the one list of input kinds, and the
// one generator of their keys. The list: the names that --input takes in
// every sort program of the companion (the sort library's runner and tests,
// the GLSL host, the multi-GPU sort), in the order their usage texts list
// them. The generator: input_key(), key i of n of a kind, for a seed, on the
// CPU and in a GPU thread alike -- the sort's cases (../sort/sort_cases.h),
// the GLSL host's floats and the multi-GPU sort's keys (made on the GPUs) all
// come from it. The web page makes its floats with the same recipe in
// JavaScript (ch12/web/js/floats.js) and its tests in Python (checklib.py);
// the test input_kinds_languages holds both to this file, key for key.
//
// The table: one kind per line, X(enumerator, "name", "what it is").
#pragma once

#include <stdint.h>

#if defined(__CUDACC__)
#define CH12_INPUT_HD __host__ __device__
#else
#define CH12_INPUT_HD
#endif

#define CH12_INPUT_KINDS(X)                                                                                    \
    X(uniform, "uniform", "random keys: random bits (floats of every class, NaNs and denormals included)")      \
    X(sorted, "sorted", "in ascending order already")                                                           \
    X(reverse, "reverse", "in descending order")                                                                \
    X(equal, "equal", "one key, n times")                                                                       \
    X(few_unique, "few-unique", "8 distinct keys (the largest key of the order one of them), shuffled")                     \
    X(special, "special", "the keys every sort must get right (floats: +-0, +-inf, NaNs, denormals, extremes), shuffled")

namespace ch12 {

enum class Input : int {
#define CH12_INPUT_ENUMERATOR(id, name, what) id,
    CH12_INPUT_KINDS(CH12_INPUT_ENUMERATOR)
#undef CH12_INPUT_ENUMERATOR
};

// The names, in the table's order, null-terminated (as ch12::CommandLine::choice() takes them).
constexpr const char* kInputNames[] = {
#define CH12_INPUT_NAME(id, name, what) name,
    CH12_INPUT_KINDS(CH12_INPUT_NAME)
#undef CH12_INPUT_NAME
    nullptr};
constexpr int kInputCount = (int)(sizeof kInputNames / sizeof kInputNames[0]) - 1;

inline const char* input_name(Input i) { return (int)i >= 0 && (int)i < kInputCount ? kInputNames[(int)i] : "?"; }

// ---- the generator ------------------------------------------------------------------------
// Key i of n (0 <= i < n, n <= 2^40) depends on (kind, key type, i, n, seed)
// only -- no state carried from key to key -- so that any thread on any GPU
// makes its own keys, and every language makes the same ones.
//
// Each kind is made as an *order key*: a uint32 whose unsigned order is the
// key type's order. The key's own 32 bits come from it by the type's
// mapping (order_to_bits): uint32 as it is; int32 with the sign bit flipped;
// float with IEEE 754 totalOrder undone (-NaN < -inf < .. < -0 < +0 < ..
// < +inf < +NaN). Only `special` picks from a list of the type's own bits.
//
//   input_hash(x)      lowbias32 (C. Wellons): x ^= x >> 16; x *= 0x7FEB352D;
//                      x ^= x >> 15; x *= 0x846CA68B; x ^= x >> 16 -- a
//                      bijection of 32 bits; all arithmetic mod 2^32
//   input_random(i, s) c = H(s ^ H(hi ^ 0x85EBCA6B)), then H(H(lo ^ c) + c),
//                      where H = input_hash, lo and hi the two halves of i
//   uniform            random(i, seed): any 32 bits (floats of every class)
//   sorted             runs of three: g = floor(i / 3) >> t, t the least
//                      shift with floor((n - 1) / 3) >> t < 2^31, m that
//                      g for i = n - 1; order key 2^31 - floor((m + 1) / 2)
//                      + g (so the keys straddle the middle of the order:
//                      0 for int32, +-0 and the denormals for floats)
//   reverse            sorted's key n - 1 - i
//   equal              one key: H(seed ^ 0x9E3779B9)
//   few-unique         value j = random(i, seed) mod 8 of eight: value 7 is the
//                      largest order key (2^32 - 1), value j < 7 is
//                      H(j ^ H(seed ^ 0x632BE5AB)), or 2^32 - 2 where that is
//                      2^32 - 1 (eight distinct keys for every seed: the test
//                      tries the seven seeds where it is, found by undoing H)
//   special            entry random(i, seed) mod size of the type's list:
//                      input_special_float() (20 floats), or
//                      input_special_integer() (7 words: 0, 1, the extremes)

enum class KeyBits : int { uint32, int32, float32 };  // the key's type (bitonic::KeyType's order)

CH12_INPUT_HD inline uint32_t input_hash(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

CH12_INPUT_HD inline uint32_t input_random(uint64_t i, uint32_t seed) {
    const uint32_t c = input_hash(seed ^ input_hash((uint32_t)(i >> 32) ^ 0x85EBCA6Bu));
    return input_hash(input_hash((uint32_t)i ^ c) + c);
}

// The floats every float sort must get right, as bits: both zeros, both
// infinities, NaNs of both signs and three payloads, the smallest and
// largest denormals and normals of each sign, 1 and -1.
constexpr int kSpecialFloats = 20;
CH12_INPUT_HD inline uint32_t input_special_float(int j) {
    switch (j) {
        case 0: return 0x00000000u;   // +0.0
        case 1: return 0x80000000u;   // -0.0
        case 2: return 0x7F800000u;   // +inf
        case 3: return 0xFF800000u;   // -inf
        case 4: return 0x7FC00000u;   // quiet NaN
        case 5: return 0xFFC00000u;   // -quiet NaN
        case 6: return 0x7F800001u;   // signalling NaN
        case 7: return 0xFFBFFFFFu;   // -signalling NaN, the largest payload
        case 8: return 0x7FFFFFFFu;   // the largest NaN: the last float of the order
        case 9: return 0x00000001u;   // smallest denormals
        case 10: return 0x80000001u;
        case 11: return 0x007FFFFFu;  // largest denormals
        case 12: return 0x807FFFFFu;
        case 13: return 0x00800000u;  // smallest normals
        case 14: return 0x80800000u;
        case 15: return 0x7F7FFFFFu;  // largest finite
        case 16: return 0xFF7FFFFFu;
        case 17: return 0x3F800000u;  // 1.0
        case 18: return 0xBF800000u;  // -1.0
        default: return 0x3F800000u;  // 1.0 again: a repeat
    }
}
// The integers' list, the same words for uint32 and int32: 0, 1 (twice),
// INT32_MAX, INT32_MIN, INT32_MIN + 1 and UINT32_MAX (-1).
constexpr int kSpecialIntegers = 7;
CH12_INPUT_HD inline uint32_t input_special_integer(int j) {
    switch (j) {
        case 0: return 0u;
        case 1: return 1u;
        case 2: return 0x7FFFFFFFu;
        case 3: return 0x80000000u;
        case 4: return 0xFFFFFFFFu;
        case 5: return 0x80000001u;
        default: return 1u;
    }
}

// An order key as the type's own 32 bits.
CH12_INPUT_HD inline uint32_t order_to_bits(KeyBits type, uint32_t order) {
    switch (type) {
        case KeyBits::int32: return order ^ 0x80000000u;
        case KeyBits::float32: return (order & 0x80000000u) ? (order & 0x7FFFFFFFu) : ~order;
        default: return order;
    }
}

// sorted's order key of key i of n.
CH12_INPUT_HD inline uint32_t input_sorted_order(uint64_t i, uint64_t n) {
    const uint64_t last = n > 0 ? (n - 1) / 3 : 0;
    int t = 0;
    while ((last >> t) >= 0x80000000ull) t++;
    const uint64_t m = last >> t;
    return 0x80000000u - (uint32_t)((m + 1) / 2) + (uint32_t)((i / 3) >> t);
}

// Key i of n of the kind, as the type's 32 bits (see above).
CH12_INPUT_HD inline uint32_t input_key(Input kind, KeyBits type, uint64_t i, uint64_t n, uint32_t seed) {
    switch (kind) {
        case Input::uniform: return order_to_bits(type, input_random(i, seed));
        case Input::sorted: return order_to_bits(type, input_sorted_order(i, n));
        case Input::reverse: return order_to_bits(type, input_sorted_order(n - 1 - i, n));
        case Input::equal: return order_to_bits(type, input_hash(seed ^ 0x9E3779B9u));
        case Input::few_unique: {
            const uint32_t j = input_random(i, seed) % 8u;
            uint32_t v = 0xFFFFFFFFu;
            if (j < 7u) {
                v = input_hash(j ^ input_hash(seed ^ 0x632BE5ABu));
                if (v == 0xFFFFFFFFu) v = 0xFFFFFFFEu;  // (never value 7's: eight keys, always)
            }
            return order_to_bits(type, v);
        }
        case Input::special:
        default:
            return type == KeyBits::float32 ? input_special_float((int)(input_random(i, seed) % kSpecialFloats))
                                            : input_special_integer((int)(input_random(i, seed) % kSpecialIntegers));
    }
}

}  // namespace ch12
