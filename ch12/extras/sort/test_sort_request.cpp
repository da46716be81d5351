// Chapter 12 extra -- the sort library's host-only arithmetic, tested on the
// CPU (no CUDA, no GPU: g++ compiles this file with src/sort_request.cpp).
//
//   bitonic_request_test
//
// * check_request() against a reference written in 128-bit arithmetic, for
//   every combination of count, len and stride taken from the edges of
//   size_t (0, 1, 2, 2^31 +- 1, 2^40 +- 1, 2^63 +- 1, SIZE_MAX, ...): the
//   verdicts agree, and every call returns (CTest's TIMEOUT catches a hang);
// * every boundary of count * P <= 2^31 (P = len rounded up to a power of
//   two), for P = 1 .. 2^31, and of the span (count - 1) * stride + len <= 2^40;
// * make_plan() on accepted requests: P, the total, the scratch and its
//   offsets, and which path each request takes;
// * check_call(): null and misaligned pointers, too little scratch;
// * the profiles, lowered(), the tuning policy; the key types' order maps;
// * sort_cases.h's batches: a request check() accepts never crashes
//   make_batch (a batch too large for this machine is refused with a reason),
//   merges get bitonic arrays, and check_batch sees a wrong result;
// * sort_programs.h's SafeOutput (the benchmark's CSV): a file is replaced only by
//   commit(); a discarded, failed or exited run leaves it byte for byte and
//   leaves no temporary file behind.
// Ends with "N checks passed, M failed"; exit 1 when any failed.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bitonic/key_types.h"
#include "bitonic/sort_request.h"
#include "bitonic/tuning.h"
#include "check.h"
#include "sort_cases.h"
#include "sort_programs.h"
#include "plan.h"           // the library's own (src/): tested here
#include "tuning_policy.h"

using namespace bitonic;

static ch12::Checks expect(40);

static std::string describe(const Request& r) {
    return "count " + std::to_string(r.count) + ", len " + std::to_string(r.len) + ", stride " + std::to_string(r.stride);
}

// The rules, in arithmetic that cannot overflow here: len <= 2^31;
// count * P <= 2^31; stride (0: len) >= len; (count - 1) * stride + len <= 2^40.
typedef unsigned __int128 u128;
static bool reference_accepts(const Request& r) {
    const u128 count = r.count, len = r.len, stride = r.stride ? r.stride : r.len;
    if (stride < len) return false;
    if (len > ((u128)1 << 31)) return false;
    u128 P = 1;
    while (P < len) P *= 2;
    if (count * P > ((u128)1 << 31)) return false;
    if (count > 0 && (count - 1) * stride + len > ((u128)1 << 40)) return false;
    return true;
}

static Request request(size_t count, size_t len, size_t stride = 0) {
    Request r;
    r.count = count;
    r.len = len;
    r.stride = stride;
    return r;
}

static void test_size_t_edges() {
    std::vector<size_t> edges = {0, 1, 2, 3, 4, 5, 1000, 4097, 65536, 65537};
    for (int e : {16, 24, 30, 31, 32, 40, 62, 63}) {
        const size_t p = size_t(1) << e;
        edges.push_back(p - 1);
        edges.push_back(p);
        edges.push_back(p + 1);
    }
    edges.push_back(SIZE_MAX - 1);
    edges.push_back(SIZE_MAX);
    int agreed = 0, total = 0;
    for (size_t count : edges)
        for (size_t len : edges)
            for (size_t stride : edges) {
                const Request r = request(count, len, stride);
                const Status p = check_request(r);  // must return: CTest's TIMEOUT watches
                const bool want = reference_accepts(r);
                total++;
                if (p.ok() == want && (p.ok() || p.code == Errc::bad_request)) agreed++;
                else expect(false, "check_request(" + describe(r) + ") says " + (p.ok() ? "ok" : p.detail) +
                                       ", the rules say " + (want ? "ok" : "refused"));
            }
    expect(agreed == total, "check_request agrees with the 128-bit reference on all " + std::to_string(total) +
                                " edge combinations of count, len and stride");
    // The cases the issue reproduced.
    expect(!check_request(request(2, 2, SIZE_MAX)).ok(), "count 2, len 2, stride SIZE_MAX is refused");
    expect(!check_request(request(3, 2, size_t(1) << 63)).ok(), "count 3, stride 2^63 is refused");
    expect(!check_request(request(16777217, 2, size_t(1) << 40)).ok(), "count 2^24 + 1, len 2, stride 2^40 is refused");
    expect(!check_request(request(16777216, 2, size_t(1) << 40)).ok(), "count 2^24, len 2, stride 2^40 is refused");
    expect(!check_request(request(1, (size_t(1) << 63) + 1)).ok(), "len 2^63 + 1 is refused (and returns)");
    expect(!check_request(request(1, SIZE_MAX)).ok(), "len SIZE_MAX is refused (and returns)");
    const Plan p = make_plan(request(1, size_t(1) << 31), 0);
    expect(p.P == (uint64_t(1) << 31) && p.seg_bits == 31, "len 2^31: P = 2^31");
}

static void test_boundaries() {
    const uint64_t max = kMaxPaddedKeys;
    for (int e = 0; e <= 31; e++) {
        const uint64_t P = uint64_t(1) << e;
        std::vector<uint64_t> lens = {P};
        if (e >= 1) lens.push_back(P / 2 + 1);  // rounds up to P too
        if (e == 0) lens.push_back(0);
        for (uint64_t len : lens) {
            const uint64_t most = max / P;
            Request at = request(most, len), over = request(most + 1, len);
            expect(check_request(at).ok(), "count * P = 2^31 is accepted: " + describe(at));
            expect(!check_request(over).ok(), "count * P > 2^31 is refused: " + describe(over));
            if (len >= 2) {
                const Plan plan = make_plan(at, 0);
                expect(plan.P == P && plan.total == max && plan.seg_bits == e,
                       "the plan of " + describe(at) + " has P = 2^" + std::to_string(e) + " and 2^31 words");
            }
        }
    }
    // The span: (count - 1) * stride + len <= 2^40.
    const uint64_t span = kMaxSpan;
    expect(check_request(request(2, 2, span - 2)).ok(), "a span of exactly 2^40 keys is accepted");
    expect(!check_request(request(2, 2, span - 1)).ok(), "a span of 2^40 + 1 keys is refused");
    expect(check_request(request(1025, 1024, (span - 1024) / 1024)).ok(), "1025 arrays spanning 2^40 keys at most");
    expect(!check_request(request(1025, 1024, (span - 1024) / 1024 + 1)).ok(), "1025 arrays spanning more than 2^40 keys");
    expect(check_request(request(1, 1000, SIZE_MAX)).ok(), "one array: its stride never matters");
    expect(!check_request(request(2, 10, 5)).ok(), "a stride shorter than an array is refused");
    expect(check_request(request(0, 10)).ok(), "no arrays at all is accepted (nothing to do)");
    // Fields outside their enums.
    Request r = request(1, 10);
    r.design = (Design)kDesignCount;
    expect(check_request(r).code == Errc::bad_request, "a design outside the list is refused");
    r = request(1, 10);
    r.design = (Design)-1;
    expect(check_request(r).code == Errc::bad_request, "a negative design is refused");
    r = request(1, 10);
    r.key_type = (KeyType)3;
    expect(check_request(r).code == Errc::bad_request, "a key type outside the enum is refused");
    r = request(1, 10);
    r.order = (Order)2;
    expect(check_request(r).code == Errc::bad_request, "an order outside the enum is refused");
}

static void test_plans() {
    // Fused sorts: arrays of at most fused_words padded words.
    Request r = request(7, 1025);
    Plan p = make_plan(r, 4096);
    expect(p.fused && p.scratch == 0 && p.P == 2048 && p.total == 7 * 2048, "7 x 1025 keys: fused, no scratch");
    p = make_plan(r, 0);
    expect(!p.fused && !p.dense && p.scratch == 7 * 2048 * 4, "7 x 1025 keys without a fused sort: a padded copy");
    r.with_values = true;
    p = make_plan(r, 0);
    expect(p.values_offset % 256 == 0 && p.values_offset >= p.total * 4 && p.scratch == p.values_offset + p.total * 4,
           "pairs: the values plane after the keys, 256-byte aligned");
    // Dense and raw.
    r = request(1, 1 << 20);
    p = make_plan(r, 65536);
    expect(!p.fused && p.dense && p.raw && p.scratch == 0, "2^20 uint32 keys ascending: in place, raw");
    r.key_type = KeyType::f32;
    p = make_plan(r, 65536);
    expect(p.dense && !p.raw && p.scratch == 0, "2^20 floats: in place, converted");
    r = request(4, 4096, 4100);
    p = make_plan(r, 0);
    expect(!p.dense && p.scratch == 4 * 4096 * 4, "arrays with gaps are not dense");
    // Merges: never fused; padded with copies when len < P, with a bound per array.
    r = request(3, 1000);
    r.bitonic_input = true;
    p = make_plan(r, 65536);
    expect(p.merge && !p.fused && p.pad_copies && p.bounds_offset % 256 == 0 && p.bounds_offset >= p.total * 4 &&
               p.scratch == p.bounds_offset + 3 * 4,
           "a merge of 3 x 1000 keys: scratch for the padded copy and a bound per array");
    r.with_values = true;
    p = make_plan(r, 65536);
    expect(p.bounds_offset >= p.values_offset + p.total * 4, "pairs: the bounds after the values");
    r = request(1, 1 << 24);
    r.bitonic_input = true;
    p = make_plan(r, 65536);
    expect(p.merge && p.dense && p.raw && !p.pad_copies && p.scratch == 0, "a merge of 2^24 keys: in place, no scratch");
    // Nothing to do.
    expect(make_plan(request(0, 100), 0).nothing && make_plan(request(100, 1), 0).nothing &&
               make_plan(request(5, 0), 0).nothing,
           "no arrays, or arrays of 0 or 1 keys: nothing to do");
    // The largest scratch fits size_t, and is what the planes need.
    r = request(1, (size_t(1) << 31) - 1);
    r.with_values = true;
    r.bitonic_input = true;
    p = make_plan(r, 0);
    expect(p.scratch >= (uint64_t(1) << 31) * 8 + 4, "the largest merge's scratch: both planes and a bound");
}

static void test_check_call() {
    alignas(256) static char buffer[1024];
    void* keys = buffer;
    uint32_t* values = reinterpret_cast<uint32_t*>(buffer + 256);
    void* scratch = buffer + 512;
    Request r = request(3, 1000);
    r.with_values = true;
    const Plan p = make_plan(r, 0);  // needs scratch
    expect(check_call(r, p, keys, values, scratch, p.scratch).ok(), "good arguments pass");
    expect(check_call(r, p, nullptr, values, scratch, p.scratch).code == Errc::null_pointer, "null keys");
    expect(check_call(r, p, keys, nullptr, scratch, p.scratch).code == Errc::null_pointer, "null values with pairs");
    expect(check_call(r, p, buffer + 4, values, scratch, p.scratch).code == Errc::misaligned, "keys 4 bytes off");
    expect(check_call(r, p, keys, values + 2, scratch, p.scratch).code == Errc::misaligned, "values 8 bytes off");
    expect(check_call(r, p, keys, values, scratch, p.scratch - 1).code == Errc::scratch_too_small, "1 byte too little scratch");
    expect(check_call(r, p, keys, values, nullptr, p.scratch).code == Errc::null_pointer, "null scratch");
    expect(check_call(r, p, keys, values, buffer + 520, p.scratch).code == Errc::misaligned, "scratch 8 bytes off");
    Request k = request(3, 1000);  // keys only: values are not looked at
    expect(check_call(k, make_plan(k, 4096), keys, nullptr, nullptr, 0).ok(), "keys only, fused: no values, no scratch");
    Request none = request(0, 1000);
    expect(check_call(none, make_plan(none, 0), nullptr, nullptr, nullptr, 0).ok(), "nothing to do: no pointers needed");
}

static void test_designs_and_keys() {
    expect(kDesignCount == 4, "four designs");
    for (int i = 0; i < kDesignCount; i++) {
        Design d;
        expect(design_by_name(kDesignNames[i], &d) && (int)d == i && std::string(design_name(d)) == kDesignNames[i],
               std::string("design ") + kDesignNames[i] + " by name and back");
    }
    Design d;
    expect(!design_by_name("quick", &d), "no design 'quick'");
    // Floats in IEEE totalOrder: each key's order bits increase along the list.
    const uint32_t floats[] = {0xFFC00000u, 0xFF800000u, 0xFF7FFFFFu, 0xBF800000u, 0x80800000u, 0x807FFFFFu,
                               0x80000001u, 0x80000000u, 0x00000000u, 0x00000001u, 0x007FFFFFu, 0x00800000u,
                               0x3F800000u, 0x7F7FFFFFu, 0x7F800000u, 0x7FC00000u};
    bool increasing = true;
    for (size_t i = 1; i < sizeof floats / 4; i++) increasing = increasing && to_order(KeyType::f32, floats[i - 1]) < to_order(KeyType::f32, floats[i]);
    expect(increasing, "floats: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN");
    const uint32_t ints[] = {0x80000000u, 0xFFFFFFFFu, 0u, 1u, 0x7FFFFFFFu};  // INT_MIN, -1, 0, 1, INT_MAX
    increasing = true;
    for (size_t i = 1; i < 5; i++) increasing = increasing && to_order(KeyType::i32, ints[i - 1]) < to_order(KeyType::i32, ints[i]);
    expect(increasing, "int32: INT_MIN < -1 < 0 < 1 < INT_MAX");
    bool round_trip = true;
    for (int t = 0; t < kKeyTypeCount; t++)
        for (int o = 0; o < kOrderCount; o++)
            for (uint32_t x : {0u, 1u, 0x7FFFFFFFu, 0x80000000u, 0x80000001u, 0xFFFFFFFFu, 0x3F800000u, 0xDEADBEEFu}) {
                const Codec c = codec((KeyType)t, (Order)o);
                round_trip = round_trip && decode(encode(x, c), c) == x && from_order((KeyType)t, to_order((KeyType)t, x)) == x;
            }
    expect(round_trip, "every codec's decode undoes its encode");
    expect(encode(5, codec(KeyType::u32, Order::descending)) > encode(6, codec(KeyType::u32, Order::descending)),
           "descending: larger keys get smaller order bits");
    KeyType t;
    expect(key_type_by_name("float", &t) && t == KeyType::f32 && !key_type_by_name("double", &t), "key types by name");
}

static void test_profiles() {
    const char* names[] = {"t4", "a100", "rtx3060", "rtx4090", "h100"};
    for (const char* n : names) expect(profile_by_name(n) != nullptr, std::string("profile ") + n);
    expect(profile_by_name("v100") == nullptr, "no profile v100");
    // An H200, as CUDA reports it.
    Limits h200;
    h200.cc = 90;
    h200.sms = 132;
    h200.threads_per_sm = 2048;
    h200.smem_per_block = 232448;
    h200.smem_per_sm = 233472;
    h200.smem_reserved = 1024;
    h200.max_cluster = 16;
    for (const Profile* p = kProfiles; p->name; ++p) {
        const Limits l = lowered(h200, p);
        expect(l.cc <= h200.cc && l.sms <= h200.sms && l.threads_per_sm <= h200.threads_per_sm &&
                   l.smem_per_block <= h200.smem_per_block && l.smem_per_sm <= h200.smem_per_sm &&
                   l.max_cluster <= h200.max_cluster && l.smem_reserved >= h200.smem_reserved,
               std::string("profile ") + p->name + " only lowers the H200's limits");
        Tuning t;
        expect(tune(l, &t).ok(), std::string("profile ") + p->name + " can be tuned for");
        const bool hopper = std::string(p->name) == "h100";
        expect(t.fast_cluster == (hopper ? 16 : 1) && t.fast_tile_bits == (hopper ? 16 : 12),
               std::string("profile ") + p->name + (hopper ? ": clusters of 16" : ": no clusters"));
        expect(hopper || (t.fast_spread[0] == 0 && t.fast_spread[1] == 0), std::string("profile ") + p->name + ": no spread");
    }
    // A T4 device is not raised by the h100 profile.
    const Limits t4 = profile_by_name("t4")->limits;
    const Limits l = lowered(t4, profile_by_name("h100"));
    expect(l.cc == 75 && l.max_cluster == 1 && l.smem_per_block == t4.smem_per_block && l.sms == 40,
           "the h100 profile on a T4 leaves the T4's limits");
    expect(lowered(t4, nullptr).sms == 40, "no profile: the device itself");
    // The spread: more than half an SM's shared memory, in 8 KiB steps.
    Tuning t;
    expect(tune(h200, &t).ok() && t.fast_spread[0] == 120 * 1024 && t.fast_spread[1] == 120 * 1024,
           "H200: a spread of 120 KiB for keys and pairs");
    expect(t.stream_blocks == 132 * 8 * 4, "H200: 4 waves of 8 blocks per SM for the grid-stride kernels");
    Limits small = h200;  // a GPU with clusters but 128 KiB per SM and 99 KiB per block
    small.smem_per_sm = 128 * 1024;
    small.smem_per_block = 99 * 1024;
    expect(tune(small, &t).ok() && t.fast_spread[0] == 72 * 1024 && t.fast_spread[1] == 0,
           "128 KiB per SM: 72 KiB of spread for keys, none for pairs (34 + 72 > 99 KiB)");
    Limits tiny = t4;
    tiny.smem_per_block = 16 * 1024;
    expect(tune(tiny, &t).code == Errc::unsupported, "16 KiB of shared memory per block: unsupported");
    tiny = t4;
    tiny.threads_per_sm = 256;
    expect(tune(tiny, &t).code == Errc::unsupported, "256 threads per SM: unsupported");
}

// Bitonic as a cycle: at most two changes of direction, equal neighbours aside.
static bool cyclic_bitonic(const std::vector<uint64_t>& w) {
    std::vector<int> signs;
    for (size_t i = 0; i < w.size(); i++) {
        const uint64_t a = w[i], b = w[(i + 1) % w.size()];
        if (a != b) signs.push_back(a < b ? 1 : -1);
    }
    int changes = 0;
    for (size_t i = 0; i < signs.size(); i++) changes += signs[i] != signs[(i + 1) % signs.size()];
    return changes <= 2;
}

static void test_batches() {
    cases::Batch b;
    Request huge = request(size_t(1) << 24, 2, size_t(1) << 16);  // accepted: it spans 2^40 keys
    expect(check_request(huge).ok() && !cases::make_batch(huge, cases::Input::uniform, 1, &b).empty() && b.keys.empty(),
           "make_batch refuses (with a reason, no crash) an accepted batch of 2^40 keys");
    expect(!cases::make_batch(request(16777217, 2, size_t(1) << 40), cases::Input::uniform, 1, &b).empty(),
           "make_batch refuses a request check() refuses");
    Request r = request(5, 7, 10);
    r.with_values = true;
    expect(cases::make_batch(r, cases::Input::uniform, 3, &b).empty() && b.span == 47 && b.keys.size() == 47 + cases::kGuard &&
               b.values.size() == b.keys.size(),
           "5 arrays of 7 keys, 10 apart: 47 keys spanned, and the guard");
    bool sentinels = true;
    for (size_t i = 0; i < b.keys.size(); i++)
        if (i >= 47 || i % 10 >= 7) sentinels = sentinels && b.keys[i] == cases::kSentinel && b.values[i] == cases::kSentinel;
    expect(sentinels, "the gaps and the guard hold the sentinel");
    // Sorted per array on the CPU: check_batch passes it; one swap or one
    // write into a gap fails it.
    std::vector<uint32_t> keys = b.keys, values = b.values;
    for (size_t a = 0; a < 5; a++) {
        std::vector<std::pair<uint32_t, uint32_t>> w;
        for (size_t i = 0; i < 7; i++) w.push_back({cases::order_bits(r.key_type, r.order, keys[a * 10 + i]), values[a * 10 + i]});
        std::vector<std::pair<uint32_t, uint32_t>> kv;
        for (size_t i = 0; i < 7; i++) kv.push_back({keys[a * 10 + i], values[a * 10 + i]});
        std::sort(kv.begin(), kv.end(), [&](const auto& x, const auto& y) {
            return cases::order_bits(r.key_type, r.order, x.first) < cases::order_bits(r.key_type, r.order, y.first);
        });
        for (size_t i = 0; i < 7; i++) { keys[a * 10 + i] = kv[i].first; values[a * 10 + i] = kv[i].second; }
    }
    expect(cases::check_batch(r, b, keys, values).ok(), "check_batch accepts a correct result");
    std::vector<uint32_t> wrong = keys;
    std::swap(wrong[20], wrong[26]);
    const cases::Verdict v = cases::check_batch(r, b, wrong, values);
    expect(v.bad_arrays == 1 && v.first_bad == 2, "check_batch finds array 2 out of order (two keys swapped)");
    wrong = keys;
    wrong[8] ^= 1;
    expect(cases::check_batch(r, b, wrong, values).touched == 1, "check_batch finds a write into a gap");
    // Merges: every array bitonic in the sort's word order, with its own keys.
    int bitonic = 0, arrays = 0;
    for (int t = 0; t < kKeyTypeCount; t++)
        for (int o = 0; o < kOrderCount; o++)
            for (int pairs = 0; pairs < 2; pairs++)
                for (size_t len : {2, 3, 5, 16, 33, 100}) {
                    Request m = request(4, len, len + 2);
                    m.key_type = (KeyType)t;
                    m.order = (Order)o;
                    m.with_values = pairs;
                    m.bitonic_input = true;
                    Request plain = m;
                    plain.bitonic_input = false;
                    cases::Batch shaped, unshaped;
                    const cases::Input input = t == 2 ? cases::Input::special : cases::Input::uniform;
                    if (!cases::make_batch(m, input, 11, &shaped).empty() || !cases::make_batch(plain, input, 11, &unshaped).empty()) continue;
                    for (size_t a = 0; a < 4; a++) {
                        std::vector<uint64_t> w;
                        std::vector<std::pair<uint32_t, uint32_t>> x, y;
                        for (size_t i = a * (len + 2); i < a * (len + 2) + len; i++) {
                            const uint32_t value = pairs ? shaped.values[i] : 0u;
                            w.push_back((uint64_t)cases::order_bits(m.key_type, m.order, shaped.keys[i]) << 32 | value);
                            x.push_back({shaped.keys[i], value});
                            y.push_back({unshaped.keys[i], pairs ? unshaped.values[i] : 0u});
                        }
                        std::sort(x.begin(), x.end());
                        std::sort(y.begin(), y.end());
                        arrays++;
                        bitonic += cyclic_bitonic(w) && x == y;
                    }
                }
    expect(arrays == 288 && bitonic == arrays, "merges: all " + std::to_string(arrays) +
                                                   " arrays are bitonic (as a cycle) and hold the keys (and values) of the plain batch");
}

static std::string read_file(const std::string& path) {
    std::string s;
    if (FILE* f = std::fopen(path.c_str(), "rb")) {
        char buf[256];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
        std::fclose(f);
    }
    return s;
}
static void write_file(const std::string& path, const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
}
static int files_in(const std::string& dir) {
    int n = 0;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
        closedir(d);
    }
    return n;
}

static void test_safe_output() {
    char tmpl[] = "/tmp/bitonic_request_test.XXXXXX";
    const char* made = mkdtemp(tmpl);
    if (!made) {
        expect(false, "a temporary folder for the output tests");
        return;
    }
    const std::string dir = made, target = dir + "/bench.csv";
    const std::string precious = "precious\n1,2,3\n";
    write_file(target, precious);
    chmod(target.c_str(), 0640);
    expect(ch12::SafeOutput::check(target).empty(), "check: an existing file in a writable folder");
    expect(ch12::SafeOutput::check(dir + "/new.csv").empty(), "check: a new file in a writable folder");
    expect(ch12::SafeOutput::check(dir + "/no/such/f.csv").find("does not exist") != std::string::npos,
           "check: a folder that does not exist");
    expect(ch12::SafeOutput::check(dir).find("folder") != std::string::npos, "check: a folder is no file");
    {
        ch12::SafeOutput out;
        expect(out.open(target).empty(), "open an existing file");
        std::fprintf(out.file(), "half a run\n");
        expect(files_in(dir) == 2, "while open: the file and one temporary file");
        out.discard();
    }
    expect(read_file(target) == precious && files_in(dir) == 1, "a discarded run leaves the file byte for byte, no temporary");
    {
        ch12::SafeOutput out;
        out.open(target);
        std::fprintf(out.file(), "never committed\n");
    }  // destroyed without commit()
    expect(read_file(target) == precious && files_in(dir) == 1, "a run that never commits leaves the file as it was");
    const pid_t child = fork();
    if (child == 0) {  // a run that ends in exit(1) half way (CUDA_CHECK's path)
        ch12::SafeOutput out;
        out.open(target);
        std::fprintf(out.file(), "interrupted\n");
        std::fflush(out.file());
        std::exit(1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    expect(read_file(target) == precious && files_in(dir) == 1, "a run that exits half way leaves the file, no temporary");
    {
        ch12::SafeOutput out;
        out.open(target);
        std::fprintf(out.file(), "new results\n");
        expect(out.commit().empty(), "commit");
    }
    struct stat st;
    expect(read_file(target) == "new results\n" && files_in(dir) == 1 && stat(target.c_str(), &st) == 0 &&
               (st.st_mode & 0777) == 0640,
           "a committed run replaces the file, keeps its permissions, leaves no temporary");
    const std::string link = dir + "/link.csv";
    expect(symlink(target.c_str(), link.c_str()) == 0, "a symbolic link to the file");
    {
        ch12::SafeOutput out;
        out.open(link);
        std::fprintf(out.file(), "through the link\n");
        out.commit();
    }
    struct stat lst;
    expect(lstat(link.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode) && read_file(target) == "through the link\n",
           "a link is followed: the file it names is replaced, the link stays");
    {
        ch12::SafeOutput out;
        expect(out.open("/dev/null").empty() && out.commit().empty(), "/dev/null is written directly");
    }
    expect(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "/dev/null is still a device");
    unlink(link.c_str());
    unlink(target.c_str());
    rmdir(dir.c_str());
}

int main() {
    test_size_t_edges();
    test_boundaries();
    test_plans();
    test_check_call();
    test_designs_and_keys();
    test_profiles();
    test_batches();
    test_safe_output();
    std::printf("%d checks passed, %d failed\n", expect.passed(), expect.failed());
    return expect.ok() ? 0 : 1;
}
