// common/write_rule.h -- the write policy (common/write_policy.py) for the
// C++ programs: the same refusals, decided in C++ without Python and without
// starting git. Its one user is SafeOutput, the C++ programs' one writer
// (ch12/extras/support/sort_programs.h: the benchmarks' CSV files).
//
//   ch12::write_rule::Target t;
//   std::string why = ch12::write_rule::check(path, &t);   // "" or why not
//
// A path is refused when it is empty or names a folder; when it is a link to
// nothing; when it resolves, through any link, to something that is not a
// regular file, a character device or a FIFO; to something inside a .git
// folder; to a golden named after a numbered listing or trap (NN_name.txt,
// NN_name.replay.txt in an expected_output/ folder); to a file git tracks in
// any checkout (read from the checkout's index file: tracked files deleted
// from the working tree included); or, where git does not know this
// project's files (a copy without git: a zip, a folder another repository
// ignores), to an existing file under the root of a copy of this project (the
// one built from, or the one that holds the file) outside the tools' own
// folders (build/, build-*: that root .gitignore's folder lines). A
// character device or FIFO is written as it is (t.device); a descriptor of
// this process named as the output (/dev/stdout, /dev/fd/N,
// /proc/self/fd/N, any link on the way to one) is written to as it is
// (t.descriptor), never reopened over; another process's is refused.
//
// The project's root comes from CH12_PROJECT_ROOT (a string the build
// defines); without it the copy-without-git rule has no anchor and is left
// out. The test write_rule_agrees holds this to write_policy.py, case for
// case. Plain C++17 and POSIX, header-only; it only reads.
#pragma once

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fnmatch.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace ch12 {
namespace write_rule {

struct Target {
    std::string real;     // the file that changes (links followed)
    bool device = false;  // a character device or a FIFO: written as it is
    int descriptor = -1;  // a descriptor of this process named as the output, or -1
};

namespace detail {

inline bool lexists(const std::string& p) {
    struct stat st;
    return lstat(p.c_str(), &st) == 0;
}
inline bool is_dir(const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
inline std::string dirname_of(const std::string& p) {
    const size_t slash = p.find_last_of('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : p.substr(0, slash);
}
inline std::string basename_of(const std::string& p) {
    const size_t slash = p.find_last_of('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}
inline std::string absolute(const std::string& p) {
    if (!p.empty() && p[0] == '/') return p;
    char* cwd = getcwd(nullptr, 0);
    std::string a = cwd ? std::string(cwd) + "/" + p : p;
    std::free(cwd);
    return a;
}
// os.path.realpath: the real path of what exists, the rest appended as given.
inline std::string real_path(const std::string& p) {
    if (char* r = realpath(p.c_str(), nullptr)) {
        std::string s = r;
        std::free(r);
        return s;
    }
    const std::string a = absolute(p);
    const std::string folder = dirname_of(a);
    if (folder == a) return a;
    const std::string rf = real_path(folder);
    return (rf == "/" ? "" : rf) + "/" + basename_of(a);
}

// "/proc/<pid>/fd" or "/proc/<pid>/task/<tid>/fd": the pid, else -1.
inline long fd_folder_pid(const std::string& folder) {
    if (folder.compare(0, 6, "/proc/") != 0) return -1;
    size_t i = 6, start = i;
    while (i < folder.size() && isdigit((unsigned char)folder[i])) i++;
    if (i == start) return -1;
    const long pid = std::strtol(folder.substr(start, i - start).c_str(), nullptr, 10);
    std::string rest = folder.substr(i);
    if (rest.compare(0, 6, "/task/") == 0) {
        size_t j = 6;
        while (j < rest.size() && isdigit((unsigned char)rest[j])) j++;
        if (j == 6) return -1;
        rest = rest.substr(j);
    }
    return rest == "/fd" ? pid : -1;
}
inline bool all_digits(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!isdigit((unsigned char)c)) return false;
    return true;
}

// A descriptor named by the path, judged by where its folder really is:
// true with *pid and *fd set, else false.
inline bool named_descriptor(const std::string& path, long* pid, int* fd) {
    std::string p = absolute(path);
    for (int hop = 0; hop < 40; hop++) {
        while (p.size() > 1 && p.back() == '/') p.pop_back();
        const std::string folder = dirname_of(p), name = basename_of(p);
        const std::string real_folder = real_path(folder);
        const long owner = fd_folder_pid(real_folder);
        if (owner >= 0 && all_digits(name)) {
            *pid = owner;
            *fd = std::atoi(name.c_str());
            return true;
        }
        if (owner >= 0 || real_folder.compare(0, 6, "/proc/") == 0) return false;
        const std::string full = (real_folder == "/" ? "" : real_folder) + "/" + name;
        char target[4096];
        const ssize_t len = readlink(full.c_str(), target, sizeof target - 1);
        if (len < 0) return false;
        target[len] = '\0';
        p = target[0] == '/' ? std::string(target) : real_folder + "/" + target;
    }
    return false;
}

// ---- git: a checkout and its index -----------------------------------------------------

// The top of the git checkout that holds `folder` (a .git folder or file there), or "".
inline std::string checkout_of(std::string folder) {
    for (;;) {
        if (lexists(folder + (folder == "/" ? ".git" : "/.git"))) return folder;
        const std::string parent = dirname_of(folder);
        if (parent == folder) return "";
        folder = parent;
    }
}

// The first line of a small file, without its line end ("" if unreadable).
inline std::string first_line(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "r");
    if (!f) return "";
    char line[4096] = "";
    const bool got = std::fgets(line, sizeof line, f) != nullptr;
    std::fclose(f);
    std::string s = got ? line : "";
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
}

// The checkout's git folder: .git itself, or the one its "gitdir: " line
// names (a linked worktree, a submodule). "" and *error when there is none
// that git would take (no HEAD in it): git could not say either.
inline std::string git_dir(const std::string& top, std::string* error) {
    const std::string dot = top + (top == "/" ? ".git" : "/.git");
    std::string dir = dot;
    if (!is_dir(dot)) {
        const std::string line = first_line(dot);
        if (line.compare(0, 8, "gitdir: ") != 0) {
            *error = dot + " is neither a git folder nor a \"gitdir: \" file";
            return "";
        }
        dir = line.substr(8);
        if (dir.empty() || dir[0] != '/') dir = top + "/" + dir;
    }
    if (!lexists(dir + "/HEAD")) {
        *error = dir + " is not a git folder (it has no HEAD)";
        return "";
    }
    return dir;
}

// The bytes of an object name in this repository: 20 (SHA-1), or 32 where
// the config says extensions.objectFormat = sha256 (a linked worktree's is
// its common folder's).
inline size_t hash_bytes(const std::string& gitdir) {
    std::vector<std::string> configs = {gitdir + "/config"};
    const std::string common = first_line(gitdir + "/commondir");
    if (!common.empty()) configs.push_back((common[0] == '/' ? common : gitdir + "/" + common) + "/config");
    for (const std::string& config : configs) {
        FILE* f = std::fopen(config.c_str(), "r");
        if (!f) continue;
        char line[4096];
        bool sha256 = false;
        while (std::fgets(line, sizeof line, f)) {
            std::string s;
            for (const char* c = line; *c; c++)
                if (!isspace((unsigned char)*c)) s += (char)tolower((unsigned char)*c);
            if (s == "objectformat=sha256") sha256 = true;
        }
        std::fclose(f);
        if (sha256) return 32;
    }
    return 20;
}

inline bool read_whole(const std::string& path, std::vector<unsigned char>* out, int* err) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) {
        *err = errno;
        return false;
    }
    unsigned char buffer[1 << 16];
    size_t got;
    while ((got = std::fread(buffer, 1, sizeof buffer, f)) > 0) out->insert(out->end(), buffer, buffer + got);
    const bool ok = !std::ferror(f);
    *err = errno;
    std::fclose(f);
    return ok;
}

// Whether the index file (git's "index", versions 2 to 4) lists `rel`, or a
// file below the folder `rel` (as `git ls-files -- rel` would). No index:
// nothing is tracked. A split index (its "link" extension) is read with its
// shared index. *error when the index cannot be read or is not one.
inline bool index_lists(const std::string& gitdir, const std::string& index_path, const std::string& rel,
                        std::string* error, int depth = 0) {
    std::vector<unsigned char> d;
    int err = 0;
    if (!read_whole(index_path, &d, &err)) {
        if (err == ENOENT && depth == 0) return false;
        *error = "cannot read " + index_path + ": " + std::strerror(err);
        return false;
    }
    auto be32 = [&](size_t at) { return (uint32_t)d[at] << 24 | (uint32_t)d[at + 1] << 16 | (uint32_t)d[at + 2] << 8 | d[at + 3]; };
    if (d.size() < 12 || std::memcmp(d.data(), "DIRC", 4) != 0 || be32(4) < 2 || be32(4) > 4) {
        *error = index_path + " is not a git index this program reads (versions 2 to 4)";
        return false;
    }
    const size_t hash = hash_bytes(gitdir), fixed = 40 + hash + 2;  // times, ids, mode, size, the object name, flags
    const uint32_t version = be32(4), count = be32(8);
    const std::string below = rel + "/";
    const std::string broken = index_path + " ends inside its entries: it is not a whole git index";
    size_t pos = 12;
    std::string previous;
    for (uint32_t e = 0; e < count; e++) {
        if (pos + fixed > d.size()) {
            *error = broken;
            return false;
        }
        const unsigned flags = (unsigned)d[pos + fixed - 2] << 8 | d[pos + fixed - 1];
        size_t at = pos + fixed + ((version >= 3 && (flags & 0x4000)) ? 2 : 0);
        uint64_t strip = 0;
        if (version == 4) {  // the name: how much of the previous one to drop (a varint), then the rest
            unsigned char c = at < d.size() ? d[at++] : 0;
            strip = c & 127;
            while ((c & 128) && at < d.size()) {
                c = d[at++];
                strip = ((strip + 1) << 7) | (c & 127);
            }
        }
        const size_t end = at >= d.size() ? d.size() : (size_t)(std::find(d.begin() + at, d.end(), 0) - d.begin());
        if (end >= d.size() || strip > previous.size()) {
            *error = broken;
            return false;
        }
        const std::string tail((const char*)d.data() + at, end - at);
        const std::string name = version == 4 ? previous.substr(0, previous.size() - strip) + tail : tail;
        // (versions 2 and 3 pad each entry with 1 to 8 NULs to a multiple of 8 bytes)
        pos = version == 4 ? end + 1 : pos + (((at - pos) + tail.size() + 8) & ~(size_t)7);
        // (a sparse index's folder entry, "dir/", lists no file by name: a file
        // under it is not in the working tree, and nothing of the user's is lost)
        if (name == rel || name.compare(0, below.size(), below) == 0) return true;
        previous = name;
    }
    // The extensions: a split index names its shared index ("link": the object name first).
    while (pos + 8 <= d.size() - hash) {
        const uint32_t size = be32(pos + 4);
        if (std::memcmp(d.data() + pos, "link", 4) == 0 && size >= hash && pos + 8 + hash <= d.size()) {
            if (depth > 0) {
                *error = index_path + " is a shared index that names another";
                return false;
            }
            static const char* hex = "0123456789abcdef";
            std::string name = "sharedindex.";
            for (size_t k = 0; k < hash; k++) {
                name += hex[d[pos + 8 + k] >> 4];
                name += hex[d[pos + 8 + k] & 15];
            }
            return index_lists(gitdir, gitdir + "/" + name, rel, error, depth + 1);
        }
        pos += 8 + (size_t)size;
    }
    return false;
}

// Whether git tracks the file at the real path `real`; *error when there is
// a checkout and its index cannot tell.
inline bool is_tracked(const std::string& real, std::string* error) {
    const std::string top = checkout_of(dirname_of(real));
    if (top.empty()) return false;
    const std::string gd = git_dir(top, error);
    if (gd.empty()) return false;
    const std::string rel = real.substr(top == "/" ? 1 : top.size() + 1);
    return index_lists(gd, gd + "/index", rel, error);
}

// ---- goldens, and a copy without git ------------------------------------------------------

// NN_name.txt or NN_name.replay.txt (a numbered listing's or trap's golden).
inline bool protected_name(const std::string& name) {
    size_t i = 0;
    while (i < name.size() && isdigit((unsigned char)name[i])) i++;
    return i > 0 && i < name.size() && name[i] == '_' && name.size() >= 4 &&
           name.compare(name.size() - 4, 4, ".txt") == 0;
}

inline bool project_untracked(const std::string& root) {
    const std::string anchor = real_path(root + "/common/write_policy.py");
    if (checkout_of(dirname_of(anchor)).empty()) return true;
    std::string error;
    const bool tracked = is_tracked(anchor, &error);
    return !error.empty() || !tracked;
}

// The root's folders that are the tools' own: the root .gitignore's "/name/" lines.
inline std::vector<std::string> tools_folders(const std::string& root) {
    std::vector<std::string> folders;
    if (FILE* f = std::fopen((root + "/.gitignore").c_str(), "r")) {
        char line[4096];
        while (std::fgets(line, sizeof line, f)) {
            std::string s = line;
            while (!s.empty() && isspace((unsigned char)s.back())) s.pop_back();
            while (!s.empty() && isspace((unsigned char)s.front())) s.erase(s.begin());
            if (s.size() > 2 && s.front() == '/' && s.back() == '/' && s.find('/', 1) == s.size() - 1)
                folders.push_back(s.substr(1, s.size() - 2));
        }
        std::fclose(f);
    }
    if (folders.empty()) folders = {"build", "build-*"};
    return folders;
}

// The root of the copy of this project that holds `real` (the nearest
// folder above it with common/write_policy.py and run_all.sh), or "".
inline std::string project_root_of(const std::string& real) {
    struct stat st;
    std::string d = dirname_of(real);
    for (;;) {
        const std::string base = d == "/" ? "" : d;
        if (stat((base + "/common/write_policy.py").c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
            stat((base + "/run_all.sh").c_str(), &st) == 0 && S_ISREG(st.st_mode))
            return d;
        const std::string parent = dirname_of(d);
        if (parent == d) return "";
        d = parent;
    }
}

// An existing file under the root of a copy of this project (the one this
// program was built from, or the one that holds `real`), outside its tools'
// folders, in a copy that git does not track.
inline bool existing_project_file(const std::string& real, const std::string& root_given) {
    if (!lexists(real)) return false;
    std::vector<std::string> roots;
    if (!root_given.empty()) roots.push_back(real_path(root_given));
    const std::string found = project_root_of(real);
    if (!found.empty()) roots.push_back(real_path(found));
    for (const std::string& top : roots) {
        if (real.compare(0, top.size() + 1, top + "/") != 0) continue;
        const std::string rel = real.substr(top.size() + 1);
        const size_t slash = rel.find('/');
        bool tools_own = false;
        if (slash != std::string::npos)
            for (const std::string& pattern : tools_folders(top))
                tools_own = tools_own || fnmatch(pattern.c_str(), rel.substr(0, slash).c_str(), 0) == 0;
        if (!tools_own && project_untracked(top)) return true;
    }
    return false;
}

inline std::string project_root() {
#ifdef CH12_PROJECT_ROOT
    return CH12_PROJECT_ROOT;
#else
    return "";
#endif
}

}  // namespace detail

// "" when `path` may be written (*target then says how), else why not.
inline std::string check(const std::string& path, Target* target = nullptr, const std::string& root = detail::project_root()) {
    using namespace detail;
    Target t;
    if (path.empty()) return "the output path is empty";
    if (path.back() == '/' || (path.size() >= 2 && path.compare(path.size() - 2, 2, "/.") == 0) ||
        (path.size() >= 3 && path.compare(path.size() - 3, 3, "/..") == 0))
        return "the output " + path + " names a folder, not a file";
    long pid = -1;
    int fd = -1;
    if (named_descriptor(path, &pid, &fd)) {
        if (pid != (long)getpid())
            return "the output " + path + " names a descriptor of another process (" + std::to_string(pid) +
                   "): give a file, or a descriptor of this program's (/dev/stdout, /dev/fd/N)";
        struct stat st;
        const int mode = fcntl(fd, F_GETFL);
        if (fstat(fd, &st) != 0 || mode < 0)
            return "the output " + path + " names descriptor " + std::to_string(fd) + ", which is not open";
        if ((mode & O_ACCMODE) == O_RDONLY)
            return "the output " + path + " names descriptor " + std::to_string(fd) + ", which is open for reading only";
        t.real = path;
        t.device = true;
        t.descriptor = fd;
        if (target) *target = t;
        return "";
    }
    struct stat st;
    bool exists = true;
    if (stat(path.c_str(), &st) != 0) {
        if (errno != ENOENT) return "cannot write the output " + path + ": " + std::strerror(errno);
        exists = false;
    }
    if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        t.real = path;
        t.device = true;
        if (target) *target = t;
        return "";
    }
    struct stat lst;
    if (!exists && lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode))
        return "the output " + path + " is a link to something that does not exist; give the file itself";
    const std::string real = real_path(path);
    const std::string shown = real == absolute(path) ? path : path + " (" + real + ")";
    if (exists && S_ISDIR(st.st_mode)) return "the output " + shown + " is a folder, not a file";
    if (exists && !S_ISREG(st.st_mode)) return "the output " + shown + " is not a regular file";
    const std::string folder = dirname_of(real);
    if (!is_dir(folder)) return "cannot write the output " + path + ": the folder " + folder + " does not exist";
    if (("/" + real + "/").find("/.git/") != std::string::npos)
        return "the output " + shown + " is inside a .git folder, which is git's own";
    if ((protected_name(basename_of(path)) || protected_name(basename_of(real))) && basename_of(folder) == "expected_output")
        return "the output " + shown + " is a golden named after a numbered listing or trap (NN_name.txt, "
               "NN_name.replay.txt): it holds the book's sample output or a trap's, which no program may change";
    std::string error;
    const bool tracked = is_tracked(real, &error);
    if (!error.empty())
        return "the output " + shown + " is in the git checkout " + checkout_of(folder) +
               ", and its index cannot tell whether git tracks it: " + error;
    if (tracked)
        return "the output " + shown + (exists ? "" : " (deleted from the working tree)") +
               " is a file tracked by git in the checkout " + checkout_of(folder) +
               ": no program overwrites it; give a path outside the checkout's files (e.g. under build/)";
    if (exists && existing_project_file(real, root))
        return "the output " + shown + " is a file of this project (" +
               (project_root_of(real).empty() ? real_path(root) : project_root_of(real)) +
               "), in a copy that git does not track (a download, or a folder another repository ignores), where "
               "no program replaces a file it did not make; give a path under build/ or outside the project";
    if (exists && access(path.c_str(), W_OK) != 0) return "no permission to write " + shown + " (" + std::strerror(errno) + ")";
    if (access(folder.c_str(), W_OK | X_OK) != 0)
        return "no permission to create files in the folder " + folder + " (" + std::strerror(errno) + ")";
    t.real = real;
    if (target) *target = t;
    return "";
}

}  // namespace write_rule
}  // namespace ch12
