// Exercise 3's check: the schedule must run the distances n/2 .. 1 once each,
// in order, the ones that span blocks through global memory and the rest in
// one in-block launch; and the merge must sort bitonic inputs of n = 2 ..
// 16384, both directions. Included after your file (ex3_merge_across_blocks.cuh),
// by ex3_gpu.cu (the GPU) and ex3_sim.cpp (the block simulator).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "exercise.h"

namespace ex3 {

// What the schedule asked for, in order, and the first thing refused.
class Recording : public Passes {
  public:
    Recording(int n, int tile) : n_(n), tile_(tile) {}

    void global_pass(int dist) override {
        asks.push_back("global " + std::to_string(dist));
        covered.push_back(dist);
        if (dist < 1 || dist >= n_ || (dist & (dist - 1)) != 0)
            refuse("global_pass(" + std::to_string(dist) + "): a distance is a power of two from 1 to n/2");
        else if (refused.empty()) do_global(dist);
    }

    void passes_in_block(int from) override {
        asks.push_back("in block " + std::to_string(from) + " .. 1");
        for (int d = from; d >= 1; d /= 2) covered.push_back(d);
        if (from < 1 || (from & (from - 1)) != 0)
            refuse("passes_in_block(" + std::to_string(from) + "): a distance is a power of two, at least 1");
        else if (2 * from > tile_)
            refuse("passes_in_block(" + std::to_string(from) + ") with tiles of " + std::to_string(tile_) +
                   " elements: its groups of " + std::to_string(2 * from) + " span blocks, and no block can "
                   "wait for another (the kernel was not launched)");
        else if (refused.empty()) do_in_block(from);
    }

    std::vector<std::string> asks;  // "global 512", "in block 128 .. 1"
    std::vector<int> covered;       // the distances, in the order asked
    std::string refused;            // the first request not carried out

  protected:
    virtual void do_global(int dist) = 0;
    virtual void do_in_block(int from) = 0;
    void refuse(const std::string& why) {
        if (refused.empty()) refused = why;
    }
    int n_, tile_;
};

// The launches themselves: each request is one launch, on the array in g_a
// (on the GPU, or in the block simulator).
class DevicePasses : public Recording {
  public:
    DevicePasses(exercise::Device& dev, int* g_a, int n, int tile, bool ascending)
        : Recording(n, tile), dev_(dev), g_a_(g_a), ascending_(ascending) {}

  protected:
    void do_global(int dist) override {
        int threads = std::min(n_, 256);
        dev_.launch(merge_pass_global, dim3((n_ + threads - 1) / threads), dim3(threads), g_a_, n_, dist,
                    ascending_ ? 1 : 0);
    }
    void do_in_block(int from) override {
        dev_.launch(merge_passes_in_block, dim3(n_ / tile_), dim3(tile_), g_a_, from, ascending_ ? 1 : 0);
    }

  private:
    exercise::Device& dev_;
    int* g_a_;
    bool ascending_;
};

inline std::string list(const std::vector<int>& v) {
    std::string s;
    for (int x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
    return s;
}

// What is wrong with the schedule for n ("" if nothing).
inline std::string schedule_problem(const Recording& r, int n, int tile) {
    if (!r.refused.empty()) return r.refused;
    std::vector<int> want;
    for (int d = n / 2; d >= 1; d /= 2) want.push_back(d);
    if (r.covered != want)
        return "your passes cover the distances " + (r.covered.empty() ? std::string("(none)") : list(r.covered)) +
               ", not " + list(want) + " -- every distance once, largest first" +
               (n > tile ? ". Those of " + std::to_string(tile) + " or more span blocks: give each its own global_pass"
                         : "");
    for (const std::string& ask : r.asks) {
        if (ask.rfind("global ", 0) == 0 && 2 * std::stoi(ask.substr(7)) <= tile)
            return "'" + ask + "': its groups of " + std::to_string(2 * std::stoi(ask.substr(7))) +
                   " fit in a tile of " + std::to_string(tile) +
                   " -- run it, and every smaller distance, inside the block, in one launch";
    }
    return "";
}

// What is wrong with `got` as the merge of `input` ("" if nothing).
inline std::string result_problem(const std::vector<int>& input, const std::vector<int>& got, bool ascending,
                                  int tile) {
    std::vector<int> want = input;
    if (ascending) std::sort(want.begin(), want.end());
    else std::sort(want.begin(), want.end(), std::greater<int>());
    if (got == want) return "";
    std::vector<int> same = got, before = input;
    std::sort(same.begin(), same.end());
    std::sort(before.begin(), before.end());
    if (same != before) return "keys were lost or duplicated";
    bool tiles_sorted = true;
    for (size_t base = 0; base < got.size(); base += tile) {
        auto b = got.begin() + base, e = got.begin() + std::min(got.size(), base + tile);
        tiles_sorted = tiles_sorted && (ascending ? std::is_sorted(b, e) : std::is_sorted(b, e, std::greater<int>()));
    }
    if (tiles_sorted && (int)got.size() > tile)
        return "each block's " + std::to_string(tile) + " values are sorted, but the blocks are not in order: "
               "the passes whose groups span blocks did not all run";
    return "not sorted: got " + exercise::show(got);
}

// A bitonic input: half rising, half falling, rotated.
inline std::vector<int> bitonic_input(int n, uint32_t& state) {
    std::vector<int> a(n);
    for (auto& x : a) { state = state * 1664525u + 1013904223u; x = (int)((state >> 8) % (uint32_t)n); }
    std::sort(a.begin(), a.begin() + n / 2);
    std::sort(a.begin() + n / 2, a.end(), std::greater<int>());
    state = state * 1664525u + 1013904223u;
    std::rotate(a.begin(), a.begin() + (state >> 8) % (uint32_t)n, a.end());
    return a;
}

inline int check(bool quick) {
    exercise::Report report(3, "61's merge across several blocks");
    exercise::Device dev;
    const int max_n = quick ? 1024 : 16384;

    int* g_a = dev.malloc<int>(max_n, "g_a");
    std::string schedule_first, result_first, last_schedule;
    int merges = 0, wrong = 0;
    uint32_t state = 61;
    for (int n = 2; n <= max_n; n *= 2) {
        int tile = std::min(n, kTile);
        for (bool ascending : {true, false}) {
            for (int r = 0; r < 2; r++) {
                std::vector<int> input = bitonic_input(n, state), got = input;
                dev.upload(g_a, input);
                dev.clear();
                DevicePasses run(dev, g_a, n, tile, ascending);
                merge_across_blocks(run, n, tile);
                dev.sync();
                dev.download(got, g_a);
                std::string sp = schedule_problem(run, n, tile);
                if (!sp.empty() && schedule_first.empty()) schedule_first = "n = " + std::to_string(n) + ": " + sp;
                last_schedule.clear();
                for (auto& ask : run.asks) last_schedule += (last_schedule.empty() ? "" : ", ") + ask;
                if (last_schedule.empty()) last_schedule = "(nothing)";
                std::string rp = dev.problem();
                if (rp.empty()) rp = result_problem(input, got, ascending, tile);
                merges++;
                if (!rp.empty() && wrong++ == 0)
                    result_first = "n = " + std::to_string(n) + (ascending ? " ascending" : " descending") + ": " + rp;
            }
        }
    }
    dev.free(g_a);

    printf("your schedule for n = %d (tiles of %d): %s\n\n", max_n, kTile, last_schedule.c_str());
    std::string sizes = "n = 2 .. " + std::to_string(max_n);
    report.check(("the schedule, " + sizes).c_str(), schedule_first.empty(), schedule_first);
    report.check(("bitonic inputs, " + sizes + ", both directions, against std::sort").c_str(), wrong == 0,
                 result_first + " (" + std::to_string(wrong) + " of " + std::to_string(merges) + " merges wrong)");
    return report.verdict("the merge runs across blocks");
}

inline int main(int argc, char** argv) {
    ch12::CommandLine cl = exercise::command_line(argc, argv, "Exercise 3: 61's merge across several blocks", "[--quick]",
                                                  "  --quick   check only up to n = 1024 (for compute-sanitizer)\n");
    cl.flag("--quick");
    cl.parse();
    exercise::need_gpu(cl.name());
    return check(cl.has("--quick"));
}

}  // namespace ex3
