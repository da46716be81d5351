// common/device_buffer.h -- a small owning buffer of device memory for the
// companion's programs: cudaMalloc in the constructor, cudaFree in the
// destructor, so that no early return leaks and no cudaMalloc goes without
// its cudaFree.
//
//   ch12::DeviceBuffer<uint32_t> keys(n);      // n uint32_t on the current device
//   keys.upload(host_vector);                  // host -> device, the whole vector
//   kernel<<<...>>>(keys.get(), ...);
//   keys.download(&host_vector);               // device -> host, the whole buffer
//
// For programs: a failed allocation or copy is CUDA_CHECK's exit 1. Code
// that returns its errors instead (the tree's harness) makes the buffer
// empty and calls allocate(), which returns CUDA's error and never exits.
// Move-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>
#include <cuda_runtime.h>

#include "cuda_check.h"

namespace ch12 {

template <typename T>
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t count) {
        if (count == 0) return;
        if (count > SIZE_MAX / sizeof(T))
            cuda_check(cudaErrorMemoryAllocation, "DeviceBuffer: count * sizeof(T) overflows", __FILE__, __LINE__);
        CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
        count_ = count;
    }
    ~DeviceBuffer() { release(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }

    // count elements, in place of what the buffer held; returns CUDA's
    // error (the buffer is then empty) and never exits.
    cudaError_t allocate(size_t count) {
        release();
        if (count > SIZE_MAX / sizeof(T)) return cudaErrorMemoryAllocation;
        const cudaError_t err = cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T));
        if (err != cudaSuccess) {
            data_ = nullptr;
            return err;
        }
        count_ = count;
        return cudaSuccess;
    }

    T* get() const { return data_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }

    // The whole host vector into the start of the buffer (it must fit).
    void upload(const std::vector<T>& host) {
        if (host.size() > count_) cuda_check(cudaErrorInvalidValue, "DeviceBuffer::upload: too many elements", __FILE__, __LINE__);
        if (!host.empty()) CUDA_CHECK(cudaMemcpy(data_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    // The whole buffer into the host vector (resized to fit).
    void download(std::vector<T>* host) const {
        host->resize(count_);
        if (count_) CUDA_CHECK(cudaMemcpy(host->data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
    }

  private:
    void release() {
        if (data_) (void)cudaFree(data_);  // in a destructor: nothing to report to
        data_ = nullptr;
        count_ = 0;
    }
    T* data_ = nullptr;
    size_t count_ = 0;
};

}  // namespace ch12
