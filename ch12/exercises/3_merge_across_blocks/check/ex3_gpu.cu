// Exercise 3 on a GPU: the kernels your schedule (ex3_merge_across_blocks.cuh)
// asks for, launched by CUDA, judged by the check (ex3_check.h). Without a
// GPU, ex3_merge_across_blocks_sim runs the same check in the block simulator.
#include "ex3_merge_across_blocks.cuh"  // your file (the reference solution's, in ex3_merge_across_blocks_solution)
#include "ex3_check.h"

int main(int argc, char** argv) { return ex3::main(argc, argv); }
