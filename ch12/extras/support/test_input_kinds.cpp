// ch12/extras/support/test_input_kinds.cpp -- the one generator of the input
// kinds (input_kinds.h: ch12::input_key), on the CPU: each kind is what the
// list says it is, for every key type, from one key to 2^36 keys.
//
//   input_kinds_test           the checks; "input kinds test: all passed"
//   input_kinds_test --table   the keys that the other languages' generators
//                              must make too (ch12/web/js/floats.js and the
//                              page tests' checklib.py, floats only): one line
//                              "kind type n seed i bits" per key, bits in hex.
//                              The test input_kinds_languages compares.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "check.h"
#include "cli.h"
#include "input_kinds.h"

using ch12::Input;
using ch12::KeyBits;

static const char* const kTypeNames[] = {"uint32", "int32", "float32"};
static const KeyBits kTypes[] = {KeyBits::uint32, KeyBits::int32, KeyBits::float32};

// A key's place in its type's order (the inverse of ch12::order_to_bits).
static uint32_t order_of(KeyBits t, uint32_t bits) {
    if (t == KeyBits::int32) return bits ^ 0x80000000u;
    if (t == KeyBits::float32) return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
    return bits;
}

static std::string where(Input kind, KeyBits t, uint64_t n, uint32_t seed) {
    return std::string(ch12::input_name(kind)) + ", " + kTypeNames[(int)t] + ", n " + std::to_string(n) + ", seed " +
           std::to_string(seed);
}

// The keys at i = 0 .. 40, around the middle and the end, and 64 spread over [0, n).
static std::vector<uint64_t> sample_positions(uint64_t n) {
    std::set<uint64_t> at;
    for (uint64_t i = 0; i < 40 && i < n; i++) at.insert(i);
    for (uint64_t d = 0; d < 8 && d < n; d++) {
        at.insert(n - 1 - d);
        if (n / 2 + d < n) at.insert(n / 2 + d);
    }
    for (uint64_t k = 0; k < 64; k++) at.insert(n / 64 * k + k % 3 < n ? n / 64 * k + k % 3 : n - 1);
    return std::vector<uint64_t>(at.begin(), at.end());
}

static void check_kind(ch12::Checks& check, Input kind, KeyBits t, uint64_t n, uint32_t seed) {
    const std::string w = where(kind, t, n, seed);
    const bool whole = n <= (1u << 20);
    std::vector<uint64_t> at;
    if (whole)
        for (uint64_t i = 0; i < n; i++) at.push_back(i);
    else
        at = sample_positions(n);
    std::vector<uint32_t> keys;
    for (uint64_t i : at) keys.push_back(ch12::input_key(kind, t, i, n, seed));
    // The same key every time it is asked for (no state between keys).
    bool again = true;
    for (size_t k = 0; k < at.size(); k += 97) again = again && ch12::input_key(kind, t, at[k], n, seed) == keys[k];
    check(again, w + ": a key asked for again is the same key");
    switch (kind) {
        case Input::sorted:
        case Input::reverse: {
            bool ordered = true, runs_of_three = true;
            for (size_t k = 1; k < keys.size(); k++) {
                const uint32_t a = order_of(t, keys[k - 1]), b = order_of(t, keys[k]);
                ordered = ordered && (kind == Input::sorted ? a <= b : a >= b);
                if (whole && n <= 0x7FFFFFFFu * 3ull) {
                    const uint64_t i = at[k];
                    const bool step = kind == Input::sorted ? i % 3 == 0 : (n - 1 - i) % 3 == 2;
                    runs_of_three = runs_of_three && (step ? b != a : b == a);
                }
            }
            check(ordered, w + (kind == Input::sorted ? ": ascending" : ": descending") + " in the type's order");
            check(runs_of_three, w + ": each key three times (the runs start at key 0 of the ascending order)");
            const uint32_t first = order_of(t, ch12::input_key(Input::sorted, t, 0, n, seed)),
                           last = order_of(t, ch12::input_key(Input::sorted, t, n - 1, n, seed));
            check(first <= 0x80000000u && last >= 0x7FFFFFFFu && (n < 6 || last > first),
                  w + ": the keys straddle the middle of the order (0, +-0)");
            break;
        }
        case Input::equal:
            check(std::all_of(keys.begin(), keys.end(), [&](uint32_t k) { return k == keys[0]; }), w + ": one key");
            break;
        case Input::few_unique: {
            const std::set<uint32_t> distinct(keys.begin(), keys.end());
            check(distinct.size() <= 8, w + ": at most 8 keys, " + std::to_string(distinct.size()) + " seen");
            if (n >= 1000) {
                check(distinct.size() == 8, w + ": all 8 keys among those looked at");
                check(distinct.count(ch12::order_to_bits(t, 0xFFFFFFFFu)) == 1, w + ": the largest key of the order among them");
            }
            break;
        }
        case Input::special: {
            std::set<uint32_t> pool;
            const int size = t == KeyBits::float32 ? ch12::kSpecialFloats : ch12::kSpecialIntegers;
            for (int j = 0; j < size; j++)
                pool.insert(t == KeyBits::float32 ? ch12::input_special_float(j) : ch12::input_special_integer(j));
            check(std::all_of(keys.begin(), keys.end(), [&](uint32_t k) { return pool.count(k) == 1; }),
                  w + ": every key from the type's list");
            if (whole && n >= 1000)
                check(std::set<uint32_t>(keys.begin(), keys.end()) == pool, w + ": every key of the list appears");
            break;
        }
        case Input::uniform: {
            int ones[32] = {};
            for (uint32_t k : keys)
                for (int b = 0; b < 32; b++) ones[b] += (k >> b) & 1;
            bool balanced = keys.size() < 10000;
            if (!balanced) {
                balanced = true;
                for (int b = 0; b < 32; b++)
                    balanced = balanced && ones[b] > (int)keys.size() * 45 / 100 && ones[b] < (int)keys.size() * 55 / 100;
            }
            check(balanced, w + ": each of the 32 bits set in 45% to 55% of the keys");
            if (n >= 100) {
                uint32_t other_seed_same = 0;
                for (uint64_t i = 0; i < 100; i++)
                    other_seed_same += ch12::input_key(kind, t, i, n, seed + 1) == ch12::input_key(kind, t, i, n, seed);
                check(other_seed_same < 3, w + ": another seed, other keys");
            }
            break;
        }
    }
}

// lowbias32 undone (x ^= x >> 16 is its own inverse; x ^= x >> 15 is undone
// by x ^ x >> 15 ^ x >> 30; an odd multiplier by its inverse mod 2^32).
static uint32_t inverse_of_odd(uint32_t c) {
    uint32_t x = c;
    for (int k = 0; k < 5; k++) x *= 2u - c * x;  // (Newton's iteration: 3, 6, 12, 24, 48 bits right)
    return x;
}
static uint32_t unhash(uint32_t y) {
    y ^= y >> 16;
    y *= inverse_of_odd(0x846CA68Bu);
    y ^= (y >> 15) ^ (y >> 30);
    y *= inverse_of_odd(0x7FEB352Du);
    y ^= y >> 16;
    return y;
}
// The seven seeds where a few-unique value j < 7 would be 2^32 - 1, value 7's
// (H(j ^ H(seed ^ 0x632BE5AB)) = 2^32 - 1): the generator makes it 2^32 - 2.
static std::vector<uint32_t> colliding_few_unique_seeds() {
    std::vector<uint32_t> seeds;
    for (uint32_t j = 0; j < 7; j++) seeds.push_back(unhash(unhash(0xFFFFFFFFu) ^ j) ^ 0x632BE5ABu);
    return seeds;
}

// The table the other languages must match: floats and the integers, the
// page's sizes (up to 2^24) and a few seeds, the first keys, the middle and
// the last ones.
static void print_table() {
    const uint64_t sizes[] = {1, 2, 3, 7, 1000, 1024, 100003, 1u << 24};
    std::vector<uint32_t> seeds = {0, 1, 12, 0xFFFFFFFFu};
    for (uint32_t s : colliding_few_unique_seeds()) seeds.push_back(s);
    for (int k = 0; k < ch12::kInputCount; k++)
        for (KeyBits t : kTypes)
            for (uint64_t n : sizes)
                for (uint32_t seed : seeds) {
                    std::set<uint64_t> at;
                    for (uint64_t i = 0; i < 12 && i < n; i++) at.insert(i);
                    for (uint64_t d = 0; d < 4 && d < n; d++) at.insert(n - 1 - d), at.insert(n / 2 + d < n ? n / 2 + d : 0);
                    for (uint64_t i : at)
                        std::printf("%s %s %llu %u %llu %08x\n", ch12::kInputNames[k], kTypeNames[(int)t], (unsigned long long)n,
                                    seed, (unsigned long long)i, ch12::input_key((Input)k, t, i, n, seed));
                }
}

int main(int argc, char** argv) {
    ch12::CommandLine cl(argc, argv, "[--table]",
                         "  Checks the one generator of the input kinds (input_kinds.h) on the CPU: each kind\n"
                         "  as its list says, for uint32, int32 and float keys, from 1 to 2^36 keys.\n"
                         "  --table   instead, print the keys the JavaScript and Python generators must\n"
                         "            match: \"kind type n seed i bits\", one key a line\n");
    cl.flag("--table");
    cl.parse();
    if (cl.has("--table")) {
        print_table();
        return 0;
    }
    ch12::Checks check(20);
    const uint64_t sizes[] = {1, 2, 3, 5, 6, 7, 100, 1000, 4097, 100003, 1u << 20, (1ull << 32) + 5, 1ull << 36};
    for (int k = 0; k < ch12::kInputCount; k++)
        for (KeyBits t : kTypes)
            for (uint64_t n : sizes)
                for (uint32_t seed : {1u, 12u, 0xFFFFFFFFu}) check_kind(check, (Input)k, t, n, seed);
    // few-unique: eight keys for every seed, the seven where a value would be value 7's included.
    bool undone = true;
    for (uint32_t x : {0u, 1u, 0x12345678u, 0xFFFFFFFFu}) undone = undone && ch12::input_hash(unhash(x)) == x;
    check(undone, "the test's unhash() undoes input_hash()");
    for (uint32_t seed : colliding_few_unique_seeds()) {
        bool hits = false;  // (the seed is one where a value j < 7 hashes to 2^32 - 1)
        for (uint32_t j = 0; j < 7; j++) hits = hits || ch12::input_hash(j ^ ch12::input_hash(seed ^ 0x632BE5ABu)) == 0xFFFFFFFFu;
        check(hits, "seed " + std::to_string(seed) + " is one where a few-unique value would be 2^32 - 1");
        for (KeyBits t : kTypes) check_kind(check, Input::few_unique, t, 4096, seed);
    }
    // The integer types' keys are the same order keys: int32 = uint32 with the sign bit flipped.
    bool same_order = true;
    for (int k = 0; k < ch12::kInputCount; k++)
        for (uint64_t i = 0; i < 1000; i++)
            if ((Input)k != Input::special)
                same_order = same_order && (ch12::input_key((Input)k, KeyBits::int32, i, 1000, 5) ^ 0x80000000u) ==
                                               ch12::input_key((Input)k, KeyBits::uint32, i, 1000, 5);
    check(same_order, "int32 keys are uint32 keys with the sign bit flipped (one order key, two types)");
    std::printf("%d checks passed, %d failed\n", check.passed(), check.failed());
    std::printf("input kinds test: %s\n", check.ok() ? "all passed" : "FAILED");
    return check.ok() ? 0 : 1;
}
