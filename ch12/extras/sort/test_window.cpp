// Chapter 12 extra -- the window design's plans, run on the CPU (no CUDA, no
// GPU: g++ compiles this file with src/window_plan.cpp, src/traffic.cpp and
// src/sort_request.cpp). A test of the library's insides: it includes src/'s
// window_core.h and window_plan.h, which no client of the library sees.
//
//   bitonic_window_test [--quick]
//
// * every plan the planner makes (windows of 2^12 .. 2^15 words, 32 or 64
//   words per thread, arrays of 2^1 .. 2^31, sorts and merges): it does the
//   network's steps, no more, no fewer; every window holds the lowest index
//   bits; every exchange puts each word in a slot of its own, and the 32
//   lanes of every warp in 32 different banks, on both sides; direct loads
//   and stores read 32 consecutive words a warp;
// * the plans RUN: window_core.h's run_pass() -- the code the kernel runs --
//   over real arrays, every thread of every block in turn: every n from 1
//   to 2100 (key types, orders, keys and pairs, inputs taking turns), every
//   n from 4090 to 4200, powers of two up to 2^20 and the sizes just above
//   them, batches with gaps between the arrays, merges of bitonic arrays
//   (padded with copies of their last word, as the library pads them), in
//   the windows each GPU profile's tuning chooses and in every other size;
//   each result checked by sort_cases.h's check_batch (sorted, the same keys
//   or pairs, nothing outside the arrays written);
// * bitonic/traffic.h: the trips and bytes of each design's plans.
// --quick: fewer sizes (for a slow machine). Ends with "N checks passed, M failed".

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <set>
#include <vector>

#include "bitonic/key_types.h"
#include "bitonic/sort_request.h"
#include "bitonic/traffic.h"
#include "bitonic/tuning.h"
#include "check.h"
#include "sort_cases.h"
#include "window_core.h"
#include "window_plan.h"
#include "plan.h"           // the library's own (src/): tested here
#include "traffic_model.h"
#include "tuning_policy.h"

using namespace bitonic;

static ch12::Checks expect(40);

// ---- the CPU's block: every thread's registers, one shared memory ---------------------
template <int T, int E, typename W>
struct HostBlock {
    struct Regs {
        W v[1 << E];
    };
    std::vector<Regs> regs;
    std::vector<uint32_t> shared;
    uint32_t block_base = 0;
    HostBlock() : regs(size_t(1) << (T - E)), shared((sizeof(W) / 4) << T) {}
    template <class F>
    void each(F f) {
        for (uint32_t t = 0; t < regs.size(); ++t) f(regs[t].v, t);
    }
    void sync() {}
    uint32_t* smem() { return shared.data(); }
};

// One pass over dense words, as the kernel runs it: each block loads its
// threads' runs of 2^E consecutive words (the largest word past the end),
// runs the pass, stores back. Returns false when the blocks' words are not
// each word exactly once.
template <int T, int E, typename W>
static bool run_on_cpu(const window::Pass& p, std::vector<W>& words) {
    const uint64_t total = words.size();
    const uint64_t blocks = (total + (uint64_t(1) << T) - 1) >> T;
    std::vector<uint32_t> seen((size_t)(blocks << T), 0);
    bool once = true;
    std::vector<char> bad(blocks, 0);
    cases::parallel_for((size_t)blocks, [&](size_t b) {
        HostBlock<T, E, W> block;
        block.block_base = window::block_index(p, (uint32_t)b);
        // The thread's words, as the kernel finds them: directly, or its run of consecutive words.
        auto each_word = [&](uint32_t t, bool direct, const uint8_t* bits, auto f) {
            if (direct) {
                window::for_each_direct<T, E>(bits, block.block_base, t, f);
            } else {
                const uint32_t g0 = window::io_index(p, block.block_base, t);
                for (int r = 0; r < (1 << E); ++r) f(r, g0 + (uint32_t)r);
            }
        };
        for (uint32_t t = 0; t < block.regs.size(); ++t)
            each_word(t, p.load_direct, p.direct_load, [&](int r, uint32_t g) {
                block.regs[t].v[r] = g < total ? words[g] : W(~W(0));
                if (g < seen.size()) seen[g]++;  // blocks touch disjoint words: no race on a correct plan
                else bad[b] = 1;
            });
        window::run_pass<T, E, W>(p, block);
        for (uint32_t t = 0; t < block.regs.size(); ++t)
            each_word(t, p.store_direct, p.direct_store, [&](int r, uint32_t g) {
                if (g < total) words[g] = block.regs[t].v[r];
                if (g < seen.size()) seen[g] += 0x10000;  // each word stored exactly once too
            });
    });
    for (char c : bad) once = once && !c;
    for (uint32_t c : seen) once = once && c == 0x10001;
    return once;
}

template <typename W>
static bool run_pass_any(const window::Pass& p, std::vector<W>& words) {
    switch (p.bits * 10 + p.reg_bits) {
        case 125: return run_on_cpu<12, 5, W>(p, words);
        case 126: return run_on_cpu<12, 6, W>(p, words);
        case 135: return run_on_cpu<13, 5, W>(p, words);
        case 136: return run_on_cpu<13, 6, W>(p, words);
        case 145: return run_on_cpu<14, 5, W>(p, words);
        case 146: return run_on_cpu<14, 6, W>(p, words);
        case 155: return run_on_cpu<15, 5, W>(p, words);
        case 156: return run_on_cpu<15, 6, W>(p, words);
    }
    return false;
}

// ---- a request, as the library carries it out with the window plan -------------------------
// The caller's keys to words (order bits, << 32 | value for pairs), each
// array padded to P with the largest word (a merge: with copies of its last
// word), the plan's passes, and back -- the library's padded copy and its
// fused kernel's loads and stores do the same.
template <typename W>
static std::string sort_on_cpu(const Request& r, const window::Shape& shape, const cases::Batch& in,
                               std::vector<uint32_t>* keys, std::vector<uint32_t>* values) {
    const Plan plan = make_plan(r, 0);
    const Codec c = plan.codec;
    const uint64_t P = plan.P, count = r.count, stride = plan.stride;
    std::vector<W> words((size_t)plan.total);
    auto word_at = [&](uint64_t a) -> W {
        const uint32_t k = encode(in.keys[a], c);
        if constexpr (sizeof(W) == 8) return ((uint64_t)k << 32) | in.values[a];
        else return k;
    };
    for (uint64_t s = 0; s < count; ++s)
        for (uint64_t o = 0; o < P; ++o)
            words[s * P + o] = o < r.len ? word_at(s * stride + o)
                                         : (plan.pad_copies ? word_at(s * stride + r.len - 1) : W(~W(0)));
    // A presorted shape: what the fast design's tile kernel leaves -- each
    // tile of 2^presorted words sorted, ascending where its index bit
    // `presorted` is clear and descending where it is set (the arrays' own
    // direction), nothing complemented.
    if (shape.presorted > 0 && !shape.merge) {
        const uint64_t tile = uint64_t(1) << shape.presorted;
        cases::parallel_for((size_t)(plan.total / tile), [&](size_t b) {
            auto first = words.begin() + (ptrdiff_t)(b * tile), last = first + (ptrdiff_t)tile;
            if (((b * tile) >> shape.presorted) & 1) std::sort(first, last, [](W x, W y) { return x > y; });
            else std::sort(first, last);
        });
    }
    std::vector<window::Pass> passes;
    if (const char* why = window::plan(shape, &passes)) return why;
    for (const window::Pass& p : passes)
        if (!run_pass_any<W>(p, words)) return "a pass does not cover each word exactly once";
    *keys = in.keys;
    *values = in.values;
    for (uint64_t s = 0; s < count; ++s) {
        uint64_t bound = P;  // a merge padded with copies: skip the P - len copies that end where w's run ends
        if (plan.pad_copies) {
            const W w = word_at(s * stride + r.len - 1);
            bound = 0;
            while (bound < P && words[s * P + bound] <= w) bound++;
        }
        for (uint64_t o = 0; o < r.len; ++o) {
            const uint64_t from = (plan.pad_copies && o + (P - r.len) >= bound) ? o + (P - r.len) : o;
            const W w = words[s * P + from];
            if constexpr (sizeof(W) == 8) {
                (*keys)[s * stride + o] = decode((uint32_t)(w >> 32), c);
                (*values)[s * stride + o] = (uint32_t)w;
            } else {
                (*keys)[s * stride + o] = decode(w, c);
            }
        }
    }
    return "";
}

static std::string describe(const Request& r, const window::Shape& s, cases::Input input) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s%zu x %zu (stride %zu) %s%s %s %s, windows of 2^%d, 2^%d words a thread",
                  r.bitonic_input ? "merge of " : "", r.count, r.len, r.stride ? r.stride : r.len,
                  key_type_name(r.key_type), r.with_values ? " pairs" : "", order_name(r.order), cases::input_name(input),
                  s.bits, s.reg_bits);
    return s.presorted > 0 && !s.merge ? std::string(buf) + ", presorted in tiles of 2^" + std::to_string(s.presorted) : buf;
}

static int g_sorts = 0;

// One request in one window shape (merge: r.bitonic_input), checked.
static void sort_case(const Request& r, cases::Input input, uint32_t seed, const window::Shape& shape_in) {
    cases::Batch batch;
    const std::string refused = cases::make_batch(r, input, seed, &batch);
    window::Shape shape = shape_in;
    shape.seg_bits = make_plan(r, 0).seg_bits;
    shape.merge = r.bitonic_input;
    if (shape.presorted >= shape.seg_bits || shape.seg_bits <= shape.bits) shape.presorted = 0;  // as route() does
    if (make_plan(r, 0).nothing) return;  // fewer than two keys an array: the library does nothing
    if (!refused.empty()) {
        expect(false, describe(r, shape, input) + ": " + refused);
        return;
    }
    std::vector<uint32_t> keys, values;
    const std::string problem = r.with_values ? sort_on_cpu<uint64_t>(r, shape, batch, &keys, &values)
                                              : sort_on_cpu<uint32_t>(r, shape, batch, &keys, &values);
    if (!problem.empty()) {
        expect(false, describe(r, shape, input) + ": " + problem);
        return;
    }
    const cases::Verdict v = cases::check_batch(r, batch, keys, values);
    g_sorts++;
    expect(v.ok(), describe(r, shape, input) + ": " +
                       (v.bad_arrays ? std::to_string(v.bad_arrays) + " arrays wrong, the first (" +
                                           std::to_string(v.first_bad) + "): " + v.first_problem
                                     : std::to_string(v.touched) + " words outside the arrays written"));
}

static window::Shape shape(int bits, int reg_bits) {
    window::Shape s;
    s.bits = bits;
    s.reg_bits = reg_bits;
    return s;
}

static const KeyType kTypes[] = {KeyType::u32, KeyType::i32, KeyType::f32};
static const cases::Input kInputs[] = {cases::Input::uniform, cases::Input::few_unique, cases::Input::sorted,
                                       cases::Input::reverse, cases::Input::equal, cases::Input::special};

static Request request(size_t count, size_t len, size_t stride, int turn, bool merge) {
    Request r;
    r.design = Design::window;
    r.count = count;
    r.len = len;
    r.stride = stride;
    r.key_type = kTypes[turn % 3];
    r.order = (turn / 3) % 2 ? Order::descending : Order::ascending;
    r.with_values = (turn / 6) % 2;
    r.bitonic_input = merge;
    return r;
}

static std::set<std::string> g_checked_exchanges;
static int g_direct = 0;

static int g_io_orders = 0;

// ---- a window through shared memory in io order (design_window.cuh) -------------------------
// Replays every thread's 16-byte copies of one window (block 0) into the
// buffer, then every thread's reads of its io layout: each slot written once,
// four consecutive words a chunk, each register the word the io layout holds
// (its thread's consecutive words); a warp's copies and reads free of bank
// conflicts. The stores are the same moves backwards.
template <int E>
static void check_io_order_e(const window::Pass& p, const std::string& what) {
    const uint32_t slots = 1u << p.bits, threads = 1u << (p.bits - E), chunks = slots / 4;
    std::vector<int64_t> buf(slots, -1);
    bool once = true, order = true, words = true, banks = true;
    for (uint32_t c = 0; c < chunks; ++c) {
        const uint32_t place = window::io_chunk_place<E>(c), g = window::io_chunk_index(p, c);
        order = order && (g & 3u) == 0;
        for (uint32_t j = 0; j < 4; ++j) {
            if (place >= chunks || buf[4 * place + j] >= 0) once = false;
            else buf[4 * place + j] = g + j;
        }
    }
    // The copies: chunk thread + i * threads, so a warp moves 32 consecutive
    // chunks, each eight of them (one wavefront of 128 bytes) in eight different bank groups.
    for (uint32_t c0 = 0; c0 < chunks; c0 += 8) {
        uint32_t groups = 0;
        for (uint32_t c = c0; c < c0 + 8; ++c) groups |= 1u << (window::io_chunk_place<E>(c) % 8);
        banks = banks && groups == 0xFFu;
    }
    for (uint32_t t = 0; t < threads; ++t)
        for (int r = 0; r < (1 << E); ++r)
            words = words && buf[window::io_slot<E>(t, r)] == (int64_t)(window::io_index(p, 0, t) + (uint32_t)r);
    // The reads: 16 bytes a lane, each quarter of a warp in eight bank groups.
    for (uint32_t warp = 0; warp < threads; warp += 32)
        for (int r = 0; r < (1 << E); r += 4)
            for (uint32_t q = 0; q < 32; q += 8) {
                uint32_t groups = 0;
                for (uint32_t lane = q; lane < q + 8; ++lane) groups |= 1u << (window::io_slot<E>(warp + lane, r) / 4 % 8);
                banks = banks && groups == 0xFFu;
            }
    expect(once, what + ": the io order fills each slot once");
    expect(order, what + ": the io order moves four consecutive words a chunk");
    expect(words, what + ": the io order gives every register the word of its io layout");
    expect(banks, what + ": the io order's copies and reads are free of bank conflicts");
    g_io_orders++;
}
static void check_io_order(const window::Pass& p, const std::string& what) {
    if (p.reg_bits == 5) check_io_order_e<5>(p, what);
    else check_io_order_e<6>(p, what);
}

// ---- the plans' structure -----------------------------------------------------------------
// Replays a plan's operations to count its steps, and checks each exchange:
// a bijection of slots on both sides, and no two lanes of a warp in one bank.
static void check_structure(const window::Shape& s) {
    std::vector<window::Pass> passes;
    const char* why = window::plan(s, &passes);
    const std::string what = "plan of 2^" + std::to_string(s.seg_bits) + (s.merge ? " (merge)" : "") +
                             (s.presorted ? " presorted in 2^" + std::to_string(s.presorted) : std::string()) + " in windows of 2^" +
                             std::to_string(s.bits) + ", 2^" + std::to_string(s.reg_bits) + " words a thread";
    if (why) {
        expect(false, what + ": " + why);
        return;
    }
    const int want_steps = s.merge ? s.seg_bits : s.seg_bits * (s.seg_bits + 1) / 2 - s.presorted * (s.presorted + 1) / 2;
    int steps = 0;
    bool windows_ok = true, slots_ok = true, banks_ok = true, flips_ok = true, lanes_ok = true;
    int direct = 0;
    for (const window::Pass& p : passes) {
        for (int q = 0; q < s.reg_bits; ++q) windows_ok = windows_ok && p.window[q] == q;
        for (int q = 1; q < p.bits; ++q) windows_ok = windows_ok && p.window[q] > p.window[q - 1];
        windows_ok = windows_ok && (s.seg_bits <= s.bits ? p.window[p.bits - 1] == p.bits - 1 : p.window[p.bits - 1] < s.seg_bits);
        windows_ok = windows_ok && p.block_bits == 32 - p.bits;
        for (int k = 0; k < window::kLaneBits; ++k) {  // direct loads and stores: each warp 32 consecutive words
            if (p.load_direct) lanes_ok = lanes_ok && p.direct_load[p.reg_bits + k] == k;
            if (p.store_direct) lanes_ok = lanes_ok && p.direct_store[p.reg_bits + k] == k;
        }
        direct += p.load_direct + p.store_direct;
        for (int i = 0; i < p.op_count; ++i) {
            steps += p.ops[i].kind == window::kStep;
            const int e1 = window::dir_index(p.ops[i].a), e2 = window::dir_index(p.ops[i].b);
            if (p.ops[i].kind == window::kFlip && window::dir_mode(p.ops[i].a) == window::kDirReg &&
                window::dir_mode(p.ops[i].b) == window::kDirReg && (e1 > e2 + 1 || e2 > e1 + 1))
                flips_ok = false;
        }
        const uint32_t threads = 1u << (p.bits - p.reg_bits);
        for (int x = 0; x < p.exchange_count; ++x)
            for (bool from : {true, false}) {
                // Exchanges repeat from plan to plan: each distinct one is checked once.
                std::string key((const char*)&p.exchanges[x], sizeof(window::Exchange));
                key += (char)p.bits;
                key += (char)p.reg_bits;
                key += (char)from;
                if (!g_checked_exchanges.insert(key).second) continue;
                std::vector<char> used(size_t(1) << p.bits, 0);
                for (uint32_t t = 0; t < threads; ++t)
                    for (int r = 0; r < (1 << p.reg_bits); ++r) {
                        const uint32_t slot = window::exchange_slot(p, x, from, t, r);
                        if (slot >= used.size() || used[slot]) slots_ok = false;
                        else used[slot] = 1;
                    }
                for (uint32_t warp = 0; warp < threads; warp += 32)
                    for (int r = 0; r < (1 << p.reg_bits); ++r) {
                        uint32_t banks = 0;
                        for (uint32_t lane = 0; lane < 32; ++lane)
                            banks |= 1u << (window::exchange_slot(p, x, from, warp + lane, r) % 32);
                        if (banks != 0xFFFFFFFFu) banks_ok = false;
                    }
            }
    }
    expect(steps == want_steps, what + ": " + std::to_string(steps) + " steps, the network has " + std::to_string(want_steps));
    expect(windows_ok, what + ": every window holds the lowest bits, ascending, within the arrays");
    expect(slots_ok, what + ": every exchange gives each word a slot of its own");
    expect(banks_ok, what + ": every exchange is free of bank conflicts");
    expect(flips_ok, what + ": no flip between two register bits that are not neighbours (the kernel's one pass)");
    expect((int)passes.size() == window::passes(s), what + ": passes() counts its passes");
    expect(lanes_ok, what + ": direct loads and stores read 32 consecutive words a warp");
    g_direct += direct;
    for (const window::Pass& p : passes) check_io_order(p, what);
}

// ---- limits -----------------------------------------------------------------------------
static Limits h200() {  // as the H200 reports them (sm_90, 132 SMs, 227 KiB opt-in)
    return Limits{90, 132, 2048, 227 * 1024, 228 * 1024, 1024, 16};
}

// ---- shapes, routes and trips ------------------------------------------------------------
// One GPU's tuning: the windows fit the block's shared memory and its
// threads, for keys and pairs, at every size.
static void check_windows_fit(const std::string& gpu, const Limits& l, const Tuning& t) {
    for (int w = 0; w < 2; ++w) {
        const size_t word = w ? 8 : 4;
        const int T = t.window_bits[w];
        auto fits = [&](int bits) {  // one block's shared memory, and two blocks an SM's
            return (word << bits) <= l.smem_per_block && 2 * ((word << bits) + l.smem_reserved) <= l.smem_per_sm;
        };
        expect(T >= window::kMinBits && T <= window::kMaxBits - w && (word << T) <= l.smem_per_block &&
                   (T == window::kMinBits || fits(T)) && (T == window::kMaxBits - w || !fits(T + 1)),
               gpu + ": the largest window two blocks of which an SM holds, " + std::to_string(word) +
                   "-byte words: 2^" + std::to_string(T));
        const int from = t.fast_cluster > 1 ? 20 : 22;  // after the cluster tiles, or from scratch
        expect(t.window_from[w] == (w ? 32 : from) && t.window_merge_from == 32,
               gpu + ": the windows take arrays of 2^" + std::to_string(from) + " keys and more, no pairs, no merges");
        for (int S = 1; S <= 31; ++S)
            for (uint64_t total : {uint64_t(1) << S, uint64_t(1) << 24, uint64_t(1) << 31}) {
                if (total < (uint64_t(1) << S)) continue;
                const window::Shape s = window::shape_for(t, (int)word, S, total, false);
                const bool ok = s.bits <= T && s.bits >= window::kMinBits && (s.bits - s.reg_bits) >= 5 &&
                                (word << s.bits) <= l.smem_per_block && (1 << (s.bits - s.reg_bits)) <= 1024 &&
                                (S > T || s.bits >= S);
                if (!ok) expect(false, gpu + ": shape_for 2^" + std::to_string(S) + " arrays");
            }
    }
    expect(t.window_presort == (t.fast_cluster > 1), gpu + ": the fast design's tiles first where they are clusters");
}

// One GPU's tuning as tune() makes it, and pinned as the benchmark's and the
// test suite's --window options pin it: every route can be carried out.
static void check_routes(const std::string& gpu, const Limits& l, const Tuning& t) {
    WindowPin forced;
    forced.from_bits = 1;
    WindowPin round1 = forced;  // the first GPU run's design: the largest window, no presort
    round1.bits = (4 << 15) <= l.smem_per_block ? 15 : 14;
    round1.presort = 0;
    WindowPin tiles = forced;
    tiles.bits = 14;
    tiles.presort = 1;
    const std::pair<const char*, const WindowPin*> pins[] = {{"policy", nullptr}, {"forced", &forced},
                                                             {"round 1", &round1}, {"14+tile", &tiles}};
    for (const auto& pin : pins) {
        Tuning tp = t;
        if (pin.second) expect(pin_window(*pin.second, &tp).ok(), gpu + ": pin " + pin.first);
        const std::string what = gpu + " (" + pin.first + ")";
        const uint64_t fw = window::fused_words(tp);
        for (int w = 0; w < 2; ++w)
            for (int S = 1; S <= 31; ++S)
                for (int kind = 0; kind < 4; ++kind) {  // fused not dense, fused dense, dense planes, merge
                    const bool fused = kind < 2, dense = kind != 0, merge = kind == 3;
                    if (fused && (uint64_t(1) << S) > fw) continue;
                    if (kind == 2 && (uint64_t(1) << S) <= fw) continue;
                    const uint64_t total = std::max(uint64_t(1) << S, uint64_t(1) << 20);
                    const window::Route rt = window::route(tp, w ? 8 : 4, S, total, fused, dense, merge);
                    bool ok = true;
                    if (rt.kernel == window::Kernel::fast) ok = !fused || S <= tp.fast_tile_bits;
                    else if (rt.kernel == window::Kernel::fast_tile) ok = fused && S <= tp.fast_tile_bits;
                    else {
                        ok = (!fused || dense || S <= rt.shape.bits) &&
                             (rt.shape.presorted == 0 || (rt.shape.presorted == tp.fast_tile_bits && !merge &&
                                                          S > rt.shape.presorted && S > rt.shape.bits)) &&
                             rt.passes == window::passes(rt.shape) + (rt.shape.presorted ? 1 : 0);
                        std::vector<window::Pass> plan;
                        ok = ok && window::plan(rt.shape, &plan) == nullptr;
                    }
                    if (!ok)
                        expect(false, what + ": the route of 2^" + std::to_string(S) + (w ? " pairs" : " keys") +
                                          " (kind " + std::to_string(kind) + ") can be carried out");
                }
    }
}

// Pins the limits do not allow are refused.
static void check_refused_pins() {
    Tuning t;
    tune(lowered(h200(), profile_by_name("t4")), &t);
    WindowPin too_big;
    too_big.bits = 15;  // 128 KiB: a T4's block has 64
    expect(!pin_window(too_big, &t).ok(), "a window of 2^15 keys pinned on a T4 is refused");
    WindowPin odd;
    odd.bits = 16;
    expect(!pin_window(odd, &t).ok(), "a window of 2^16 keys is refused");
    odd.bits = 0;
    odd.from_bits = 33;
    expect(!pin_window(odd, &t).ok(), "from_bits 33 is refused");
}

// Where the routes go on the H200 (tune()'s policy): the fast design up to
// 2^19 keys, the windows after the cluster tiles from 2^20 (windows of 2^12
// at 2^20 and of 2^13 at 2^21, so that every SM gets a block; 2^14 from 2^22).
static void check_h200_routes() {
    Tuning t;
    tune(h200(), &t);
    expect(t.window_bits[0] == 14 && t.window_bits[1] == 13 && t.window_presort, "H200: windows of 2^14 keys, 2^13 pairs, after the fast design's tiles");
    window::Route rt = window::route(t, 4, 19, uint64_t(1) << 19, false, true, false);
    expect(rt.kernel == window::Kernel::fast, "H200: one array of 2^19 keys goes to the fast design");
    rt = window::route(t, 4, 20, uint64_t(1) << 20, false, true, false);
    expect(rt.kernel == window::Kernel::window && rt.shape.bits == 12 && rt.shape.reg_bits == 5 &&
               rt.shape.presorted == 16 && rt.passes == 9,
           "H200: one array of 2^20 keys: the cluster tiles, then 8 window passes of 2^12 (" + std::to_string(rt.passes) + ")");
    rt = window::route(t, 4, 21, uint64_t(1) << 21, false, true, false);
    expect(rt.kernel == window::Kernel::window && rt.shape.bits == 13 && rt.shape.presorted == 16 && rt.passes == 10,
           "H200: one array of 2^21 keys: the cluster tiles, then 9 window passes of 2^13 (" + std::to_string(rt.passes) + ")");
    for (int S : {22, 23}) {
        rt = window::route(t, 4, S, uint64_t(1) << S, false, true, false);
        expect(rt.kernel == window::Kernel::window && rt.shape.bits == 14 && rt.shape.presorted == 16,
               "H200: one array of 2^" + std::to_string(S) + " keys: the cluster tiles, then windows of 2^14");
    }
    rt = window::route(t, 4, 24, uint64_t(1) << 24, false, true, false);
    expect(rt.kernel == window::Kernel::window && rt.shape.bits == 14 && rt.shape.reg_bits == 6 &&
               rt.shape.presorted == 16 && rt.passes == 16,
           "H200: one array of 2^24 keys: the cluster tiles, then 15 window passes of 2^14 (" + std::to_string(rt.passes) + ")");
    rt = window::route(t, 8, 24, uint64_t(1) << 24, false, true, false);
    expect(rt.kernel == window::Kernel::fast, "H200: 2^24 pairs go to the fast design");
    rt = window::route(t, 4, 24, uint64_t(1) << 24, false, true, true);
    expect(rt.kernel == window::Kernel::fast, "H200: a merge of 2^24 keys goes to the fast design");
    for (int S : {10, 12, 16})
        expect(window::route(t, 4, S, uint64_t(1) << 24, true, true, false).kernel == window::Kernel::fast,
               "H200: batches of 2^" + std::to_string(S) + " keys go to the fast design");
    expect(window::fused_words(t) == (uint64_t(1) << 16), "H200: the fused limit is the fast design's");
    // A GPU without clusters (a T4, an RTX 4090) has no presort: its windows
    // sort from scratch and keep the first run's route, 2^22 keys.
    for (const char* name : {"t4", "rtx4090"}) {
        Tuning tn;
        tune(lowered(h200(), profile_by_name(name)), &tn);
        const std::string gpu = name;
        expect(!tn.window_presort, gpu + ": no presort");
        for (int S : {20, 21})
            expect(window::route(tn, 4, S, uint64_t(1) << S, false, true, false).kernel == window::Kernel::fast,
                   gpu + ": one array of 2^" + std::to_string(S) + " keys goes to the fast design");
        rt = window::route(tn, 4, 22, uint64_t(1) << 22, false, true, false);
        expect(rt.kernel == window::Kernel::window && rt.shape.presorted == 0,
               gpu + ": one array of 2^22 keys: window passes from scratch");
    }
    // A pin that turns the presort off (and leaves from_bits to the tuning)
    // moves the route back to where windows from scratch start; on again, down.
    WindowPin off;
    off.presort = 0;
    Tuning tp = t;
    expect(pin_window(off, &tp).ok() && tp.window_from[0] == 22, "H200 pinned without the presort: windows from 2^22 keys");
    off.presort = 1;
    expect(pin_window(off, &tp).ok() && tp.window_from[0] == 20, "H200 pinned with the presort again: windows from 2^20 keys");
    Tuning t4;
    tune(lowered(h200(), profile_by_name("t4")), &t4);
    expect(pin_window(off, &t4).ok() && t4.window_from[0] == 22, "t4 pinned with a presort (one-block tiles): windows from 2^22 keys");
}

// Trips at 2^24 (the numbers NOTES.md predicts from), per window size.
static void check_passes() {
    struct Want {
        int bits, reg_bits, seg_bits, passes;
    };
    const Want wants[] = {{15, 6, 24, 15}, {14, 6, 24, 18}, {13, 5, 24, 21}, {12, 5, 24, 25}, {14, 5, 24, 18},
                          {15, 6, 20, 8},  {13, 5, 20, 12}, {15, 6, 16, 3},  {14, 5, 16, 4},  {15, 6, 12, 1}};
    for (const Want& w : wants) {
        window::Shape s = shape(w.bits, w.reg_bits);
        s.seg_bits = w.seg_bits;
        expect(window::passes(s) == w.passes, "windows of 2^" + std::to_string(w.bits) + " sort 2^" +
                                                  std::to_string(w.seg_bits) + " in " + std::to_string(w.passes) +
                                                  " passes, not " + std::to_string(window::passes(s)));
    }
    std::printf("window passes for one array (sort / merge):");
    for (int bits = 12; bits <= 15; ++bits) {
        window::Shape s = shape(bits, bits >= 14 ? 6 : 5);
        std::printf("  2^%d windows:", bits);
        for (int S : {16, 20, 24}) {
            s.seg_bits = S;
            s.merge = false;
            const int sort = window::passes(s);
            s.merge = true;
            std::printf(" 2^%d %d/%d", S, sort, window::passes(s));
        }
    }
    std::printf("\n");
}

// bitonic::traffic() of a request planned for design d on tuning t.
static Traffic trips(Design d, const Tuning& t, size_t count, size_t len, bool pairs, bool merge,
                     KeyType k = KeyType::u32) {
    Request r;
    r.design = d;
    r.count = count;
    r.len = len;
    r.with_values = pairs;
    r.bitonic_input = merge;
    r.key_type = k;
    const uint64_t fw = d == Design::window ? window::fused_words(t)
                        : d == Design::fast ? (uint64_t(1) << t.fast_tile_bits) : 0;
    return traffic(r, make_plan(r, fw), t);
}

// traffic.h on the H200's tuning and a T4's: the chapter, workgroup and fast designs.
static void check_trips_of_designs() {
    Tuning th, tt;
    tune(h200(), &th);
    tune(lowered(h200(), profile_by_name("t4")), &tt);
    const uint64_t n24 = uint64_t(1) << 24;
    Traffic x = trips(Design::fast, th, 1, n24, false, false);
    tune(h200(), &th);
    tune(lowered(h200(), profile_by_name("t4")), &tt);
    expect(x.trips == 21 && x.bytes == 21 * n24 * 8, "fast, 2^24 keys, clusters: 21 trips of 128 MiB (" + std::to_string(x.trips) + ")");
    x = trips(Design::fast, tt, 1, n24, false, false);
    expect(x.trips == 37, "fast, 2^24 keys, no clusters: 1 + 12 tails + 24 global launches = 37 (" + std::to_string(x.trips) + ")");
    x = trips(Design::fast, th, 1, n24, false, true);
    expect(x.trips == 3, "fast, a merge of 2^24: 2 global launches and a tile pass (" + std::to_string(x.trips) + ")");
    x = trips(Design::fast, th, 1 << 14, 1024, true, false);
    expect(x.trips == 1 && x.bytes == 2 * n24 * 8, "fast, 2^14 arrays of 1024 pairs: one fused trip of 128 MiB each way");
    x = trips(Design::fast, th, 1, n24, false, false, KeyType::f32);
    expect(x.trips == 23 && x.bytes == 23 * n24 * 8, "fast, 2^24 float keys: 21 trips and the copy in and out (" + std::to_string(x.trips) + ")");
    x = trips(Design::fast, th, 3, 5000, false, false);
    expect(x.trips == 1 && x.bytes == 2 * 3 * 5000 * 4, "fast, 3 x 5000 keys: one fused trip over the real keys only");
    x = trips(Design::chapter, th, 1, n24, false, false);
    expect(x.trips == 300, "chapter, 2^24: one trip per (k, j), 300 (" + std::to_string(x.trips) + ")");
    x = trips(Design::chapter, th, 7, 1000, false, false);
    expect(x.trips == 55 + 2 && x.bytes == 55 * 7 * 1024 * 8 + 2 * (7 * 1000 + 7 * 1024) * 4,
           "chapter, 7 x 1000 keys: 55 passes over 7 x 1024 padded words, and the copy in and out");
    x = trips(Design::workgroup, th, 1, n24, false, false);
    expect(x.trips == 1 + 14 * 15 / 2 + 14 + 0, "workgroup, 2^24: a tile pass, 105 global steps, 14 tails (" + std::to_string(x.trips) + ")");
}

// traffic.h of the window design on the H200's tuning and a T4's, and pinned
// (the first GPU run's window design).
static void check_trips_of_windows() {
    Tuning th, tt, th1, tt1;
    tune(h200(), &th);
    tune(lowered(h200(), profile_by_name("t4")), &tt);
    WindowPin round1;
    round1.bits = 15;
    round1.presort = 0;
    round1.from_bits = 1;
    th1 = th;
    pin_window(round1, &th1);
    round1.bits = 14;
    tt1 = tt;
    pin_window(round1, &tt1);
    const uint64_t n24 = uint64_t(1) << 24;
    // As tune() plans it on the H200: the fast design's trips below 2^20 keys
    // (and for pairs and merges), the cluster tiles and 15 windows of 2^14 at
    // 2^24.
    Traffic x = trips(Design::window, th, 1, n24, false, false);
    expect(x.trips == 16 && x.bytes == 16 * n24 * 8, "window, 2^24 keys on the H200: the tiles and 15 passes (" + std::to_string(x.trips) + ")");
    x = trips(Design::window, th, 1, n24 * 4, false, false);
    expect(x.trips == 21, "window, 2^26 keys on the H200: the tiles and 20 passes (" + std::to_string(x.trips) + ")");
    x = trips(Design::window, th, 1, n24 / 16, false, false);
    expect(x.trips == 9, "window, 2^20 keys on the H200: the tiles and 8 passes (" + std::to_string(x.trips) + ")");
    x = trips(Design::window, th, 1, n24 / 32, false, false);
    expect(x.trips == 7, "window, 2^19 keys on the H200: the fast design's 7 trips (" + std::to_string(x.trips) + ")");
    x = trips(Design::window, th, 1, n24 / 8, false, false);
    expect(x.trips == 10 && trips(Design::fast, th, 1, n24 / 8, false, false).trips == 12,
           "window, 2^21 keys on the H200: the tiles and 9 passes, where the fast design takes 12 (" +
               std::to_string(x.trips) + ")");
    x = trips(Design::window, th, 1, n24, true, false);
    expect(x.trips == 21, "window, 2^24 pairs on the H200: the fast design's 21 trips (" + std::to_string(x.trips) + ")");
    x = trips(Design::window, th, 1 << 8, 1 << 16, false, false);
    expect(x.trips == 1, "window, 2^8 arrays of 65536 keys on the H200: the fast design's cluster tiles (" + std::to_string(x.trips) + ")");
    x = trips(Design::window, th, 1, n24, false, true);
    expect(x.trips == 3, "window, a merge of 2^24 keys on the H200: the fast design's 3 trips (" + std::to_string(x.trips) + ")");
    x = trips(Design::window, tt, 1, n24, false, false);
    expect(x.trips == window::passes(window::shape_for(tt, 4, 24, n24, false)),
           "window, 2^24 keys on a T4: the window passes, no presort (" + std::to_string(x.trips) + ")");
    // Pinned to the first GPU run's design (windows everywhere, the largest window, no presort).
    x = trips(Design::window, th1, 1, n24, false, false);
    expect(x.trips == 15 && x.bytes == 15 * n24 * 8, "window pinned 2^15, 2^24 keys on the H200: 15 trips (" + std::to_string(x.trips) + ")");
    x = trips(Design::window, th1, 1, n24, true, false);
    expect(x.trips == 18, "window pinned, 2^24 pairs on the H200: 18 trips in windows of 2^14 (" + std::to_string(x.trips) + ")");
    x = trips(Design::window, tt1, 1, n24, false, false);
    expect(x.trips == 18, "window pinned 2^14, 2^24 keys on a T4: 18 trips (" + std::to_string(x.trips) + ")");
    x = trips(Design::window, th1, 1 << 8, 1 << 16, false, false);
    expect(x.trips == 3 && x.bytes == 3 * n24 * 8, "window pinned, 2^8 arrays of 65536 keys on the H200: 3 trips in place (" + std::to_string(x.trips) + ")");
    x = trips(Design::window, th1, 1 << 12, 4096, false, false);
    expect(x.trips == 1, "window pinned, 2^12 arrays of 4096 keys: one fused pass");
    x = trips(Design::window, th1, 1, 1 << 16, false, false);
    expect(x.trips == 1, "window pinned, one array of 65536 keys on the H200: the fast design's cluster kernel");
    x = trips(Design::window, th1, 1, (1 << 16) + 1, false, false);
    expect(x.trips == window::passes(window::shape_for(th1, 4, 17, 1 << 17, false)) + 2,
           "window pinned, 65537 keys: the copy in and out around the passes");
    x = trips(Design::window, th1, 1, n24, false, true);
    expect(x.trips == 2, "window pinned, a merge of 2^24 keys on the H200: 2 trips (" + std::to_string(x.trips) + ")");
}

static void test_shapes_and_trips() {
    // Every profile (and the H200 itself).
    std::vector<std::pair<std::string, Limits>> gpus = {{"h200", h200()}};
    for (const Profile* p = kProfiles; p->name; ++p) gpus.push_back({p->name, lowered(h200(), p)});
    for (const auto& g : gpus) {
        Tuning t;
        expect(tune(g.second, &t).ok(), g.first + ": tune()");
        check_windows_fit(g.first, g.second, t);
        check_routes(g.first, g.second, t);
    }
    check_refused_pins();
    check_h200_routes();
    check_passes();
    check_trips_of_designs();
    check_trips_of_windows();
}

// ---- the plans, run ---------------------------------------------------------------------------
static void test_runs(bool quick) {
    const auto start = std::chrono::steady_clock::now();
    const window::Shape all[] = {shape(12, 5), shape(12, 6), shape(13, 5), shape(13, 6),
                                 shape(14, 5), shape(14, 6), shape(15, 5), shape(15, 6)};
    // Every n from 1 to 2100 in the smallest windows, the combinations taking turns.
    for (size_t n = 1; n <= (quick ? 300u : 2100u); ++n)
        sort_case(request(1, n, 0, (int)n, false), kInputs[n % 6], (uint32_t)n, shape(12, 5));
    // Around one window of 4096 (and beyond it: several passes).
    for (size_t n = 4090; n <= (quick ? 4100u : 4200u); ++n)
        sort_case(request(1, n, 0, (int)n, false), kInputs[n % 6], (uint32_t)n, all[n % 8]);
    // Powers of two and the sizes just above them, every window size.
    for (int e = 1; e <= (quick ? 16 : 20); ++e)
        for (size_t n : {size_t(1) << e, (size_t(1) << e) + 7})
            for (int i = 0; i < 8; ++i) {
                if (e >= 17 && i % 3 != (e % 3)) continue;  // the largest ones: some shapes each
                sort_case(request(1, n, 0, e + i, false), kInputs[(e + i) % 6], 7919u * e + i, all[i]);
            }
    // Batches, with gaps every other time, and merges of bitonic arrays.
    int turn = 0;
    for (bool merge : {false, true})
        for (size_t len : {1, 2, 3, 100, 1023, 1024, 1025, 4097, 8192, 65536, 65537})
            for (size_t count : {1, 7, 1000}) {
                if (count * len > (quick ? 200000u : 4000000u)) continue;
                const size_t stride = (count > 1 && turn % 2) ? len + 3 : 0;
                sort_case(request(count, len, stride, turn, merge), kInputs[turn % 6], 1000u + turn, all[turn % 8]);
                turn++;
            }
    // After the fast design's tiles (presorted in tiles of 2^12 or 2^16, as
    // its tile kernel leaves them), the window passes from the next stage on:
    // single arrays and batches, padded, every window size.
    {
        int k = 0;
        for (size_t n : {size_t(1) << 17, (size_t(1) << 17) + 9, size_t(1) << 18, (size_t(1) << (quick ? 18 : 20)) + 3})
            for (int pre : {12, 16}) {
                window::Shape sh = all[(k * 3 + 1) % 8];
                sh.presorted = pre;
                sort_case(request(1, n, 0, k, false), kInputs[k % 6], 4242u + k, sh);
                k++;
            }
        for (size_t len : {size_t(70000), size_t(1) << 17})
            for (int pre : {12, 16}) {
                window::Shape sh = all[(k * 5) % 8];
                sh.presorted = pre;
                sort_case(request(3, len, k % 2 ? len + 3 : 0, k, false), kInputs[k % 6], 4242u + k, sh);
                k++;
            }
    }
    // Single merges beyond a window.
    for (size_t n : {size_t(4096), size_t(40000), size_t(1) << 17, (size_t(1) << 17) + 5, size_t(1) << (quick ? 17 : 20)})
        for (int i = 0; i < 8; i += 3) sort_case(request(1, n, 0, i, true), cases::Input::uniform, (uint32_t)n + i, all[i]);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%d sorts and merges run on the CPU through the window plans (%.1f s)\n", g_sorts, s);
}

int main(int argc, char** argv) {
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (std::strcmp(argv[i], "--help") == 0) {
            std::printf("usage: bitonic_window_test [--quick]\n");
            return 0;
        } else {
            std::fprintf(stderr, "usage: bitonic_window_test [--quick]\nunknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    for (int bits = window::kMinBits; bits <= window::kMaxBits; ++bits)
        for (int reg_bits = window::kMinRegBits; reg_bits <= window::kMaxRegBits; ++reg_bits)
            for (int S = 1; S <= 31; ++S)
                for (bool merge : {false, true})
                    for (int presorted : {0, 12, 16}) {  // sorted from scratch, or after the fast design's tiles
                        if (presorted > 0 && (merge || presorted >= S || S <= bits)) continue;
                        window::Shape s = shape(bits, reg_bits);
                        s.seg_bits = S;
                        s.merge = merge;
                        s.presorted = presorted;
                        check_structure(s);
                    }
    std::printf("%d direct loads and stores in the plans checked\n", g_direct);
    std::printf("%d passes' io orders checked\n", g_io_orders);
    expect(g_io_orders > 0, "some passes' io orders are checked");
    expect(g_direct > 0, "some plans load or store directly");
    test_shapes_and_trips();
    test_runs(quick);
    std::printf("%d checks passed, %d failed\n", expect.passed(), expect.failed());
    return expect.ok() ? 0 : 1;
}
