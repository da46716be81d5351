// Exercise 4 on a GPU: your kernel (ex4_one_launch.cuh), launched by CUDA,
// judged by the check (ex4_check.h). Without a GPU, ex4_one_launch_sim runs
// the same check in the block simulator.
#include "ex4_one_launch.cuh"  // your file (the reference solution's, in ex4_one_launch_solution)
#include "ex4_check.h"

int main(int argc, char** argv) { return ex4::main(argc, argv); }
