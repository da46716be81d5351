// Exercise 4 in the block simulator (common/block_sim.h): your kernel
// (ex4_one_launch.cuh) run on the CPU, every thread, __syncthreads() a real
// barrier, judged by the same check (ex4_check.h) as on a GPU -- and a
// missing barrier reported as the race it is. No GPU and no nvcc needed.
#include "block_sim.h"
#include "ex4_one_launch.cuh"  // your file (the reference solution's, in ex4_one_launch_solution_sim)
#include "ex4_check.h"

int main(int argc, char** argv) { return block_sim::run_main(ex4::main, argc, argv); }
