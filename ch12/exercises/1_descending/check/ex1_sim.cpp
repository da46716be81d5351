// Exercise 1 in the block simulator (common/block_sim.h): your kernel
// (ex1_descending.cuh) run on the CPU, every thread, judged by the same check
// (ex1_check.h) as on a GPU. No GPU and no nvcc needed.
#include "block_sim.h"
#include "ex1_descending.cuh"  // your file (the reference solution's, in ex1_descending_solution_sim)
#include "ex1_check.h"

int main(int argc, char** argv) { return block_sim::run_main(ex1::main, argc, argv); }
