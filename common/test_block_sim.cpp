// The block simulator's own tests (common/block_sim.h): each case a small
// kernel with a known flaw, or none, and what the simulator must say.
//
//   test_block_sim     prints one line per case (ok / FAIL) and exits 0 when all hold
#include "block_sim.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int failures = 0, cases = 0;

void expect(const char* name, bool ok, const std::string& detail) {
    cases++;
    if (!ok) failures++;
    std::printf("%s: %s%s%s\n", ok ? "ok" : "FAIL", name, detail.empty() ? "" : " -- ", detail.c_str());
}

bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---- the kernels ----------------------------------------------------------------------

__global__ void double_each(int* a, int n) {
    int i = threadIdx.x;
    if (i < n) a[i] = 2 * a[i];
}

// Each thread reads its left neighbour and writes itself: a race without a barrier.
__global__ void shift_racy(int* a, int n) {
    int i = threadIdx.x;
    if (i > 0 && i < n) a[i] = a[i - 1];
}

__global__ void shift_with_barrier(int* a, int n) {
    int i = threadIdx.x;
    int left = (i > 0 && i < n) ? a[i - 1] : 0;
    __syncthreads();
    if (i > 0 && i < n) a[i] = left;
}

__global__ void reverse_in_shared(int* a, bool barrier) {
    __shared__ int tile[64];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    tile[t] = a[base + t];
    if (barrier) __syncthreads();
    a[base + t] = tile[blockDim.x - 1 - t];
}

__global__ void return_early(int* a, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    a[i] = 1;
    __syncthreads();
    a[i] += 1;
}

__global__ void two_barriers(int* a) {
    if (threadIdx.x % 2 == 0) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    a[threadIdx.x] = 1;
}

__global__ void every_block_writes_one(int* a) { a[0] = (int)blockIdx.x; }

__global__ void read_past_the_end(const int* in, int* out, int shift) {
    int i = threadIdx.x;
    out[i] = in[i + shift];
}

__global__ void count_atomically(int* count) { atomicAdd(&count[0], 1); }

__global__ void count_plainly_and_atomically(int* count) {
    if (threadIdx.x == 0) count[0] = 5;
    else atomicAdd(&count[0], 1);
}

// A static variable in a kernel is a __device__ variable: every thread bumps
// the one counter, a race the simulator sees by the variable's name.
__global__ void numbered_by_arrival(int* a) {
    static int next = 0;
    a[threadIdx.x] = next++;
}

// Race-free on every memory the simulator watches, but the values come from a
// counter on the host's heap, bumped in whatever order the threads run.
int* heap_counter = nullptr;
__global__ void numbered_through_the_heap(int* a, int* counter) { a[threadIdx.x] = (*counter)++; }

// __device__ arrays: watched like global memory.
__device__ int scratch[32];
__global__ void scratch_racy(int* a) {
    scratch[0] = (int)threadIdx.x;
    a[threadIdx.x] = scratch[0];
}
__global__ void scratch_with_barrier(int* a) {
    const int t = (int)threadIdx.x;
    scratch[t] = t;
    __syncthreads();
    a[t] = scratch[(t + 1) % (int)blockDim.x];
}

// __shared__ indices out of range: past the end, far past it, before the start,
// and past the first of two arrays (each has a guard of its own).
__global__ void shared_index(int* a, int shift) {
    __shared__ int small[8];
    const int t = (int)threadIdx.x;
    small[t + shift] = t;
    __syncthreads();
    a[t] = small[t];
}
__global__ void two_shared_arrays(int* a) {
    __shared__ int first[4];
    __shared__ int second[4];
    const int t = (int)threadIdx.x;
    if (t < 4) second[t] = 0;
    first[t] = t;
    __syncthreads();
    a[t] = first[t % 4] + second[t % 4];
}

// Bytes and halves of one word, written by different threads: no race.
__global__ void bytes_each(unsigned char* g, unsigned short* h) {
    __shared__ unsigned char s[64];
    const unsigned t = threadIdx.x;
    g[t] = (unsigned char)t;
    h[t] = (unsigned short)t;
    s[t] = (unsigned char)t;
    __syncthreads();
    g[t] = (unsigned char)(g[t] + s[(t + 1) % blockDim.x]);
}
// ... but a whole word read while another thread writes one of its bytes: a race.
__global__ void word_over_bytes(unsigned char* g, int* out) {
    const unsigned t = threadIdx.x;
    g[t] = (unsigned char)t;
    if (t == 0) {
        int w;
        std::memcpy(&w, g, 4);
        out[0] = w;
    }
}

// The rest of CUDA's words a kernel may use: __launch_bounds__, a __constant__
// table, __ldg, a fence.
__constant__ int kSquares[4] = {0, 1, 4, 9};
__global__ void __launch_bounds__(64) squares(int* a) {
    const int t = (int)threadIdx.x;
    __threadfence_block();
    a[t] = __ldg(&kSquares[t % 4]);
}

// Two __syncthreads() on one line, one for each branch: a divergent barrier.
// clang-format off
__global__ void two_barriers_one_line(int* a) {
    if (threadIdx.x % 2 == 0) __syncthreads(); else __syncthreads();
    a[threadIdx.x] = 1;
}
// clang-format on

// 63's loop in one launch with the barrier inside if (l > i): the threads
// without a pair skip it -- a divergent barrier at any n, whatever races follow.
__global__ void barrier_inside_the_pair(int* a, int n) {
    const int i = (int)threadIdx.x;
    for (int k = 2; k <= n; k *= 2)
        for (int j = k / 2; j > 0; j /= 2) {
            const int l = i ^ j;
            if (l > i) {
                const bool ascending = (i & k) == 0;
                const int x = a[i], y = a[l];
                if (ascending ? x > y : x < y) {
                    a[i] = y;
                    a[l] = x;
                }
                __syncthreads();
            }
        }
}

__global__ void where_am_i(int* a) {
    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    a[b * blockDim.x * blockDim.y * blockDim.z + t] = b * 1000 + t;
}

// A race after two barriers: the message names the interval.
__global__ void late_race(int* a) {
    int i = threadIdx.x;
    a[i] = i;
    __syncthreads();
    a[i] += 1;
    __syncthreads();
    a[(i + 1) % blockDim.x] = a[i];
}

__global__ void doubles_racy(double* d) { d[0] = threadIdx.x; }

__global__ void private_scratch(int* a) {
    int scratch[8];
    for (int k = 0; k < 8; k++) scratch[k] = k + (int)threadIdx.x;
    a[threadIdx.x] = scratch[7];
}

std::vector<int> values(const int* a, int n) { return std::vector<int>(a, a + n); }

}  // namespace

int main() {
    block_sim::Device dev;
    int* a = dev.malloc<int>(16, "g_a");

    for (int i = 0; i < 16; i++) a[i] = i;
    dev.launch(double_each, dim3(1), dim3(16), a, 16);
    expect("a race-free kernel: no problem, the right values", dev.ok() && a[15] == 30, dev.problem());
    dev.clear();

    for (int i = 0; i < 16; i++) a[i] = i;
    dev.launch(shift_racy, dim3(1), dim3(16), a, 16);
    std::string p = dev.problem();
    expect("a neighbour's word with no barrier: a race, with both threads, the index and the interval",
           starts(p, "race on g_a[1]: thread 1 wrote it and thread 2 read it with no __syncthreads() between them "
                     "(the block met no __syncthreads() at all)"),
           p);
    dev.clear();

    for (int i = 0; i < 16; i++) a[i] = i;
    dev.launch(shift_with_barrier, dim3(1), dim3(16), a, 16);
    expect("the same with a barrier between the read and the write: no race, the shifted values",
           dev.ok() && a[1] == 0 && a[15] == 14, dev.problem());
    dev.clear();

    for (int i = 0; i < 16; i++) a[i] = i;
    dev.launch(reverse_in_shared, dim3(2), dim3(8), a, true);
    expect("__shared__ memory with a barrier, two blocks: no race (each block has its own)",
           dev.ok() && a[0] == 7 && a[8] == 15, dev.problem());
    dev.clear();

    dev.launch(reverse_in_shared, dim3(2), dim3(8), a, false);
    p = dev.problem();
    expect("__shared__ memory without the barrier: a race on the array, by name",
           starts(p, "race on tile[") && has(p, "(__shared__)") && has(p, "of block 0"), p);
    dev.clear();

    dev.launch(return_early, dim3(1), dim3(16), a, 12);
    p = dev.problem();
    expect("threads that return before a barrier the others wait at: a divergent barrier",
           starts(p, "divergent barrier: threads 0 .. 11 wait at the __syncthreads() at test_block_sim.cpp:") &&
               has(p, "but threads 12 .. 15 returned without reaching it"),
           p);
    dev.clear();

    dev.launch(two_barriers, dim3(1), dim3(4), a);
    p = dev.problem();
    expect("threads waiting at two different __syncthreads(): a divergent barrier",
           starts(p, "divergent barrier: ") && has(p, "wait at the __syncthreads() at test_block_sim.cpp:"), p);
    dev.clear();

    dev.launch(every_block_writes_one, dim3(3), dim3(1), a);
    p = dev.problem();
    expect("two blocks writing one word: a race (blocks never wait for each other)",
           starts(p, "race on g_a[0]: thread 0 of block 0 wrote it and thread 0 of block 1 wrote it too, in the same launch"),
           p);
    dev.clear();

    int* in = dev.malloc<int>(8, "in");
    int* out = dev.malloc<int>(8, "out");
    dev.launch(read_past_the_end, dim3(1), dim3(8), (const int*)in, out, 4);
    p = dev.problem();
    expect("an index past the end: out of range, with the index and the length",
           p == "out of range: thread 4 read in[8], but in has 8 elements (indices 0 .. 7)", p);
    dev.clear();
    dev.launch(read_past_the_end, dim3(1), dim3(8), (const int*)in, out, -3);
    p = dev.problem();
    expect("an index before the start: out of range", starts(p, "out of range: thread 0 read in[-3]"), p);
    dev.clear();

    int* count = dev.malloc<int>(1, "count");
    count[0] = 0;
    dev.launch(count_atomically, dim3(4), dim3(32), count);
    expect("atomicAdd from 128 threads of 4 blocks: no race, the count right", dev.ok() && count[0] == 128,
           dev.problem() + " count " + std::to_string(count[0]));
    dev.clear();
    dev.launch(count_plainly_and_atomically, dim3(1), dim3(4), count);
    p = dev.problem();
    expect("a plain write and an atomic on one word: a race",
           starts(p, "race on count[0]: thread 0 wrote it and thread 1 used an atomic on it"), p);
    dev.clear();

    dev.launch(numbered_by_arrival, dim3(1), dim3(16), a);
    p = dev.problem();
    expect("a kernel's static counter (a __device__ variable) bumped by every thread: a race on it, by name",
           starts(p, "race on next (__device__): thread 0 wrote it and thread 1 read it"), p);
    dev.clear();

    heap_counter = new int(0);
    dev.launch(numbered_through_the_heap, dim3(1), dim3(16), a, heap_counter);
    p = dev.problem();
    expect("a result that depends on the threads' order: found by the shuffled run",
           starts(p, "the result depends on the order the threads run in: g_a[") &&
               values(a, 4) == std::vector<int>({0, 1, 2, 3}),
           p);
    dev.clear();
    delete heap_counter;

    dev.launch(scratch_racy, dim3(1), dim3(8), a);
    p = dev.problem();
    expect("a __device__ array written by every thread: a race, by name and index",
           starts(p, "race on scratch[0] (__device__): thread 0 wrote it and thread 1 wrote it too"), p);
    dev.clear();
    dev.launch(scratch_with_barrier, dim3(1), dim3(16), a);
    expect("a __device__ array with a barrier between write and read: no race, the values",
           dev.ok() && a[0] == 1 && a[15] == 0, dev.problem());
    dev.clear();

    dev.launch(shared_index, dim3(1), dim3(9), a, 0);
    p = dev.problem();
    expect("a __shared__ index past the end: out of range, with the thread, the array, the index and its size "
           "(never a crash)",
           p == "out of range: thread 8 wrote small[8] (__shared__), but small has 8 elements (indices 0 .. 7)", p);
    dev.clear();
    dev.launch(shared_index, dim3(1), dim3(8), a, 300);
    p = dev.problem();
    expect("a __shared__ index far past the end: out of range",
           p == "out of range: thread 0 wrote small[300] (__shared__), but small has 8 elements (indices 0 .. 7)", p);
    dev.clear();
    dev.launch(shared_index, dim3(1), dim3(8), a, -2);
    p = dev.problem();
    expect("a __shared__ index before the start: out of range",
           p == "out of range: thread 0 wrote small[-2] (__shared__), but small has 8 elements (indices 0 .. 7)", p);
    dev.clear();
    dev.launch(two_shared_arrays, dim3(1), dim3(5), a);
    p = dev.problem();
    expect("past the end of the first of two __shared__ arrays: out of range, not the second array",
           p == "out of range: thread 4 wrote first[4] (__shared__), but first has 4 elements (indices 0 .. 3)", p);
    dev.clear();

    unsigned char* g = dev.malloc<unsigned char>(64, "g_bytes");
    unsigned short* h = dev.malloc<unsigned short>(64, "g_halves");
    dev.launch(bytes_each, dim3(1), dim3(64), g, h);
    expect("threads writing different bytes (and halves) of one word, global and __shared__: no race",
           dev.ok() && g[0] == 1 && g[63] == 63 && h[5] == 5, dev.problem());
    dev.clear();
    dev.launch(word_over_bytes, dim3(1), dim3(4), g, a);
    p = dev.problem();
    expect("a whole word read while another thread writes one of its bytes: a race on that byte",
           starts(p, "race on g_bytes[1]: thread 0 read it and thread 1 wrote it"), p);
    dev.clear();

    dev.launch(squares, dim3(1), dim3(8), a);
    expect("__launch_bounds__, a __constant__ table, __ldg and a fence: the values, no race",
           dev.ok() && a[3] == 9 && a[6] == 4, dev.problem());
    dev.clear();

    dev.launch(two_barriers_one_line, dim3(1), dim3(4), a);
    p = dev.problem();
    expect("two __syncthreads() on one line, one per branch: a divergent barrier",
           starts(p, "divergent barrier: threads 0, 2 wait at the __syncthreads() at test_block_sim.cpp:") &&
               has(p, "(the first of two on that line)") && has(p, "(the second of two on that line)"),
           p);
    dev.clear();

    for (int n : {2, 16, 1024}) {
        int* v = dev.malloc<int>((size_t)n, "g_a");
        for (int i = 0; i < n; i++) v[i] = (i * 13 + 5) % n;
        dev.launch(barrier_inside_the_pair, dim3(1), dim3((unsigned)n), v, n);
        p = dev.problem();
        expect(("the barrier inside if (l > i), n = " + std::to_string(n) + ": a divergent barrier, not a race").c_str(),
               starts(p, "divergent barrier: ") && has(p, "returned without reaching it"), p);
        dev.clear();
        dev.free(v);
    }

    int* grid = dev.malloc<int>(2 * 3 * 24, "grid");
    dev.launch(where_am_i, dim3(2, 3), dim3(4, 3, 2), grid);
    bool right = dev.ok();
    for (int b = 0; b < 6; b++)
        for (int t = 0; t < 24; t++) right = right && grid[b * 24 + t] == b * 1000 + t;
    expect("threadIdx, blockIdx, blockDim and gridDim in three dimensions", right, dev.problem());
    dev.clear();

    dev.launch(late_race, dim3(1), dim3(8), a);
    p = dev.problem();
    expect("a race after the second barrier: the interval named",
           starts(p, "race on g_a[") && has(p, "both after the block's 2nd __syncthreads(), its last"), p);
    dev.clear();

    double* d = dev.malloc<double>(1, "d");
    dev.launch(doubles_racy, dim3(1), dim3(2), d);
    p = dev.problem();
    expect("8-byte words race too", starts(p, "race on d[0]: thread 0 wrote it and thread 1 wrote it too"), p);
    dev.clear();

    dev.launch(private_scratch, dim3(1), dim3(16), a);
    expect("a thread's own local array: not shared memory, no race", dev.ok() && a[3] == 10, dev.problem());
    dev.clear();

    dev.launch(double_each, dim3(1), dim3(2048), a, 16);
    p = dev.problem();
    expect("a block of 2048 threads: refused", has(p, "a block holds 1 to 1024 threads"), p);
    dev.clear();

    std::printf("\n%d of %d cases hold\n", cases - failures, cases);
    return failures == 0 ? 0 : 1;
}
