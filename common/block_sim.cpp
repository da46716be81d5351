// common/block_sim.cpp -- the block simulator's runtime (common/block_sim.h,
// part 4 and 5), compiled once into the library that every simulator program
// links (CMake: ch12_block_sim, or ch12_block_sim_ucontext for the programs
// built with -DBLOCK_SIM_UCONTEXT). Compiled with -fsanitize=thread like the
// programs (the header wants it), at -O2 whatever the build type: compiled
// once, it makes every simulator run faster. Its own loads and stores
// (instrumented or not) are never taken for a kernel's: recording is on only
// while a simulated thread runs, and detail::record() turns it off while it
// records.
#define BLOCK_SIM_RUNTIME 1
#include "block_sim.h"
