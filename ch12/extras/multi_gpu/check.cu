// ch12/extras/multi_gpu/check.cu -- the result, checked on the CPU: every key
// in order, across the GPU boundaries too, and the same multiset of keys (or
// (key, value) pairs) as the input. The input is never kept: its two
// order-free 64-bit fingerprints are computed from its formula (input_key),
// on every core, and compared with the fingerprints of the keys read back.
// Each GPU's array is read back on several host threads at once, in pieces
// through pinned buffers (ch12::PinnedBuffer), and described as a Stretch
// (first and last key, sorted or where not, fingerprint); stretches join in
// order into one, for the whole array of all GPUs.
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "multi_gpu.h"

namespace multi_gpu {

void Stretch::append(const Stretch& next) {
    if (next.count == 0) return;
    if (count == 0) {
        *this = next;
        return;
    }
    if (sorted && last > next.first) {
        sorted = false;
        first_bad = next.start;
    } else if (sorted && !next.sorted) {
        sorted = false;
        first_bad = next.first_bad;
    }
    count += next.count;
    last = next.last;
    print.add(next.print);
}

unsigned host_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

Fingerprint input_fingerprint(uint64_t n, const InputSpec& in, bool pairs) {
    const unsigned T = host_threads();
    std::vector<Fingerprint> parts(T);
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < T; t++)
        threads.emplace_back([&, t] {
            Fingerprint f;
            for (uint64_t i = n * t / T; i < n * (t + 1) / T; i++)
                f.add(input_key(in.kind, i, n, in.seed), pairs ? (uint32_t)i : 0u);
            parts[t] = f;
        });
    for (std::thread& t : threads) t.join();
    Fingerprint all;
    for (const Fingerprint& f : parts) all.add(f);
    return all;
}

// Keys [lo, hi) of one GPU's array, read back piece by piece and described.
static Status read_part(const uint32_t* keys, const uint32_t* values, uint64_t lo, uint64_t hi, uint64_t base,
                        Stretch* out) {
    const uint64_t piece = uint64_t(1) << 20;
    ch12::PinnedBuffer<uint32_t> hk, hv;
    CH12_TRY(hk.allocate(piece));
    if (values) CH12_TRY(hv.allocate(piece));
    Stretch s;
    for (uint64_t o = lo; o < hi; o += piece) {
        const uint64_t len = std::min(piece, hi - o);
        CH12_TRY(cudaMemcpy(hk.get(), keys + o, len * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        if (values) CH12_TRY(cudaMemcpy(hv.get(), values + o, len * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        const uint32_t* k = hk.get();
        Stretch p;
        p.count = len;
        p.first = k[0];
        p.last = k[len - 1];
        p.start = base + o;
        for (uint64_t i = 0; i < len; i++) {
            if (i > 0 && p.sorted && k[i - 1] > k[i]) {
                p.sorted = false;
                p.first_bad = base + o + i;
            }
            p.print.add(k[i], values ? hv.get()[i] : 0u);
        }
        s.append(p);
    }
    *out = s;
    return {};
}

Status read_back(int device, const uint32_t* keys, const uint32_t* values, uint64_t count, uint64_t base,
                 unsigned workers, Stretch* out) {
    std::vector<Stretch> parts(workers);
    std::vector<Status> results(workers);
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < workers; w++)
        threads.emplace_back([&, w] {
            results[w] = ch12::status_of(cudaSetDevice(device), "cudaSetDevice(device)", __FILE__, __LINE__);
            if (results[w].ok())
                results[w] = read_part(keys, values, count * w / workers, count * (w + 1) / workers, base, &parts[w]);
        });
    for (std::thread& t : threads) t.join();
    for (const Status& s : results) CH12_TRY(s);
    Stretch all;
    for (const Stretch& s : parts) all.append(s);
    *out = all;
    return {};
}

Status check_result(Machine& m, const SortSpec& spec, const Fingerprint& want, Verdict* out) {
    const uint64_t P = spec.layout.gpus(), per = spec.layout.per_gpu();
    std::vector<Stretch> parts(P);
    const unsigned workers = std::max(1u, host_threads() / (unsigned)P);
    CH12_TRY(on_each_gpu(m, P, [&](Gpu& g, size_t i) -> Status {
        return read_back(g.device, g.keys.get(), g.values.get(), per, i * per, workers, &parts[i]);
    }));
    Stretch all;
    for (const Stretch& s : parts) all.append(s);
    Verdict v;
    v.sorted = all.sorted && all.count == spec.layout.total();
    v.first_bad = all.first_bad;
    v.same = all.print == want;
    *out = v;
    return {};
}

std::string verdict_text(const Verdict& v, bool pairs) {
    std::string t = v.sorted ? "in order" : "OUT OF ORDER at key " + std::to_string(v.first_bad);
    t += v.same ? (pairs ? ", the same (key, value) pairs" : ", the same keys")
                : (pairs ? ", NOT the same (key, value) pairs" : ", NOT the same keys");
    return t;
}

}  // namespace multi_gpu
