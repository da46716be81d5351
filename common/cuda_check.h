// common/cuda_check.h -- the two small pieces every CUDA program of the
// Chapter 12 companion shares, so that each lesson file can stay about the
// lesson:
//
//   CUDA_CHECK(call)         wraps every CUDA runtime call. On failure it
//                            prints the call, file:line and CUDA's own error
//                            string on stderr and exits with status 1.
//   CUDA_CHECK_LAUNCH()      goes right after every <<<...>>> launch: a bad
//                            launch configuration is only reported by
//                            cudaGetLastError(), never by the launch itself.
//   require_cuda_device(p)   the "no GPU is no failure" rule. Call it first,
//                            before anything is printed: with no usable GPU
//                            (no driver, no device, CUDA_VISIBLE_DEVICES="")
//                            it prints one line on stderr naming program p and
//                            CUDA's reason, nothing on stdout, and exits 77 --
//                            the code CTest reports as "Skipped".
//
// Header-only on purpose: the book's one-line compile command
// (nvcc -arch=sm_80 X.cu -o X, run from ch12/) keeps working unchanged.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

namespace ch12 {

// Exit status for "this program could not run here": CTest's SKIP_RETURN_CODE.
constexpr int kSkipExitCode = 77;

inline void cuda_check(cudaError_t err, const char* call, const char* file, int line) {
    if (err == cudaSuccess) return;
    std::fflush(stdout);
    std::fprintf(stderr, "CUDA error: %s failed at %s:%d: %s (%s)\n", call, file, line,
                 cudaGetErrorString(err), cudaGetErrorName(err));
    std::exit(1);
}

inline void skip_no_gpu(const char* program, const char* reason) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: skipped: no usable CUDA GPU (%s)\n", program, reason);
    std::exit(kSkipExitCode);
}

// True for the errors that mean "there is no GPU this process may use", as
// opposed to a GPU that is there but fails (which is a real error, exit 1).
inline bool is_no_gpu_error(cudaError_t err) {
    return err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ||
           err == cudaErrorDevicesUnavailable || err == cudaErrorInitializationError ||
           err == cudaErrorSystemDriverMismatch || err == cudaErrorCompatNotSupportedOnDevice;
}

inline void require_cuda_device(const char* program) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) skip_no_gpu(program, cudaGetErrorString(err));
    if (count == 0) skip_no_gpu(program, "cudaGetDeviceCount found 0 devices");
    // A device is listed; make sure this process can really create a context on it.
    err = cudaFree(nullptr);
    if (err != cudaSuccess && is_no_gpu_error(err)) skip_no_gpu(program, cudaGetErrorString(err));
    cuda_check(err, "cudaFree(nullptr) (context creation)", __FILE__, __LINE__);
}

}  // namespace ch12

#define CUDA_CHECK(call) ::ch12::cuda_check((call), #call, __FILE__, __LINE__)
#define CUDA_CHECK_LAUNCH() ::ch12::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
