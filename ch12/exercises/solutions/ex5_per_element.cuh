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
// "your code": thread i's new value after the pass. Each pass reads one
// buffer and writes another, so no thread sees a half-done pass.
// README.md has a hint.
//
// Your file is this header, and only this header: nvcc compiles it into
// ex5_per_element (the GPU runs your kernel), and a C++ compiler into
// ex5_per_element_sim (the block simulator runs it on the CPU, every thread,
// and reports an index outside the array). The check, in check/ex5_check.h,
// compares every thread of every pass of full sorts of n = 8 .. 1024 with
// what 63's own kernel leaves after the same pass.

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

// One pass: one thread per element, blocks of 256 threads.
__global__ void per_element_pass(const int* in, int* out, int n, int stage, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = new_value(in, i, stage, stride);
}
