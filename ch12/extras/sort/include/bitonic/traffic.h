// ch12/extras/sort/include/bitonic/traffic.h -- part of the sort library's
// API, its plain C++ half: how many times a sort moves its words through
// global memory (its trips), and how many bytes that is, from the same plan
// the library launches (bitonic::traffic() in bitonic_sort.cuh asks it on
// the current device). The benchmark's roofline divides the bytes by the
// device's measured copy bandwidth: the time no version of that plan can
// beat. Host only (plain C++, src/traffic.cpp): the CPU test
// (test_window.cpp) checks it.
#pragma once

#include <cstdint>

#include "sort_request.h"
#include "tuning.h"

namespace bitonic {

struct Traffic {
    int trips = 0;       // passes over the words: each reads and writes all of them
    uint64_t bytes = 0;  // bytes read plus bytes written, over all trips
};

// The fast design's global steps of one stage: its distances above the tile
// (global_bits of them) in launches of at most four, split evenly. Its launch
// code (src/design_fast.cuh) calls this too.
inline int fast_global_launches(int global_bits) { return (global_bits + 3) / 4; }

// Trips of design d's kernels for a plan that make_plan() made for that
// design on this tuning: the fused kernel, or the dense sort (merge) -- not
// counting the padded copy.
int design_trips(Design d, const Tuning& t, const Plan& p);

// The whole request: the design's trips, plus the padded copy in and out
// (two trips) when the plan converts. Bytes: a fused trip reads and writes
// the caller's keys (and values); a trip over dense planes all count * P
// words; the copy reads one and writes the other. (A merge padded with
// copies also searches each array's bound: a few words per array, left out.)
Traffic traffic(const Request& r, const Plan& p, const Tuning& t);

}  // namespace bitonic
