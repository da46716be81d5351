// ch12/extras/sort/design.cuh -- the one shape of every design, and the
// library's returning error checks.
//
// A design is a header design_<name>.cuh with a struct bitonic::<name>::Ops:
//
//   static uint64_t fused_words(const Tuning& t);
//       the longest array (in padded words, a power of two) that its
//       sort_fused sorts in one kernel on these limits; 0: it has none.
//   template <typename W> static Status sort_dense(const Planes& p, const Launch& l);
//       sorts each array of p (dense planes of raw order bits, P = 2^p.seg_bits
//       words each, p.total words in all) in place, ascending.
//   template <typename W> static Status merge_dense(const Planes& p, const Launch& l);
//       the same for arrays that are already bitonic: only their last stage
//       (distances P/2 .. 1, ascending).
//   template <typename W> static Status sort_fused(const Planes& p, const Launch& l);
//       sorts arrays of at most fused_words() padded words straight from the
//       caller's planes (their codec, padding and batch layout); never called
//       when fused_words() is 0.
//
// W is the word: uint32_t (keys) or uint64_t (pairs), see words.cuh. A
// design returns the first error and launches nothing after it. It adds one
// line to BITONIC_DESIGNS (sort_request.h) and its #include to bitonic_sort.cu.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

#include "bitonic_sort.cuh"
#include "words.cuh"

namespace bitonic {
namespace detail {

// What every launch needs besides its words.
struct Launch {
    const Tuning& tuning;  // the device's limits (lowered by the profile) and the choices made from them
    int device;            // its ordinal: kernel attributes are set once per device
    cudaStream_t stream;
};

// A CUDA call that failed: the status, with CUDA's error cleared so that it
// does not surface again in the caller's next unrelated check (a sticky
// error cannot be cleared, and stays).
inline Status cuda_failed(cudaError_t e, const char* what) {
    (void)cudaGetLastError();
    return Status{Errc::cuda, e, what};
}

// Kernel attributes are set once per device and kernel: a small table per
// kernel, indexed by device ordinal (devices beyond it set them every time).
constexpr int kAttributeDevices = 64;

}  // namespace detail
}  // namespace bitonic

// Returning checks (the library never ends the process): after a <<<...>>>
// launch, and around a CUDA runtime call. `what` is static text.
#define BITONIC_LAUNCHED(what)                                                         \
    do {                                                                               \
        const cudaError_t bitonic_e_ = cudaGetLastError();                             \
        if (bitonic_e_ != cudaSuccess) return ::bitonic::Status{::bitonic::Errc::cuda, bitonic_e_, what}; \
    } while (0)
#define BITONIC_CUDA(call)                                                             \
    do {                                                                               \
        const cudaError_t bitonic_e_ = (call);                                         \
        if (bitonic_e_ != cudaSuccess) return ::bitonic::detail::cuda_failed(bitonic_e_, #call); \
    } while (0)
#define BITONIC_TRY(status_expr)                                                       \
    do {                                                                               \
        const ::bitonic::Status bitonic_s_ = (status_expr);                            \
        if (!bitonic_s_.ok()) return bitonic_s_;                                       \
    } while (0)
