// Exercise 1 on a GPU: your kernel (ex1_descending.cuh), launched by CUDA,
// judged by the check (ex1_check.h). Without a GPU, ex1_descending_sim runs
// the same check in the block simulator.
#include "ex1_descending.cuh"  // your file (the reference solution's, in ex1_descending_solution)
#include "ex1_check.h"

int main(int argc, char** argv) { return ex1::main(argc, argv); }
