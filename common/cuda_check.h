// common/cuda_check.h -- the small pieces every CUDA program of the Chapter 12
// companion shares, so that each lesson file can stay about the lesson:
//
//   CUDA_CHECK(call)         wraps every CUDA runtime call. On failure it
//                            prints the call, file:line and CUDA's own error
//                            string on stderr and exits with status 1.
//   CUDA_CHECK_LAUNCH()      goes right after every <<<...>>> launch: a bad
//                            launch configuration is only reported by
//                            cudaGetLastError(), never by the launch itself.
//   require_cuda_device(p)   the "no GPU is no failure" rule. Call it after the
//                            command line is checked and before anything is
//                            printed: with no usable GPU (no driver, no device,
//                            CUDA_VISIBLE_DEVICES="") it prints one line on
//                            stderr naming program p and CUDA's reason (and,
//                            when given, what to run instead), nothing on
//                            stdout, and exits 77 -- CTest's "Skipped".
//
// Header-only on purpose: the lessons' one-line compile commands keep working.
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

inline void skip_no_gpu(const char* program, const char* reason, const char* instead) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: skipped: no usable CUDA GPU (%s)%s%s\n", program, reason,
                 instead ? "; " : "", instead ? instead : "");
    std::exit(kSkipExitCode);
}

// True for the errors that mean "there is no GPU this process may use", as
// opposed to a GPU that is there but fails (which is a real error, exit 1).
inline bool is_no_gpu_error(cudaError_t err) {
    return err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ||
           err == cudaErrorDevicesUnavailable || err == cudaErrorInitializationError ||
           err == cudaErrorSystemDriverMismatch || err == cudaErrorCompatNotSupportedOnDevice;
}

// `instead`, when given, is printed after the reason: what the user can run
// without a GPU (the lessons: "run it with --replay ...").
inline void require_cuda_device(const char* program, const char* instead = nullptr) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) skip_no_gpu(program, cudaGetErrorString(err), instead);
    if (count == 0) skip_no_gpu(program, "cudaGetDeviceCount found 0 devices", instead);
    // A device is listed; make sure this process can really create a context on it.
    err = cudaFree(nullptr);
    if (err != cudaSuccess && is_no_gpu_error(err)) skip_no_gpu(program, cudaGetErrorString(err), instead);
    cuda_check(err, "cudaFree(nullptr) (context creation)", __FILE__, __LINE__);
}

// What the lessons with a CPU replay print after the reason.
constexpr const char* kReplayHint = "run it with --replay for the book's CPU replay (no GPU needed)";

}  // namespace ch12

#define CUDA_CHECK(call) ::ch12::cuda_check((call), #call, __FILE__, __LINE__)
#define CUDA_CHECK_LAUNCH() ::ch12::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
