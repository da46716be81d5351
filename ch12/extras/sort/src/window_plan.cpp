// ch12/extras/sort/src/window_plan.cpp -- the window design's planner (see
// window_plan.h and window_core.h). Host only; g++ compiles it into the
// library and into the CPU test.
#include "window_plan.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace bitonic {
namespace window {

namespace {

struct Step {
    int stage, bit;  // stage k (its direction: bit k of the index), distance 2^bit
};

std::vector<Step> network(const Shape& s) {
    std::vector<Step> steps;
    for (int k = s.merge ? s.seg_bits : s.presorted + 1; k <= s.seg_bits; ++k)
        for (int j = k - 1; j >= 0; --j) steps.push_back({k, j});
    return steps;
}

// The windows: each a set of global bits (a mask) and the run of steps it does.
struct Window {
    uint32_t mask;
    size_t begin, end;
};

std::vector<Window> windows(const Shape& s, const std::vector<Step>& steps) {
    std::vector<Window> out;
    if (s.seg_bits <= s.bits) {  // one window of consecutive words
        out.push_back({(1u << s.bits) - 1, 0, steps.size()});
        return out;
    }
    size_t i = 0;
    while (i < steps.size()) {
        uint32_t mask = (1u << s.reg_bits) - 1;  // the lowest bits: consecutive words per thread
        int count = s.reg_bits;
        const size_t begin = i;
        for (; i < steps.size(); ++i) {
            const uint32_t b = 1u << steps[i].bit;
            if (mask & b) continue;
            if (count == s.bits) break;
            mask |= b;
            count++;
        }
        for (int b = 0; count < s.bits; ++b)  // fill up with the lowest bits left
            if (!(mask & (1u << b))) { mask |= 1u << b; count++; }
        out.push_back({mask, begin, i});
    }
    return out;
}

// A layout of a window's words over registers and threads: local bits.
struct Layout {
    int reg[kMaxRegBits];      // register bit e is local bit reg[e] (ascending)
    int thread[kMaxThreadBits];  // thread bit k is local bit thread[k] (ascending: lanes first)
};

Layout make_layout(uint32_t reg_mask, int bits, int reg_bits) {
    Layout l{};
    int e = 0, k = 0;
    for (int q = 0; q < bits; ++q) {
        if (reg_mask & (1u << q)) l.reg[e++] = q;
        else l.thread[k++] = q;
    }
    (void)reg_bits;
    return l;
}

// The swizzle of one exchange: the slot of local index x is x with its low
// five bits XORed with h[q - 5] for each of its set bits q >= 5. The bank of
// local bit q alone: 2^q for q < 5, h[q - 5] above. Chosen so that the five
// lane bits of each layout have independent banks (32 lanes, 32 banks).
struct Swizzle {
    uint32_t h[kMaxBits] = {};
    uint32_t slot(int q) const { return (1u << q) ^ (q >= 5 ? h[q - 5] : 0u); }
    uint32_t bank(int q) const { return q < 5 ? (1u << q) : h[q - 5]; }
};

int rank5(const uint32_t* v, int n) {  // rank over GF(2) of n 5-bit vectors
    uint32_t basis[5] = {};
    int r = 0;
    for (int i = 0; i < n; ++i) {
        uint32_t x = v[i];
        for (int b = 4; b >= 0; --b) {
            if (!(x >> b & 1)) continue;
            if (!basis[b]) { basis[b] = x; r++; break; }
            x ^= basis[b];
        }
    }
    return r;
}

bool independent(const Swizzle& z, const int* lanes, const bool* known) {
    uint32_t v[kLaneBits];
    int n = 0;
    for (int i = 0; i < kLaneBits; ++i)
        if (known[i]) v[n++] = z.bank(lanes[i]);
    return rank5(v, n) == n;
}

// Depth-first over the unknown h values (the high lane bits of either side).
bool solve(Swizzle& z, const std::vector<int>& unknown, size_t at, const int* la, const int* lb) {
    bool ka[kLaneBits], kb[kLaneBits];
    for (int i = 0; i < kLaneBits; ++i) {
        ka[i] = la[i] < 5 || std::find(unknown.begin(), unknown.begin() + at, la[i]) != unknown.begin() + at;
        kb[i] = lb[i] < 5 || std::find(unknown.begin(), unknown.begin() + at, lb[i]) != unknown.begin() + at;
    }
    if (!independent(z, la, ka) || !independent(z, lb, kb)) return false;
    if (at == unknown.size()) return true;
    for (uint32_t value = 1; value < 32; ++value) {
        z.h[unknown[at] - 5] = value;
        if (solve(z, unknown, at + 1, la, lb)) return true;
    }
    z.h[unknown[at] - 5] = 0;
    return false;
}

Exchange make_exchange(const Layout& a, const Layout& b, int bits, int reg_bits) {
    std::vector<int> unknown;
    for (int i = 0; i < kLaneBits; ++i)
        for (int q : {a.thread[i], b.thread[i]})
            if (q >= 5 && std::find(unknown.begin(), unknown.end(), q) == unknown.end()) unknown.push_back(q);
    Swizzle z;
    if (!solve(z, unknown, 0, a.thread, b.thread)) z = Swizzle{};  // never seen: conflicts, still correct
    Exchange x{};
    for (int e = 0; e < reg_bits; ++e) {
        x.from_reg[e] = (uint16_t)z.slot(a.reg[e]);
        x.to_reg[e] = (uint16_t)z.slot(b.reg[e]);
    }
    for (int k = 0; k < bits - reg_bits; ++k) {
        x.from_thread[k] = (uint16_t)z.slot(a.thread[k]);
        x.to_thread[k] = (uint16_t)z.slot(b.thread[k]);
    }
    return x;
}

// One pass in the making (plan() below, one window at a time): the window's
// bits, the layout its words are in now, and the operations so far.
class PassBuilder {
  public:
    PassBuilder(const Shape& s, const std::vector<Step>& steps, const Window& w)
        : s_(s), steps_(steps), w_(w), E_(s.reg_bits), T_(s.bits) {
        p_.bits = (uint8_t)T_;
        p_.reg_bits = (uint8_t)E_;
        p_.seg_bits = (uint8_t)s.seg_bits;
        int q = 0;
        for (int b = 0; b < 32; ++b) {
            if (w.mask & (1u << b)) { p_.window[q] = (uint8_t)b; local_[b] = q++; }
            else { local_[b] = -1; p_.block[p_.block_bits++] = (uint8_t)b; }
        }
        io_mask_ = (1u << E_) - 1;
        reg_mask_ = io_mask_;
        layout_ = make_layout(reg_mask_, T_, E_);
    }

    // The window's steps and the flips between stages, from `*stage` (the
    // complement pattern the words carry) on; the loads and stores, direct
    // where the first and last layouts allow it. Null, or why not.
    const char* build(int* stage) {
        if (s_.seg_bits > T_ && w_.begin < w_.end && !(reg_mask_ & (1u << local_[steps_[w_.begin].bit]))) {
            const uint32_t first = next_layout(w_.begin);
            if (!(first & kLanes)) {  // loaded as it is: no exchange from the io layout
                reg_mask_ = first;
                layout_ = make_layout(first, T_, E_);
                p_.load_direct = 1;
                direct_bits(p_.direct_load);
            }
        }
        for (size_t i = w_.begin; i < w_.end; ++i) {
            const int ql = local_[steps_[i].bit];
            if (!(reg_mask_ & (1u << ql)) && !change_layout(next_layout(i)))
                return "window plan: too many exchanges in one pass";
            if (steps_[i].stage != *stage) {
                if (!flip(direction_of(*stage), direction_of(steps_[i].stage)))
                    return "window plan: too many operations in one pass";
                *stage = steps_[i].stage;
            }
            int e = 0;
            while (layout_.reg[e] != ql) ++e;
            if (!op(kStep, e, 0)) return "window plan: too many operations in one pass";
        }
        if (s_.seg_bits > T_ && reg_mask_ != io_mask_ && !(reg_mask_ & kLanes)) {  // stored as it is
            p_.store_direct = 1;
            direct_bits(p_.direct_store);
        } else if (reg_mask_ != io_mask_ && !change_layout(io_mask_)) {
            return "window plan: too many exchanges in one pass";
        }
        return nullptr;
    }

    const Pass& pass() const { return p_; }

  private:
    static constexpr uint32_t kLanes = (1u << kLaneBits) - 1;  // local bits 0..4 = global bits 0..4

    // Where bit k (stage k's direction) lives now.
    uint8_t direction_of(int k) const {
        if (k == 0 || k >= s_.seg_bits) return direction(kDirNone, 0);
        if (local_[k] < 0) return direction(kDirBlock, k);
        for (int e = 0; e < E_; ++e)
            if (layout_.reg[e] == local_[k]) return direction(kDirReg, e);
        for (int t = 0; t < T_ - E_; ++t)
            if (layout_.thread[t] == local_[k]) return direction(kDirThread, t);
        return direction(kDirNone, 0);  // not reached
    }
    bool op(OpKind kind, int a, int b) {
        if (p_.op_count == kMaxOps) return false;
        p_.ops[p_.op_count++] = Op{kind, (uint8_t)a, (uint8_t)b, 0};
        return true;
    }
    // From one stage's direction to the next one's.
    bool flip(uint8_t from, uint8_t to) {
        const uint8_t none = direction(kDirNone, 0);
        if (dir_mode(from) == kDirReg && dir_mode(to) == kDirReg &&
            (dir_index(from) > dir_index(to) + 1 || dir_index(to) > dir_index(from) + 1)) {
            // Two register bits that are not neighbours: two flips, one register bit each.
            return op(kFlip, from, none) && op(kFlip, none, to);
        }
        return from == to || op(kFlip, from, to);
    }
    bool change_layout(uint32_t to_mask) {
        const Layout to = make_layout(to_mask, T_, E_);
        if (p_.exchange_count == kMaxExchanges) return false;
        p_.exchanges[p_.exchange_count] = make_exchange(layout_, to, T_, E_);
        if (!op(kExchange, p_.exchange_count++, 0)) return false;
        layout_ = to;
        reg_mask_ = to_mask;
        return true;
    }
    // The layout from step i on: the register bits of the steps ahead, as
    // many as fit, filled up with the lowest local bits left -- the lowest
    // above the lanes when none of those steps is on a lane bit, so that a
    // last layout can be stored directly.
    uint32_t next_layout(size_t i) const {
        uint32_t need = 0;
        int count = 0;
        for (size_t n = i; n < w_.end; ++n) {
            const uint32_t b = 1u << local_[steps_[n].bit];
            if (need & b) continue;
            if (count == E_) break;
            need |= b;
            count++;
        }
        for (int b = (need & kLanes) ? 0 : kLaneBits; count < E_; ++b)
            if (!(need & (1u << b))) { need |= 1u << b; count++; }
        return need;
    }
    // The current layout's global bits: registers, then threads.
    void direct_bits(uint8_t* bits) const {
        for (int e = 0; e < E_; ++e) bits[e] = p_.window[layout_.reg[e]];
        for (int k = 0; k < T_ - E_; ++k) bits[E_ + k] = p_.window[layout_.thread[k]];
    }

    const Shape& s_;
    const std::vector<Step>& steps_;
    const Window& w_;
    const int E_, T_;
    Pass p_;
    int local_[32];  // global bit -> local bit, or -1
    uint32_t io_mask_ = 0, reg_mask_ = 0;
    Layout layout_{};
};

}  // namespace

const char* plan(const Shape& s, std::vector<Pass>* out) {
    out->clear();
    if (s.bits < kMinBits || s.bits > kMaxBits || s.reg_bits < kMinRegBits || s.reg_bits > kMaxRegBits ||
        s.bits - s.reg_bits < kLaneBits || s.seg_bits < 1 || s.seg_bits > 31 || s.presorted < 0 ||
        (s.presorted >= s.seg_bits && !s.merge))
        return "window plan: a shape outside the planner's limits";
    const std::vector<Step> steps = network(s);
    int stage = 0;  // the complement pattern the words carry: none before the first stage
    for (const Window& w : windows(s, steps)) {
        PassBuilder b(s, steps, w);
        if (const char* why = b.build(&stage)) return why;
        out->push_back(b.pass());
    }
    return nullptr;
}

const std::vector<Pass>* cached_plan(const Shape& s, const char** why) {
    static std::mutex mutex;
    static std::map<std::tuple<int, int, int, int, int>, std::unique_ptr<std::vector<Pass>>> plans;
    *why = nullptr;
    const std::tuple<int, int, int, int, int> key{s.seg_bits, s.merge ? 1 : 0, s.bits, s.reg_bits, s.merge ? 0 : s.presorted};
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<std::vector<Pass>>& slot = plans[key];
    if (!slot) {
        std::unique_ptr<std::vector<Pass>> p(new std::vector<Pass>());
        if ((*why = plan(s, p.get())) != nullptr) {
            plans.erase(key);
            return nullptr;
        }
        slot = std::move(p);
    }
    return slot.get();
}

int passes(const Shape& s) {
    if (s.bits - s.reg_bits < kLaneBits || s.seg_bits < 1 || (s.presorted >= s.seg_bits && !s.merge)) return 0;
    return (int)windows(s, network(s)).size();
}

Shape shape_for(const Tuning& t, int word_bytes, int seg_bits, uint64_t total, bool merge) {
    const int w = word_bytes == 8 ? 1 : 0;
    Shape s;
    s.seg_bits = seg_bits;
    s.merge = merge;
    int bits = t.window_bits[w];
    // Every SM a block, where the request is large enough for that; arrays
    // that one window of the largest size holds keep one pass.
    const int lowest = seg_bits <= bits ? std::max(seg_bits, kMinBits) : kMinBits;
    while (bits > lowest && (total >> bits) < (uint64_t)t.limits.sms) bits--;
    s.bits = bits;
    s.reg_bits = (w == 0 && bits >= 14) ? kMaxRegBits : kMinRegBits;
    return s;
}

Route route(const Tuning& t, int word_bytes, int seg_bits, uint64_t total, bool fused, bool dense, bool merge) {
    Route r;
    r.shape = shape_for(t, word_bytes, seg_bits, total, merge);
    // Shorter arrays than the tuning gives the windows: the fast design --
    // where it can take the plan (a fused array no longer than its tile).
    const int from = merge ? t.window_merge_from : t.window_from[word_bytes == 8 ? 1 : 0];
    if (seg_bits < from && (!fused || seg_bits <= t.fast_tile_bits)) {
        r.kernel = Kernel::fast;
        r.passes = 0;
        return r;
    }
    if (fused && !merge) {
        const bool small_cluster = t.fast_cluster > 1 && seg_bits <= t.fast_tile_bits &&
                                   total <= (uint64_t(1) << kWindowSmallTotalBits);
        const bool window_holds = seg_bits <= r.shape.bits;
        if (seg_bits <= kWindowFastTileBits || small_cluster || (!window_holds && !dense)) {
            r.kernel = Kernel::fast_tile;
            r.passes = 1;
            return r;
        }
    }
    // The fast design's tile kernel first, where its tile is larger than a
    // window and shorter than an array: it sorts each tile in one trip that
    // the window passes would take several for.
    if (t.window_presort && !merge && seg_bits > r.shape.bits && seg_bits > t.fast_tile_bits)
        r.shape.presorted = t.fast_tile_bits;
    r.kernel = Kernel::window;
    r.passes = passes(r.shape) + (r.shape.presorted > 0 ? 1 : 0);
    return r;
}

uint64_t fused_words(const Tuning& t) {
    const uint64_t tile = uint64_t(1) << t.fast_tile_bits;
    const int smaller = std::min(t.window_bits[0], t.window_bits[1]);
    const uint64_t windows = std::max(tile, uint64_t(1) << smaller);
    // Where every array up to `windows` words goes to the fast design anyway,
    // the fast design's tile is the limit (its fused kernel takes them).
    const int from = std::min(t.window_from[0], t.window_from[1]);  // fused: sorts only
    if ((uint64_t(1) << from) > windows) return tile;
    return windows;
}

uint32_t exchange_slot(const Pass& p, int exchange, bool from, uint32_t thread, int r) {
    const Exchange& x = p.exchanges[exchange];
    const uint16_t* reg = from ? x.from_reg : x.to_reg;
    const uint16_t* thr = from ? x.from_thread : x.to_thread;
    uint32_t s = 0;
    for (int k = 0; k < p.bits - p.reg_bits; ++k)
        if (thread >> k & 1) s ^= thr[k];
    for (int e = 0; e < p.reg_bits; ++e)
        if (r >> e & 1) s ^= reg[e];
    return s;
}

}  // namespace window
}  // namespace bitonic
