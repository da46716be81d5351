// ch12/extras/support/sort_programs.h -- what the programs around the
// sort library share, and the library itself does not have (it is no part of
// the library's API: CMake target ch12_extra_programs, ch12/extras/support/CMakeLists.txt):
//
//   inputs             the one list of input kinds (input_kinds.h) and the
//                      --input option: input_option(), input_choices()
//   profile by name    the --profile option: profile_option(), profile_list()
//                      (the library's bitonic::profile_by_name())
//   a checked CSV      SafeOutput: a file written through a temporary one,
//                      renamed over it only when the whole run succeeded
//   ending on a Status ch12/status.h, included here (it is common/include's,
//                      not this file's): ch12::exit_status(), the one place a
//                      program turns a Status into its exit status
//
// Used by the sort library's runner, tests and benchmark, the GLSL host
// (ch12/extras/glsl: no CUDA there; only the inline pieces it calls are
// compiled) and the multi-GPU sort (ch12/extras/multi_gpu).
//
// ---- SafeOutput ---------------------------------------------------------------------
// How a program writes its CSV without ever losing the file it replaces:
// into a temporary file in the same folder, renamed over the target only
// when the whole run succeeded. A run that fails, is skipped (no GPU), ends
// in a CUDA error (exit 1) or is stopped (Ctrl-C, SIGTERM) leaves an
// existing file byte for byte as it was, and removes its temporary file.
//
//   std::string problem = SafeOutput::check(path);   // before the GPU check: exit 2 if not ""
//   ... require a GPU ...
//   SafeOutput out;  out.open(path);                 // creates the temporary file
//   fprintf(out.file(), ...);
//   out.commit();                                    // rename over path
//
// What may be written is common/write_rule.h's to say (the write policy of
// common/write_policy.py, in C++): never a file git tracks, a golden, a file
// in a .git folder, or a file of this project in a copy without git. A
// character device or a pipe (/dev/null) is written directly, a descriptor
// of this program's (/dev/stdout) as it is -- both at commit(), after what
// the program printed before, and not at all after a failed run; a symbolic
// link is followed, and the file it names replaced (the rule asked again
// just before).
#pragma once

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bitonic/tuning.h"  // the profiles
#include "ch12/status.h"     // exit_status()
#include "cli.h"
#include "input_kinds.h"
#include "write_rule.h"  // common/: the write rule, in C++

namespace ch12 {

// ---- inputs -------------------------------------------------------------------------
// "uniform, sorted, reverse, equal, few-unique or special", for a usage text.
inline std::string input_choices() {
    std::string list;
    for (int i = 0; i < kInputCount; i++)
        list += std::string(i == 0 ? "" : i + 1 == kInputCount ? " or " : ", ") + kInputNames[i];
    return list;
}
// --input KIND: the kind, or `fallback` when the option is absent.
inline Input input_option(const CommandLine& cl, Input fallback = Input::uniform) {
    return (Input)cl.choice("--input", kInputNames, (int)fallback);
}

// ---- profile by name ------------------------------------------------------------------
// "t4, a100, rtx3060, rtx4090, h100": the library's profiles, for a usage text.
inline std::string profile_list() {
    std::string list;
    for (const bitonic::Profile* p = bitonic::kProfiles; p->name; ++p) list += (list.empty() ? "" : ", ") + std::string(p->name);
    return list;
}
// --profile NAME: that profile (the library's bitonic::profile_by_name()), or
// nullptr when the option is absent; a name that is no profile is a bad
// command line.
inline const bitonic::Profile* profile_option(const CommandLine& cl) {
    const char* name = cl.value("--profile");
    if (name == nullptr) return nullptr;
    const bitonic::Profile* p = bitonic::profile_by_name(name);
    if (p == nullptr) cl.fail(std::string("--profile wants one of ") + profile_list() + ", not '" + name + "'");
    return p;
}

// ---- a checked CSV ----------------------------------------------------------------------

class SafeOutput {
  public:
    // "" when `path` may be written, else why not: the write rule of
    // common/write_rule.h, common/write_policy.py's in C++ (no tracked file,
    // golden, .git folder, dangling link, nor a file of a copy without git;
    // a descriptor of this program's is written to as it is). Opens nothing.
    static std::string check(const std::string& path) { return write_rule::check(path); }

    SafeOutput() = default;
    SafeOutput(const SafeOutput&) = delete;
    SafeOutput& operator=(const SafeOutput&) = delete;
    ~SafeOutput() { discard(); }

    // Opens the temporary file (or a non-regular target itself). "" or the problem.
    std::string open(const std::string& path) {
        write_rule::Target where;
        const std::string refused = write_rule::check(path, &where);
        if (!refused.empty()) return refused;
        path_ = path;
        if (where.descriptor >= 0 || where.device) {
            // /dev/stdout, /dev/fd/N (written to as it is, never reopened), /dev/null, a pipe (no
            // rename over it): the rows are held in memory and written at commit(), after what the
            // program printed before -- and not at all when the run fails.
            file_ = open_memstream(&memory_, &memory_size_);
            if (!file_) return path + ": " + std::strerror(errno);
            direct_ = true;
            descriptor_ = where.descriptor;
            return "";
        }
        struct stat st;
        const bool exists = stat(path.c_str(), &st) == 0;
        target_ = where.real;
        std::string tmp = target_ + ".tmpXXXXXX";
        if (tmp.size() >= sizeof g_temp) return path + ": the name is too long";
        std::strcpy(g_temp, tmp.c_str());
        install_cleanup();
        const int fd = mkstemp(g_temp);
        if (fd < 0) {
            g_temp[0] = '\0';
            return target_ + ": cannot create a temporary file beside it: " + std::strerror(errno);
        }
        // The permissions the file has, or would get from a plain fopen.
        mode_t mode = 0666;
        if (exists) {
            mode = st.st_mode & 07777;
        } else {
            const mode_t mask = umask(0);
            umask(mask);
            mode &= ~mask;
        }
        (void)fchmod(fd, mode);
        file_ = fdopen(fd, "w");
        if (!file_) {
            const std::string why = std::strerror(errno);
            ::close(fd);
            discard();
            return target_ + ": " + why;
        }
        return "";
    }

    FILE* file() const { return file_; }

    // Closes the file, checks that every write reached it, and renames it
    // over the target. "" or the problem (the target is then untouched).
    std::string commit() {
        if (!file_) return "no file is open";
        const bool failed = std::ferror(file_) != 0;
        const bool closed = std::fclose(file_) == 0;
        file_ = nullptr;
        if (failed || !closed) {
            discard();
            return "writing it failed (" + std::string(std::strerror(errno)) + ")";
        }
        if (direct_) return write_direct();
        const std::string now = write_rule::check(path_);  // (git may have begun to track it meanwhile)
        if (!now.empty()) {
            discard();
            return now;
        }
        if (std::rename(g_temp, target_.c_str()) != 0) {
            const std::string why = std::strerror(errno);
            discard();
            return "cannot rename the temporary file over it: " + why;
        }
        g_temp[0] = '\0';
        return "";
    }

    // For a process that must end at once (std::_Exit runs no atexit clean-up):
    // removes the temporary file, if any; the target stays as it was.
    static void abandon() { remove_temp(); }

    // Gives up: closes and removes the temporary file; the target stays as it was.
    void discard() {
        if (file_) std::fclose(file_);
        file_ = nullptr;
        std::free(memory_);
        memory_ = nullptr;
        memory_size_ = 0;
        if (!direct_ && g_temp[0]) {
            ::unlink(g_temp);
            g_temp[0] = '\0';
        }
    }

  private:
    // The held rows to the descriptor or the device, after the program's own stdout.
    std::string write_direct() {
        std::fflush(stdout);
        int fd = descriptor_;
        FILE* device = nullptr;
        if (fd < 0) {
            device = std::fopen(path_.c_str(), "w");
            if (!device) {
                const std::string why = std::strerror(errno);
                discard();
                return path_ + ": " + why;
            }
            fd = fileno(device);
        }
        std::string problem;
        for (size_t done = 0; done < memory_size_ && problem.empty();) {
            const ssize_t n = ::write(fd, memory_ + done, memory_size_ - done);
            if (n > 0) done += (size_t)n;
            else if (n < 0 && errno != EINTR) problem = "writing it failed (" + std::string(std::strerror(errno)) + ")";
        }
        if (device && std::fclose(device) != 0 && problem.empty())
            problem = "writing it failed (" + std::string(std::strerror(errno)) + ")";
        discard();
        return problem;
    }

    // One temporary file per process, removed at exit or on SIGINT/SIGTERM
    // unless it was renamed (exit(): CUDA_CHECK's error path included).
    static inline char g_temp[4096] = "";
    static void remove_temp() {
        if (g_temp[0]) ::unlink(g_temp);
    }
    static void on_signal(int sig) {
        if (g_temp[0]) ::unlink(g_temp);
        std::signal(sig, SIG_DFL);
        std::raise(sig);
    }
    static void install_cleanup() {
        static bool installed = false;
        if (installed) return;
        installed = true;
        std::atexit(remove_temp);
        std::signal(SIGINT, on_signal);
        std::signal(SIGTERM, on_signal);
    }

    FILE* file_ = nullptr;
    bool direct_ = false;
    int descriptor_ = -1;
    char* memory_ = nullptr;  // the rows held for a descriptor or a device (open_memstream)
    size_t memory_size_ = 0;
    std::string path_, target_;
};

}  // namespace ch12
