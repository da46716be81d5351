// ch12/web/js/cuda_kernels.js -- the CUDA kernels of 59, 61 and 63 (and of
// the traps of 61 and 63), as their .cu files have them, for the page's
// kernel pane. WRITTEN BY tools/kernel_text.py --write; the test
// web_kernel_text fails when a .cu file's kernel and this copy differ.

export const CUDA_KERNELS = {
  "59": {
    "file": "ch12/59_bitonic_split_kernel.cu",
    "kernel": "compare_exchange_kernel",
    "text": "__global__ void compare_exchange_kernel(int* g_a, int dist, int ascending) {\n    int i = threadIdx.x;\n    if (i >= dist) return;\n    int lo = g_a[i];\n    int hi = g_a[i + dist];\n    bool should_swap = ascending ? (lo > hi) : (lo < hi);\n    if (should_swap) {\n        g_a[i] = hi;\n        g_a[i + dist] = lo;\n    }\n}\n"
  },
  "61": {
    "file": "ch12/61_bitonic_merge_multipass.cu",
    "kernel": "bitonic_merge_kernel",
    "text": "__global__ void bitonic_merge_kernel(int* g_a, int cnt, int ascending,\n                                     int* g_trace, int* g_active) {  // companion: the last two\n    int tid = threadIdx.x;\n    if (tid >= cnt) return;\n\n    int pass = 0;  // companion\n    for (int dist = cnt / 2; dist >= 1; dist /= 2) {\n        if ((tid % (2 * dist)) < dist) {\n            atomicAdd(&g_active[pass], 1);  // companion: one more active pair\n            int i = tid;\n            int j = tid + dist;\n            int lo = g_a[i];\n            int hi = g_a[j];\n            bool should_swap = ascending ? (lo > hi) : (lo < hi);\n            if (should_swap) {\n                g_a[i] = hi;\n                g_a[j] = lo;\n            }\n        }\n        __syncthreads();\n        g_trace[pass * cnt + tid] = g_a[tid];  // companion: snapshot of this pass\n        __syncthreads();                       // companion: copy done before the next pass\n        pass++;                                // companion\n    }\n}\n"
  },
  "61-trap": {
    "file": "ch12/traps/61_trap_first_group_only.cu",
    "kernel": "bitonic_merge_kernel",
    "text": "__global__ void bitonic_merge_kernel(int* g_a, int cnt, int ascending,\n                                     int* g_trace, int* g_active) {  // companion: the last two\n    int tid = threadIdx.x;\n    if (tid >= cnt) return;\n\n    int pass = 0;  // companion\n    for (int dist = cnt / 2; dist >= 1; dist /= 2) {\n        if (tid < dist) {  // <-- THE TRAP: the book's test is (tid % (2 * dist)) < dist\n            atomicAdd(&g_active[pass], 1);  // companion: one more active pair\n            int i = tid;\n            int j = tid + dist;\n            int lo = g_a[i];\n            int hi = g_a[j];\n            bool should_swap = ascending ? (lo > hi) : (lo < hi);\n            if (should_swap) {\n                g_a[i] = hi;\n                g_a[j] = lo;\n            }\n        }\n        __syncthreads();\n        g_trace[pass * cnt + tid] = g_a[tid];  // companion: snapshot of this pass\n        __syncthreads();                       // companion: copy done before the next pass\n        pass++;                                // companion\n    }\n}\n"
  },
  "63": {
    "file": "ch12/63_bitonic_sort_iterative.cu",
    "kernel": "bitonic_sort_kernel",
    "text": "__global__ void bitonic_sort_kernel(int* g_a, int n, int k, int j) {\n    int i = threadIdx.x;\n    if (i >= n) return;\n    int l = i ^ j;\n    if (l > i) {\n        bool ascending = ((i & k) == 0);\n        int a_i = g_a[i];\n        int a_l = g_a[l];\n        bool should_swap = ascending ? (a_i > a_l) : (a_i < a_l);\n        if (should_swap) {\n            g_a[i] = a_l;\n            g_a[l] = a_i;\n        }\n    }\n}\n"
  },
  "63-trap": {
    "file": "ch12/traps/63_trap_no_pair_guard.cu",
    "kernel": "bitonic_sort_kernel",
    "text": "__global__ void bitonic_sort_kernel(int* g_a, int n, int k, int j) {\n    int i = threadIdx.x;\n    if (i >= n) return;\n    int l = i ^ j;\n    {  // <-- THE TRAP: the book's `if (l > i) {` -- one writer per pair\n        bool ascending = ((i & k) == 0);\n        int a_i = g_a[i];\n        int a_l = g_a[l];\n        bool should_swap = ascending ? (a_i > a_l) : (a_i < a_l);\n        if (should_swap) {\n            g_a[i] = a_l;\n            g_a[l] = a_i;\n        }\n    }\n}\n"
  }
};
