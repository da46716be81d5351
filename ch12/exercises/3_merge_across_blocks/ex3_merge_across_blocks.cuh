// Exercise 3 (Section 12.2): 61's merge across several blocks.
//
// 61 merges 8 values in one block: one thread per element, a loop over the
// distances, __syncthreads() between passes. But a block holds at most 1024
// threads, and __syncthreads() waits for its own block only. To merge more,
// the distances are split in two kinds:
//
//   - a distance whose groups (2 * dist elements) are larger than one block's
//     tile needs every block's writes before the next pass can start: each
//     such pass is a launch of its own, through global memory;
//   - once the groups fit in a tile, every remaining pass stays inside its
//     block: one launch loads each tile into shared memory and runs 61's loop
//     over the rest of the distances there.
//
// Both kernels are written. Your part is the schedule, in the region marked
// "your code": which distances go to which kernel, in which order.
// README.md has a hint.
//
// Your file is this header, and only this header: nvcc compiles it into
// ex3_merge_across_blocks (the GPU runs the kernels your schedule asks for),
// and a C++ compiler into ex3_merge_across_blocks_sim (the block simulator
// runs them on the CPU, every thread of every block). The check, in
// check/ex3_check.h, merges bitonic inputs of n = 2 .. 16384, both
// directions, against std::sort.

const int kTile = 256;  // elements per block, one thread each

// One pass at distance dist over the whole array, through global memory:
// 61's test and compare-exchange, with thread numbers that run across blocks.
__global__ void merge_pass_global(int* g_a, int n, int dist, int ascending) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n) return;
    if ((tid % (2 * dist)) < dist) {
        int i = tid;
        int j = tid + dist;
        int lo = g_a[i];
        int hi = g_a[j];
        bool should_swap = ascending ? (lo > hi) : (lo < hi);
        if (should_swap) {
            g_a[i] = hi;
            g_a[j] = lo;
        }
    }
}

// The passes at distances from, from/2, ..., 1, inside each block: the block
// copies its tile into shared memory, runs 61's loop on it, and copies it
// back. Right only when 2 * from <= blockDim.x (at most kTile): every group
// is then inside one tile. Every thread of the block reaches every
// __syncthreads().
__global__ void merge_passes_in_block(int* g_a, int from, int ascending) {
    __shared__ int tile[kTile];
    int tid = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    tile[tid] = g_a[base + tid];
    __syncthreads();
    for (int dist = from; dist >= 1; dist /= 2) {
        if ((tid % (2 * dist)) < dist) {
            int lo = tile[tid];
            int hi = tile[tid + dist];
            bool should_swap = ascending ? (lo > hi) : (lo < hi);
            if (should_swap) {
                tile[tid] = hi;
                tile[tid + dist] = lo;
            }
        }
        __syncthreads();
    }
    g_a[base + tid] = tile[tid];
}

// What a schedule can ask for, for one array of n elements and one direction:
// each call is one launch of one of the kernels above. (The check's version
// of it launches them, and writes down what was asked.)
struct Passes {
    virtual ~Passes() {}
    virtual void global_pass(int dist) = 0;      // merge_pass_global: one launch
    virtual void passes_in_block(int from) = 0;  // merge_passes_in_block: one launch
};

// Merges the bitonic array of n elements (a power of two) into sorted order:
// the passes at distances n/2, n/4, ..., 1, in that order, each exactly once.
// `tile` is the number of elements one block holds (kTile, or n if smaller).
inline void merge_across_blocks(Passes& run, int n, int tile) {
    // ---- exercise 3: your code ----
    run.passes_in_block((n < tile ? n : tile) / 2);  // right only while the whole array fits in one tile
    // ---- end of your code ----
}
