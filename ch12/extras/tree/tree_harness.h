// ch12/extras/tree/tree_harness.h -- what runs around a GPU evaluator of the
// tree formulation (tree_harness.cu): the input gen(d, 0), the timing, the
// checksum, the check that every reserved heap node was written, and the
// lines the C++ reference prints. An evaluator supplies only its sort phase.
//
// Nothing here ends the process: errors come back as the companion's Status
// (ch12/status.h, CH12_TRY), which the programs' main turns into their exit
// status with ch12::exit_status() (0 done, 1 an error, 77 this GPU has too
// little memory for the depth asked: Errc::cannot_run_here, like no GPU).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ch12/status.h"
#include "cuda_status.h"    // CH12_TRY of a CUDA call or a launch
#include "device_buffer.h"  // ch12::DeviceBuffer: allocate() returns its error
#include "tree_bitonic.h"

namespace tree {

using ch12::Status;

// An evaluator's sort phase: given the heap with the input tree (root
// `input`, nodes [0, first_free)), it records `start`, evaluates
// sort(depth, 0, input) into the nodes from first_free on, records `stop`,
// sets *root, and may add lines of its own to `notes`.
using SortPhase = std::function<Status(uint64_t* heap, Tree input, uint64_t first_free, cudaEvent_t start,
                                       cudaEvent_t stop, std::vector<std::string>& notes, Tree* root)>;

struct Evaluation {
    int depth;
    const char* name;    // the program's name, for messages
    const char* what;    // e.g. "SEED / GROW / WORK evaluator"
    size_t extra_bytes;  // GPU memory the evaluator needs besides the heap
};

// Runs gen, the sort phase, the checksum and the heap check on the current
// device and prints the reference's lines on stdout; *all_written: every
// reserved heap node was written. Too little GPU memory for the depth (a
// failed allocation included) is Errc::cannot_run_here.
Status run_evaluation(const Evaluation& e, const SortPhase& sort_phase, bool* all_written);

}  // namespace tree
