// ch12/extras/sort/src/sort_request.cpp -- the host-only half of the sort
// library (bitonic/sort_request.h, bitonic/tuning.h): request checks, plans,
// profiles and the tuning policy. Compiled into the library, and by g++ alone
// into the CPU-only test test_sort_request.cpp.
#include "bitonic/sort_request.h"

#include <algorithm>
#include <cstring>

#include "bitonic/tuning.h"
#include "plan.h"
#include "tuning_policy.h"

namespace bitonic {

using ch12::failure;

// ---- the designs by name --------------------------------------------------------------
#define BITONIC_DESIGN_NAME(name, what) #name,
#define BITONIC_DESIGN_WHAT(name, what) what,
const char* const kDesignNames[] = {BITONIC_DESIGNS(BITONIC_DESIGN_NAME) nullptr};
const char* const kDesignWhat[] = {BITONIC_DESIGNS(BITONIC_DESIGN_WHAT) nullptr};
#undef BITONIC_DESIGN_NAME
#undef BITONIC_DESIGN_WHAT
const int kDesignCount = (int)(sizeof kDesignNames / sizeof kDesignNames[0]) - 1;

const char* design_name(Design d) {
    const int i = (int)d;
    return (i >= 0 && i < kDesignCount) ? kDesignNames[i] : "?";
}

bool design_by_name(const char* name, Design* out) {
    for (int i = 0; i < kDesignCount; i++)
        if (std::strcmp(kDesignNames[i], name) == 0) { *out = (Design)i; return true; }
    return false;
}

// ---- the request ------------------------------------------------------------------
// Every product and sum below is bounded before it is formed: len <= 2^31
// before P is computed (so the doubling ends), count <= 2^31 / P before
// count * P, and (count - 1) * stride + len <= 2^40 is checked by division.
Status check_request(const Request& r) {
    if ((int)r.design < 0 || (int)r.design >= kDesignCount) return failure(Errc::bad_request, "no such design");
    if (!valid(r.key_type)) return failure(Errc::bad_request, "no such key type");
    if (!valid(r.order)) return failure(Errc::bad_request, "no such order");
    const uint64_t count = r.count, len = r.len;
    const uint64_t stride = r.stride ? r.stride : len;
    if (stride < len) return failure(Errc::bad_request, "the stride is shorter than an array");
    static const char* const kTooMany =
        "too many keys: count times len rounded up to a power of two must be at most 2^31";
    if (len > kMaxPaddedKeys) return failure(Errc::bad_request, kTooMany);
    uint64_t P = 1;
    while (P < len) P *= 2;
    if (count > kMaxPaddedKeys / P) return failure(Errc::bad_request, kTooMany);
    if (count > 1 && stride > (kMaxSpan - len) / (count - 1))
        return failure(Errc::bad_request, "the batch spans more than 2^40 keys (from its first key to its last)");
    return {};
}

static uint64_t round_up(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

Plan make_plan(const Request& r, uint64_t fused_words) {
    Plan p;
    p.stride = r.stride ? r.stride : r.len;
    if (r.count == 0 || r.len <= 1) {
        p.nothing = true;
        return p;
    }
    while (p.P < r.len) {
        p.P *= 2;
        p.seg_bits++;
    }
    p.total = (uint64_t)r.count * p.P;
    p.pairs = r.with_values;
    p.merge = r.bitonic_input;
    p.codec = codec(r.key_type, r.order);
    p.dense = (r.len == p.P) && (r.count == 1 || p.stride == r.len);
    p.raw = p.dense && is_identity(p.codec);
    p.fused = !p.merge && p.P <= fused_words;
    p.pad_copies = p.merge && r.len < p.P;
    if (!p.fused && !p.dense) {  // a padded copy in scratch: keys, values, bounds
        const uint64_t plane = p.total * 4;
        uint64_t end = plane;
        if (p.pairs) {
            p.values_offset = (size_t)round_up(end, 256);
            end = p.values_offset + plane;
        }
        if (p.pad_copies) {
            p.bounds_offset = (size_t)round_up(end, 256);
            end = p.bounds_offset + (uint64_t)r.count * 4;
        }
        p.scratch = (size_t)end;
    }
    return p;
}

Status check_call(const Request& r, const Plan& p, const void* keys, const void* values, const void* scratch,
                   size_t scratch_size) {
    if (p.nothing) return {};  // nothing is read or written
    if (keys == nullptr) return failure(Errc::null_pointer, "the keys pointer is null");
    if (r.with_values && values == nullptr)
        return failure(Errc::null_pointer, "with_values is set, but the values pointer is null");
    if ((uintptr_t)keys % kAlignment != 0)
        return failure(Errc::misaligned, "the keys must be 16-byte aligned (as cudaMalloc returns them)");
    if (r.with_values && (uintptr_t)values % kAlignment != 0)
        return failure(Errc::misaligned, "the values must be 16-byte aligned (as cudaMalloc returns them)");
    if (scratch_size < p.scratch)
        return failure(Errc::scratch_too_small, "the scratch memory is smaller than scratch_bytes() says this request needs");
    if (p.scratch > 0 && scratch == nullptr) return failure(Errc::null_pointer, "this request needs scratch memory, and its pointer is null");
    if (p.scratch > 0 && (uintptr_t)scratch % kAlignment != 0)
        return failure(Errc::misaligned, "the scratch memory must be 16-byte aligned (as cudaMalloc returns it)");
    return {};
}

// ---- profiles -----------------------------------------------------------------------
// From each GPU's published specification (NVIDIA's architecture white papers
// and the CUDA programming guide's table of compute capabilities): compute
// capability, SMs, resident threads per SM, opt-in shared memory per block,
// shared memory per SM, shared memory reserved per block, cluster size.
constexpr size_t KiB = 1024;
const Profile kProfiles[] = {
    {"t4", "NVIDIA T4 (Turing, sm_75)", {75, 40, 1024, 64 * KiB, 64 * KiB, 0, 1}},
    {"a100", "NVIDIA A100 (Ampere, sm_80)", {80, 108, 2048, 163 * KiB, 164 * KiB, 1 * KiB, 1}},
    {"rtx3060", "NVIDIA GeForce RTX 3060 (Ampere, sm_86)", {86, 28, 1536, 99 * KiB, 100 * KiB, 1 * KiB, 1}},
    {"rtx4090", "NVIDIA GeForce RTX 4090 (Ada, sm_89)", {89, 128, 1536, 99 * KiB, 100 * KiB, 1 * KiB, 1}},
    {"h100", "NVIDIA H100 SXM (Hopper, sm_90)", {90, 132, 2048, 227 * KiB, 228 * KiB, 1 * KiB, 16}},
    {nullptr, nullptr, {}},
};

const Profile* profile_by_name(const char* name) {
    for (const Profile* p = kProfiles; p->name; ++p)
        if (std::strcmp(p->name, name) == 0) return p;
    return nullptr;
}

Limits lowered(const Limits& device, const Profile* profile) {
    if (profile == nullptr) return device;
    const Limits& q = profile->limits;
    Limits l;
    l.cc = std::min(device.cc, q.cc);
    l.sms = std::min(device.sms, q.sms);
    l.threads_per_sm = std::min(device.threads_per_sm, q.threads_per_sm);
    l.smem_per_block = std::min(device.smem_per_block, q.smem_per_block);
    l.smem_per_sm = std::min(device.smem_per_sm, q.smem_per_sm);
    l.smem_reserved = std::max(device.smem_reserved, q.smem_reserved);  // a cost: the larger is the tighter
    l.max_cluster = std::min(device.max_cluster, q.max_cluster);
    return l;
}

// ---- the tuning policy ------------------------------------------------------------------
// Where the windows take over (tuning.h: kWindowFromBits): lower where the
// cluster tiles sort first than where the windows sort from scratch.
static void route_from(Tuning* t) {
    const bool cluster_presort = t->window_presort && t->fast_cluster > 1;
    for (int w = 0; w < 2; w++) t->window_from[w] = cluster_presort ? kWindowFromBits[w] : kWindowFromBitsNoPresort[w];
}

Status tune(const Limits& l, Tuning* out) {
    if (l.sms < 1 || l.threads_per_sm < 512)
        return failure(Errc::unsupported, "the device (or profile) runs fewer than 512 threads per SM");
    if (l.smem_per_block < kFastBlockSmem[1])
        return failure(Errc::unsupported, "the device (or profile) allows less shared memory per block than the fast design's tile of pairs (34 KiB)");
    Tuning t;
    t.limits = l;
    // Clusters of 16 where the tile kernel runs them (Hopper on), else none.
    t.fast_cluster = (l.cc >= 90 && l.max_cluster >= kFastClusterBlocks) ? kFastClusterBlocks : 1;
    t.fast_tile_bits = kFastBlockBits + (t.fast_cluster == kFastClusterBlocks ? 4 : 0);
    if (t.fast_cluster > 1) {
        // More than half an SM's shared memory, in 8 KiB steps: 120 KiB of
        // an H100's or H200's 228. Only where a block may have it on top of
        // its own tile (static + dynamic <= the opt-in limit per block).
        const size_t spread = (size_t)round_up(l.smem_per_sm / 2 + 1, 8 * KiB);
        for (int w = 0; w < 2; w++)
            t.fast_spread[w] = (kFastBlockSmem[w] + spread <= l.smem_per_block) ? spread : 0;
    }
    for (int w = 0; w < 2; w++) {
        const size_t word = w ? 8 : 4;
        const int top = kWindowMaxBits - w;  // pairs: 2^14 words at most (64 registers of words a thread)
        auto fits = [&](int T) {
            return (word << T) <= l.smem_per_block && kWindowBlocksPerSm * ((word << T) + l.smem_reserved) <= l.smem_per_sm;
        };
        t.window_bits[w] = kWindowMinBits;
        while (t.window_bits[w] < top && fits(t.window_bits[w] + 1)) t.window_bits[w]++;
    }
    t.window_presort = t.fast_tile_bits > t.window_bits[0];
    route_from(&t);
    t.window_merge_from = kWindowMergeFromBits;
    const int per_sm = std::max(1, l.threads_per_sm / kStreamThreads);
    t.stream_blocks = (uint32_t)l.sms * (uint32_t)per_sm * (uint32_t)kStreamWaves;
    *out = t;
    return {};
}

Status pin_window(const WindowPin& pin, Tuning* t) {
    if (pin.bits != 0) {
        if (pin.bits < kWindowMinBits + 1 || pin.bits > kWindowMaxBits)
            return failure(Errc::unsupported, "a pinned window of keys must be 2^13 .. 2^15 words");
        if ((size_t(4) << pin.bits) > t->limits.smem_per_block)
            return failure(Errc::unsupported, "a pinned window does not fit one block's shared memory");
        t->window_bits[0] = pin.bits;
        t->window_bits[1] = pin.bits - 1;
    }
    if (pin.presort >= 0) {
        t->window_presort = pin.presort != 0;
        route_from(t);  // from_bits below, where pinned, overrides it
    }
    if (pin.from_bits != 0) {
        if (pin.from_bits < 1 || pin.from_bits > 32) return failure(Errc::unsupported, "a pinned from_bits must be 1 .. 32");
        t->window_from[0] = t->window_from[1] = t->window_merge_from = pin.from_bits;
    }
    return {};
}

}  // namespace bitonic
