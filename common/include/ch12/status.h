// common/include/ch12/status.h -- the one Status of the companion's
// library-like parts (the sort library, the tree's harness, the multi-GPU
// sort, the GLSL host): what went wrong, by kind; the CUDA, NCCL or Vulkan
// error code when an API call failed; and the words that say it.
//
//   ch12::Status run(...) {                 // a part that can fail returns one
//       CH12_TRY(cudaMalloc(&p, bytes));     // the one macro: returns at once unless
//       CH12_TRY(other_part(...));           // the call succeeded
//       return {};                           // ok
//   }
//   int main(...) {
//       const ch12::Status s = run(...);
//       return ch12::exit_status(s, name);   // the one place a program ends on one
//   }
//
// CH12_TRY takes a Status, or anything a ch12::status_of() overload turns into
// one: a cudaError_t or a kernel launch (common/cuda_status.h), an
// ncclResult_t (the multi-GPU sort's communicator), a VkResult (the GLSL
// host). A failed call's Status names the call, its file and line, and the
// API's own words.
//
// Nothing here ends the process: parts return Statuses, and each program's
// main turns the one it gets into its exit status with exit_status(). (The
// lessons, 58-63 with their traps and the exercises, keep the book's
// CUDA_CHECK, common/cuda_check.h.)
//
// Plain C++17, header-only: g++ compiles it for the CPU-only tests too.
#pragma once

#include <cstdio>
#include <string>
#include <utility>

namespace ch12 {

// What went wrong, by kind.
enum class Errc : int {
    ok = 0,
    bad_request,        // a request that is wrong in itself (the sort library's check())
    null_pointer,       // a pointer the call needs is null
    misaligned,         // a pointer is not aligned as the call needs
    scratch_too_small,  // less scratch memory than the call needs
    unsupported,        // the device's (or profile's) limits cannot run it
    cannot_run_here,    // not the program's fault: too little memory, no device (exit 77)
    failed,             // anything else, said in the detail
    cuda,               // a CUDA runtime call failed: `error` is its cudaError_t
    nccl,               // an NCCL call failed: `error` is its ncclResult_t
    vulkan,             // a Vulkan call failed: `error` is its VkResult
};

inline const char* errc_name(Errc e) {
    switch (e) {
        case Errc::ok: return "ok";
        case Errc::bad_request: return "bad request";
        case Errc::null_pointer: return "null pointer";
        case Errc::misaligned: return "misaligned pointer";
        case Errc::scratch_too_small: return "scratch too small";
        case Errc::unsupported: return "unsupported";
        case Errc::cannot_run_here: return "cannot run here";
        case Errc::failed: return "failed";
        case Errc::cuda: return "CUDA error";
        case Errc::nccl: return "NCCL error";
        case Errc::vulkan: return "Vulkan error";
    }
    return "unknown error";
}

struct Status {
    Errc code = Errc::ok;
    int error = 0;       // the failed call's cudaError_t, ncclResult_t or VkResult (code cuda, nccl, vulkan)
    std::string detail;  // what was wrong; for a failed call, the whole line:
                         // "<API> error: <call> failed at <file>:<line>: <the API's words>"
    bool ok() const { return code == Errc::ok; }
};

// A Status that is not ok (an API's error code, where there is one, goes in `error`).
inline Status failure(Errc code, std::string detail, int error = 0) { return Status{code, error, std::move(detail)}; }

// One line for a human: a failed call's or a "cannot run here" Status says it
// all in its detail; the other kinds are named first ("bad request: ...").
inline std::string message(const Status& s) {
    switch (s.code) {
        case Errc::ok: return "ok";
        case Errc::cannot_run_here:
        case Errc::failed:
        case Errc::cuda:
        case Errc::nccl:
        case Errc::vulkan: return s.detail;
        default: return std::string(errc_name(s.code)) + ": " + s.detail;
    }
}

// The exit status of "this program cannot run here" (CTest's SKIP_RETURN_CODE,
// the same as ch12::kSkipExitCode of common/cuda_check.h).
constexpr int kExitCannotRunHere = 77;

// The one place a program turns a Status into its exit status: `ok_status`
// when it is ok; else "<program>: <message>" on stderr (standard output
// flushed first, so the two stay in order) and 77 for Errc::cannot_run_here,
// 1 for anything else. Prints nothing else and ends nothing: main returns it.
inline int exit_status(const Status& s, const char* program, int ok_status = 0) {
    if (s.ok()) return ok_status;
    std::fflush(stdout);
    std::fprintf(stderr, "%s: %s\n", program, message(s).c_str());
    return s.code == Errc::cannot_run_here ? kExitCannotRunHere : 1;
}

// CH12_TRY's view of a Status: itself.
inline Status status_of(Status s, const char*, const char*, int) { return s; }

}  // namespace ch12

// Returns the Status of `expr` from the enclosing function unless it is ok.
// `expr`: a Status, or anything a ch12::status_of() overload declared before
// the use takes (cudaError_t, ncclResult_t, VkResult, a kernel launch).
#define CH12_TRY(expr)                                                                            \
    do {                                                                                          \
        ::ch12::Status ch12_try_status_ = ::ch12::status_of((expr), #expr, __FILE__, __LINE__);   \
        if (!ch12_try_status_.ok()) return ch12_try_status_;                                      \
    } while (0)
