// ch12/extras/sort/src/traffic_model.h -- the library's own, no part of its
// API: a plan's trips through global memory and their bytes (bitonic::Traffic,
// bitonic/traffic.h), counted from the same plan the library launches. Host
// only (plain C++, src/traffic.cpp): the CPU test (test_window.cpp) checks it.
#pragma once

#include <cstdint>

#include "bitonic/traffic.h"
#include "plan.h"
#include "tuning_policy.h"

namespace bitonic {

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
