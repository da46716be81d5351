// ch12/extras/sort/src/design.cuh -- the one shape of every design (private
// to the library). Errors are returned as the companion's Status, with
// CH12_TRY (common/include/ch12/status.h, common/cuda_status.h).
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
// design returns the first error and launches nothing after it: each launch
// is followed by CH12_TRY(ch12::kernel_launch("<design>: <kernel> launch")),
// each CUDA call wrapped in CH12_TRY. It adds one line to BITONIC_DESIGNS
// (bitonic/sort_request.h) and its #include to bitonic_sort.cu.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

#include "bitonic/bitonic_sort.cuh"
#include "plan.h"            // the library's own: how a request is carried out
#include "traffic_model.h"   // ... its trips
#include "tuning_policy.h"   // ... and its choices for the device
#include "cuda_status.h"  // CH12_TRY of a CUDA call or a kernel launch
#include "words.cuh"

namespace bitonic {
namespace detail {

// What every launch needs besides its words.
struct Launch {
    const Tuning& tuning;  // the device's limits (lowered by the profile) and the choices made from them
    int device;            // its ordinal: kernel attributes are set once per device
    cudaStream_t stream;
};

// Kernel attributes are set once per device and kernel: a small table per
// kernel, indexed by device ordinal (devices beyond it set them every time).
constexpr int kAttributeDevices = 64;

}  // namespace detail
}  // namespace bitonic
