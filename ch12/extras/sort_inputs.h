// ch12/extras/sort_inputs.h -- the key sets the sort runner, the tests and the
// benchmark share, and strict parsing of their command-line numbers.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace ch12 {

enum class InputKind { uniform, sorted, reverse, equal, few_unique };

inline const char* input_name(InputKind k) {
    switch (k) {
        case InputKind::uniform: return "uniform";
        case InputKind::sorted: return "sorted";
        case InputKind::reverse: return "reverse";
        case InputKind::equal: return "equal";
        default: return "few-unique";
    }
}

inline bool parse_input_kind(const char* s, InputKind* out) {
    for (InputKind k : {InputKind::uniform, InputKind::sorted, InputKind::reverse, InputKind::equal,
                        InputKind::few_unique}) {
        if (std::strcmp(s, input_name(k)) == 0) { *out = k; return true; }
    }
    return false;
}

// n keys of the given kind; `seed` drives the random ones (mt19937).
//   uniform     any uint32 value, the full range (0xFFFFFFFF included)
//   sorted      ascending, with repeats
//   reverse     descending, with repeats
//   equal       one value, n times
//   few-unique  8 distinct values, shuffled
inline std::vector<uint32_t> make_keys(InputKind kind, size_t n, uint32_t seed) {
    std::vector<uint32_t> keys(n);
    std::mt19937 rng(seed);
    switch (kind) {
        case InputKind::uniform:
            for (auto& k : keys) k = (uint32_t)rng();
            break;
        case InputKind::sorted:
            for (size_t i = 0; i < n; i++) keys[i] = (uint32_t)(i / 3) * 7u + (seed % 5);
            break;
        case InputKind::reverse:
            for (size_t i = 0; i < n; i++) keys[i] = (uint32_t)((n - i) / 3) * 7u + (seed % 5);
            break;
        case InputKind::equal:
            for (auto& k : keys) k = 0x9E3779B9u ^ seed;
            break;
        case InputKind::few_unique: {
            uint32_t values[8];
            for (auto& v : values) v = (uint32_t)rng();
            values[7] = 0xFFFFFFFFu;  // the padding value, as a real key
            for (auto& k : keys) k = values[rng() % 8];
            break;
        }
    }
    return keys;
}

// A whole decimal number, or 2^K; nothing else (no sign, no junk, no overflow).
inline bool parse_count(const char* s, uint64_t* out) {
    if (s == nullptr || *s == '\0') return false;
    if (s[0] == '2' && s[1] == '^') {
        uint64_t e = 0;
        if (!parse_count(s + 2, &e) || e > 62) return false;
        *out = uint64_t(1) << e;
        return true;
    }
    for (const char* p = s; *p; ++p) if (*p < '0' || *p > '9') return false;
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(s, &end, 10);
    if (errno == ERANGE || *end != '\0') return false;
    *out = v;
    return true;
}

}  // namespace ch12
