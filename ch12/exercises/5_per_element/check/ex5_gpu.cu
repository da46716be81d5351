// Exercise 5 on a GPU: your kernel (ex5_per_element.cuh), launched by CUDA,
// judged by the check (ex5_check.h). Without a GPU, ex5_per_element_sim runs
// the same check in the block simulator.
#include "ex5_per_element.cuh"  // your file (the reference solution's, in ex5_per_element_solution)
#include "ex5_check.h"

int main(int argc, char** argv) { return ex5::main(argc, argv); }
