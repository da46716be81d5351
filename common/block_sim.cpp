// common/block_sim.cpp -- the block simulator's runtime (common/block_sim.h,
// part 4 and 5), compiled once into the library that every simulator program
// links (CMake: ch12_block_sim, or ch12_block_sim_ucontext for the programs
// built with -DBLOCK_SIM_UCONTEXT). Compiled with -fsanitize=thread like the
// programs; its own functions are not instrumented (no_sanitize).
#define BLOCK_SIM_RUNTIME 1
#include "block_sim.h"
