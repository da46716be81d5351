// ch12/extras/multi_gpu/schedule.h -- the bitonic network at the scale of
// blocks: which block meets which, in which direction, and who keeps what.
// Plain C++ (no CUDA needed): the program bitonic_sort_multi_gpu runs it on
// GPUs, and test_schedule.cpp (multi_gpu_schedule_test) runs the very same
// steps on the CPU.
//
// The chapter's network on n = R * S keys, element g = r * S + l (block r,
// position l in the block): at stage k, distance j, element g meets g XOR j,
// ascending where (g & k) == 0. Every distance j >= S moves a whole block:
// g XOR j = (r XOR j/S) * S + l, the same position l in block r XOR j/S. So
// with R = 2^D blocks the network becomes
//
//   sort            each block on its own: the network's stages k = 2 .. S
//                   (block r ascending when r is even, descending when odd)
//   for stage s = 1 .. D                      (k = 2^s * S)
//     for bit t = s-1 down to 0               (j = 2^t * S)
//       compare-split r with r XOR 2^t: position l against position l, and
//       each keeps one side of every pair -- the smaller where it is the
//       lower of the two in an ascending stage, the larger otherwise
//       (one pass over the block: the network's own compare-exchange)
//     merge         each block on its own: the distances S/2 .. 1 of stage
//                   k, which sort a bitonic block (ascending when bit s of r
//                   is 0)
//
// Blocks are "virtual ranks": a GPU holds 2^log_sub of them, back to back.
// A compare-split whose bit t < log_sub pairs two blocks on the same GPU
// (done in device memory); one with t >= log_sub pairs GPU g with GPU
// g XOR 2^(t - log_sub), which exchange their whole arrays. Of the D(D+1)/2
// compare-splits, d(d+1)/2 cross GPUs (p = 2^d GPUs), whatever log_sub is.
#pragma once

#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#define MULTI_GPU_HD __host__ __device__
#else
#define MULTI_GPU_HD
#endif

namespace multi_gpu {

// ---- how the keys are laid out ---------------------------------------------------------
struct Layout {
    int log_gpus = 0;   // p = 2^log_gpus GPUs
    int log_sub = 0;    // 2^log_sub blocks ("virtual ranks") on each GPU
    uint64_t sub = 0;   // S keys in each block
    int log_ranks() const { return log_gpus + log_sub; }
    uint64_t gpus() const { return uint64_t(1) << log_gpus; }
    uint64_t subs_per_gpu() const { return uint64_t(1) << log_sub; }
    uint64_t per_gpu() const { return sub << log_sub; }
    uint64_t total() const { return per_gpu() << log_gpus; }
};

inline bool is_power_of_two(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }
inline int log2_exact(uint64_t x) {  // x a power of two
    int b = 0;
    while ((uint64_t(1) << b) < x) b++;
    return b;
}

// The layout of n keys on 2^log_gpus GPUs: the fewest blocks per GPU (at most
// 2^max_log_sub) with at most max_block keys each, all of the same length.
// Returns nullptr, or what is wrong; *out then holds the number of blocks
// that was tried (log_sub), for the message.
inline const char* choose_layout(uint64_t n, int log_gpus, uint64_t max_block, int max_log_sub, Layout* out) {
    Layout L;
    L.log_gpus = log_gpus;
    for (L.log_sub = 0; L.log_sub <= max_log_sub && L.log_ranks() < 63; L.log_sub++) {
        const uint64_t ranks = uint64_t(1) << L.log_ranks();
        if (n / ranks + (n % ranks ? 1 : 0) <= max_block) {
            *out = L;
            if (n == 0 || n % ranks) return "the keys do not split into equal blocks";
            out->sub = n / ranks;
            return nullptr;
        }
    }
    *out = L;
    return "the blocks would be too many";
}

// ---- the steps ---------------------------------------------------------------------------
enum class Op { sort, compare_split, merge };
struct Step {
    Op op;
    int stage;  // s: 0 for the first sort, 1 .. D after it
    int bit;    // compare_split: the partner of rank r is r XOR 2^bit
};

// Every rank runs the same list, in this order.
inline std::vector<Step> schedule(int log_ranks) {
    std::vector<Step> steps{{Op::sort, 0, 0}};
    for (int s = 1; s <= log_ranks; s++) {
        for (int t = s - 1; t >= 0; t--) steps.push_back({Op::compare_split, s, t});
        steps.push_back({Op::merge, s, 0});
    }
    return steps;
}

// Rank r's direction at stage s (s = 0: the first sort): bit s of r, as the
// network's (g & k) == 0 with k = 2^s * S. At the last stage every rank is
// ascending.
MULTI_GPU_HD inline bool ascending(uint64_t rank, int stage) { return ((rank >> stage) & 1) == 0; }
inline uint64_t partner(uint64_t rank, int bit) { return rank ^ (uint64_t(1) << bit); }
// At a compare-split: does rank r keep the smaller key of each pair? The lower
// rank of the two does in an ascending stage, the upper one in a descending one.
inline bool keeps_min(uint64_t rank, int stage, int bit) { return (((rank >> bit) & 1) == 0) == ascending(rank, stage); }

// ---- pairs: one order for the whole network ------------------------------------------------
// The sort library orders (key, value) pairs by key, then value: ascending is
// (key, value) ascending, but descending is key descending, then value
// ASCENDING (it complements the key's order bits, not the value). That is
// not the reverse of ascending, and the network needs it to be: a block
// sorted up next to one sorted down must make one bitonic sequence of
// (key, value)s, or the library's merge of a block whose length is not a
// power of two (padded with copies of its last pair, which it finds again by
// a binary search) can keep a copy and drop a real pair.
// So a block whose direction is descending holds its values complemented
// (~v): the library's descending order on (key, ~v) is (key, v) descending,
// exactly. The input is written so, and each compare-split reads both sides'
// values as they are stored and writes them as the stage it ends in wants.
// At the last stage every block is ascending: the values are plain again.
// Keys alone need none of this (their descending order is the reverse).
MULTI_GPU_HD inline bool values_flipped(uint64_t rank, int stage) { return !ascending(rank, stage); }

// The network's order: (key, value), the value as it really is (0 for keys alone).
MULTI_GPU_HD inline uint64_t word(uint32_t key, uint32_t value) { return (uint64_t)key << 32 | value; }

// The rule at one position, the same on both sides: a rank takes its
// partner's (key, value) only when it is strictly on its side. Equal words
// stay where they are, so a pair's two (key, value)s stay two.
MULTI_GPU_HD inline bool takes_partner(uint64_t mine, uint64_t theirs, bool keep_min) {
    return keep_min ? theirs < mine : theirs > mine;
}

// One compare-split, as one side sees it.
struct Split {
    bool keep_min;        // this side keeps the smaller word of each position
    bool mine_flipped;    // this side's values are stored complemented before the step
    bool theirs_flipped;  // the partner's are
    bool out_flipped;     // both sides' are after it (they end in the same direction)
    MULTI_GPU_HD Split mirrored() const { return {!keep_min, theirs_flipped, mine_flipped, out_flipped}; }
};
// Before the first compare-split of stage s (bit s-1) the blocks are as stage
// s-1 left them; after it, as stage s wants them.
inline Split split_for(uint64_t rank, const Step& step) {
    const int before = step.bit == step.stage - 1 ? step.stage - 1 : step.stage;
    return {keeps_min(rank, step.stage, step.bit), values_flipped(rank, before),
            values_flipped(partner(rank, step.bit), before), values_flipped(rank, step.stage)};
}

// One position of this side's copy after a compare-split: `mine` and
// `theirs` as stored, the result as it is to be stored. Keys alone
// (pairs == false): the value is not looked at.
struct Pair {
    uint32_t key, value;
};
MULTI_GPU_HD inline Pair split_position(Pair mine, Pair theirs, bool pairs, const Split& s) {
    if (!pairs) return takes_partner(word(mine.key, 0), word(theirs.key, 0), s.keep_min) ? theirs : mine;
    const uint32_t m = mine.value ^ (s.mine_flipped ? ~0u : 0u), t = theirs.value ^ (s.theirs_flipped ? ~0u : 0u);
    const bool take = takes_partner(word(mine.key, m), word(theirs.key, t), s.keep_min);
    return {take ? theirs.key : mine.key, (take ? t : m) ^ (s.out_flipped ? ~0u : 0u)};
}

// ---- one GPU's part of a step ----------------------------------------------------------------
// What GPU `gpu` does for `step`, told to an executor X, which provides
//   x.sort(block, ascending)                   sort block (0 .. subs_per_gpu-1) of this GPU
//   x.merge(block, ascending)                  sort a bitonic block
//   x.compare_local(lower, upper, split)       two blocks of this GPU, position by position;
//                                              `split` as `lower` sees it (split.mirrored(): `upper`)
//   x.exchange(peer_gpu, split)                all blocks against the peer GPU's, position by
//                                              position; `split` as this GPU sees it
// (sort and merge: a block's values are stored complemented when `ascending` is false.)
// The CPU test and the GPU program both run their steps through this function.
template <typename X>
void run_step(const Step& step, const Layout& L, uint64_t gpu, X& x) {
    const uint64_t first = gpu << L.log_sub;  // this GPU's first rank
    const uint64_t subs = L.subs_per_gpu();
    switch (step.op) {
        case Op::sort:
        case Op::merge:
            for (uint64_t b = 0; b < subs; b++) {
                if (step.op == Op::sort) x.sort(b, ascending(first + b, step.stage));
                else x.merge(b, ascending(first + b, step.stage));
            }
            break;
        case Op::compare_split:
            if (step.bit >= L.log_sub) {  // across GPUs: every block of this GPU the same way
                // (keep_min and the flips depend on bits bit, stage-1 and stage of the rank,
                // all >= log_sub: bits of the GPU's number)
                x.exchange(gpu ^ (uint64_t(1) << (step.bit - L.log_sub)), split_for(first, step));
            } else {
                for (uint64_t b = 0; b < subs; b++)
                    if (((b >> step.bit) & 1) == 0)
                        x.compare_local(b, b | (uint64_t(1) << step.bit), split_for(first + b, step));
            }
            break;
    }
}

// ---- costs, on paper --------------------------------------------------------------------------
// Compare-splits that cross GPUs (each moves a GPU's whole array each way).
inline int cross_gpu_steps(int log_gpus) { return log_gpus * (log_gpus + 1) / 2; }
inline int in_memory_steps(const Layout& L) {
    const int D = L.log_ranks();
    return D * (D + 1) / 2 - cross_gpu_steps(L.log_gpus);
}

// ---- chunks of an exchange ------------------------------------------------------------------------
// [offset, offset + count) pieces of [0, total), each at most `chunk` long, in order.
struct Chunk {
    uint64_t offset, count;
};
inline std::vector<Chunk> chunks(uint64_t total, uint64_t chunk) {
    std::vector<Chunk> out;
    for (uint64_t o = 0; o < total; o += chunk) out.push_back({o, total - o < chunk ? total - o : chunk});
    return out;
}

}  // namespace multi_gpu
