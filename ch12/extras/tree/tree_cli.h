// ch12/extras/tree/tree_cli.h -- the depth on the command line of every tree
// program: "--depth D", or as the write-up's programs take it, "<program> D".
#pragma once

#include <string>

#include "cli.h"
#include "tree_bitonic.h"

namespace tree {

// A whole number from 1 to kMaxDepth, given once.
inline int depth_argument(const ch12::CommandLine& cl) {
    const bool named = cl.has("--depth");
    const size_t positional = cl.positional_args().size();
    if (named && positional) cl.fail("the depth was given twice (as --depth and as '" +
                                     std::string(cl.positional_args()[0]) + "')");
    if (!named && !positional) cl.fail("the depth is missing: give --depth D, or D");
    const char* text = named ? cl.value("--depth") : cl.positional_args()[0];
    return (int)cl.to_number(text, "the depth", 1, kMaxDepth);
}

}  // namespace tree
