// ch12/extras/sort/src/tuning_policy.h -- the library's own, no part of its
// API: its choices for a device (its tuning policy), in one small file, as
// CUB keeps its policies -- every launch configuration, derived from the
// limits alone (bitonic/tuning.h): cluster size, tile size, the "spread", the
// grid of the grid-stride kernels, the window design's window and route.
// No CUDA here: g++ compiles it for the CPU-only tests.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bitonic/tuning.h"

namespace bitonic {

// ---- the tuning policy -------------------------------------------------------------
// The fast design's blocks: 256 threads x 16 words in registers, a 4096-word
// tile of shared memory, padded with one word after every 16 where the tile
// size uses that layout: at most 17 KiB for keys, 34 KiB for pairs (static).
constexpr int kFastBlockBits = 12;
constexpr size_t kFastBlockSlots = (size_t(1) << kFastBlockBits) + (size_t(1) << (kFastBlockBits - 4));  // padded: 4352
constexpr size_t kFastBlockSmem[2] = {4 * kFastBlockSlots, 8 * kFastBlockSlots};  // keys, pairs
// Clusters: the fast design uses clusters of 16 blocks (65536-word tiles)
// where the device runs them (Hopper and later), none anywhere else.
constexpr int kFastClusterBlocks = 16;
// The grid-stride kernels (pack, unpack): 256 threads a block, this many
// waves of full SMs.
constexpr int kStreamThreads = 256;
constexpr int kStreamWaves = 4;
// The window design (src/window_plan.h): windows of 2^12 .. 2^15 words, one
// block each, all of them in its shared memory. Arrays of up to 2^11 words
// go to the fast design's one-block tiles instead, and so do arrays of up to
// a cluster's tile when the whole request is at most 2^17 words (one or two
// clusters: a single kernel beats several passes there).
constexpr int kWindowMinBits = 12, kWindowMaxBits = 15;
constexpr int kWindowFastTileBits = 11;
constexpr int kWindowSmallTotalBits = 17;
// The window's size: the largest that lets this many blocks share an SM (the
// H200's first run: one block of 2^15 keys an SM left the SM idle at every
// barrier and while it loaded; two of 2^14 were 7% faster at 2^24 keys).
constexpr int kWindowBlocksPerSm = 2;
// Where the window passes take over from the fast design, measured on the
// H200 (median of 7, the windows after the cluster tiles against the fast
// design, every result checked). The rule, fixed before the first such run:
// the smallest size where the windows win by more than 3%. The first run
// (2026-12-01) put that at 2^22 keys (2.5% at 2^20, 1.7% at 2^21); since the
// windows load and store through shared memory (round 9), the run of
// 2026-12-02 19:57 UTC gives 1.3 .. 1.8% at 2^19, 6.2 .. 6.6% at 2^20, 12% at 2^21,
// 14% at 2^22, 17% at 2^23, 24% at 2^24. So: arrays of 2^20 keys and more,
// where the cluster tiles come first (GPUs with clusters). Without clusters
// the windows sort from scratch (round 2, on the H200: 36% slower than the
// fast design at 2^20), and no run has compared them there below 2^22: those
// GPUs keep the first run's route.
// Pairs and merges: never (not measured faster anywhere yet).
constexpr int kWindowFromBits[2] = {20, 32};           // sorts of keys, of pairs, after the cluster tiles; 32: never
constexpr int kWindowFromBitsNoPresort[2] = {22, 32};  // the same without clusters
constexpr int kWindowMergeFromBits = 32;

struct Tuning {
    Limits limits;              // the device's, as lowered by the profile
    int fast_cluster = 1;       // blocks per cluster of the fast design: 16 or 1
    int fast_tile_bits = 12;    // its tile: 2^12 words per block times the cluster
    // The "spread": a single cluster would be packed onto a few SMs, several
    // blocks each; asking for more dynamic shared memory (unused) than half
    // an SM's puts each block on an SM of its own. Per word size (keys,
    // pairs); 0 where it does not apply (no clusters, or the block's
    // shared-memory limit does not allow it).
    size_t fast_spread[2] = {0, 0};
    uint32_t stream_blocks = 1;  // grid of the grid-stride kernels
    // The window design's window per word size (keys, pairs): the largest T
    // in 12 .. 15 (pairs: .. 14) whose 2^T words fit one block's shared
    // memory and kWindowBlocksPerSm such blocks an SM's (at least 12).
    int window_bits[2] = {0, 0};
    // Its first stages by the fast design's tile kernel (where that tile is
    // larger than a window: clusters), and the arrays it takes from the fast
    // design: 2^window_from[w] words and more (kWindowFromBits after the
    // cluster tiles, else kWindowFromBitsNoPresort), merges 2^window_merge_from.
    bool window_presort = false;
    int window_from[2] = {32, 32};
    int window_merge_from = 32;
};

// The tuning for these limits, or Errc::unsupported when the library's
// kernels cannot run within them.
Status tune(const Limits& limits, Tuning* out);

// The window design's choices pinned (a profile's WindowPin) on a tuning
// that tune() made, or Errc::unsupported when the pinned window does not fit
// the limits.
Status pin_window(const WindowPin& pin, Tuning* t);

}  // namespace bitonic
