// ch12/extras/sort/bitonic_sort.cuh -- bitonic sort as a small library: the
// API, and the one place that chooses among the three designs.
//
// What it sorts, in device memory:
//   * keys, or (key, value) pairs -- a 32-bit value per key, which travels
//     with its key;
//   * key types uint32, int32 and float;
//   * ascending or descending;
//   * one array of any length, or a batch of `count` arrays of `len` keys,
//     array a starting at key a * stride (stride = len: back to back).
//
// The order of floats is IEEE 754's totalOrder:
//     -NaN < -inf < ... < -denormals < -0.0 < +0.0 < +denormals < ... < +inf < +NaN
// (NaNs by their sign bit, then by payload). Every float has its place, so
// NaN and -0.0 sort deterministically; -0.0 comes before +0.0. The sort maps
// each key to a uint32 whose unsigned order is that order (key_order below),
// and the tests' CPU check sorts by the same map.
//
// Three designs of the same network (Section 12.3's double loop over stages
// k and distances j), one header each:
//   chapter    design_chapter.cuh    63's kernel at scale: one launch per (k, j)
//   workgroup  design_workgroup.cuh  1024-key tiles in shared memory, the GLSL
//                                    article's design; global steps between tiles
//   fast       design_fast.cuh       16 keys per thread in registers, thread-block
//                                    clusters on Hopper, four distances per trip
//
// Any length: each array is sorted as if padded up to a power of two P with
// the largest possible word, which sorts to the end and is never stored. The
// fast design does that padding in registers for arrays of up to 65536 keys
// on Hopper (4096 before), and needs no scratch for them; larger or
// non-contiguous arrays go through a padded copy in scratch memory, whose
// size scratch_bytes() gives. Limits: count * P <= 2^31.
//
// Use:
//   bitonic::Request r;                    // fast design, uint32 keys, ascending
//   r.key_type = bitonic::KeyType::f32;
//   r.with_values = true;
//   r.count = 1000; r.len = 1024;
//   bitonic::Sorter sorter;                // owns the scratch memory, if any
//   sorter.sort(r, d_keys, d_values, stream);
// or bring the scratch yourself: scratch_bytes(r), then sort(r, ..., scratch, bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

namespace bitonic {

enum class Design { chapter, workgroup, fast };
enum class KeyType { u32, i32, f32 };
enum class Order { ascending, descending };

// The designs by name -- the one list the runner, the tests and the
// benchmark use (a null name ends it).
struct DesignInfo {
    Design design;
    const char* name;
    const char* what;
};
extern const DesignInfo kDesigns[];
const char* design_name(Design d);
bool design_by_name(const char* name, Design* out);
const char* key_type_name(KeyType t);
bool key_type_by_name(const char* name, KeyType* out);

struct Request {
    Design design = Design::fast;
    KeyType key_type = KeyType::u32;
    Order order = Order::ascending;
    bool with_values = false;  // sort (key, value) pairs
    size_t count = 1;          // arrays in the batch
    size_t len = 0;            // keys per array
    size_t stride = 0;         // keys from one array's start to the next's (0: len)
};

// nullptr when the request can be sorted; else what is wrong with it.
const char* check(const Request& r);

// Device scratch memory the request needs, in bytes (0: none). Asks the
// current device whether it runs thread-block clusters.
size_t scratch_bytes(const Request& r);

// Sorts on `stream`. d_values may be null unless r.with_values. Exits with a
// message (status 1) on a request check() refuses or too little scratch.
void sort(const Request& r, void* d_keys, uint32_t* d_values, void* d_scratch, size_t scratch_size,
          cudaStream_t stream = 0);

// Keeps one scratch buffer for all its sorts, allocated the first time a
// request needs more than it holds.
class Sorter {
  public:
    Sorter() = default;
    Sorter(const Sorter&) = delete;
    Sorter& operator=(const Sorter&) = delete;
    ~Sorter();
    void reserve(const Request& r);  // allocate now (outside any timed region)
    void sort(const Request& r, void* d_keys, uint32_t* d_values, cudaStream_t stream = 0);
    size_t scratch_allocated() const { return bytes_; }

  private:
    void* scratch_ = nullptr;
    size_t bytes_ = 0;
};

// The sort's order on the host: the uint32 whose unsigned order is the
// key's order (ascending). Keys are passed as their 32 bits.
//   uint32: the key;  int32: the key with its sign bit flipped;
//   float:  positive (sign bit 0): the bits with the sign bit set;
//           negative: all bits flipped (IEEE 754 totalOrder).
inline uint32_t key_order(KeyType t, uint32_t bits) {
    switch (t) {
        case KeyType::i32: return bits ^ 0x80000000u;
        case KeyType::f32: return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
        default: return bits;
    }
}

}  // namespace bitonic
