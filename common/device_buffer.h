// common/device_buffer.h -- the one owner of CUDA memory outside the lessons:
// a move-only buffer of device memory (cudaMalloc / cudaFree) or of pinned
// host memory (cudaMallocHost / cudaFreeHost), freed when it goes out of
// scope, so that no early return leaks and no allocation goes without its
// free. The sort library's Sorter, the multi-GPU sort, the per-element pass,
// the tree's harness and the sort programs hold their memory in it; only the
// lessons (58-63, their traps, the exercises) call cudaMalloc and cudaFree
// themselves, as the book does.
//
//   ch12::DeviceBuffer<uint32_t> keys;          // empty
//   CH12_TRY(keys.allocate(n));                 // n uint32_t on the current device
//   CH12_TRY(keys.upload(host_vector));         // host -> device, the whole vector
//   kernel<<<...>>>(keys.get(), ...);
//   CH12_TRY(keys.download(&host_vector));      // device -> host, the whole buffer
//   ch12::PinnedBuffer<uint32_t> staging;       // page-locked host memory
//   CH12_TRY(staging.allocate(1 << 20));
//
// Nothing here exits or prints: allocate(), upload() and download() return
// CUDA's error, which CH12_TRY (common/cuda_status.h) turns into a Status at
// the call site, naming the call and its line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>
#include <cuda_runtime.h>

#include "cuda_status.h"  // CH12_TRY of what these return

namespace ch12 {

enum class Memory { device, pinned };

template <typename T, Memory M = Memory::device>
class Buffer {
  public:
    Buffer() = default;
    ~Buffer() { release(); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    Buffer(Buffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    Buffer& operator=(Buffer&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }

    // `count` elements in place of what the buffer held (0: none). On an
    // error the buffer is empty.
    cudaError_t allocate(size_t count) {
        release();
        if (count == 0) return cudaSuccess;
        if (count > SIZE_MAX / sizeof(T)) return cudaErrorMemoryAllocation;
        void* p = nullptr;
        const cudaError_t err = M == Memory::device ? cudaMalloc(&p, count * sizeof(T))
                                                    : cudaMallocHost(&p, count * sizeof(T));
        if (err != cudaSuccess) return err;
        data_ = static_cast<T*>(p);
        count_ = count;
        return cudaSuccess;
    }

    // Frees the memory now (the buffer is then empty). In a destructor there
    // is no one to report a failure to: it is ignored.
    void release() {
        if (data_) (void)(M == Memory::device ? cudaFree(data_) : cudaFreeHost(data_));
        data_ = nullptr;
        count_ = 0;
    }

    T* get() const { return data_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }

    // The whole host vector into the start of the buffer (it must fit).
    cudaError_t upload(const std::vector<T>& host) {
        if (host.size() > count_) return cudaErrorInvalidValue;
        if (host.empty()) return cudaSuccess;
        return cudaMemcpy(data_, host.data(), host.size() * sizeof(T), M == Memory::device ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    }
    // The whole buffer into the host vector (resized to fit).
    cudaError_t download(std::vector<T>* host) const {
        host->resize(count_);
        if (count_ == 0) return cudaSuccess;
        return cudaMemcpy(host->data(), data_, count_ * sizeof(T), M == Memory::device ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    }

  private:
    T* data_ = nullptr;
    size_t count_ = 0;
};

template <typename T>
using DeviceBuffer = Buffer<T, Memory::device>;
template <typename T>
using PinnedBuffer = Buffer<T, Memory::pinned>;

}  // namespace ch12
