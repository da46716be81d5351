// ch12/extras/sort/src/plan.h -- the library's own, no part of its API: how
// a request is carried out (its plan), and the checks of a call's pointers
// against that plan. Plain C++ (src/sort_request.cpp): the CPU-only tests
// (test_sort_request.cpp, test_window.cpp) check it on any machine.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bitonic/sort_request.h"

namespace bitonic {

// ---- how a request is carried out -------------------------------------------------------
// Every design sorts "words" (words.cuh): each array padded up to P =
// 2^seg_bits words, in dense planes (array s's word o at s * P + o) of raw
// order bits -- or, for arrays of at most `fused_words` padded words, straight
// from the caller's arrays in one kernel (fused).
struct Plan {
    bool nothing = false;       // no arrays, or fewer than two keys each: nothing to do
    uint64_t P = 1;             // len rounded up to a power of two
    int seg_bits = 0;           // P = 2^seg_bits
    uint64_t total = 0;         // count * P padded words
    uint64_t stride = 0;        // keys from one array's start to the next's
    bool pairs = false;         // 64-bit words: order bits << 32 | value
    bool merge = false;         // bitonic input: only each array's last stage
    Codec codec = kIdentity;    // keys -> order bits, and back
    bool fused = false;         // a sort in one kernel, straight from the caller's arrays
    bool dense = false;         // the caller's arrays are dense: len = P, back to back
    bool raw = false;           // ... and hold raw order bits (uint32 keys, ascending)
    bool pad_copies = false;    // a merge of len < P: each array padded with copies of its last
                                // word (which keeps it bitonic), dropped again afterwards
    size_t scratch = 0;         // bytes of scratch memory: the dense planes, when the caller's are not
    size_t values_offset = 0;   // in the scratch: where the values plane starts (pairs)
    size_t bounds_offset = 0;   // in the scratch: one uint32 per array (pad_copies)
};

// The plan of a request that check_request() accepts, for a design that
// sorts arrays of up to `fused_words` padded words in one kernel (0: none).
Plan make_plan(const Request& r, uint64_t fused_words);

// What is wrong with the arguments of a sort of request r (planned as p),
// if anything: null or misaligned pointers, or too little scratch.
Status check_call(const Request& r, const Plan& p, const void* keys, const void* values, const void* scratch,
                   size_t scratch_size);

}  // namespace bitonic
