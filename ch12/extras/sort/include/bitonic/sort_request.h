// ch12/extras/sort/include/bitonic/sort_request.h -- part of the sort
// library's API, its plain C++ half: the designs by name, what a request is,
// what is wrong with one. No CUDA here: g++ compiles it (with
// src/sort_request.cpp) into the CPU-only test test_sort_request.cpp, which
// checks this arithmetic on any machine. How a request is carried out (its
// plan) is the library's own: src/plan.h.
// bitonic_sort.cuh, the library's API, includes it; what a GPU allows
// (limits, profiles, tuning) is in tuning.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ch12/status.h"  // the companion's one Status: every call of the library returns one
#include "key_types.h"

namespace bitonic {

// ---- the designs --------------------------------------------------------------------
// The one list of designs, in the order the programs show them: its name and
// what it is. A new design is its header design_<name>.cuh (a struct
// bitonic::<name>::Ops, see design.cuh) and one line here.
#define BITONIC_DESIGNS(X)                                                                               \
    X(chapter, "63's kernel at scale: one launch per (k, j), every pass through global memory")         \
    X(workgroup, "1024-word shared-memory tiles and global steps (the GLSL article's design)")         \
    X(fast, "16 words per thread in registers, thread-block clusters, four distances per trip")          \
    X(window, "windows of 2^12 .. 2^15 words over any set of index bits: the fewest trips through memory")

enum class Design : int {
#define BITONIC_DESIGN_ENUM(name, what) name,
    BITONIC_DESIGNS(BITONIC_DESIGN_ENUM)
#undef BITONIC_DESIGN_ENUM
};
extern const char* const kDesignNames[];  // in enum order, null-terminated
extern const char* const kDesignWhat[];   // one line each, in enum order
extern const int kDesignCount;
const char* design_name(Design d);        // "?" for a value outside the enum
bool design_by_name(const char* name, Design* out);

// ---- a request ----------------------------------------------------------------------
struct Request {
    Design design = Design::fast;
    KeyType key_type = KeyType::u32;
    Order order = Order::ascending;
    bool with_values = false;    // sort (key, value) pairs: a uint32 value travels with each key
    size_t count = 1;            // arrays in the batch
    size_t len = 0;              // keys per array
    size_t stride = 0;           // keys from one array's start to the next's (0: len)
    bool bitonic_input = false;  // each array is already bitonic (ascending then descending, or
                                 // any rotation): only its final merge stage runs (log2 P steps),
                                 // not the whole sort. "Ascending" is the sort's own order: the
                                 // requested order of the keys and, for pairs, then the values
                                 // (as a sort by this library leaves them).
};

// The largest request: count * P padded keys (P: len rounded up to a power
// of two), and the keys a batch spans from its first key to its last.
constexpr uint64_t kMaxPaddedKeys = uint64_t(1) << 31;
constexpr uint64_t kMaxSpan = uint64_t(1) << 40;

// What went wrong: the companion's one Status (common/include/ch12/status.h):
// a kind (bad_request, null_pointer, misaligned, scratch_too_small,
// unsupported, cuda), CUDA's own error when CUDA failed, and the words.
using ch12::Errc;
using ch12::Status;
using ch12::errc_name;  // "bad request", "null pointer", ...
using ch12::message;    // one line for a human

// What is wrong with a request, if anything (Errc::bad_request, with a static
// text). Overflow-safe, and finite for every value of every field.
Status check_request(const Request& r);

// Alignment the library needs of the keys, values and scratch pointers
// (cudaMalloc gives 256 bytes).
constexpr size_t kAlignment = 16;

}  // namespace bitonic
