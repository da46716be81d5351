// ch12/extras/sort/include/bitonic/traffic.h -- part of the sort library's
// API, its plain C++ half: how many times a sort moves its words through
// global memory (its trips), and how many bytes that is, from the same plan
// the library launches (bitonic::traffic() in bitonic_sort.cuh asks it on
// the current device). The benchmark's roofline divides the bytes by the
// device's measured copy bandwidth: the time no version of that plan can
// beat. How the trips are counted is the library's own (src/traffic_model.h,
// src/traffic.cpp; the CPU test test_window.cpp checks it).
#pragma once

#include <cstdint>

namespace bitonic {

struct Traffic {
    int trips = 0;       // passes over the words: each reads and writes all of them
    uint64_t bytes = 0;  // bytes read plus bytes written, over all trips
};

}  // namespace bitonic
