# The block simulator's tests on the reference solutions with one mistake each
# (ch12_sim_mutant(), ch12/exercises/CMakeLists.txt): included from there
# where this folder is -- never in the student handout, as the texts replaced
# are lines of the solutions. One per class of mistake the simulator must
# report: a barrier some threads skip, two barriers on one line, a __device__
# variable every thread writes, a __shared__ array too small; and one it must
# refuse when it compiles: a warp function.
set(ex4_barrier "            compare_exchange_step(g_a, k, j, i, g_trace + pass * n);
            __syncthreads();  // every thread's pass is done before any thread starts the next")
ch12_sim_mutant(ex4_barrier_inside_the_pair EXERCISE 4_one_launch FILE ex4_one_launch.cuh
  FROM "${ex4_barrier}"
  TO "            if ((i ^ j) > i) {
                compare_exchange_step(g_a, k, j, i, g_trace + pass * n);
                __syncthreads();
            }"
  EXPECT "check 1, 63's input, n = 16, pass by pass: NOT YET -- divergent barrier: threads 0 .. 14 wait at the __syncthreads() at ex4_one_launch.cuh:51 (the block's 1st), but thread 15 returned without reaching it"
         "exercise 4: NOT YET -- 2 of 2 checks failed")
ch12_sim_mutant(ex4_two_barriers_on_one_line EXERCISE 4_one_launch FILE ex4_one_launch.cuh
  FROM "            __syncthreads();  // every thread's pass"
  TO "            if (i % 2 == 0) __syncthreads(); else __syncthreads();  // every thread's pass"
  EXPECT "check 1, 63's input, n = 16, pass by pass: NOT YET -- divergent barrier: threads 0, 2, 4, 6, ... wait at the __syncthreads() at ex4_one_launch.cuh:50 (the first of two on that line)"
         "exercise 4: NOT YET -- 2 of 2 checks failed")
ch12_sim_mutant(ex4_device_pass_counter EXERCISE 4_one_launch FILE ex4_one_launch.cuh
  FROM "__global__ void bitonic_sort_one_launch(int* g_a, int n, int* g_trace) {
    int i = threadIdx.x;"
  TO "__device__ int passes_done;
__global__ void bitonic_sort_one_launch(int* g_a, int n, int* g_trace) {
    int i = threadIdx.x;
    passes_done = 0;"
  EXPECT "check 1, 63's input, n = 16, pass by pass: NOT YET -- race on passes_done (__device__): thread 0 wrote it and thread 1 wrote it too"
         "exercise 4: NOT YET -- 2 of 2 checks failed")
ch12_sim_mutant(ex3_tile_too_small EXERCISE 3_merge_across_blocks FILE ex3_merge_across_blocks.cuh
  FROM "__shared__ int tile[kTile];"
  TO "__shared__ int tile[kTile / 2];"
  EXPECT "check 2, bitonic inputs, n = 2 .. 16384, both directions, against std::sort: NOT YET -- n = 256 ascending: out of range: thread 128 wrote tile[128] (__shared__), but tile has 128 elements (indices 0 .. 127)"
         "exercise 3: NOT YET -- 1 of 2 checks failed")
ch12_sim_mutant(ex4_syncwarp EXERCISE 4_one_launch FILE ex4_one_launch.cuh
  FROM "            __syncthreads();  // every thread's pass"
  TO "            __syncwarp();  // every thread's pass"
  REFUSED "the block simulator cannot run __syncwarp: it does not simulate warps")
