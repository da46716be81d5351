// ch12/exercises/exercise.h -- what every exercise's check prints, and where
// it runs your kernel.
//
// A check runs the student's code on inputs with known answers and prints,
// for each part, one line: "check K, <what>: ok" or "check K, <what>: NOT YET
// -- <what is wrong, and where to look>". It ends with one verdict line:
//
//   exercise N: PASS -- <what now works>              (exit status 0)
//   exercise N: NOT YET -- F of C checks failed       (exit status 1)
//
// Each GPU exercise is built twice from the same files: by nvcc, where the
// check launches your kernel on the GPU (exN_<name>), and by a C++ compiler,
// where it runs it in the block simulator, common/block_sim.h (exN_<name>_sim):
// every thread of every block on the CPU, __syncthreads() a real barrier, and
// every race, divergent barrier and out-of-range index reported. The
// simulator's output begins and ends with a line that says so.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli.h"
#if defined(__CUDACC__)
#include "cuda_check.h"
#elif !defined(BLOCK_SIM_INSTRUMENTED) && !defined(EXERCISE_HOST_ONLY)
#error "include block_sim.h before exercise.h (or define EXERCISE_HOST_ONLY for a host-only exercise)"
#endif

namespace exercise {

// ---- where the check's launches run ----------------------------------------------------
#if defined(__CUDACC__)
constexpr bool kSimulated = false;

// The GPU: CUDA's own calls (errors end the program, as in the lessons).
class Device {
  public:
    template <typename T>
    T* malloc(size_t count, const char* /*name*/) {
        T* p = nullptr;
        CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
        return p;
    }
    void free(void* p) { CUDA_CHECK(cudaFree(p)); }
    template <typename T>
    void upload(T* device, const std::vector<T>& host) {
        CUDA_CHECK(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    template <typename T>
    void download(std::vector<T>& host, const T* device) {
        CUDA_CHECK(cudaMemcpy(host.data(), device, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
    }
    void fill(void* device, int byte, size_t bytes) { CUDA_CHECK(cudaMemset(device, byte, bytes)); }
    template <typename... Params, typename... Args>
    void launch(void (*kernel)(Params...), dim3 grid, dim3 block, Args... args) {
        kernel<<<grid, block>>>(args...);
        CUDA_CHECK_LAUNCH();
    }
    void sync() { CUDA_CHECK(cudaDeviceSynchronize()); }
    // A GPU run reports no race: a race there may give the right answer by luck.
    std::string problem() const { return ""; }
    void clear() {}
};
#elif defined(BLOCK_SIM_INSTRUMENTED)
constexpr bool kSimulated = true;

// The block simulator: the same calls; its memory is host memory.
class Device : public block_sim::Device {
  public:
    template <typename T>
    void upload(T* device, const std::vector<T>& host) {
        std::copy(host.begin(), host.end(), device);
    }
    template <typename T>
    void download(std::vector<T>& host, const T* device) {
        std::copy(device, device + host.size(), host.begin());
    }
    void fill(void* device, int byte, size_t bytes) { std::memset(device, byte, bytes); }
    void sync() {}
};
#endif

// ---- the program around a check ----------------------------------------------------------

// The command line of an exercise's program (--help, and the options given),
// and, for the GPU build, the rule that no GPU is no failure (exit 77,
// pointing to the simulator's program).
inline ch12::CommandLine command_line(int argc, char** argv, const char* title, const char* options = "",
                                      const char* option_help = "") {
    std::string details = std::string("  ") + title + "\n";
#if defined(__CUDACC__)
    details += "  (your kernel on the GPU; the same check in the block simulator, on the CPU: the program\n"
               "  of the same name ending in _sim)\n";
#elif defined(BLOCK_SIM_INSTRUMENTED)
    details += "  (your kernel in the block simulator: every thread on the CPU, barriers real, races found;\n"
               "  no GPU needed)\n";
#endif
    details += option_help;
    ch12::CommandLine cl(argc, argv, options, details);
    return cl;
}

inline void need_gpu(const char* program) {
#if defined(__CUDACC__)
    static std::string instead;
    instead = std::string("run ") + program + "_sim to check it in the block simulator (no GPU needed)";
    ch12::require_cuda_device(program, instead.c_str());
#else
    (void)program;
#endif
}

// ---- what a check prints -------------------------------------------------------------------

class Report {
  public:
    Report(int number, const char* title) : number_(number) {
#if defined(BLOCK_SIM_INSTRUMENTED)
        printf("[block simulator: the kernels run on the CPU, every thread of every block, __syncthreads() a real "
               "barrier, races reported; no GPU is used]\n");
#endif
        printf("=== Exercise %d: %s ===\n\n", number_, title);
    }

    // One check's line. Returns `ok`.
    bool check(const char* what, bool ok, const std::string& problem = "") {
        checks_++;
        if (ok) {
            printf("check %d, %s: ok\n", checks_, what);
        } else {
            failed_++;
            printf("check %d, %s: NOT YET -- %s\n", checks_, what, problem.c_str());
        }
        return ok;
    }

    // The verdict line (and the simulator's closing line). Returns the exit status.
    int verdict(const char* what_works) {
        printf("\n");
        if (failed_ == 0) printf("exercise %d: PASS -- %s\n", number_, what_works);
        else printf("exercise %d: NOT YET -- %d of %d checks failed\n", number_, failed_, checks_);
#if defined(BLOCK_SIM_INSTRUMENTED)
        printf("[block simulator: the checks above judged the simulator's run of the kernels; no GPU was used]\n");
#endif
        return failed_ == 0 ? 0 : 1;
    }

  private:
    int number_;
    int checks_ = 0, failed_ = 0;
};

// A short picture of an array: all of it when small, else its first and last values.
template <typename T>
inline std::string show(const T& a) {
    std::string s;
    size_t n = a.size();
    for (size_t i = 0; i < n; i++) {
        if (n > 16 && i == 8) {
            s += "... ";
            i = n - 5;
            continue;
        }
        s += std::to_string(a[i]) + " ";
    }
    if (!s.empty()) s.pop_back();
    return s;
}

// "n = 16: " + problem, or "" -- the first problem of several inputs.
struct FirstProblem {
    std::string first;
    int wrong = 0, tried = 0;
    void add(const std::string& where, const std::string& problem) {
        tried++;
        if (problem.empty()) return;
        if (wrong++ == 0) first = where + ": " + problem;
    }
    bool ok() const { return wrong == 0; }
    std::string text(const char* unit) const {
        return first + " (" + std::to_string(wrong) + " of " + std::to_string(tried) + " " + unit + " wrong)";
    }
};

}  // namespace exercise
