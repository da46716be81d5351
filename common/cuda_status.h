// common/cuda_status.h -- CUDA's errors as the companion's one Status
// (common/include/ch12/status.h), for code that returns its errors instead of
// exiting: the sort library, the tree's harness, the multi-GPU sort, and the
// programs around them.
//
//   CH12_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
//   kernel<<<blocks, threads, 0, stream>>>(...);
//   CH12_TRY(ch12::kernel_launch("kernel"));   // a bad launch shows only in cudaGetLastError()
//
// A failed call becomes Errc::cuda with CUDA's error code and the line
// "CUDA error: <call> failed at <file>:<line>: <CUDA's words> (<error name>)",
// the same line CUDA_CHECK prints; CUDA's last error is then cleared, so that
// it does not surface again in the next unrelated check (a sticky error
// cannot be cleared, and stays).
#pragma once

#include <string>
#include <cuda_runtime.h>

#include "ch12/status.h"

namespace ch12 {

inline Status status_of(cudaError_t err, const char* call, const char* file, int line) {
    if (err == cudaSuccess) return {};
    (void)cudaGetLastError();
    return failure(Errc::cuda,
                   std::string("CUDA error: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " +
                       cudaGetErrorString(err) + " (" + cudaGetErrorName(err) + ")",
                   (int)err);
}

// The launch just made (<<<...>>>): what cudaGetLastError() says of it, and
// what to call it ("pack_kernel launch") if it failed.
struct KernelLaunch {
    cudaError_t error;
    const char* what;
};
inline KernelLaunch kernel_launch(const char* what) { return {cudaGetLastError(), what}; }
inline Status status_of(const KernelLaunch& launch, const char*, const char* file, int line) {
    return status_of(launch.error, launch.what, file, line);
}

}  // namespace ch12
