// Exercise 5 in the block simulator (common/block_sim.h): your kernel
// (ex5_per_element.cuh) run on the CPU, every thread, judged by the same check
// (ex5_check.h) as on a GPU. No GPU and no nvcc needed.
#include "block_sim.h"
#include "ex5_per_element.cuh"  // your file (the reference solution's, in ex5_per_element_solution_sim)
#include "ex5_check.h"

int main(int argc, char** argv) { return block_sim::run_main(ex5::main, argc, argv); }
