// ch12/extras/sort/safe_output.h -- how the benchmark writes its CSV without
// ever losing the file it replaces: into a temporary file in the same
// folder, renamed over the target only when the whole run succeeded. A run
// that fails, is skipped (no GPU), ends in a CUDA error (exit 1) or is
// stopped (Ctrl-C, SIGTERM) leaves an existing file byte for byte as it was,
// and removes its temporary file.
//
//   std::string problem = SafeOutput::check(path);   // before the GPU check: exit 2 if not ""
//   ... require a GPU ...
//   SafeOutput out;  out.open(path);                 // creates the temporary file
//   fprintf(out.file(), ...);
//   out.commit();                                    // rename over path
//
// A target that is not a regular file (/dev/null, a pipe) is written
// directly; a symbolic link is followed, and the file it names replaced.
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

namespace cases {

class SafeOutput {
  public:
    // "" when `path` can be written, else why not. Opens nothing.
    static std::string check(const std::string& path) {
        struct stat st;
        if (path.empty()) return "an empty file name";
        if (stat(path.c_str(), &st) == 0) {
            if (S_ISDIR(st.st_mode)) return "it is a folder";
            if (access(path.c_str(), W_OK) != 0) return std::string("no permission to write it (") + std::strerror(errno) + ")";
            if (!S_ISREG(st.st_mode)) return "";
        }
        const std::string dir = folder_of(resolved(path));
        if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "its folder " + dir + " does not exist";
        if (access(dir.c_str(), W_OK | X_OK) != 0)
            return "no permission to create files in its folder " + dir + " (" + std::strerror(errno) + ")";
        return "";
    }

    SafeOutput() = default;
    SafeOutput(const SafeOutput&) = delete;
    SafeOutput& operator=(const SafeOutput&) = delete;
    ~SafeOutput() { discard(); }

    // Opens the temporary file (or a non-regular target itself). "" or the problem.
    std::string open(const std::string& path) {
        struct stat st;
        const bool exists = stat(path.c_str(), &st) == 0;
        if (exists && !S_ISREG(st.st_mode)) {  // /dev/null, a pipe: no rename over it
            file_ = std::fopen(path.c_str(), "w");
            if (!file_) return path + ": " + std::strerror(errno);
            direct_ = true;
            return "";
        }
        target_ = resolved(path);
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
        if (direct_) return "";
        if (std::rename(g_temp, target_.c_str()) != 0) {
            const std::string why = std::strerror(errno);
            discard();
            return "cannot rename the temporary file over it: " + why;
        }
        g_temp[0] = '\0';
        return "";
    }

    // Gives up: closes and removes the temporary file; the target stays as it was.
    void discard() {
        if (file_) std::fclose(file_);
        file_ = nullptr;
        if (!direct_ && g_temp[0]) {
            ::unlink(g_temp);
            g_temp[0] = '\0';
        }
    }

  private:
    static std::string folder_of(const std::string& path) {
        const size_t slash = path.rfind('/');
        if (slash == std::string::npos) return ".";
        return slash == 0 ? "/" : path.substr(0, slash);
    }
    // A symbolic link's target (its folder receives the temporary file).
    static std::string resolved(const std::string& path) {
        char* real = realpath(path.c_str(), nullptr);
        if (!real) return path;  // not there yet
        std::string r = real;
        std::free(real);
        return r;
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
    std::string target_;
};

}  // namespace cases
