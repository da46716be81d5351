// ch12/extras/sort/src/traffic.cpp -- trips and bytes of a plan (bitonic/traffic.h).
// Each count follows its design's launch code step for step.
#include "bitonic/traffic.h"
#include "traffic_model.h"

#include "window_plan.h"

namespace bitonic {

int design_trips(Design d, const Tuning& t, const Plan& p) {
    if (p.nothing) return 0;
    const int S = p.seg_bits;
    switch (d) {
        case Design::chapter:  // one launch per (k, j): stages 1 .. S, or the last one
            return p.merge ? S : S * (S + 1) / 2;
        case Design::workgroup: {  // 1024-word tiles: a tile pass, then per stage its global steps and a tail
            constexpr int kTile = 10;
            if (p.merge) return S <= kTile ? 1 : (S - kTile) + 1;
            int trips = 1;
            for (int st = kTile + 1; st <= S; ++st) trips += (st - kTile) + 1;
            return trips;
        }
        case Design::fast: {
            if (p.fused) return 1;
            if (p.merge) {  // the last stage: small arrays in one kernel, else its global steps and a tile pass
                if (S < kFastBlockBits) return 1;
                const int tile = (S >= t.fast_tile_bits && t.fast_cluster > 1) ? t.fast_tile_bits : kFastBlockBits;
                return fast_global_launches(S - tile) + 1;
            }
            int trips = 1;  // the tiles, sorted from scratch
            for (int st = t.fast_tile_bits + 1; st <= S; ++st) trips += fast_global_launches(st - t.fast_tile_bits) + 1;
            return trips;
        }
        case Design::window: {  // the fast design's trips where it routes there
            const window::Route r = window::route(t, p.pairs ? 8 : 4, S, p.total, p.fused, p.dense, p.merge);
            return r.kernel == window::Kernel::fast ? design_trips(Design::fast, t, p) : r.passes;
        }
    }
    return 0;
}

Traffic traffic(const Request& r, const Plan& p, const Tuning& t) {
    Traffic x;
    if (p.nothing) return x;
    const uint64_t word = p.pairs ? 8 : 4;
    const uint64_t real = (uint64_t)r.count * r.len * word, padded = p.total * word;
    x.trips = design_trips(r.design, t, p);
    if (p.fused) {
        x.bytes = (uint64_t)x.trips * 2 * real;
        return x;
    }
    x.bytes = (uint64_t)x.trips * 2 * padded;
    if (!p.raw) {  // the padded copy: in, and back out
        x.trips += 2;
        x.bytes += 2 * (real + padded);
    }
    return x;
}

}  // namespace bitonic
