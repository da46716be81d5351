// Chapter 12 extra -- the multi-GPU schedule, checked on the CPU.
//
//   multi_gpu_schedule_test   (this file: test_schedule.cpp)
//
// Runs the steps of schedule.h through the same run_step() the GPU program
// uses, with an executor that keeps every GPU's array in host memory:
//   * against the chapter's single-array network, step by step: after each
//     step, every key must be where the network's double loop puts it
//     (when the blocks are a power of two long);
//   * against std::sort at the end: sorted, and the same (key, value) pairs;
//   * for every p = 1 .. 64 ranks, split every way between GPUs and blocks
//     per GPU, blocks of 1 .. 100 keys, on random, duplicate-heavy and
//     adversarial inputs, and on every 0-1 input of up to 16 keys (which, by
//     the 0-1 principle, shows the schedule sorts every input of that size);
//   * and the checks themselves: schedules broken on purpose must fail.
// Needs no GPU. Exit 0 when every check passes, 1 otherwise.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "check.h"
#include "cli.h"
#include "schedule.h"

using multi_gpu::Layout;
using multi_gpu::Op;
using multi_gpu::Step;

struct Item {
    uint32_t key, value;
};
bool operator==(const Item& a, const Item& b) { return a.key == b.key && a.value == b.value; }
bool operator<(const Item& a, const Item& b) { return a.key != b.key ? a.key < b.key : a.value < b.value; }

// Ways to break the GPU side on purpose: the checks must notice each one.
enum class Broken { none, keep_flipped, no_merge, local_skipped, exchange_with_self, values_never_flipped };

// ---- the sort library, modelled on the host ---------------------------------------------------
// Its word for an item (words.cuh): the key's order bits (the key, or ~key
// descending) << 32 | the value as stored (pairs), or the order bits alone.
static uint64_t library_word(const Item& x, bool up, bool pairs) {
    return (uint64_t)(up ? x.key : ~x.key) << 32 | (pairs ? x.value : 0u);
}

// Is x bitonic in the library's words: at most two changes of direction, read around the circle?
static bool is_bitonic(const Item* x, uint64_t len, bool up, bool pairs) {
    int first = 0, last = 0, changes = 0;
    for (uint64_t i = 0; i < len; i++) {
        const uint64_t a = library_word(x[i], up, pairs), b = library_word(x[(i + 1) % len], up, pairs);
        if (a == b) continue;
        const int dir = a < b ? 1 : -1;
        if (first == 0) first = dir;
        else if (dir != last) changes++;
        last = dir;
    }
    if (first != 0 && last != first) changes++;
    return changes <= 2;
}

// The library's merge of a bitonic array of any length, as it does it: padded
// up to a power of two P with copies of its last word, the network's last
// stage (distances P/2 .. 1) on words, then the P - len copies left out just
// before the end of the run of that word (found by a binary search).
static void library_merge(Item* x, uint64_t len, bool up, bool pairs) {
    uint64_t P = 1;
    while (P < len) P *= 2;
    std::vector<Item> w(x, x + len);
    w.resize(P, x[len - 1]);
    for (uint64_t j = P / 2; j > 0; j /= 2)
        for (uint64_t i = 0; i < P; i++)
            if ((i ^ j) > i && library_word(w[i], up, pairs) > library_word(w[i ^ j], up, pairs)) std::swap(w[i], w[i ^ j]);
    const uint64_t last = library_word(x[len - 1], up, pairs);
    uint64_t lo = 0, hi = P;
    while (lo < hi) {
        const uint64_t mid = (lo + hi) / 2;
        if (library_word(w[mid], up, pairs) <= last) lo = mid + 1;
        else hi = mid;
    }
    const uint64_t pad = P - len;
    for (uint64_t o = 0; o < len; o++) x[o] = w[o + pad >= lo ? o + pad : o];
}

// The chapter's network on the whole array: one pass at stage k, distance j,
// on words (key, value) -- value 0 for keys alone.
static void network_pass(std::vector<uint64_t>& a, uint64_t k, uint64_t j) {
    for (uint64_t i = 0; i < a.size(); i++) {
        const uint64_t l = i ^ j;
        if (l > i) {
            const bool up = (i & k) == 0;
            if (up ? a[i] > a[l] : a[i] < a[l]) std::swap(a[i], a[l]);
        }
    }
}

// One GPU, on the host: the executor run_step() drives. Its items hold the
// values as the GPU stores them (complemented in descending blocks).
struct HostGpu {
    std::vector<Item>* mine;
    const std::vector<std::vector<Item>>* before;  // every GPU's array when the step began
    uint64_t self;
    uint64_t S;
    bool pairs;
    Broken broken;
    std::string* problem;
    std::vector<int64_t>* exchanges;  // per GPU: the peer of this step (-1: none), keep_min in bit 62

    Item* block(uint64_t b) { return mine->data() + b * S; }
    void sort(uint64_t b, bool up) {
        Item* x = block(b);
        std::sort(x, x + S, [&](const Item& p, const Item& q) { return library_word(p, up, pairs) < library_word(q, up, pairs); });
    }
    void merge(uint64_t b, bool up) {
        if (broken == Broken::no_merge) return;
        Item* x = block(b);
        if (!is_bitonic(x, S, up, pairs) && problem->empty())
            *problem = "block " + std::to_string(b) + " of GPU " + std::to_string(self) + " is not bitonic before its merge";
        library_merge(x, S, up, pairs);
    }
    multi_gpu::Split broken_split(multi_gpu::Split s) const {
        if (broken == Broken::values_never_flipped) s.mine_flipped = s.theirs_flipped = s.out_flipped = false;
        return s;
    }
    static multi_gpu::Pair pair(const Item& x) { return {x.key, x.value}; }
    void compare_local(uint64_t lower, uint64_t upper, const multi_gpu::Split& split) {
        if (broken == Broken::local_skipped) return;
        const multi_gpu::Split s = broken_split(split);
        Item *a = block(lower), *c = block(upper);
        for (uint64_t l = 0; l < S; l++) {
            const multi_gpu::Pair x = multi_gpu::split_position(pair(a[l]), pair(c[l]), pairs, s);
            const multi_gpu::Pair y = multi_gpu::split_position(pair(c[l]), pair(a[l]), pairs, s.mirrored());
            a[l] = {x.key, x.value};
            c[l] = {y.key, y.value};
        }
    }
    void exchange(uint64_t peer, const multi_gpu::Split& split) {
        multi_gpu::Split s = broken_split(split);
        if (broken == Broken::keep_flipped) s.keep_min = !s.keep_min;
        if (broken == Broken::exchange_with_self) peer = self;
        (*exchanges)[self] = (int64_t)peer | (s.keep_min ? int64_t(1) << 62 : 0);
        const std::vector<Item>& theirs = (*before)[peer];
        for (uint64_t i = 0; i < mine->size(); i++) {
            const multi_gpu::Pair x = multi_gpu::split_position(pair((*mine)[i]), pair(theirs[i]), pairs, s);
            (*mine)[i] = {x.key, x.value};
        }
    }
};

// Sorts `input` as the GPU program would, on p = 2^L.log_gpus GPUs of
// 2^L.log_sub blocks each: (key, value) pairs, or (pairs == false) keys alone
// (the values of `input` are then ignored). Returns "" or the first thing
// found wrong.
static std::string simulate(const Layout& L, const std::vector<Item>& input, bool pairs, bool against_network,
                            Broken broken = Broken::none) {
    const uint64_t n = L.total(), per = L.per_gpu(), S = L.sub;
    std::vector<Item> in = input;
    if (!pairs)
        for (Item& x : in) x.value = 0;
    // The input as the program writes it: values complemented in blocks that sort down first.
    std::vector<std::vector<Item>> gpus(L.gpus());
    for (uint64_t g = 0; g < L.gpus(); g++) gpus[g].assign(in.begin() + g * per, in.begin() + (g + 1) * per);
    auto flip = [&](uint64_t i, int stage) { return pairs && multi_gpu::values_flipped(i / S, stage) ? ~0u : 0u; };
    for (uint64_t i = 0; i < n; i++) gpus[i / per][i % per].value ^= flip(i, 0);
    std::vector<uint64_t> net(n);
    for (uint64_t i = 0; i < n; i++) net[i] = multi_gpu::word(in[i].key, in[i].value);
    const bool compare = against_network && multi_gpu::is_power_of_two(S);
    std::string problem;
    for (const Step& step : multi_gpu::schedule(L.log_ranks())) {
        const std::vector<std::vector<Item>> before = gpus;
        std::vector<int64_t> exchanges(L.gpus(), -1);
        for (uint64_t g = 0; g < L.gpus(); g++) {
            HostGpu x{&gpus[g], &before, g, S, pairs, broken, &problem, &exchanges};
            multi_gpu::run_step(step, L, g, x);
        }
        if (!problem.empty()) return problem;
        // Exchanges come in pairs: g with h and h with g, one keeping each side.
        for (uint64_t g = 0; g < L.gpus(); g++) {
            if (exchanges[g] < 0) continue;
            const uint64_t h = exchanges[g] & ((int64_t(1) << 62) - 1);
            if (h == g || h >= L.gpus() || exchanges[h] < 0 || (uint64_t)(exchanges[h] & ((int64_t(1) << 62) - 1)) != g ||
                ((exchanges[h] >> 62) & 1) == ((exchanges[g] >> 62) & 1))
                return "GPU " + std::to_string(g) + "'s exchange has no matching partner";
        }
        if (compare) {  // every (key, value) where the network puts it, its value plain or complemented as it should be
            const uint64_t k = S << step.stage;
            if (step.op == Op::sort) {
                for (uint64_t kk = 2; kk <= S; kk *= 2)
                    for (uint64_t j = kk / 2; j > 0; j /= 2) network_pass(net, kk, j);
            } else if (step.op == Op::compare_split) {
                network_pass(net, k, S << step.bit);
            } else {
                for (uint64_t j = S / 2; j > 0; j /= 2) network_pass(net, k, j);
            }
            for (uint64_t i = 0; i < n; i++) {
                const Item& x = gpus[i / per][i % per];
                if (multi_gpu::word(x.key, x.value ^ flip(i, step.stage)) != net[i])
                    return "after " + std::string(step.op == Op::sort ? "the sort" : step.op == Op::merge ? "a merge" : "a compare-split") +
                           " of stage " + std::to_string(step.stage) + ", item " + std::to_string(i) +
                           " differs from the single-array network's";
            }
        }
    }
    // At the end every block is ascending, its values plain: the result must be std::sort's.
    std::vector<Item> out;
    for (auto& g : gpus) out.insert(out.end(), g.begin(), g.end());
    std::vector<Item> want = in;
    std::sort(want.begin(), want.end());
    for (uint64_t i = 0; i < n; i++)
        if (!(out[i] == want[i]))
            return std::string(pairs ? "the (key, value) pairs" : "the keys") + " differ from std::sort's at " +
                   std::to_string(i);
    return "";
}

// The inputs: random, duplicate-heavy and adversarial.
static const char* const kInputs[] = {"uniform", "four-values", "zeros-and-ones", "sorted", "reverse", "equal",
                                      "blocks-reversed", "organ-pipe", "extremes", nullptr};
static std::vector<Item> make_input(int kind, uint64_t n, uint64_t blocks, std::mt19937& rng) {
    std::vector<Item> v(n);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t k = 0;
        switch (kind) {
            case 0: k = (uint32_t)rng(); break;
            case 1: k = (uint32_t)rng() % 4; break;
            case 2: k = (uint32_t)rng() % 2; break;
            case 3: k = (uint32_t)i; break;
            case 4: k = (uint32_t)(n - i); break;
            case 5: k = 7; break;
            case 6: {  // block r holds the keys block (blocks - 1 - r) would end with: all must travel
                const uint64_t per = n / blocks, r = i / per;
                k = (uint32_t)((blocks - 1 - r) * per + i % per);
                break;
            }
            case 7: k = (uint32_t)(i < n / 2 ? i : n - i); break;
            default: k = (rng() & 1) ? 0xFFFFFFFFu - (uint32_t)(rng() % 3) : (uint32_t)(rng() % 3); break;
        }
        v[i] = {k, (uint32_t)i};
    }
    return v;
}

// 1. The schedule's shape: its length, and how many of its steps cross GPUs.
static void check_shape(ch12::Checks& check) {
    // ---- 1. the schedule's shape
    for (int D = 0; D <= 6; D++) {
        const std::vector<Step> steps = multi_gpu::schedule(D);
        if (steps.size() != (size_t)(1 + D * (D + 1) / 2 + D)) check(false, "schedule(" + std::to_string(D) + ") has the wrong length");
        for (int d = 0; d <= D; d++) {
            Layout L;
            L.log_gpus = d;
            L.log_sub = D - d;
            L.sub = 1;
            int cross = 0;
            for (const Step& s : steps) cross += (s.op == Op::compare_split && s.bit >= L.log_sub);
            if (cross != multi_gpu::cross_gpu_steps(d) || cross + multi_gpu::in_memory_steps(L) != D * (D + 1) / 2)
                check(false, "the count of cross-GPU steps for p = 2^" + std::to_string(d));
        }
    }
    printf("schedule: 1 + D(D+1)/2 + D steps for 2^D ranks, d(d+1)/2 of them across 2^d GPUs (D = 0 .. 6): checked\n");
}

// 2. Layouts (blocks per GPU, equal blocks) and exchange chunks.
static void check_layouts(ch12::Checks& check) {
    // ---- 2. layouts and chunks
    struct LayoutCase {
        uint64_t n;
        int log_gpus;
        uint64_t max_block;
        bool ok;
        int log_sub;
        uint64_t sub;
    };
    const uint64_t G = uint64_t(1) << 31;
    const LayoutCase layouts[] = {
        {uint64_t(1) << 33, 0, G, true, 2, G},       {uint64_t(1) << 33, 1, G, true, 1, G},
        {uint64_t(1) << 31, 0, G, true, 0, G},       {1000, 1, G, true, 0, 500},
        {1001, 1, G, false, 0, 0},                   {786432, 0, 131072, true, 3, 98304},
        {(uint64_t(1) << 31) + 2, 0, G, true, 1, (uint64_t(1) << 30) + 1},
        {(uint64_t(1) << 31) + 1, 0, G, false, 1, 0}, {uint64_t(1) << 40, 0, 1024, false, 12, 0},
        {1, 0, G, true, 0, 1},                        {3, 1, G, false, 0, 0},
    };
    for (const LayoutCase& c : layouts) {
        Layout L;
        const char* problem = multi_gpu::choose_layout(c.n, c.log_gpus, c.max_block, 12, &L);
        if ((problem == nullptr) != c.ok || (c.ok && (L.log_sub != c.log_sub || L.sub != c.sub || L.total() != c.n)))
            check(false, "choose_layout(" + std::to_string(c.n) + ", p = 2^" + std::to_string(c.log_gpus) + ")");
    }
    for (uint64_t total : {0ull, 1ull, 5ull, 64ull, 65ull, 1000ull})
        for (uint64_t chunk : {1ull, 4ull, 64ull, 1000ull}) {
            uint64_t next = 0;
            for (const multi_gpu::Chunk& c : multi_gpu::chunks(total, chunk)) {
                if (c.offset != next || c.count == 0 || c.count > chunk) check(false, "chunks(" + std::to_string(total) + ")");
                next = c.offset + c.count;
            }
            if (next != total) check(false, "chunks(" + std::to_string(total) + ") do not cover it");
        }
    printf("layouts (blocks per GPU, equal blocks) and exchange chunks: checked\n");
}

// 3. Every split of 1 .. 64 ranks, against the network and std::sort.
static void check_every_split(ch12::Checks& check, std::mt19937& rng) {
    // ---- 3. every split of 1 .. 64 ranks, against the network and std::sort
    const uint64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 16, 33, 64, 100};
    long runs = 0;
    const int failures_before_runs = check.failed();
    for (bool pairs : {true, false})
        for (int D = 0; D <= 6; D++)
            for (uint64_t S : sizes)
                for (int d = 0; d <= D; d++)
                    for (int kind = 0; kInputs[kind]; kind++) {
                        Layout L;
                        L.log_gpus = d;
                        L.log_sub = D - d;
                        L.sub = S;
                        const std::vector<Item> input = make_input(kind, L.total(), uint64_t(1) << D, rng);
                        const std::string problem = simulate(L, input, pairs, true);
                        runs++;
                        if (!problem.empty())
                            check(false, std::to_string(1 << d) + " GPUs x " + std::to_string(1 << (D - d)) + " blocks of " +
                                 std::to_string(S) + (pairs ? " pairs, " : " keys, ") + kInputs[kind] + " input: " + problem);
                    }
    printf("%ld sorts of 1 .. 6400 keys and (key, value) pairs on 1 .. 64 ranks, every split between GPUs and\n"
           "  blocks, the library's merge as it pads: every step equal to the single-array network (blocks of 2^k\n"
           "  keys), the result equal to std::sort, every merge given a bitonic block, every exchange matched: %s\n",
           runs, check.failed() > failures_before_runs ? "FAILED" : "checked");
}

// 4. Every 0-1 input of up to 16 keys (the 0-1 principle: the schedule sorts them all).
static void check_zero_one(ch12::Checks& check) {
    // ---- 4. every 0-1 input of up to 16 keys (the 0-1 principle: the schedule sorts them all)
    long inputs01 = 0;
    const int failures_before = check.failed();
    for (int D = 0; D <= 4; D++)
        for (uint64_t S : {1ull, 2ull, 3ull, 4ull, 5ull, 7ull, 8ull, 16ull}) {
            const uint64_t n = S << D;
            if (n > 16) continue;
            {  // one split per size: the split changes where steps run, not what they do
                const int d = (D + 1) / 2;
                Layout L;
                L.log_gpus = d;
                L.log_sub = D - d;
                L.sub = S;
                for (uint64_t bits = 0; bits < (uint64_t(1) << n); bits++) {
                    std::vector<Item> input(n);
                    for (uint64_t i = 0; i < n; i++) input[i] = {(uint32_t)((bits >> i) & 1), (uint32_t)i};
                    const std::string problem = simulate(L, input, false, false);
                    inputs01++;
                    if (!problem.empty()) {
                        check(false, "0-1 input " + std::to_string(bits) + " of " + std::to_string(n) + " keys: " + problem);
                        break;
                    }
                }
            }
        }
    printf("%ld 0-1 inputs of up to 16 keys (2^D ranks of S keys: GPUs and blocks per GPU half and half): %s\n", inputs01, check.failed() > failures_before ? "FAILED" : "sorted");
}

// 5. The checks catch schedules broken on purpose.
static void check_broken(ch12::Checks& check, std::mt19937& rng) {
    // ---- 5. the checks catch schedules broken on purpose
    const struct {
        Broken broken;
        const char* what;
    } broken[] = {{Broken::keep_flipped, "an exchange that keeps the wrong side"},
                  {Broken::no_merge, "merges left out"},
                  {Broken::local_skipped, "in-memory compare-splits left out"},
                  {Broken::exchange_with_self, "an exchange with the wrong GPU"},
                  {Broken::values_never_flipped, "pairs' values never complemented in descending blocks"}};
    const int failures_before_broken = check.failed();
    // Does some input of 2^log_gpus GPUs x 2^log_sub blocks of `sub` pairs show the break?
    auto caught = [&](Broken how, int log_gpus, int log_sub, uint64_t sub, bool against_network) {
        Layout L;
        L.log_gpus = log_gpus;
        L.log_sub = log_sub;
        L.sub = sub;
        for (int kind = 0; kInputs[kind]; kind++)
            if (!simulate(L, make_input(kind, L.total(), L.gpus() << log_sub, rng), true, against_network, how).empty())
                return true;
        return false;
    };
    for (const auto& b : broken)
        if (!caught(b.broken, 2, 1, 8, true)) check(false, std::string("a schedule with ") + b.what + " passed the checks");
    // Why the values are complemented: without it, the library's padded merge loses pairs.
    if (!caught(Broken::values_never_flipped, 1, 1, 5, false))
        check(false, "pairs in blocks of 5 with values never complemented passed the checks (no network to compare)");
    printf("schedules broken on purpose (wrong side kept, merges or in-memory steps left out, wrong partner,\n"
           "  values not complemented, also in blocks of 5 pairs with no network to compare): %s\n",
           check.failed() > failures_before_broken ? "NOT ALL CAUGHT" : "all caught");
}

int main(int argc, char** argv) {
    ch12::CommandLine cl(argc, argv, "",
                         "  Checks the multi-GPU bitonic schedule (schedule.h) on the CPU, for 1 to 64 ranks,\n"
                         "  against the single-array network and std::sort. Needs no GPU.\n");
    cl.parse();
    ch12::Checks check(20);
    check_shape(check);
    check_layouts(check);
    std::mt19937 rng(12);
    check_every_split(check, rng);
    check_zero_one(check);
    check_broken(check, rng);
    printf("schedule test: %s\n", check.ok() ? "all passed" : "FAILED");
    return check.ok() ? 0 : 1;
}
