// Chapter 12 extra -- the bitonic network one thread per ELEMENT.
//
// Section 12.3's kernel (63) gives each compare-exchange PAIR to one thread:
// thread i works only when its partner l = i ^ j is above it, and then writes
// both elements. An interactive web exercise on bitonic sort ("Which Way
// Does My Pair Sort?", written for a JavaScript GPU runner) spells the same
// network another way: every thread owns ONE element and computes its own new
// value from two bits of its index:
//
//   strideBit = floor(i / stride) % 2   0: I am the low member of my pair
//   dirBit    = floor(i / stage)  % 2   0: my block of size `stage` ascends
//   partner   = strideBit == 0 ? i + stride : i - stride
//   new value = min(me, partner's) when the two bits agree, else max
//
// (stage is 63's k, stride is 63's j.) Both members of a pair compute the
// same two values and each keeps one, so no thread needs a word from another.
// The pass reads one buffer and writes the other (out of place): no thread
// can see a half-updated array, and there is no barrier inside a pass. The
// launch boundary between passes is the only synchronisation.
//
// This program prints the four-case table and every pass of a full sort of
// 8 values, then checks that the exercise's arithmetic spelling and 63's
// bitwise spelling ((i & stride), (i & stage)) agree, and that per-element
// passes sort exactly like 63's pair-per-thread kernel and std::sort.
//
// --replay does the same on the CPU, the way the book replays its kernels: a
// host loop plays each kernel's threads one after another, and 63's own host
// replay (the double loop) stands in for 63's kernel. No GPU is needed.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "bitonic/bitonic_sort.cuh"
#include "cli.h"
#include "cuda_check.h"     // require_cuda_device(): no GPU, exit 77
#include "device_buffer.h"  // the device memory, and CH12_TRY

// One pass, the exercise's spelling: floor(i / stride) % 2 and floor(i / stage) % 2.
// If `record` is given, thread i also writes down its two bits and its partner
// (4 ints per thread) so the host can print the four-case table.
__global__ void per_element_pass_arithmetic(const uint32_t* in, uint32_t* out, uint32_t n,
                                            uint32_t stage, uint32_t stride, int* record) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t strideBit = (i / stride) % 2;
    uint32_t dirBit = (i / stage) % 2;
    uint32_t partner = (strideBit == 0) ? i + stride : i - stride;
    uint32_t me = in[i];
    uint32_t other = in[partner];
    out[i] = (strideBit == dirBit) ? min(me, other) : max(me, other);
    if (record) {
        record[4 * i + 0] = (int)strideBit;
        record[4 * i + 1] = (int)dirBit;
        record[4 * i + 2] = (int)partner;
        record[4 * i + 3] = (int)other;
    }
}

// The same pass, 63's bitwise spelling: a bit test instead of a division.
// stride and stage are powers of two, so (i & stride) != 0 is exactly
// floor(i / stride) % 2, and i ^ stride is exactly the partner.
__global__ void per_element_pass_bitwise(const uint32_t* in, uint32_t* out, uint32_t n,
                                         uint32_t stage, uint32_t stride) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    bool strideBit = (i & stride) != 0;
    bool dirBit = (i & stage) != 0;
    uint32_t me = in[i];
    uint32_t other = in[i ^ stride];
    out[i] = (strideBit == dirBit) ? min(me, other) : max(me, other);
}

// Counts the positions where a and b differ (for comparing on the GPU).
__global__ void count_differences(const uint32_t* a, const uint32_t* b, uint32_t n,
                                  unsigned long long* count) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && a[i] != b[i]) atomicAdd(count, 1ULL);
}

// ---- --replay: the same passes, a host loop playing the kernels' threads ----
// (the bodies of the two kernels above, thread i at a time; no GPU).
static void replay_pass_arithmetic(const uint32_t* in, uint32_t* out, uint32_t n, uint32_t stage, uint32_t stride,
                                   int* record) {
    for (uint32_t i = 0; i < n; i++) {
        uint32_t strideBit = (i / stride) % 2;
        uint32_t dirBit = (i / stage) % 2;
        uint32_t partner = (strideBit == 0) ? i + stride : i - stride;
        uint32_t me = in[i];
        uint32_t other = in[partner];
        out[i] = (strideBit == dirBit) ? std::min(me, other) : std::max(me, other);
        if (record) {
            record[4 * i + 0] = (int)strideBit;
            record[4 * i + 1] = (int)dirBit;
            record[4 * i + 2] = (int)partner;
            record[4 * i + 3] = (int)other;
        }
    }
}

static void replay_pass_bitwise(const uint32_t* in, uint32_t* out, uint32_t n, uint32_t stage, uint32_t stride) {
    for (uint32_t i = 0; i < n; i++) {
        bool strideBit = (i & stride) != 0;
        bool dirBit = (i & stage) != 0;
        uint32_t me = in[i];
        uint32_t other = in[i ^ stride];
        out[i] = (strideBit == dirBit) ? std::min(me, other) : std::max(me, other);
    }
}

// 63's host replay (the book's double loop), standing in for 63's kernel.
static void replay_63(std::vector<uint32_t>& a) {
    uint32_t n = (uint32_t)a.size();
    for (uint32_t k = 2; k <= n; k *= 2) {
        for (uint32_t j = k / 2; j > 0; j /= 2) {
            for (uint32_t i = 0; i < n; i++) {
                uint32_t l = i ^ j;
                if (l > i) {
                    bool ascending = ((i & k) == 0);
                    bool should_swap = ascending ? (a[i] > a[l]) : (a[i] < a[l]);
                    if (should_swap) std::swap(a[i], a[l]);
                }
            }
        }
    }
}

static const uint32_t kThreads = 256;
static uint32_t blocks_for(uint32_t n) { return (n + kThreads - 1) / kThreads; }

// A full sort by per-element passes, ping-ponging between two buffers.
// *result: the buffer that holds the result (d_a or d_b).
static ch12::Status sort_per_element(uint32_t* d_a, uint32_t* d_b, uint32_t n, uint32_t** result) {
    for (uint32_t stage = 2; stage <= n; stage *= 2) {
        for (uint32_t stride = stage / 2; stride > 0; stride /= 2) {
            per_element_pass_bitwise<<<blocks_for(n), kThreads>>>(d_a, d_b, n, stage, stride);
            CH12_TRY(ch12::kernel_launch("per_element_pass_bitwise launch"));
            std::swap(d_a, d_b);
        }
    }
    *result = d_a;
    return {};
}

static void print_values(const std::vector<uint32_t>& v) {
    for (uint32_t x : v) printf("%u ", x);
    printf("\n");
}

// Section 1's four-case table, from what each thread recorded.
static void print_case_table(const std::vector<uint32_t>& input, const std::vector<int>& record,
                             const std::vector<uint32_t>& after, const char* who) {
    printf("input (Section 12.3's 8 values): ");
    print_values(input);
    printf("\nthe first pass (stage=2, stride=1), %s:\n\n", who);
    printf("  i  strideBit  dirBit  member  block       bits    keeps  me  partner's  new\n");
    for (uint32_t i = 0; i < (uint32_t)input.size(); i++) {
        int strideBit = record[4 * i + 0], dirBit = record[4 * i + 1];
        int partner = record[4 * i + 2], other = record[4 * i + 3];
        printf("  %u  %9d  %6d  %-6s  %-10s  %-6s  %-5s  %2u  %2d (i=%d)  %3u\n", i, strideBit, dirBit,
               strideBit == 0 ? "low" : "high", dirBit == 0 ? "ascending" : "descending",
               strideBit == dirBit ? "agree" : "differ", strideBit == dirBit ? "min" : "max",
               input[i], other, partner, after[i]);
    }
    printf("\nthe rule: keep the minimum exactly when the two bits agree --\n");
    printf("low member of an ascending block, or high member of a descending one.\n");
}

// The whole run on the CPU (--replay). Returns the exit status.
static int replay_main(bool quick) {
    printf("[--replay: a CPU replay -- a host loop plays the kernel's threads; no GPU was used]\n");
    printf("=== Chapter 12 extra: the bitonic network, one thread per element ===\n\n");

    // ---- 1. the four cases, on the first pass (stage 2, stride 1) ----------
    const std::vector<uint32_t> input = {5, 2, 8, 1, 9, 3, 7, 4};  // Section 12.3's input
    const uint32_t n8 = (uint32_t)input.size();
    std::vector<int> record(4 * n8);
    std::vector<uint32_t> after(n8);
    replay_pass_arithmetic(input.data(), after.data(), n8, 2, 1, record.data());
    print_case_table(input, record, after, "one replayed thread per element");

    // ---- 2. every pass of a full sort of the 8 values -----------------------
    printf("\nevery pass of a full sort (replay, out of place, arithmetic spelling):\n");
    std::vector<uint32_t> v = input, w(n8);
    int pass = 0;
    for (uint32_t stage = 2; stage <= n8; stage *= 2) {
        for (uint32_t stride = stage / 2; stride > 0; stride /= 2) {
            replay_pass_arithmetic(v.data(), w.data(), n8, stage, stride, nullptr);
            std::swap(v, w);
            printf("  pass %d (stage=%u, stride=%u): ", ++pass, stage, stride);
            print_values(v);
        }
    }
    std::vector<uint32_t> sorted8 = input;
    std::sort(sorted8.begin(), sorted8.end());
    bool small_ok = (v == sorted8);
    printf("  std::sort:                     ");
    print_values(sorted8);

    // ---- 3. the two spellings agree on every pass ---------------------------
    const uint32_t kMaxN = quick ? (1u << 12) : (1u << 16);
    std::mt19937 rng(12);
    long passes_checked = 0, spelling_diffs = 0;
    for (uint32_t n = 8; n <= kMaxN; n *= 2) {
        std::vector<uint32_t> in(n), arith(n), bits(n);
        for (auto& x : in) x = rng() % (n / 2);  // duplicates on purpose
        for (uint32_t stage = 2; stage <= n; stage *= 2) {
            for (uint32_t stride = stage / 2; stride > 0; stride /= 2) {
                replay_pass_arithmetic(in.data(), arith.data(), n, stage, stride, nullptr);
                replay_pass_bitwise(in.data(), bits.data(), n, stage, stride);
                if (arith != bits) spelling_diffs++;
                std::swap(in, arith);  // the next pass starts from this pass's output
                passes_checked++;
            }
        }
    }
    bool spellings_ok = (spelling_diffs == 0);
    printf("\nchecked: the arithmetic and bitwise spellings give the same array after\n");
    printf("every one of the %ld passes of full sorts of n = 8 .. %u: %s\n", passes_checked, kMaxN,
           spellings_ok ? "yes" : "NO -- BUG");

    // ---- 4. per-element passes == 63's double loop == std::sort -------------
    const int kSeeds = 3;
    int inputs_checked = 0, inputs_ok = 0;
    for (uint32_t n = 2; n <= kMaxN; n *= 2) {
        for (int seed = 1; seed <= kSeeds; seed++) {
            std::mt19937 gen(1000u * n + (uint32_t)seed);
            std::vector<uint32_t> h(n);
            uint32_t range = std::max<uint32_t>(2, n / 4);  // about 4 copies of each key
            for (auto& x : h) x = gen() % range;
            std::vector<uint32_t> want = h, chapter = h, per_element = h, scratch(n);
            std::sort(want.begin(), want.end());
            replay_63(chapter);
            for (uint32_t stage = 2; stage <= n; stage *= 2) {
                for (uint32_t stride = stage / 2; stride > 0; stride /= 2) {
                    replay_pass_bitwise(per_element.data(), scratch.data(), n, stage, stride);
                    std::swap(per_element, scratch);
                }
            }
            inputs_checked++;
            if (per_element == want && chapter == want) inputs_ok++;
        }
    }
    bool sorts_ok = (inputs_ok == inputs_checked);
    printf("checked: a full sort by per-element passes gives the same array as 63's\n");
    printf("double loop (its host replay) and as std::sort on %d of %d random inputs\n", inputs_ok, inputs_checked);
    printf("(every power of two n = 2 .. %u, %d seeds each, about 4 copies of each key)\n", kMaxN, kSeeds);

    bool ok = small_ok && spellings_ok && sorts_ok;
    printf("\nself-check: per-element passes sort like 63's double loop and std::sort: %s\n",
           ok ? "confirmed" : "MISMATCH");
    printf("[--replay: the checks above judged the host loop's result, on the CPU; no kernel ran]\n");
    return ok ? 0 : 1;
}

// ---- 1. the four cases, on the first pass (stage 2, stride 1) ----------
// ---- 2. every pass of a full sort of the 8 values -----------------------
// *ok: the 8 values came out sorted.
static ch12::Status show_eight(bool* ok) {
    const std::vector<uint32_t> input = {5, 2, 8, 1, 9, 3, 7, 4};  // Section 12.3's input
    const uint32_t n8 = (uint32_t)input.size();
    ch12::DeviceBuffer<uint32_t> d_a, d_b;
    ch12::DeviceBuffer<int> d_record;
    CH12_TRY(d_a.allocate(n8));
    CH12_TRY(d_b.allocate(n8));
    CH12_TRY(d_record.allocate(4 * n8));
    CH12_TRY(d_a.upload(input));
    per_element_pass_arithmetic<<<1, n8>>>(d_a.get(), d_b.get(), n8, 2, 1, d_record.get());
    CH12_TRY(ch12::kernel_launch("per_element_pass_arithmetic launch"));
    CH12_TRY(cudaDeviceSynchronize());
    std::vector<int> record;
    std::vector<uint32_t> after;
    CH12_TRY(d_record.download(&record));
    CH12_TRY(d_b.download(&after));

    print_case_table(input, record, after, "one GPU thread per element");

    printf("\nevery pass of a full sort (GPU, out of place, arithmetic spelling):\n");
    CH12_TRY(d_a.upload(input));
    uint32_t *src = d_a.get(), *dst = d_b.get();
    int pass = 0;
    std::vector<uint32_t> v(n8);
    for (uint32_t stage = 2; stage <= n8; stage *= 2) {
        for (uint32_t stride = stage / 2; stride > 0; stride /= 2) {
            per_element_pass_arithmetic<<<1, n8>>>(src, dst, n8, stage, stride, nullptr);
            CH12_TRY(ch12::kernel_launch("per_element_pass_arithmetic launch"));
            CH12_TRY(cudaMemcpy(v.data(), dst, n8 * sizeof(uint32_t), cudaMemcpyDeviceToHost));
            printf("  pass %d (stage=%u, stride=%u): ", ++pass, stage, stride);
            print_values(v);
            std::swap(src, dst);
        }
    }
    std::vector<uint32_t> sorted8 = input;
    std::sort(sorted8.begin(), sorted8.end());
    *ok = (v == sorted8);
    printf("  std::sort:                     ");
    print_values(sorted8);
    return {};
}

// ---- 3. the two spellings agree on every pass, n = 8 .. kMaxN ------------
static ch12::Status check_spellings(uint32_t kMaxN, bool* ok) {
    ch12::DeviceBuffer<uint32_t> in, arith, bits;
    ch12::DeviceBuffer<unsigned long long> count;
    for (ch12::DeviceBuffer<uint32_t>* b : {&in, &arith, &bits}) CH12_TRY(b->allocate(kMaxN));
    CH12_TRY(count.allocate(1));
    CH12_TRY(cudaMemset(count.get(), 0, sizeof(unsigned long long)));
    uint32_t *d_in = in.get(), *d_arith = arith.get(), *d_bits = bits.get();

    std::mt19937 rng(12);
    long passes_checked = 0;
    for (uint32_t n = 8; n <= kMaxN; n *= 2) {
        std::vector<uint32_t> h(n);
        for (auto& x : h) x = rng() % (n / 2);  // duplicates on purpose
        CH12_TRY(cudaMemcpy(d_in, h.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
        for (uint32_t stage = 2; stage <= n; stage *= 2) {
            for (uint32_t stride = stage / 2; stride > 0; stride /= 2) {
                per_element_pass_arithmetic<<<blocks_for(n), kThreads>>>(d_in, d_arith, n, stage, stride, nullptr);
                CH12_TRY(ch12::kernel_launch("per_element_pass_arithmetic launch"));
                per_element_pass_bitwise<<<blocks_for(n), kThreads>>>(d_in, d_bits, n, stage, stride);
                CH12_TRY(ch12::kernel_launch("per_element_pass_bitwise launch"));
                count_differences<<<blocks_for(n), kThreads>>>(d_arith, d_bits, n, count.get());
                CH12_TRY(ch12::kernel_launch("count_differences launch"));
                std::swap(d_in, d_arith);  // the next pass starts from this pass's output
                passes_checked++;
            }
        }
    }
    unsigned long long spelling_diffs = 0;
    CH12_TRY(cudaMemcpy(&spelling_diffs, count.get(), sizeof(spelling_diffs), cudaMemcpyDeviceToHost));
    *ok = (spelling_diffs == 0);
    printf("\nchecked: the arithmetic and bitwise spellings give the same array after\n");
    printf("every one of the %ld passes of full sorts of n = 8 .. %u: %s\n", passes_checked,
           kMaxN, *ok ? "yes" : "NO -- BUG");
    return {};
}

// ---- 4. per-element passes == 63's kernel == std::sort, n = 2 .. kMaxN ---
static ch12::Status check_sorts(uint32_t kMaxN, bool* ok) {
    ch12::DeviceBuffer<uint32_t> in, scratch, chapter_keys;
    for (ch12::DeviceBuffer<uint32_t>* b : {&in, &scratch, &chapter_keys}) CH12_TRY(b->allocate(kMaxN));
    const int kSeeds = 3;
    int inputs_checked = 0, inputs_ok = 0;
    for (uint32_t n = 2; n <= kMaxN; n *= 2) {
        for (int seed = 1; seed <= kSeeds; seed++) {
            std::mt19937 gen(1000u * n + (uint32_t)seed);
            std::vector<uint32_t> h(n);
            uint32_t range = std::max<uint32_t>(2, n / 4);  // about 4 copies of each key
            for (auto& x : h) x = gen() % range;
            std::vector<uint32_t> want = h;
            std::sort(want.begin(), want.end());

            CH12_TRY(cudaMemcpy(in.get(), h.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
            CH12_TRY(cudaMemcpy(chapter_keys.get(), h.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
            uint32_t* d_result = nullptr;
            CH12_TRY(sort_per_element(in.get(), scratch.get(), n, &d_result));
            bitonic::Request at_scale;  // 63's kernel at scale: one launch per (k, j)
            at_scale.design = bitonic::Design::chapter;
            at_scale.len = n;
            CH12_TRY(bitonic::sort(at_scale, chapter_keys.get(), nullptr, nullptr, 0));
            CH12_TRY(cudaDeviceSynchronize());

            std::vector<uint32_t> per_element(n), chapter(n);
            CH12_TRY(cudaMemcpy(per_element.data(), d_result, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
            CH12_TRY(cudaMemcpy(chapter.data(), chapter_keys.get(), n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
            inputs_checked++;
            if (per_element == want && chapter == want) inputs_ok++;
        }
    }
    *ok = (inputs_ok == inputs_checked);
    printf("checked: a full sort by per-element passes gives the same array as 63's\n");
    printf("pair-per-thread kernel and as std::sort on %d of %d random inputs\n", inputs_ok, inputs_checked);
    printf("(every power of two n = 2 .. %u, %d seeds each, about 4 copies of each key)\n",
           kMaxN, kSeeds);
    return {};
}

// The whole run on the GPU; *ok: every check held.
static ch12::Status gpu_main(bool quick, bool* ok) {
    printf("=== Chapter 12 extra: the bitonic network, one thread per element ===\n\n");
    bool small_ok = false, spellings_ok = false, sorts_ok = false;
    CH12_TRY(show_eight(&small_ok));
    CH12_TRY(check_spellings(quick ? (1u << 12) : (1u << 16), &spellings_ok));
    CH12_TRY(check_sorts(quick ? (1u << 12) : (1u << 20), &sorts_ok));
    *ok = small_ok && spellings_ok && sorts_ok;
    printf("\nself-check: per-element passes sort like 63's kernel and std::sort: %s\n",
           *ok ? "confirmed" : "MISMATCH");
    return {};
}

int main(int argc, char** argv) {
    ch12::CommandLine cl(argc, argv, "[--quick] [--replay]",
                         "  prints the four-case table and a traced sort of 8 values, then checks the\n"
                         "  per-element pass against 63's kernel at scale and std::sort\n"
                         "  --quick   check only up to n = 4096 (for slow tools such as compute-sanitizer)\n"
                         "  --replay  the same on the CPU: a host loop plays the kernels' threads, and 63's\n"
                         "            host replay stands in for its kernel (no GPU needed; checks up to\n"
                         "            n = 65536, or 4096 with --quick)\n");
    cl.flag("--quick").flag("--replay");
    cl.parse();
    const bool quick = cl.has("--quick");
    if (cl.has("--replay")) return replay_main(quick);
    ch12::require_cuda_device(cl.name(), "run it with --replay for a CPU replay (no GPU needed)");
    bool ok = false;
    const ch12::Status s = gpu_main(quick, &ok);
    return ch12::exit_status(s, cl.name(), ok ? 0 : 1);
}
