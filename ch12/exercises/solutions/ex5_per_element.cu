// Exercise 5 (Section 12.3): the pass one thread per ELEMENT, from its two bits.
//
// 63 gives each pair to one thread, which writes both elements. The other
// way to spell the network gives each element to one thread, which writes
// only its own new value, worked out from two bits of its index:
//
//   strideBit = floor(i / stride) % 2   0: I am the low member of my pair
//   dirBit    = floor(i / stage)  % 2   0: my block of `stage` elements ascends
//
// (stage is 63's k, stride is 63's j.) Write new_value, in the region marked
// "your code": thread i's new value after the pass. The kernel below runs it
// on the GPU, --replay runs it on the CPU, one thread after another. Each pass
// reads one buffer and writes another, so no thread sees a half-done pass.
// The check (ex5_check.h) compares every thread of every pass of full sorts
// of n = 8 .. 4096 with 63's pair-per-thread pass. README.md has a hint.
//
//   ex5_per_element [--replay]

#include <algorithm>
#include <cstdio>
#include <vector>

#include "cli.h"
#include "cuda_check.h"

// Thread i's new value after the pass (stage, stride), read from `in`.
__host__ __device__ int new_value(const int* in, int i, int stage, int stride) {
    // ---- exercise 5: your code ----
    int strideBit = (i / stride) % 2;  // 0: the low member of my pair
    int dirBit = (i / stage) % 2;      // 0: my block ascends
    int partner = (strideBit == 0) ? i + stride : i - stride;
    int me = in[i];
    int other = in[partner];
    if (strideBit == dirBit) return me < other ? me : other;  // the bits agree: keep the min
    return me > other ? me : other;                           // they differ: keep the max
    // ---- end of your code ----
}

__global__ void per_element_pass(const int* in, int* out, int n, int stage, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = new_value(in, i, stage, stride);
}

// --replay: a host loop plays the kernel's threads, one after another.
void pass_replay(const std::vector<int>& in, std::vector<int>& out, int stage, int stride) {
    for (int i = 0; i < (int)in.size(); i++) out[i] = new_value(in.data(), i, stage, stride);
}

// The GPU: one launch of n threads (blocks of 256) for the pass.
void pass_on_gpu(const std::vector<int>& in, std::vector<int>& out, int stage, int stride) {
    int n = (int)in.size();
    int *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    per_element_pass<<<(n + 255) / 256, 256>>>(d_in, d_out, n, stage, stride);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
}

#include "ex5_check.h"

int main(int argc, char** argv) {
    bool replay = ch12::lesson_args(argc, argv, "Exercise 5: the per-element pass, from its two bits", true);
    if (!replay) ch12::require_cuda_device(ch12::program_name(argv[0]), "run it with --replay to check it on the CPU");
    return ex5::check(replay ? pass_replay : pass_on_gpu, replay);
}
