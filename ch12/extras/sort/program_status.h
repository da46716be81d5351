// ch12/extras/sort/program_status.h -- how the sort library's programs (run,
// test, bench) turn a failed library call into the ground rules' exit
// status: its message on stderr, exit 1. (The library itself never exits.)
#pragma once

#include <cstdio>
#include <cstdlib>

#include "bitonic_sort.cuh"

namespace cases {

inline void or_exit(const bitonic::Status& s, const char* program) {
    if (s.ok()) return;
    std::fflush(stdout);
    std::fprintf(stderr, "%s: %s\n", program, bitonic::message(s).c_str());
    std::exit(1);
}

}  // namespace cases
