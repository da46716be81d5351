// Exercise 1 (Section 12.3): 63's sort, descending -- one line.
//
// This is 63's kernel, its body split out as compare_exchange_step (thread
// i's step in pass (k, j) of a sort of n values). Change ONE line, in the
// region marked "your code", so that the same network sorts DESCENDING.
// README.md has a hint.
//
// Your file is this header, and only this header: nvcc compiles it into
// ex1_descending (the GPU runs your kernel), and a C++ compiler into
// ex1_descending_sim (the block simulator runs it on the CPU, every thread).
// The check, in check/ex1_check.h, sorts 63's input and 30 random inputs of
// n = 2 .. 1024 the way 63 does -- one launch of n threads per (k, j) -- and
// compares each with std::sort's result reversed.

// Thread i's step in pass (k, j) of the sort of n values: 63's kernel body.
__device__ void compare_exchange_step(int* a, int n, int k, int j, int i) {
    int l = i ^ j;
    if (l > i) {
        // ---- exercise 1: your code (one line: which way does i's block sort?) ----
        bool ascending = ((i & k) != 0);  // every block the other way round: the mirror network
        // ---- end of your code ----
        int a_i = a[i];
        int a_l = a[l];
        bool should_swap = ascending ? (a_i > a_l) : (a_i < a_l);
        if (should_swap) {
            a[i] = a_l;
            a[l] = a_i;
        }
    }
    (void)n;  // the length of the whole sort, if your line needs it
}

// 63's kernel: one launch per pass (k, j), one thread per element.
__global__ void bitonic_sort_kernel(int* g_a, int n, int k, int j) {
    int i = threadIdx.x;
    if (i >= n) return;
    compare_exchange_step(g_a, n, k, j, i);
}
