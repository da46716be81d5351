// ch12/extras/tree/tree_harness.h -- what runs around a GPU evaluator of the
// tree formulation (tree_harness.cu): the input gen(d, 0), the timing, the
// checksum, the check that every reserved heap node was written, and the
// lines the C++ reference prints. An evaluator supplies only its sort phase.
//
// Nothing here ends the process: errors come back as a Status, which the
// programs turn into their exit status (0 done, 1 an error, 77 this GPU has
// too little memory for the depth asked -- "cannot run here", like no GPU).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device_buffer.h"  // ch12::DeviceBuffer: allocate() returns its error
#include "tree_bitonic.h"

namespace tree {

struct Status {
    int exit_code = 0;    // 0 success, 1 error, 77 cannot run here
    std::string message;  // one line, for stderr, when exit_code != 0
    bool ok() const { return exit_code == 0; }
};

// A failed CUDA call: the call, file:line, and CUDA's error string, as
// CUDA_CHECK prints it. Running out of device memory is exit 77.
Status cuda_failure(cudaError_t err, const char* call, const char* file, int line);

#define TREE_TRY(call)                                                                   \
    do {                                                                                 \
        const cudaError_t tree_err_ = (call);                                            \
        if (tree_err_ != cudaSuccess) return ::tree::cuda_failure(tree_err_, #call, __FILE__, __LINE__); \
    } while (0)
#define TREE_TRY_LAUNCH() TREE_TRY(cudaGetLastError())

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
// device, prints the reference's lines on stdout, and returns the program's
// exit status (problems: one line on stderr).
int run_evaluation(const Evaluation& e, const SortPhase& sort_phase);

}  // namespace tree
