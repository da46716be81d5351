// ch12/extras/sort/src/window_plan.h -- the window design's planner (host, plain
// C++): which windows a sort needs, and each window's operations
// (window_core.h says what those are). The library launches exactly these
// passes, the benchmark counts its trips from them, and the CPU test
// (test_window.cpp) runs them on the CPU. Private to the library (src/).
#pragma once

#include <cstdint>
#include <vector>

#include "bitonic/tuning.h"
#include "plan.h"
#include "tuning_policy.h"
#include "window_core.h"

namespace bitonic {
namespace window {

// What a plan is for: arrays of 2^seg_bits words (seg_bits >= 1), sorted
// whole or (merge) only their last stage, in windows of 2^bits words with
// 2^reg_bits words per thread.
struct Shape {
    int seg_bits = 1;
    bool merge = false;
    int bits = kMinBits;
    int reg_bits = kMinRegBits;
    // The arrays' blocks of 2^presorted words are already sorted as the
    // network's first `presorted` stages leave them (directions alternating
    // by index bit `presorted`, words not complemented: the fast design's
    // tile kernel does that): the plan starts at stage presorted + 1. 0: a
    // whole sort. A merge starts at the last stage whatever this says.
    int presorted = 0;
};

// The plan of a shape, made once and kept (thread-safe): nullptr and the
// reason when plan() refuses it.
const std::vector<Pass>* cached_plan(const Shape& s, const char** why);

// The passes, in order, or nullptr and the reason when a shape is outside
// the planner's limits (bits 12..15, reg_bits 5..6, bits - reg_bits >= 5,
// seg_bits 1..31, presorted 0 .. seg_bits - 1; never for a shape route()
// returns). A sort with
// seg_bits <= bits is one pass over windows of consecutive words (2^(bits -
// seg_bits) arrays each); a longer one starts with such a pass (stages 1 ..
// bits) and continues with windows chosen greedily: each as far along the
// network as bits index bits (the lowest reg_bits always among them) reach.
// Within a pass, layouts are chosen greedily too (the register bits of the
// next steps); a first or last layout that keeps the lane bits (0..4) out of
// its registers is loaded or stored directly (Pass::direct_*).
const char* plan(const Shape& s, std::vector<Pass>* out);

// Trips through global memory (passes) of a plan: the same windows, without
// their operations.
int passes(const Shape& s);

// The windows' bits for a request of `total` padded words in arrays of
// 2^seg_bits, on this tuning, for words of word_bytes (4: keys, 8: pairs):
// the tuning's window (Tuning::window_bits: the largest that lets two blocks
// share an SM), lowered while the grid would not give every SM a block (but
// never below seg_bits when one window of that size holds an array: one pass
// beats several), and 64 words per thread for keys in windows of 2^14 or
// more, else 32. Nothing presorted (route() decides that).
Shape shape_for(const Tuning& t, int word_bytes, int seg_bits, uint64_t total, bool merge);

// How the window design carries out a request; its launch code and its trip
// count (traffic.h) both ask this. fused: the plan sorts straight from the
// caller's arrays (Plan::fused); dense: those arrays are dense (len = P,
// back to back). Otherwise the words are dense planes of order bits.
//   fast       the fast design, whole: arrays shorter than 2^window_from
//              words (Tuning), where the measurements favour it;
//   fast_tile  the fast design's one-kernel tiles: arrays of up to 2^11
//              words, and with clusters arrays of up to 2^16 in requests of
//              at most 2^17 words;
//   window     the plan of `shape`, `passes` trips: one pass straight from
//              the caller's arrays when a window holds an array, several in
//              place when they are dense, several over dense planes else --
//              after the fast design's tile kernel (one trip more) when
//              shape.presorted > 0 (Tuning::window_presort: its tile is
//              larger than a window).
enum class Kernel { fast, fast_tile, window };
struct Route {
    Kernel kernel = Kernel::window;
    Shape shape;
    int passes = 1;  // fast: 0 (traffic.h counts the fast design's trips)
};
Route route(const Tuning& t, int word_bytes, int seg_bits, uint64_t total, bool fused, bool dense, bool merge);

// The longest array (padded words) the window design sorts straight from the
// caller's arrays: the fast design's tile where the fast design takes every
// array that long (Tuning::window_from), else that tile or the smaller of
// the two windows (keys, pairs), whichever is larger.
uint64_t fused_words(const Tuning& t);

// The bank each lane of a warp touches, for the CPU test: the slot of
// register r of `thread` on one side of an exchange (from: the layout it
// leaves; else the one it joins).
uint32_t exchange_slot(const Pass& p, int exchange, bool from, uint32_t thread, int r);

}  // namespace window
}  // namespace bitonic
