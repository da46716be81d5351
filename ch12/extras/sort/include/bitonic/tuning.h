// ch12/extras/sort/include/bitonic/tuning.h -- part of the sort library's
// API: what a GPU allows, and the GPUs we plan for by name (profiles).
//
//   Limits   what a device allows: read from the device once per device
//            (bitonic::device_limits), or named in a profile;
//   Profile  a GPU we plan for without owning it, its limits taken from its
//            published specification. A profile only ever LOWERS the real
//            device's limits (lowered()), so every launch it plans is one the
//            real device can run. It reaches the library through its API
//            (sort(..., profile)), never through the environment;
// The library's choices for a device (its tuning policy: every launch
// configuration, derived from the limits alone) are its own: src/tuning_policy.h.
//
// No CUDA here: g++ compiles it for the CPU-only test (test_sort_request.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "sort_request.h"

namespace bitonic {

struct Limits {
    int cc = 0;                 // compute capability, major * 10 + minor: 75, 80, 86, 89, 90, ...
    int sms = 0;                // streaming multiprocessors
    int threads_per_sm = 0;     // resident threads per SM
    size_t smem_per_block = 0;  // shared memory one block may have, with opt-in (bytes)
    size_t smem_per_sm = 0;     // shared memory per SM (bytes)
    size_t smem_reserved = 0;   // shared memory the driver keeps per block (bytes)
    int max_cluster = 1;        // the largest thread-block cluster the fast design's tile
                                // kernel runs with (blocks; 1: no clusters)
};

// The window design's choices, which tune() makes from the limits. A
// profile may pin them (0 / -1: tune()'s own), so that one process compares
// variants of the design on one device (the benchmark's and the test suite's
// --window option); pin_window() checks them against the limits.
struct WindowPin {
    int bits = 0;          // windows of 2^bits keys (pairs: 2^(bits-1)), 13 .. 15
    int presort = -1;      // 1: the fast design's tile kernel sorts the first stages; 0: a window pass does
    int from_bits = 0;     // window passes for arrays of 2^from_bits words and more, keys and pairs,
                           // sorts and merges (shorter ones: the fast design), 1 .. 32
};

struct Profile {
    const char* name;  // as --profile takes it
    const char* gpu;   // the GPU it stands for
    Limits limits;
    WindowPin window = {};  // the named profiles pin nothing
};
// t4, a100, rtx3060, rtx4090, h100; a null name ends the list.
extern const Profile kProfiles[];
const Profile* profile_by_name(const char* name);  // nullptr: no such profile

// The device as the profile would have it: every limit the tighter of the
// two (a null profile: the device itself).
Limits lowered(const Limits& device, const Profile* profile);

}  // namespace bitonic
