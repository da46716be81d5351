// common/block_sim.h -- the block simulator: a CUDA kernel, as written, run on
// the CPU, every thread of every block, with __syncthreads() as a real barrier,
// and every shared- and global-memory access checked for races.
//
// A kernel is written once, in a header: nvcc compiles it for the GPU, and a
// C++ compiler compiles it for this simulator. Include this header first, then
// the kernel's, in a translation unit compiled with -fsanitize=thread, and link
// the simulator's runtime, common/block_sim.cpp, compiled the same way (the
// CMake targets do both: ch12_block_sim; the program links no sanitizer runtime):
//
//   #include "block_sim.h"
//   #include "my_kernel.cuh"          // __global__ void my_kernel(int* g_a, int n)
//
//   block_sim::Device dev;
//   int* d_a = dev.malloc<int>(n, "g_a");   // "global memory": names it for the messages
//   ... fill d_a (it is host memory) ...
//   dev.launch(my_kernel, dim3(1), dim3(n), d_a, n);
//   if (!dev.ok()) printf("%s\n", dev.problem().c_str());
//
// What a launch does:
//   - every thread of a block runs as a fiber of its own (threadIdx, blockIdx,
//     blockDim and gridDim set for it); __syncthreads() suspends it until every
//     thread of the block has arrived. Blocks run one after another (blocks never
//     wait for each other in CUDA either).
//   - between two barriers, every access to memory from dev.malloc, to
//     __shared__ arrays and to the program's __device__ variables (a kernel's
//     static variables too) is recorded, word by word (4 bytes) -- byte by byte
//     in a word that an access took part of. Two threads touching the same
//     byte, at least one of them writing, with no barrier between them, is a
//     RACE: reported with both threads, the element (array and index) and the
//     barrier interval. Threads of different blocks touching one byte, one of
//     them writing, is a race too (blocks cannot wait for each other).
//   - a __syncthreads() that not every thread of the block reaches -- some have
//     returned, or wait at another __syncthreads() (each one written in the
//     source is its own, two on one line too) -- is a DIVERGENT BARRIER (on a
//     GPU: a hang, or undefined behaviour); reported before any race of the
//     launch, and the launch stops there.
//   - an access outside a buffer from dev.malloc or a __shared__ array (by
//     less than the guard's 4 KiB; of the arrays of one declaration,
//     `__shared__ int a[4], b[4];`, only the one next to a guard) is
//     reported with the thread, the array, the index and its length, and is
//     not made: the thread stops there, and the launch with it. (Each buffer
//     has room around it, each __shared__ array a guard: see the __shared__
//     macro.) An index out of a __device__ array is seen only where it lands
//     outside every variable of the program; in the next one, it is taken for
//     an access to that one.
//   - each launch runs twice: threads in order (0, 1, 2, ...; blocks in order)
//     and in a shuffled order (a new order after every barrier), from the same
//     memory. If the two leave different memory, the result depends on the
//     order the threads happen to run in -- reported too. The first order's
//     memory is what the launch leaves.
// No GPU run promises any of this: a race there may give the right answer by
// luck, every time it is tried.
//
// How accesses are seen: -fsanitize=thread makes the compiler call
// __tsan_read4(address), __tsan_write4(address), ... around every load and
// store. The simulator's runtime defines those functions itself (part 5
// below, compiled into the program from common/block_sim.cpp; no
// ThreadSanitizer runtime is linked): they record an access when a simulated
// thread is running and the address is one of the simulator's. A program compiled without the
// flag does not compile (#error), and Device checks at start that accesses
// are seen (a known race must be found), so nothing can go unchecked silently.
//
// Supported in kernels: threadIdx, blockIdx, blockDim, gridDim, __syncthreads(),
// static __shared__ arrays (not `extern __shared__`), __device__ variables,
// __device__ and __host__ __device__ functions, min/max, printf, and
// atomicAdd, atomicSub, atomicExch, atomicMin, atomicMax, atomicAnd/Or/Xor,
// atomicCAS on int, unsigned and unsigned long long (two atomics on one word
// do not race; an atomic and a plain read or write do). Refused when the
// kernel compiles, with a sentence that says so: the warp functions
// (__syncwarp, __shfl_*_sync, __ballot_sync, __any_sync, __all_sync,
// __activemask, __match_*_sync). Not supported (a compile error): dynamic
// shared memory, cooperative groups; nor a kernel that waits for another block.
// It runs where the C++ compiler has -fsanitize=thread and the C library has
// ucontext: Linux (g++ or clang++), tested; macOS is meant to work (the
// Mach-O paths below) but is untested; not MSVC.
#pragma once

#if defined(__CUDACC__)
// nvcc: the kernel is compiled for the GPU, as CUDA; nothing of this header is used.
#else

#if defined(__SANITIZE_THREAD__)
#define BLOCK_SIM_INSTRUMENTED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BLOCK_SIM_INSTRUMENTED 1
#endif
#endif
#ifndef BLOCK_SIM_INSTRUMENTED
#error "block_sim.h: compile this file with -fsanitize=thread (the simulator sees memory accesses through that instrumentation); its CMake target does"
#endif

// macOS declares the ucontext calls only for a program that asks for X/Open
// (<ucontext.h> is an #error otherwise). Best before any system header: include
// this header first.
#if defined(__APPLE__) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 600
#endif
#include <ucontext.h>
#if defined(__linux__)
#include <cxxabi.h>
#include <elf.h>
#include <link.h>
#endif

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

// ---- 1. The words of CUDA a kernel uses ---------------------------------------------

struct uint3 {
    unsigned int x, y, z;
};
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
};

#define BLOCK_SIM_NOCHECK __attribute__((no_sanitize("thread"), noinline))

#if defined(__APPLE__)
#define BLOCK_SIM_SHARED_SECTION __attribute__((section("__DATA,__blksim_shared")))
#elif defined(__ELF__)
#define BLOCK_SIM_SHARED_SECTION __attribute__((section("block_sim_shared")))
#else
#error "block_sim.h: __shared__ arrays need an ELF or Mach-O section (Linux, macOS)"
#endif

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...)
// __constant__ variables: __device__ ones that kernels only read.
#define __constant__
// A fence orders one thread's accesses as other threads see them; it makes no
// thread wait, so it ends no race: here, where threads run one at a time, it
// has nothing to do.
#define __threadfence() ((void)0)
#define __threadfence_block() ((void)0)
template <typename T>
inline T __ldg(const T* p) {
    return *p;
}
// One copy per block is enough: blocks run one after another. Each
// __shared__ declaration is preceded by a guard (block_sim_guard_N, 4 KiB, in
// the same section): the compiler lays the section out in declaration order
// or in reverse, so every array has a guard on one side and, with the guards
// at the two ends (block_sim_guard_head here, block_sim_guard_tail in the
// runtime, linked after the program), on the other. An index out of range
// lands in a guard, where the simulator sees it (by the program's symbol
// table) and stops the thread before the access is made.
#define BLOCK_SIM_CAT2(a, b) a##b
#define BLOCK_SIM_CAT(a, b) BLOCK_SIM_CAT2(a, b)
#define BLOCK_SIM_GUARD_BYTES 4096
#define BLOCK_SIM_SHARED_GUARD(n) \
    static BLOCK_SIM_SHARED_SECTION __attribute__((used)) unsigned char BLOCK_SIM_CAT(block_sim_guard_, n)[BLOCK_SIM_GUARD_BYTES];
#define __shared__ BLOCK_SIM_SHARED_GUARD(__COUNTER__) static BLOCK_SIM_SHARED_SECTION
// Each __syncthreads() written in the source is a barrier of its own (its
// __COUNTER__), even two on one line: threads waiting at different ones are a
// divergent barrier.
#define __syncthreads() ::block_sim::detail::barrier(__FILE__, __LINE__, __COUNTER__)
#define threadIdx (static_cast<const ::uint3&>(::block_sim::detail::g.thread_idx))
#define blockIdx (static_cast<const ::uint3&>(::block_sim::detail::g.block_idx))
#define blockDim (static_cast<const ::dim3&>(::block_sim::detail::g.block_dim))
#define gridDim (static_cast<const ::dim3&>(::block_sim::detail::g.grid_dim))

// CUDA's min and max, for device code.
template <typename A, typename B>
inline typename std::common_type<A, B>::type min(A a, B b) {
    return b < a ? b : a;
}
template <typename A, typename B>
inline typename std::common_type<A, B>::type max(A a, B b) {
    return a < b ? b : a;
}

// What the simulator cannot run is refused when the kernel compiles, with a
// sentence saying so: the warp functions (a warp's lanes exchanging values
// or waiting for each other). Check such a kernel on a GPU, with
// compute-sanitizer --tool racecheck.
namespace block_sim {
template <typename... A>
struct refused {
    static constexpr bool value = false;
};
}  // namespace block_sim
#define BLOCK_SIM_REFUSE(fn)                                                                                      \
    template <typename... A>                                                                                      \
    inline unsigned fn(A...) {                                                                                    \
        static_assert(::block_sim::refused<A...>::value,                                                          \
                      "the block simulator cannot run " #fn ": it does not simulate warps (__syncwarp, "          \
                      "__shfl_*_sync, __ballot_sync, __any_sync, __all_sync, __activemask, __match_*_sync); "      \
                      "run this kernel on a GPU instead");                                                        \
        return 0;                                                                                                 \
    }
BLOCK_SIM_REFUSE(__syncwarp)
BLOCK_SIM_REFUSE(__shfl_sync)
BLOCK_SIM_REFUSE(__shfl_up_sync)
BLOCK_SIM_REFUSE(__shfl_down_sync)
BLOCK_SIM_REFUSE(__shfl_xor_sync)
BLOCK_SIM_REFUSE(__ballot_sync)
BLOCK_SIM_REFUSE(__any_sync)
BLOCK_SIM_REFUSE(__all_sync)
BLOCK_SIM_REFUSE(__activemask)
BLOCK_SIM_REFUSE(__match_any_sync)
BLOCK_SIM_REFUSE(__match_all_sync)
#undef BLOCK_SIM_REFUSE

// Switching between a thread and the scheduler. swapcontext() saves and
// restores the signal mask, a system call at every switch: exercise 3's check
// switches 4.7 million times, and spent 40% of its time there. On x86-64
// (System V: Linux, macOS) the simulator switches by itself instead: it saves
// the registers a call must keep (rbx, rbp, r12-r15) on the stack it leaves
// and loads the stack pointer of the one it goes to; the floating-point
// control words, which no simulated thread changes, are not switched. A new
// thread's stack is laid out so that the first switch to it "returns" into
// fiber_start, which calls the function in r13 (the thread's body; it ends
// with a switch back, never a return). Elsewhere, and with
// -DBLOCK_SIM_UCONTEXT, it is ucontext.
#if defined(__x86_64__) && (defined(__linux__) || defined(__APPLE__)) && !defined(BLOCK_SIM_UCONTEXT)
#define BLOCK_SIM_OWN_SWITCH 1
#endif
// The two ways to switch lay out a Device differently: each is its own inline
// namespace, so that a program and a runtime built for different ones do not
// link (rather than run with mismatched memory).
#if defined(BLOCK_SIM_OWN_SWITCH)
#define BLOCK_SIM_ABI own_switch
#else
#define BLOCK_SIM_ABI with_ucontext
#endif

namespace block_sim {
inline namespace BLOCK_SIM_ABI {

enum class Order { in_order, shuffled };

struct Options {
    bool check_order = true;    // run each launch a second time, shuffled, and compare
    uint32_t seed = 12;         // the shuffled order's seed
    size_t stack_bytes = 256 * 1024;  // each simulated thread's stack
};

namespace detail {

// ---- 2. Fibers: one stack per simulated thread ---------------------------------------

enum class State { ready, waiting, done };

struct Site {
    const char* file = nullptr;
    int line = 0;
    int call = -1;  // which __syncthreads() of the source (its __COUNTER__)
};
inline bool same_line(const Site& a, const Site& b) {
    return a.line == b.line && a.file && b.file && std::strcmp(a.file, b.file) == 0;
}
inline bool same_site(const Site& a, const Site& b) { return same_line(a, b) && a.call == b.call; }

struct Fiber {
#if defined(BLOCK_SIM_OWN_SWITCH)
    void* sp = nullptr;  // where its registers are, while it does not run
#else
    ucontext_t context;
#endif
    std::unique_ptr<char[]> stack;
    State state = State::ready;
    Site waits_at;
};

// One word's history in the current launch (global memory) or block (shared).
// An access is a read, a write or an atomic (atomicAdd ...): two accesses by
// different threads conflict unless both are reads or both are atomics.
struct Word {
    uint32_t epoch = 0;             // the launch (or block) these fields belong to
    int32_t block = -1;             // the block now touching it, and its barrier interval
    int32_t interval = -1;
    int32_t writer = -1;            // in (block, interval): a thread that wrote it,
    int32_t reader[2] = {-1, -1};   // two threads that read it, two that used an atomic
    int32_t atomic[2] = {-1, -1};
    int32_t block_writer = -1, block_reader = -1, block_atomic = -1;  // in this block, any interval
    int32_t earlier_block[3] = {-1, -1, -1};   // earlier blocks of the launch: a write, a read,
    int32_t earlier_thread[3] = {-1, -1, -1};  // an atomic (block and thread of each)
    int32_t split = -1;  // once an access took part of the word: its four bytes' own histories (Region::bytes)
};

// An element's size where the simulator knows only the access's (a __shared__
// array, a __device__ variable): that size when it is a whole element, else 4.
inline size_t element_size(size_t access) { return access == 1 || access == 2 || access == 8 ? access : 4; }

// A named static variable of the program (an ELF symbol): a __shared__ array
// or its guard, or a __device__ variable.
struct Symbol {
    uintptr_t start = 0;
    size_t size = 0;
    std::string name;  // its own name, without namespaces or function (tile)
    bool guard = false;
};

// A buffer of "global memory" (Device::malloc), or the __shared__ arrays.
struct Region {
    uintptr_t lo = 0, hi = 0;            // the whole allocation, with the room around the data
    uintptr_t data_lo = 0, data_hi = 0;  // the data
    size_t elem = 4;                     // bytes per element (for indices in messages)
    std::string name;
    bool shared = false;
    bool variable = false;               // a __device__ variable (the program's own memory)
    std::unique_ptr<unsigned char[]> memory;
    std::vector<Word> words;             // one per 4 bytes of [lo, hi)
    std::vector<std::array<Word, 4>> bytes;  // the split words' bytes (Word::split)
};

enum Kind { kRead = 0, kWrite = 1, kAtomic = 2 };

struct Access {
    int block, thread, interval;
    Kind kind;
};

struct Race {
    Access first, second;
    const Region* region;
    uintptr_t address;    // the word
    size_t size;          // bytes of the second access (the element size of a __shared__ array)
    std::vector<Site> barriers;  // the block's barriers, in order (same-block races)
    bool barriers_known = false;
};


struct Global {
    // what the simulated thread that runs now sees
    uint3 thread_idx{0, 0, 0};
    uint3 block_idx{0, 0, 0};
    dim3 block_dim;
    dim3 grid_dim;

    bool active = false;  // a simulated thread is running: record its accesses
    void* device = nullptr;
};
inline Global g;

// The guard before the first __shared__ array (see the __shared__ macro).
static BLOCK_SIM_SHARED_SECTION __attribute__((used)) unsigned char block_sim_guard_head[BLOCK_SIM_GUARD_BYTES];

// Where each variable of the program's writable memory lies, and its name, except the simulator's own.
std::vector<Symbol> program_variables();

}  // namespace detail

// ---- 3. The device: memory, launches, and what went wrong ------------------------------

class Device {
  public:
    explicit Device(Options options = Options()) : options_(options) {
        shared_.shared = true;
        shared_.name = "__shared__ memory";
        shared_.elem = 4;
        locate_shared();
        watch_variables();
        self_test();
    }
    ~Device() {
        if (detail::g.device == this) detail::g.device = nullptr;
    }
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    // `count` elements of T in "global memory", named for the messages; the
    // contents start as a pattern (0xBE bytes), like memory nobody wrote.
    // The pointer is also host memory: the host reads and writes it directly.
    template <typename T>
    T* malloc(size_t count, const std::string& name) {
        static_assert(std::is_trivially_copyable<T>::value, "device memory holds plain values");
        auto r = std::make_unique<detail::Region>();
        size_t bytes = count * sizeof(T);
        size_t room = std::max<size_t>(64, (bytes + 63) / 64 * 64);  // as much again on each side
        size_t total = room + bytes + room;
        total = (total + 3) / 4 * 4;
        r->memory.reset(new unsigned char[total + 64]);
        uintptr_t base = ((uintptr_t)r->memory.get() + 63) / 64 * 64;
        r->lo = base;
        r->hi = base + total;
        r->data_lo = base + room;
        r->data_hi = r->data_lo + bytes;
        r->elem = sizeof(T);
        r->name = name;
        r->words.resize(total / 4);
        std::memset((void*)r->lo, 0xBE, total);
        T* p = (T*)r->data_lo;
        regions_.push_back(std::move(r));
        return p;
    }

    void free(void* p) {
        for (size_t i = 0; i < regions_.size(); i++)
            if (regions_[i]->data_lo == (uintptr_t)p && !regions_[i]->variable) {
                last_ = nullptr;  // it may be the region found last
                regions_.erase(regions_.begin() + (long)i);
                return;
            }
    }

    // Runs kernel<<<grid, block>>>(args...) (see the top of this file).
    template <typename... Params, typename... Args>
    void launch(void (*kernel)(Params...), dim3 grid, dim3 block, Args&&... args) {
        static_assert(sizeof...(Params) == sizeof...(Args), "the kernel takes another number of arguments");
        std::tuple<Params...> bound(std::forward<Args>(args)...);
        std::function<void()> body = [kernel, &bound]() { std::apply(kernel, bound); };
        run_launch(body, grid, block);
    }

    bool ok() const { return problem_.empty(); }
    // The first problem since the last clear(): a race, a divergent barrier,
    // an access out of range, or a result that depends on the threads' order.
    const std::string& problem() const { return problem_; }
    void clear() { problem_.clear(); }
    long launches() const { return launches_; }

  private:
    // ---- the launch, twice
    BLOCK_SIM_NOCHECK void run_launch(const std::function<void()>& body, dim3 grid, dim3 block);

    BLOCK_SIM_NOCHECK std::vector<std::vector<unsigned char>> snapshot() const;
    BLOCK_SIM_NOCHECK void restore(const std::vector<std::vector<unsigned char>>& s);

    BLOCK_SIM_NOCHECK void compare_orders(const std::vector<std::vector<unsigned char>>& a,
                                          const std::vector<std::vector<unsigned char>>& b);

    static std::string value_of(const detail::Region& r, const unsigned char* p);

    // ---- the grid: block after block
    BLOCK_SIM_NOCHECK bool run_grid(const std::function<void()>& body, dim3 grid, dim3 block, Order order);

    BLOCK_SIM_NOCHECK static void fiber_main();

    // The two switches: into thread f from the scheduler, and back.
    BLOCK_SIM_NOCHECK void to_thread(detail::Fiber& f);
    BLOCK_SIM_NOCHECK void to_scheduler(detail::Fiber& f);

    BLOCK_SIM_NOCHECK bool run_block(size_t threads);

  public:
    // ---- called from the simulated threads (through the macros and the instrumentation)
    BLOCK_SIM_NOCHECK void arrive(const char* file, int line, int call);

    BLOCK_SIM_NOCHECK void access(uintptr_t address, size_t size, detail::Kind kind);

  private:
    BLOCK_SIM_NOCHECK detail::Region* find(uintptr_t a);

    BLOCK_SIM_NOCHECK void touch(detail::Region& r, detail::Word& s, uintptr_t address, int t, detail::Kind kind,
                                 uint32_t epoch, size_t size);

    // Out of range: the message, and the thread stopped before its access is made.
    // offset: the access's bytes from the array's start (below it: negative); elem: its element's size.
    BLOCK_SIM_NOCHECK void out_of_range(const std::string& array, const std::string& what, long long offset,
                                        long long elem, long long length, detail::Kind kind);
    // A __shared__ access that is not inside one array: true when out of range (and reported).
    BLOCK_SIM_NOCHECK bool shared_out_of_range(uintptr_t address, size_t size, detail::Kind kind);

    static bool conflict(detail::Kind a, detail::Kind b) {
        return !(a == detail::kRead && b == detail::kRead) && !(a == detail::kAtomic && b == detail::kAtomic);
    }
    // A thread of the two kept that is not t (-1 if none): keeping two distinct
    // threads is enough to find a conflict with any third.
    static int32_t other(const int32_t (&set)[2], int t) {
        return set[0] >= 0 && set[0] != t ? set[0] : (set[1] >= 0 && set[1] != t ? set[1] : -1);
    }

    BLOCK_SIM_NOCHECK void race(const detail::Region& r, uintptr_t address, size_t size, detail::Access first,
                                detail::Access second);

    // ---- messages
    BLOCK_SIM_NOCHECK void report_launch_problems();

    void note(const std::string& what);

    std::string race_message(const detail::Race& x) const;

    // " of block 3", where the grid has more than one block.
    std::string block_words(int block) const;

    std::string interval_words(const detail::Race& x, int v) const;

    // g_a[5]; a __shared__ array's element by its name where the program's
    // symbol table has it (tile[5]), else by its place.
    std::string word_name(const detail::Race& x) const;

    static std::string site_name(const detail::Site& s);

    static std::string ordinal(size_t n);

    std::string threads_list(const std::vector<size_t>& ts) const;

    // "the __syncthreads() at f.cu:12", naming which of two on one line.
    static std::string barrier_name(const detail::Site& s, const detail::Site& other);

    template <typename T>
    void shuffle(std::vector<T>& v) {
        for (size_t i = v.size(); i > 1; i--) {
            rng_ = rng_ * 6364136223846793005ull + 1442695040888963407ull;
            size_t j = (size_t)((rng_ >> 33) % i);
            std::swap(v[i - 1], v[j]);
        }
    }

    // ---- where the __shared__ arrays are: the section the __shared__ macro puts them in
    void locate_shared();
    // ---- the program's __device__ variables (its writable static memory): each a Region
    void watch_variables();

    // ---- a known race must be seen: else the program was built in a way that hides accesses
    void self_test();

    Options options_;
    std::vector<std::unique_ptr<detail::Region>> regions_;
    detail::Region shared_;
    std::vector<detail::Symbol> shared_arrays_;  // the section's arrays and guards, by address
    uintptr_t shared_front_ = 0;                 // [shared_front_, shared_.lo): below the section
    size_t last_array_ = 0;                      // the shared_arrays_ entry found last
    size_t variables_ = 0;                       // regions_[0 .. variables_): the __device__ variables
    uintptr_t variables_lo_ = 0, variables_hi_ = 0;
    bool stopped_ = false;                       // a thread was stopped: the launch ends there
    detail::Region* last_ = nullptr;
    std::vector<detail::Fiber> fibers_;
#if defined(BLOCK_SIM_OWN_SWITCH)
    void* scheduler_sp_ = nullptr;
#else
    ucontext_t scheduler_;
#endif
    const std::function<void()>* body_ = nullptr;
    Order order_ = Order::in_order;
    size_t current_thread_ = 0;
    int current_block_ = 0;
    size_t blocks_ = 1;
    int interval_ = 0;
    std::vector<detail::Site> barriers_;
    uint32_t epoch_ = 0, shared_epoch_ = 0;
    std::unique_ptr<detail::Race> race_;
    long races_ = 0;
    std::string out_of_range_;
    std::string problem_;
    long launches_ = 0;
    uint64_t rng_ = 0;
};

namespace detail {

// The simulator's side of __syncthreads() and of every access the
// instrumentation reports (defined with the rest of the runtime, below).
BLOCK_SIM_NOCHECK void barrier(const char* file, int line, int call);
BLOCK_SIM_NOCHECK void record(const volatile void* address, size_t size, Kind kind);

// atomicAdd and its kin: recorded as atomics (which do not race with each other).
enum class Op { add, sub, exch, min, max, and_, or_, x_or };
template <typename T>
BLOCK_SIM_NOCHECK T atomic_op(T* p, T v, Op op) {
    record(p, sizeof(T), kAtomic);
    const T old = *p;
    switch (op) {
        case Op::add: *p = old + v; break;
        case Op::sub: *p = old - v; break;
        case Op::exch: *p = v; break;
        case Op::min: *p = v < old ? v : old; break;
        case Op::max: *p = old < v ? v : old; break;
        case Op::and_: *p = old & v; break;
        case Op::or_: *p = old | v; break;
        case Op::x_or: *p = old ^ v; break;
    }
    return old;
}
template <typename T>
BLOCK_SIM_NOCHECK T atomic_cas(T* p, T compare, T v) {
    record(p, sizeof(T), kAtomic);
    const T old = *p;
    if (old == compare) *p = v;
    return old;
}

}  // namespace detail

namespace detail {

// The self-test's kernel: two threads write one word.
inline void self_test_kernel(int* a) {
    a[0] = (int)threadIdx.x;
}

}  // namespace detail

// Kept here, in the program's own translation unit (the runtime never makes a
// Device): the known race it must see is in code compiled as the program is.
inline void Device::self_test() {
    const Options saved = options_;
    options_.check_order = false;
    int* a = malloc<int>(1, "self_test");
    launch(detail::self_test_kernel, dim3(1), dim3(2), a);
    const bool seen = problem_.rfind("race on self_test[0]", 0) == 0;
    problem_.clear();
    free(a);
    options_ = saved;
    rng_ = 0;
    launches_ = 0;
    if (!seen) {
        std::fprintf(stderr,
                     "block_sim: the simulator cannot see this program's memory accesses (a known race went unseen): "
                     "it must be compiled with -fsanitize=thread and linked without the sanitizer's runtime\n");
        std::fflush(stderr);
        std::_Exit(1);
    }
}

// A simulator program's main(): the check's own main, run; memory the
// simulator cannot have (a memory limit: ulimit -v, a grader's sandbox) is one
// line on stderr and exit 1 -- never std::bad_alloc's abort (exit 134).
inline int run_main(int (*check_main)(int, char**), int argc, char** argv) {
    try {
        return check_main(argc, argv);
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "%s: out of memory: the block simulator could not get the memory it needs for every "
                     "thread's stack and the kernel's arrays (a memory limit? ulimit -v)\n",
                     argc > 0 ? argv[0] : "block simulator");
        std::fflush(stderr);
        return 1;
    }
}

}  // namespace BLOCK_SIM_ABI
}  // namespace block_sim

// CUDA's atomics, for device code.
#define BLOCK_SIM_ATOMICS(T)                                                                                   \
    inline T atomicAdd(T* p, T v) { return ::block_sim::detail::atomic_op(p, v, ::block_sim::detail::Op::add); }  \
    inline T atomicSub(T* p, T v) { return ::block_sim::detail::atomic_op(p, v, ::block_sim::detail::Op::sub); }  \
    inline T atomicExch(T* p, T v) { return ::block_sim::detail::atomic_op(p, v, ::block_sim::detail::Op::exch); } \
    inline T atomicMin(T* p, T v) { return ::block_sim::detail::atomic_op(p, v, ::block_sim::detail::Op::min); }  \
    inline T atomicMax(T* p, T v) { return ::block_sim::detail::atomic_op(p, v, ::block_sim::detail::Op::max); }  \
    inline T atomicAnd(T* p, T v) { return ::block_sim::detail::atomic_op(p, v, ::block_sim::detail::Op::and_); } \
    inline T atomicOr(T* p, T v) { return ::block_sim::detail::atomic_op(p, v, ::block_sim::detail::Op::or_); }   \
    inline T atomicXor(T* p, T v) { return ::block_sim::detail::atomic_op(p, v, ::block_sim::detail::Op::x_or); } \
    inline T atomicCAS(T* p, T c, T v) { return ::block_sim::detail::atomic_cas(p, c, v); }
BLOCK_SIM_ATOMICS(int)
BLOCK_SIM_ATOMICS(unsigned int)
BLOCK_SIM_ATOMICS(unsigned long long)
#undef BLOCK_SIM_ATOMICS

// ---- 4. The runtime ----------------------------------------------------------------------
// Everything above is what a program's translation unit needs; what follows is
// compiled once, in common/block_sim.cpp (it defines BLOCK_SIM_RUNTIME before
// including this header), into the library every simulator program links
// (CMake: ch12_block_sim). The build compiles the simulator's programs many
// times over (the build, the nested configurations, the handout): this keeps
// each of them to its own code.
#if defined(BLOCK_SIM_RUNTIME)
namespace block_sim {
inline namespace BLOCK_SIM_ABI {
namespace detail {

#if defined(BLOCK_SIM_OWN_SWITCH)
// Saves this side's registers and stack pointer in *from, continues on `to`.
__attribute__((naked, noinline, no_sanitize("thread"))) void switch_stack(void** /*from*/, void* /*to*/) {
    __asm__ volatile(
        "pushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n\t"
        "movq %rsp, (%rdi)\n\tmovq %rsi, %rsp\n\t"
        "popq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n\tret");
}
__attribute__((naked, noinline, no_sanitize("thread"))) void fiber_start() {
    __asm__ volatile("callq *%r13\n\tud2");
}
// The stack pointer of a thread that has not run yet: its registers as
// switch_stack pops them (r13 = body), then fiber_start as the return
// address, placed so that the stack is 16-byte aligned at fiber_start's call.
void* first_stack(char* stack, size_t bytes, void (*body)()) {
    uintptr_t top = ((uintptr_t)stack + bytes) & ~(uintptr_t)15;
    void** sp = (void**)(top - 72);
    for (int i = 0; i < 6; i++) sp[i] = nullptr;  // r15, r14, r13, r12, rbx, rbp
    sp[2] = (void*)body;
    sp[6] = (void*)&fiber_start;
    return sp;
}
#endif

// The program's object symbols (static variables), read once from its own
// ELF file: where each lies and its name; with `writable` the ones in
// writable memory, and `full` their whole demangled names. Empty where
// unknown (not Linux, or a stripped program).
struct ElfObject {
    Symbol symbol;
    std::string full;
    bool writable = false;
};
// (Not function-local statics: their guarded initialization is an atomic,
// which the instrumentation would turn into a call this runtime lacks.)
std::vector<ElfObject> elf_objects_read;
bool elf_objects_done = false;
const std::vector<ElfObject>& elf_objects() {
    std::vector<ElfObject>& objects = elf_objects_read;
    if (elf_objects_done) return objects;
    elf_objects_done = true;
#if defined(__linux__) && defined(__LP64__)
    uintptr_t bias = 0;  // where the program was loaded (the first object dl_iterate_phdr lists)
    dl_iterate_phdr([](dl_phdr_info* info, size_t, void* data) {
        *(uintptr_t*)data = (uintptr_t)info->dlpi_addr;
        return 1;
    }, &bias);
    FILE* f = std::fopen("/proc/self/exe", "rb");
    if (!f) return objects;
    std::vector<char> elf;
    char buf[65536];
    for (size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) elf.insert(elf.end(), buf, buf + got);
    std::fclose(f);
    if (elf.size() < sizeof(Elf64_Ehdr) || std::memcmp(elf.data(), ELFMAG, SELFMAG) != 0) return objects;
    Elf64_Ehdr eh;
    std::memcpy(&eh, elf.data(), sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shoff + (size_t)eh.e_shnum * sizeof(Elf64_Shdr) > elf.size())
        return objects;
    std::vector<Elf64_Shdr> sh(eh.e_shnum);
    std::memcpy(sh.data(), elf.data() + eh.e_shoff, sh.size() * sizeof(Elf64_Shdr));
    for (const Elf64_Shdr& tab : sh) {
        if (tab.sh_type != SHT_SYMTAB || tab.sh_link >= sh.size()) continue;
        const Elf64_Shdr& str = sh[tab.sh_link];
        if (tab.sh_offset + tab.sh_size > elf.size() || str.sh_offset + str.sh_size > elf.size()) continue;
        for (size_t k = 0; k + sizeof(Elf64_Sym) <= tab.sh_size; k += sizeof(Elf64_Sym)) {
            Elf64_Sym sym;
            std::memcpy(&sym, elf.data() + tab.sh_offset + k, sizeof sym);
            if (ELF64_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_size == 0 || sym.st_name >= str.sh_size) continue;
            if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= sh.size()) continue;
            ElfObject o;
            o.full = std::string(elf.data() + str.sh_offset + sym.st_name);
            int status = 0;
            char* plain = abi::__cxa_demangle(o.full.c_str(), nullptr, nullptr, &status);
            if (status == 0 && plain) o.full = plain;
            std::free(plain);
            const size_t colons = o.full.rfind("::");
            o.symbol.name = colons == std::string::npos ? o.full : o.full.substr(colons + 2);
            o.symbol.start = (uintptr_t)sym.st_value + bias;
            o.symbol.size = (size_t)sym.st_size;
            o.symbol.guard = o.symbol.name.rfind("block_sim_guard_", 0) == 0;
            o.writable = (sh[sym.st_shndx].sh_flags & SHF_WRITE) != 0 && (sh[sym.st_shndx].sh_flags & SHF_ALLOC) != 0 &&
                         (sh[sym.st_shndx].sh_flags & SHF_TLS) == 0;
            objects.push_back(o);
        }
    }
    std::sort(objects.begin(), objects.end(),
              [](const ElfObject& a, const ElfObject& b) { return a.symbol.start < b.symbol.start; });
#endif
    return objects;
}

// The name of the static variable at `address` (a __shared__ array: tile), and
// where it starts; "" where unknown.
std::string static_name(uintptr_t address, uintptr_t* start) {
    for (const ElfObject& o : elf_objects())
        if (address >= o.symbol.start && address < o.symbol.start + o.symbol.size) {
            *start = o.symbol.start;
            return o.symbol.name;
        }
    return "";
}

// The kernel's __device__ variables, and whatever else of the program's own
// writable memory a kernel could name: every writable object except the
// simulator's (block_sim::), the C++ library's (std::, __gnu_cxx::), the
// compiler's and the C library's (names that begin with _ , or hold @ or a
// space: "guard variable for ...", "typeinfo for ...", copy relocations).
std::vector<Symbol> program_variables() {
    std::vector<Symbol> out;
    for (const ElfObject& o : elf_objects()) {
        const std::string& n = o.full;
        if (!o.writable || o.symbol.guard) continue;
        if (n.rfind("block_sim::", 0) == 0 || n.rfind("std::", 0) == 0 || n.rfind("__gnu_cxx::", 0) == 0 ||
            n.rfind("_", 0) == 0 || n.find('@') != std::string::npos || n.find("guard variable") != std::string::npos ||
            n.find("typeinfo") != std::string::npos || n.find("vtable") != std::string::npos ||
            n.rfind("block_sim_", 0) == 0)
            continue;
        out.push_back(o.symbol);
    }
    return out;
}

BLOCK_SIM_NOCHECK void barrier(const char* file, int line, int call) {
    if (!g.active || g.device == nullptr) return;  // not in a simulated thread
    static_cast<Device*>(g.device)->arrive(file, line, call);
}

// The guard after the last __shared__ array: this runtime is linked after the
// program, so its part of the section comes last (see the __shared__ macro).
BLOCK_SIM_SHARED_SECTION __attribute__((used)) unsigned char block_sim_guard_tail[BLOCK_SIM_GUARD_BYTES];

BLOCK_SIM_NOCHECK void record(const volatile void* address, size_t size, Kind kind) {
    if (!g.active || g.device == nullptr) return;
    g.active = false;  // the recorder's own accesses (instrumented library code) are not the kernel's
    static_cast<Device*>(g.device)->access((uintptr_t)address, size, kind);
    g.active = true;
}


}  // namespace detail

BLOCK_SIM_NOCHECK void Device::run_launch(const std::function<void()>& body, dim3 grid, dim3 block) {
    launches_++;
    const size_t threads = (size_t)block.x * block.y * block.z;
    if (threads == 0 || threads > 1024 || grid.x * grid.y * grid.z == 0) {
        note("a launch of " + std::to_string(grid.x * grid.y * grid.z) + " block(s) of " + std::to_string(threads) +
             " threads: a block holds 1 to 1024 threads, and a grid at least one block");
        return;
    }
    std::vector<std::vector<unsigned char>> before;
    if (options_.check_order) before = snapshot();
    race_.reset();
    races_ = 0;
    out_of_range_.clear();
    stopped_ = false;
    epoch_++;
    for (auto& r : regions_) r->bytes.clear();
    bool finished = run_grid(body, grid, block, Order::in_order);
    report_launch_problems();
    if (!finished || !options_.check_order) return;

    std::vector<std::vector<unsigned char>> after = snapshot();
    restore(before);
    race_.reset();
    races_ = 0;
    epoch_++;
    for (auto& r : regions_) r->bytes.clear();
    run_grid(body, grid, block, Order::shuffled);
    report_launch_problems();  // kept only if the first order showed none
    std::vector<std::vector<unsigned char>> shuffled = snapshot();
    compare_orders(after, shuffled);
    restore(after);
}

BLOCK_SIM_NOCHECK std::vector<std::vector<unsigned char>> Device::snapshot() const {
    std::vector<std::vector<unsigned char>> s;
    for (auto& r : regions_) s.emplace_back((unsigned char*)r->lo, (unsigned char*)r->hi);
    return s;
}

BLOCK_SIM_NOCHECK void Device::restore(const std::vector<std::vector<unsigned char>>& s) {
    for (size_t i = 0; i < regions_.size() && i < s.size(); i++)
        std::memcpy((void*)regions_[i]->lo, s[i].data(), s[i].size());
}

BLOCK_SIM_NOCHECK void Device::compare_orders(const std::vector<std::vector<unsigned char>>& a,
                                      const std::vector<std::vector<unsigned char>>& b) {
    for (size_t i = 0; i < regions_.size() && i < a.size() && i < b.size(); i++) {
        const detail::Region& r = *regions_[i];
        for (size_t off = 0; off + r.elem <= a[i].size(); off += r.elem) {
            if (std::memcmp(&a[i][off], &b[i][off], r.elem) != 0) {
                long long index = ((long long)(r.lo + off) - (long long)r.data_lo) / (long long)r.elem;
                note("the result depends on the order the threads run in: " + r.name + "[" +
                     std::to_string(index) + "] is " + value_of(r, &a[i][off]) +
                     " when they run in order (thread 0, 1, 2, ...) and " + value_of(r, &b[i][off]) +
                     " when they run in a shuffled order (threads that share data without a barrier, or "
                     "through memory the simulator does not watch)");
                return;
            }
        }
    }
}

std::string Device::value_of(const detail::Region& r, const unsigned char* p) {
    if (r.elem == 4) {
        int32_t v;
        std::memcpy(&v, p, 4);
        return std::to_string(v);
    }
    if (r.elem == 8) {
        int64_t v;
        std::memcpy(&v, p, 8);
        return std::to_string(v);
    }
    std::string s = "0x";
    char buf[3];
    for (size_t k = r.elem; k-- > 0;) {
        std::snprintf(buf, sizeof buf, "%02x", p[k]);
        s += buf;
    }
    return s;
}

BLOCK_SIM_NOCHECK bool Device::run_grid(const std::function<void()>& body, dim3 grid, dim3 block, Order order) {
    detail::g.device = this;
    detail::g.grid_dim = grid;
    detail::g.block_dim = block;
    const size_t nblocks = (size_t)grid.x * grid.y * grid.z;
    blocks_ = nblocks;
    std::vector<size_t> blocks(nblocks);
    for (size_t b = 0; b < nblocks; b++) blocks[b] = b;
    if (order == Order::shuffled) shuffle(blocks);
    body_ = &body;
    order_ = order;
    for (size_t b : blocks) {
        detail::g.block_idx = {(unsigned)(b % grid.x), (unsigned)(b / grid.x % grid.y),
                               (unsigned)(b / grid.x / grid.y)};
        current_block_ = (int)b;
        if (!run_block((size_t)block.x * block.y * block.z)) return false;
    }
    return true;
}

BLOCK_SIM_NOCHECK void Device::fiber_main() {
    Device* d = (Device*)detail::g.device;
    (*d->body_)();
    d->fibers_[d->current_thread_].state = detail::State::done;
    detail::g.active = false;
    d->to_scheduler(d->fibers_[d->current_thread_]);
}

// The two switches: into thread f from the scheduler, and back.
#if defined(BLOCK_SIM_OWN_SWITCH)
BLOCK_SIM_NOCHECK void Device::to_thread(detail::Fiber& f) { detail::switch_stack(&scheduler_sp_, f.sp); }
BLOCK_SIM_NOCHECK void Device::to_scheduler(detail::Fiber& f) { detail::switch_stack(&f.sp, scheduler_sp_); }
#else
BLOCK_SIM_NOCHECK void Device::to_thread(detail::Fiber& f) { swapcontext(&scheduler_, &f.context); }
BLOCK_SIM_NOCHECK void Device::to_scheduler(detail::Fiber& f) { swapcontext(&f.context, &scheduler_); }
#endif

BLOCK_SIM_NOCHECK bool Device::run_block(size_t threads) {
    while (fibers_.size() < threads) fibers_.emplace_back();
    for (size_t t = 0; t < threads; t++) {
        detail::Fiber& f = fibers_[t];
        if (!f.stack) f.stack.reset(new char[options_.stack_bytes]);
#if defined(BLOCK_SIM_OWN_SWITCH)
        f.sp = detail::first_stack(f.stack.get(), options_.stack_bytes, fiber_main);
#else
        getcontext(&f.context);
        f.context.uc_stack.ss_sp = f.stack.get();
        f.context.uc_stack.ss_size = options_.stack_bytes;
        f.context.uc_link = nullptr;
        makecontext(&f.context, (void (*)())fiber_main, 0);
#endif
        f.state = detail::State::ready;
        f.waits_at = detail::Site();
    }
    shared_epoch_++;
    shared_.bytes.clear();
    if (shared_.hi > shared_.lo) std::memset((void*)shared_.lo, 0xBE, shared_.hi - shared_.lo);
    interval_ = 0;
    barriers_.clear();
    std::vector<size_t> order(threads);
    const dim3 bd = detail::g.block_dim;
    for (;;) {
        for (size_t t = 0; t < threads; t++) order[t] = t;
        if (order_ == Order::shuffled) shuffle(order);
        for (size_t t : order) {
            if (fibers_[t].state != detail::State::ready) continue;
            current_thread_ = t;
            detail::g.thread_idx = {(unsigned)(t % bd.x), (unsigned)(t / bd.x % bd.y), (unsigned)(t / bd.x / bd.y)};
            detail::g.active = true;
            to_thread(fibers_[t]);
            detail::g.active = false;
            if (stopped_) return false;  // out of range: the launch ends there
        }
        std::vector<size_t> waiting, done;
        for (size_t t = 0; t < threads; t++)
            (fibers_[t].state == detail::State::waiting ? waiting : done).push_back(t);
        if (race_ && race_->first.block == current_block_ && !race_->barriers_known) {
            race_->barriers = barriers_;
            race_->barriers_known = waiting.empty();
        }
        if (waiting.empty()) return true;
        const detail::Site site = fibers_[waiting[0]].waits_at;
        std::vector<size_t> elsewhere;
        for (size_t t : waiting)
            if (!detail::same_site(fibers_[t].waits_at, site)) elsewhere.push_back(t);
        if (!done.empty() || !elsewhere.empty()) {
            // Reported before any race of the launch: threads that pass a barrier
            // the others skip are what makes those races (and on a GPU it hangs).
            std::string where = barrier_name(site, elsewhere.empty() ? site : fibers_[elsewhere[0]].waits_at) + " (" +
                                (blocks_ > 1 ? "block " + std::to_string(current_block_) : std::string("the block")) +
                                "'s " + ordinal(barriers_.size() + 1) + ")";
            std::vector<size_t> there;
            for (size_t t : waiting)
                if (detail::same_site(fibers_[t].waits_at, site)) there.push_back(t);
            std::string msg = "divergent barrier: " + threads_list(there) + block_words(current_block_) +
                              (there.size() == 1 ? " waits" : " wait") + " at " + where + ", but ";
            if (!done.empty())
                msg += threads_list(done) + " returned without reaching it";
            else
                msg += threads_list(elsewhere) + (elsewhere.size() == 1 ? " waits at " : " wait at ") +
                       barrier_name(fibers_[elsewhere[0]].waits_at, site);
            msg += ": every thread of a block must reach every __syncthreads() (on a GPU this hangs, or "
                   "worse); the launch was stopped there";
            note(msg);
            report_launch_problems();
            return false;
        }
        barriers_.push_back(site);
        interval_++;
        for (size_t t : waiting) fibers_[t].state = detail::State::ready;
    }
}

BLOCK_SIM_NOCHECK void Device::arrive(const char* file, int line, int call) {
    detail::Fiber& f = fibers_[current_thread_];
    f.state = detail::State::waiting;
    f.waits_at = {file, line, call};
    detail::g.active = false;
    to_scheduler(f);
}

BLOCK_SIM_NOCHECK void Device::access(uintptr_t address, size_t size, detail::Kind kind) {
    if (size == 0) return;
    detail::Region* r = find(address);
    if (r == nullptr) return;
    const int thread = (int)current_thread_;
    if (!r->shared && !r->variable && (address + size <= r->data_lo || address >= r->data_hi)) {
        out_of_range(r->name, "", (long long)address - (long long)r->data_lo, (long long)r->elem,
                     (long long)((r->data_hi - r->data_lo) / r->elem), kind);
        return;
    }
    if (r->shared && shared_out_of_range(address, size, kind)) return;
    const uint32_t epoch = r->shared ? shared_epoch_ : epoch_;
    // Word by word; where the access takes part of a word only (a char, a
    // short), that word's bytes get histories of their own from then on, so
    // that threads writing different bytes of one word do not race.
    const uintptr_t end = std::min<uintptr_t>(address + size, r->hi);
    for (uintptr_t w = (address - r->lo) / 4; w < r->words.size() && r->lo + w * 4 < end; w++) {
        detail::Word& word = r->words[w];
        if (word.epoch != epoch) {
            word = detail::Word();
            word.epoch = epoch;
        }
        const uintptr_t wlo = r->lo + w * 4;
        const uintptr_t a0 = std::max(address, wlo), a1 = std::min(end, wlo + 4);
        if (word.split < 0 && (a0 != wlo || a1 != wlo + 4)) {
            word.split = (int32_t)r->bytes.size();
            detail::Word copy = word;
            copy.split = -1;
            r->bytes.push_back({copy, copy, copy, copy});
        }
        if (word.split < 0) {
            touch(*r, word, wlo, thread, kind, epoch, size);
        } else {
            for (uintptr_t b = a0; b < a1; b++) touch(*r, r->bytes[(size_t)word.split][b - wlo], b, thread, kind, epoch, size);
        }
    }
}

BLOCK_SIM_NOCHECK void Device::out_of_range(const std::string& array, const std::string& what, long long offset,
                                            long long elem, long long length, detail::Kind kind) {
    const long long index = offset >= 0 ? offset / elem : -((-offset + elem - 1) / elem);  // (rounded down)
    if (out_of_range_.empty())
        out_of_range_ = "out of range: thread " + std::to_string(current_thread_) + block_words(current_block_) + " " +
                        (kind == detail::kRead ? "read " : kind == detail::kWrite ? "wrote " : "used an atomic on ") +
                        array + "[" + std::to_string(index) + "]" + what + ", but " + array + " has " +
                        std::to_string(length) + " elements (indices 0 .. " + std::to_string(length - 1) + ")";
    // The access is not made: the thread ends here, and the launch with it (an
    // out-of-range write would land in other data -- here, the simulator's).
    stopped_ = true;
    detail::Fiber& f = fibers_[current_thread_];
    f.state = detail::State::done;
    detail::g.active = false;
    to_scheduler(f);
}

BLOCK_SIM_NOCHECK bool Device::shared_out_of_range(uintptr_t address, size_t size, detail::Kind kind) {
    if (shared_arrays_.empty()) return false;  // no symbol table: the section as one block of memory
    const detail::Symbol& last = shared_arrays_[last_array_];
    if (!last.guard && address >= last.start && address + size <= last.start + last.size) return false;
    const detail::Symbol* in = nullptr;
    for (size_t i = 0; i < shared_arrays_.size(); i++)
        if (address >= shared_arrays_[i].start && address < shared_arrays_[i].start + shared_arrays_[i].size) {
            in = &shared_arrays_[i];
            last_array_ = i;
        }
    if (in && !in->guard && address + size <= in->start + in->size) return false;
    // In a guard, between arrays, or across an array's end: the nearest array's index.
    const detail::Symbol* near = nullptr;
    long long best = 0;
    for (const detail::Symbol& a : shared_arrays_) {
        if (a.guard) continue;
        const long long d = address < a.start ? (long long)(a.start - address)
                          : address >= a.start + a.size ? (long long)(address - (a.start + a.size) + 1) : 0;
        if (!near || d < best) near = &a, best = d;
    }
    if (!near) return false;
    const long long elem = (long long)detail::element_size(size);
    out_of_range(near->name, " (__shared__)", (long long)address - (long long)near->start, elem,
                 (long long)near->size / elem, kind);
    return true;
}

BLOCK_SIM_NOCHECK detail::Region* Device::find(uintptr_t a) {
    if (last_ && a >= last_->lo && a < last_->hi) return last_;
    if (a >= shared_.lo && a < shared_.hi) return last_ = &shared_;
    for (size_t i = variables_; i < regions_.size(); i++)
        if (a >= regions_[i]->lo && a < regions_[i]->hi) return last_ = regions_[i].get();
    if (a >= variables_lo_ && a < variables_hi_) {  // the __device__ variables: regions_[0 .. variables_), by address
        size_t lo = 0, hi = variables_;
        while (hi - lo > 1) {
            const size_t mid = (lo + hi) / 2;
            (regions_[mid]->lo <= a ? lo : hi) = mid;
        }
        if (a >= regions_[lo]->lo && a < regions_[lo]->hi) return last_ = regions_[lo].get();
    }
    // Just below the __shared__ section, and no variable of the program's: a
    // __shared__ index below the first array (shared_out_of_range says so).
    if (a >= shared_front_ && a < shared_.lo) {
        uintptr_t start = 0;
        if (detail::static_name(a, &start).empty()) return &shared_;
    }
    return nullptr;
}

BLOCK_SIM_NOCHECK void Device::touch(detail::Region& r, detail::Word& s, uintptr_t address, int t, detail::Kind kind,
                             uint32_t epoch, size_t size) {
    using namespace detail;
    const int b = current_block_, v = interval_;
    if (s.epoch != epoch) {
        s = Word();
        s.epoch = epoch;
    }
    if (s.block != b) {  // a new block: what earlier blocks did is kept apart
        if (s.block >= 0) {
            const int32_t did[3] = {s.block_writer, s.block_reader, s.block_atomic};
            for (int k = 0; k < 3; k++)
                if (did[k] >= 0 && s.earlier_thread[k] < 0) {
                    s.earlier_block[k] = s.block;
                    s.earlier_thread[k] = did[k];
                }
        }
        s.block = b;
        s.interval = v;
        s.writer = s.reader[0] = s.reader[1] = s.atomic[0] = s.atomic[1] = -1;
        s.block_writer = s.block_reader = s.block_atomic = -1;
    } else if (s.interval != v) {  // a barrier since: what came before cannot race
        s.interval = v;
        s.writer = s.reader[0] = s.reader[1] = s.atomic[0] = s.atomic[1] = -1;
    }
    const Access me{b, t, v, kind};
    // another block, earlier in this launch
    for (int k = 0; k < 3; k++)
        if (s.earlier_thread[k] >= 0 && conflict((Kind)(k == 0 ? kWrite : k == 1 ? kRead : kAtomic), kind)) {
            race(r, address, size, {s.earlier_block[k], s.earlier_thread[k], -1, k == 0 ? kWrite : k == 1 ? kRead : kAtomic}, me);
            break;
        }
    // this block, since its last barrier
    if (s.writer >= 0 && s.writer != t) race(r, address, size, {b, s.writer, v, kWrite}, me);
    else if (kind != kRead && other(s.reader, t) >= 0) race(r, address, size, {b, other(s.reader, t), v, kRead}, me);
    else if (kind != kAtomic && other(s.atomic, t) >= 0) race(r, address, size, {b, other(s.atomic, t), v, kAtomic}, me);
    if (kind == kWrite) {
        s.writer = t;
        s.block_writer = t;
    } else {
        int32_t* set = kind == kRead ? s.reader : s.atomic;
        if (set[0] < 0) set[0] = t;
        else if (set[0] != t && set[1] < 0) set[1] = t;
        (kind == kRead ? s.block_reader : s.block_atomic) = t;
    }
}

BLOCK_SIM_NOCHECK void Device::race(const detail::Region& r, uintptr_t address, size_t size, detail::Access first,
                            detail::Access second) {
    races_++;
    if (race_) return;
    race_.reset(new detail::Race());
    race_->first = first;
    race_->second = second;
    race_->region = &r;
    race_->address = address;
    race_->size = size;
    race_->barriers = barriers_;
}

BLOCK_SIM_NOCHECK void Device::report_launch_problems() {
    if (race_) {
        note(race_message(*race_));
        race_.reset();
    }
    if (!out_of_range_.empty()) {
        note(out_of_range_);
        out_of_range_.clear();
    }
}

void Device::note(const std::string& what) {
    if (problem_.empty()) problem_ = what;
}

std::string Device::race_message(const detail::Race& x) const {
    using namespace detail;
    const Access &a = x.first, &b = x.second;
    static const char* const did[3] = {"read", "wrote", "used an atomic on"};
    std::string msg = "race on " + word_name(x) + ": thread " + std::to_string(a.thread) + block_words(a.block) +
                      " " + did[a.kind] + " it and thread " + std::to_string(b.thread) + block_words(b.block) +
                      " " + did[b.kind] + (a.kind == b.kind ? " it too" : " it");
    if (a.block != b.block)
        msg += ", in the same launch: blocks do not wait for each other, not even at __syncthreads()";
    else
        msg += " with no __syncthreads() between them (" + interval_words(x, a.interval) + ")";
    if (races_ > 1)
        msg += "; " + std::to_string(races_ - 1) + " more conflicting access" + (races_ > 2 ? "es" : "") +
               " in this launch";
    return msg;
}

std::string Device::block_words(int block) const {
    return blocks_ > 1 ? " of block " + std::to_string(block) : std::string();
}

std::string Device::interval_words(const detail::Race& x, int v) const {
    const std::vector<detail::Site>& bars = x.barriers;
    const int m = (int)bars.size();
    const std::string block = blocks_ > 1 ? "block " + std::to_string(x.first.block) : "the block";
    if (x.barriers_known && m == 0) return block + " met no __syncthreads() at all";
    if (v == 0) return "both before " + block + "'s first __syncthreads()" + (m > 0 ? ", at " + site_name(bars[0]) : "");
    std::string after = "both after " + block + "'s " + ordinal(v) + " __syncthreads()";
    if (v < m) return after + " and before its " + ordinal(v + 1) + ", at " + site_name(bars[v - 1]) +
                      (detail::same_line(bars[v - 1], bars[v]) ? "" : " and " + site_name(bars[v]));
    return after + (x.barriers_known ? ", its last" : "") + ", at " + site_name(bars[v - 1]);
}

std::string Device::word_name(const detail::Race& x) const {
    const detail::Region& r = *x.region;
    if (r.variable) {
        if (r.data_hi - r.data_lo <= 8) return r.name + " (__device__)";
        return r.name + "[" + std::to_string((x.address - r.data_lo) / detail::element_size(x.size)) + "] (__device__)";
    }
    if (!r.shared)
        return r.name + "[" + std::to_string(((long long)x.address - (long long)r.data_lo) / (long long)r.elem) + "]";
    const size_t elem = detail::element_size(x.size);
    uintptr_t start = 0;
    std::string name = detail::static_name(x.address, &start);
    if (!name.empty())
        return name + "[" + std::to_string((x.address - start) / elem) + "] (__shared__)";
    return "__shared__ memory, byte " + std::to_string(x.address - r.lo) + " of the block's __shared__ arrays";
}

std::string Device::barrier_name(const detail::Site& s, const detail::Site& other) {
    std::string name = "the __syncthreads() at " + site_name(s);
    if (detail::same_line(s, other) && s.call != other.call)
        name += std::string(" (the ") + (s.call < other.call ? "first" : "second") + " of two on that line)";
    return name;
}

std::string Device::site_name(const detail::Site& s) {
    if (!s.file) return "?";
    const char* base = std::strrchr(s.file, '/');
    return std::string(base ? base + 1 : s.file) + ":" + std::to_string(s.line);
}

std::string Device::ordinal(size_t n) {
    const char* suffix = "th";
    if (n % 100 < 11 || n % 100 > 13) {
        if (n % 10 == 1) suffix = "st";
        else if (n % 10 == 2) suffix = "nd";
        else if (n % 10 == 3) suffix = "rd";
    }
    return std::to_string(n) + suffix;
}

std::string Device::threads_list(const std::vector<size_t>& ts) const {
    std::string s = ts.size() == 1 ? "thread " : "threads ";
    size_t shown = 0;
    for (size_t i = 0; i < ts.size();) {
        size_t j = i;
        while (j + 1 < ts.size() && ts[j + 1] == ts[j] + 1) j++;
        if (shown++ == 4) {
            s += ", ...";
            break;
        }
        if (i > 0) s += ", ";
        s += std::to_string(ts[i]);
        if (j > i) s += " .. " + std::to_string(ts[j]);
        i = j + 1;
    }
    return s;
}

#if defined(__APPLE__)
extern "C" char block_sim_shared_start[] __asm("section$start$__DATA$__blksim_shared");
extern "C" char block_sim_shared_stop[] __asm("section$end$__DATA$__blksim_shared");
#else
extern "C" char __start_block_sim_shared[] __attribute__((weak));
extern "C" char __stop_block_sim_shared[] __attribute__((weak));
#endif

void Device::locate_shared() {
#if defined(__APPLE__)
    shared_.lo = (uintptr_t)block_sim_shared_start;
    shared_.hi = (uintptr_t)block_sim_shared_stop;
#else
    shared_.lo = (uintptr_t)__start_block_sim_shared;
    shared_.hi = (uintptr_t)__stop_block_sim_shared;
#endif
    if (shared_.hi < shared_.lo) shared_.hi = shared_.lo;
    shared_.data_lo = shared_.lo;
    shared_.data_hi = shared_.hi;
    shared_.words.assign((shared_.hi - shared_.lo + 3) / 4, detail::Word());
    shared_arrays_.clear();
    for (const detail::ElfObject& o : detail::elf_objects())
        if (o.symbol.start >= shared_.lo && o.symbol.start < shared_.hi) shared_arrays_.push_back(o.symbol);
    // Before the section: where an index below the first array lands when the
    // compiler put that array first (see the __shared__ macro).
    shared_front_ = shared_arrays_.empty() ? shared_.lo : shared_.lo - BLOCK_SIM_GUARD_BYTES;
}

void Device::watch_variables() {
    for (const detail::Symbol& v : detail::program_variables()) {
        if (v.start + v.size > shared_.lo && v.start < shared_.hi) continue;  // the __shared__ section's
        auto r = std::make_unique<detail::Region>();
        r->lo = r->data_lo = v.start;
        r->hi = r->data_hi = v.start + v.size;
        r->elem = v.size % 4 == 0 ? 4 : 1;
        r->name = v.name;
        r->variable = true;
        r->words.resize((v.size + 3) / 4);
        if (variables_ == 0) variables_lo_ = r->lo;
        variables_hi_ = std::max(variables_hi_, r->hi);
        regions_.push_back(std::move(r));
        variables_++;
    }
}


}  // namespace BLOCK_SIM_ABI
}  // namespace block_sim

// ---- 5. The instrumentation's entry points -------------------------------------------------
// Calls the compiler puts around every load and store (-fsanitize=thread).
// Defined once, in the runtime (not weak: a program that links two runtimes,
// one for each way to switch, fails to link instead of losing its accesses).
#define BLOCK_SIM_HOOK extern "C" __attribute__((used, no_sanitize("thread")))
BLOCK_SIM_HOOK void __tsan_init() {}
BLOCK_SIM_HOOK void __tsan_func_entry(void*) {}
BLOCK_SIM_HOOK void __tsan_func_exit() {}
BLOCK_SIM_HOOK void __tsan_ignore_thread_begin() {}
BLOCK_SIM_HOOK void __tsan_ignore_thread_end() {}
BLOCK_SIM_HOOK void __tsan_vptr_update(void**, void*) {}
BLOCK_SIM_HOOK void __tsan_vptr_read(void**) {}
#define BLOCK_SIM_READ ::block_sim::detail::kRead
#define BLOCK_SIM_WRITE ::block_sim::detail::kWrite
#define BLOCK_SIM_SIZED_HOOKS(N)                                                                                  \
    BLOCK_SIM_HOOK void __tsan_read##N(void* p) { ::block_sim::detail::record(p, N, BLOCK_SIM_READ); }              \
    BLOCK_SIM_HOOK void __tsan_write##N(void* p) { ::block_sim::detail::record(p, N, BLOCK_SIM_WRITE); }            \
    BLOCK_SIM_HOOK void __tsan_unaligned_read##N(void* p) { ::block_sim::detail::record(p, N, BLOCK_SIM_READ); }    \
    BLOCK_SIM_HOOK void __tsan_unaligned_write##N(void* p) { ::block_sim::detail::record(p, N, BLOCK_SIM_WRITE); }  \
    BLOCK_SIM_HOOK void __tsan_volatile_read##N(void* p) { ::block_sim::detail::record(p, N, BLOCK_SIM_READ); }     \
    BLOCK_SIM_HOOK void __tsan_volatile_write##N(void* p) { ::block_sim::detail::record(p, N, BLOCK_SIM_WRITE); }   \
    BLOCK_SIM_HOOK void __tsan_unaligned_volatile_read##N(void* p) { ::block_sim::detail::record(p, N, BLOCK_SIM_READ); } \
    BLOCK_SIM_HOOK void __tsan_unaligned_volatile_write##N(void* p) { ::block_sim::detail::record(p, N, BLOCK_SIM_WRITE); }
BLOCK_SIM_SIZED_HOOKS(1)
BLOCK_SIM_SIZED_HOOKS(2)
BLOCK_SIM_SIZED_HOOKS(4)
BLOCK_SIM_SIZED_HOOKS(8)
BLOCK_SIM_SIZED_HOOKS(16)
#undef BLOCK_SIM_SIZED_HOOKS
BLOCK_SIM_HOOK void __tsan_read_range(void* p, unsigned long size) { ::block_sim::detail::record(p, size, BLOCK_SIM_READ); }
BLOCK_SIM_HOOK void __tsan_write_range(void* p, unsigned long size) { ::block_sim::detail::record(p, size, BLOCK_SIM_WRITE); }
BLOCK_SIM_HOOK void* __tsan_memcpy(void* d, const void* s, unsigned long n) {
    ::block_sim::detail::record(s, n, BLOCK_SIM_READ);
    ::block_sim::detail::record(d, n, BLOCK_SIM_WRITE);
    return std::memcpy(d, s, n);
}
BLOCK_SIM_HOOK void* __tsan_memmove(void* d, const void* s, unsigned long n) {
    ::block_sim::detail::record(s, n, BLOCK_SIM_READ);
    ::block_sim::detail::record(d, n, BLOCK_SIM_WRITE);
    return std::memmove(d, s, n);
}
BLOCK_SIM_HOOK void* __tsan_memset(void* d, int c, unsigned long n) {
    ::block_sim::detail::record(d, n, BLOCK_SIM_WRITE);
    return std::memset(d, c, n);
}
#undef BLOCK_SIM_SIZED_HOOKS
#undef BLOCK_SIM_READ
#undef BLOCK_SIM_WRITE
#undef BLOCK_SIM_HOOK

#endif  // BLOCK_SIM_RUNTIME

#endif  // !__CUDACC__
