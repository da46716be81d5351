// Exercise 3 in the block simulator (common/block_sim.h): the kernels your
// schedule (ex3_merge_across_blocks.cuh) asks for, run on the CPU, every
// thread of every block, judged by the same check (ex3_check.h) as on a GPU.
// No GPU and no nvcc needed.
#include "block_sim.h"
#include "ex3_merge_across_blocks.cuh"  // your file (the reference solution's, in ex3_merge_across_blocks_solution_sim)
#include "ex3_check.h"

int main(int argc, char** argv) { return block_sim::run_main(ex3::main, argc, argv); }
