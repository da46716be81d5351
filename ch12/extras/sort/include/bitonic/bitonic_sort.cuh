// ch12/extras/sort/include/bitonic/bitonic_sort.cuh -- bitonic sort as a
// small library: the API. A client includes this header alone (it brings
// sort_request.h, tuning.h, key_types.h and traffic.h, and the companion's
// Status, ch12/status.h) and links the CMake target ch12_bitonic_sort, whose
// include path holds these headers and nothing else: the designs and their
// words (src/) are the library's own.
//
// What it sorts, in device memory:
//   * keys, or (key, value) pairs -- a 32-bit value per key, which travels
//     with its key;
//   * key types uint32, int32 and float (key_types.h);
//   * ascending or descending;
//   * one array of any length, or a batch of `count` arrays of `len` keys,
//     array a starting at key a * stride (stride = len: back to back);
//   * or, with Request::bitonic_input, arrays that are already bitonic: only
//     each array's last merge stage runs (log2 P steps).
//
// The order of floats is IEEE 754's totalOrder:
//     -NaN < -inf < ... < -denormals < -0.0 < +0.0 < +denormals < ... < +inf < +NaN
// (NaNs by their sign bit, then by payload). Every float has its place, so
// NaN and -0.0 sort deterministically; -0.0 comes before +0.0.
//
// Four designs of the same network (Section 12.3's double loop over stages
// k and distances j), listed in sort_request.h, one private header each
// (src/design_<name>.cuh):
//   chapter    63's kernel at scale: one launch per (k, j)
//   workgroup  1024-key tiles in shared memory, the GLSL article's design;
//              global steps between tiles
//   fast       16 keys per thread in registers, thread-block clusters on
//              Hopper, four distances per trip
//   window     windows of 2^12 .. 2^15 words over any set of index bits:
//              the fewest trips through global memory (traffic() counts
//              them); the fast design where that measured faster
//
// Any length: each array is sorted as if padded up to a power of two P with
// the largest possible word, which sorts to the end and is never stored.
// Limits: count * P <= 2^31, and a batch spans at most 2^40 keys.
//
// Errors are returned, never ended: every call returns a Status (a kind,
// CUDA's own error when CUDA failed, and the words; ch12/status.h), which
// message() turns into one line. Nothing is launched for a request or
// arguments that are wrong.
//
// The device: every call works on the current device (cudaGetDevice), whose
// limits are read once per device and kept. A Profile (tuning.h) makes the
// library plan as it would on a smaller GPU: no clusters, less shared memory,
// fewer SMs -- it can only lower the device's limits.
//
// Use:
//   bitonic::Request r;                    // fast design, uint32 keys, ascending
//   r.key_type = bitonic::KeyType::f32;
//   r.with_values = true;
//   r.count = 1000; r.len = 1024;
//   bitonic::Sorter sorter;                // owns the scratch memory, if any
//   bitonic::Status s = sorter.sort(r, d_keys, d_values, stream);
//   if (!s.ok()) fprintf(stderr, "%s\n", bitonic::message(s).c_str());
// or bring the scratch yourself: scratch_bytes(r, &bytes), then
// sort(r, d_keys, d_values, scratch, bytes, stream).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <cuda_runtime.h>

#include "key_types.h"
#include "sort_request.h"
#include "traffic.h"
#include "tuning.h"

namespace bitonic {

// ---- the designs, by name (the list is BITONIC_DESIGNS in sort_request.h) -------------
struct DesignInfo {
    Design design;
    const char* name;
    const char* what;
};
extern const DesignInfo kDesigns[];  // in the list's order; a null name ends it

// ---- requests ---------------------------------------------------------------------------
// What is wrong with a request, if anything (Errc::bad_request). Overflow-safe;
// needs no GPU.
Status check(const Request& r);

// The limits of the current device (read once per device), lowered by the
// profile when one is given.
Status device_limits(Limits* out, const Profile* profile = nullptr);

// Device scratch memory the request needs on the current device, in bytes
// (0: none).
Status scratch_bytes(const Request& r, size_t* bytes, const Profile* profile = nullptr);

// The request's trips through global memory and the bytes they move, on the
// current device (lowered by the profile), from the plan its sort would run.
Status traffic(const Request& r, Traffic* out, const Profile* profile = nullptr);

// Sorts (or, with r.bitonic_input, merges) on `stream`, asynchronously.
// d_values may be null unless r.with_values. Pointers 16-byte aligned (as
// cudaMalloc returns them); d_scratch at least scratch_bytes() bytes.
Status sort(const Request& r, void* d_keys, uint32_t* d_values, void* d_scratch, size_t scratch_size,
            cudaStream_t stream = 0, const Profile* profile = nullptr);

// Keeps one scratch buffer for all its sorts, allocated the first time a
// request needs more than it holds, on the device current at that time.
// Move-only.
class Sorter {
  public:
    explicit Sorter(const Profile* profile = nullptr);
    Sorter(const Sorter&) = delete;
    Sorter& operator=(const Sorter&) = delete;
    Sorter(Sorter&&) noexcept;
    Sorter& operator=(Sorter&&) noexcept;
    ~Sorter();
    Status reserve(const Request& r);  // allocate now (outside any timed region)
    Status sort(const Request& r, void* d_keys, uint32_t* d_values, cudaStream_t stream = 0);
    size_t scratch_allocated() const;
    const Profile* profile() const { return profile_; }

  private:
    struct Scratch;  // its device memory (the library's own)
    const Profile* profile_ = nullptr;
    std::unique_ptr<Scratch> scratch_;
};

}  // namespace bitonic
