// common/cli.h -- the one command-line convention of the Chapter 12 companion.
//
// Every program, lesson or extra, behaves the same way:
//   --help               usage on stdout, exit 0
//   a bad command line   "<program>: <what is wrong>" and the usage on stderr,
//                        nothing on stdout, exit 2 -- decided before any GPU
//                        is looked for
//   the program's name   taken from argv[0]
//   numbers              whole decimal numbers (or 2^K where a size is meant);
//                        a sign, a space, trailing junk or an overflow is an error
//   an option twice      an error, never "the last one wins"
//   standard output      checked at exit: if it could not be written (a full
//                        disk, /dev/full), the program says so and exits 1
//
// Plain C++17 and header-only: the lessons' own one-line compile commands
// (g++ ... X.cpp, nvcc ... X.cu, run from ch12/) keep working.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace ch12 {

// argv[0] without its folders.
inline const char* program_name(const char* argv0) {
    if (argv0 == nullptr || *argv0 == '\0') return "program";
    const char* slash = std::strrchr(argv0, '/');
    return slash ? slash + 1 : argv0;
}

namespace detail {
inline const char*& stdout_owner() {
    static const char* name = "program";
    return name;
}
inline void check_stdout_at_exit() {
    const bool failed = (std::fflush(stdout) != 0) || std::ferror(stdout);
    if (failed) {
        std::fprintf(stderr, "%s: error: standard output could not be written (%s)\n", stdout_owner(),
                     errno ? std::strerror(errno) : "write error");
        std::_Exit(1);
    }
}
}  // namespace detail

// Makes the program exit with status 1 when its standard output could not be
// written. Call once, first thing in main (CommandLine and lesson_args do).
inline void check_stdout_at_exit(const char* program) {
    static bool registered = false;
    detail::stdout_owner() = program;
    if (!registered) {
        std::atexit(detail::check_stdout_at_exit);
        registered = true;
    }
}

// A whole number in [lo, hi]: decimal digits only, or 2^K when allow_power is
// set (a size). Returns false on anything else: empty, a sign, a space,
// trailing junk, an overflow, or a value outside the range.
inline bool parse_number(const char* s, uint64_t lo, uint64_t hi, uint64_t* out, bool allow_power = false) {
    if (s == nullptr || *s == '\0') return false;
    uint64_t v = 0;
    if (allow_power && s[0] == '2' && s[1] == '^') {
        uint64_t e = 0;
        if (!parse_number(s + 2, 0, 63, &e)) return false;
        v = uint64_t(1) << e;
    } else {
        for (const char* p = s; *p; ++p) {
            if (*p < '0' || *p > '9') return false;
            const uint64_t digit = (uint64_t)(*p - '0');
            if (v > (UINT64_MAX - digit) / 10) return false;  // overflow
            v = v * 10 + digit;
        }
    }
    if (v < lo || v > hi) return false;
    *out = v;
    return true;
}

// A benchmark's list of sizes: "A-B" (2^A .. 2^B, 1 <= A <= B <= max_exponent)
// or a comma list whose items are exponents (at most max_exponent: 2^item)
// or key counts (above it, at most max_count). False on anything else.
inline bool parse_sizes(const std::string& spec, uint64_t max_exponent, uint64_t max_count,
                        std::vector<uint64_t>* out) {
    out->clear();
    const size_t dash = spec.find('-');
    if (dash != std::string::npos && spec.find(',') == std::string::npos) {
        uint64_t a = 0, b = 0;
        if (!parse_number(spec.substr(0, dash).c_str(), 1, max_exponent, &a) ||
            !parse_number(spec.substr(dash + 1).c_str(), 1, max_exponent, &b) || a > b)
            return false;
        for (uint64_t e = a; e <= b; e++) out->push_back(uint64_t(1) << e);
        return true;
    }
    size_t pos = 0;
    for (;;) {
        const size_t comma = spec.find(',', pos);
        uint64_t v = 0;
        if (!parse_number(spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos).c_str(), 1,
                          max_count, &v))
            return false;
        out->push_back(v <= max_exponent ? uint64_t(1) << v : v);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return !out->empty();
}

// The command line of one program. Declare the options, then parse():
//
//   ch12::CommandLine cl(argc, argv, "--n N [--seed S]", "  --n N  how many keys\n ...");
//   cl.option("--n").option("--seed").flag("--quiet");
//   cl.parse();
//   uint64_t n = cl.number("--n", 0, 1 << 20, 1000);
//
// parse() handles --help, unknown options, missing values and repeats;
// number() and choice() turn a value into what the program needs, and exit 2
// with a message naming the option when they cannot.
class CommandLine {
  public:
    CommandLine(int argc, char** argv, std::string synopsis, std::string details = "")
        : argc_(argc), argv_(argv), name_(program_name(argc > 0 ? argv[0] : nullptr)),
          synopsis_(std::move(synopsis)), details_(std::move(details)) {
        check_stdout_at_exit(name_);
    }

    CommandLine& flag(const char* name) { options_.push_back({name, false}); return *this; }
    CommandLine& option(const char* name) { options_.push_back({name, true}); return *this; }
    // Allow up to `max` arguments that are not options (e.g. the depth in "prog 20").
    CommandLine& positionals(int max) { max_positionals_ = max; return *this; }

    const char* name() const { return name_; }

    void print_usage(FILE* f) const {
        std::fprintf(f, "usage: %s%s%s\n%s", name_, synopsis_.empty() ? "" : " ", synopsis_.c_str(), details_.c_str());
        if (!details_.empty() && details_.back() != '\n') std::fputc('\n', f);
    }

    // A bad command line: the problem and the usage on stderr, exit 2.
    [[noreturn]] void fail(const std::string& problem) const {
        std::fprintf(stderr, "%s: %s\n", name_, problem.c_str());
        print_usage(stderr);
        std::exit(2);
    }

    void parse() {
        for (int a = 1; a < argc_; ++a) {
            if (std::strcmp(argv_[a], "--help") == 0 || std::strcmp(argv_[a], "-h") == 0) {
                print_usage(stdout);
                std::exit(0);
            }
        }
        for (int a = 1; a < argc_; ++a) {
            const char* arg = argv_[a];
            if (arg[0] == '-' && arg[1] != '\0' && !(arg[1] >= '0' && arg[1] <= '9')) {
                Option* o = find(arg);
                if (o == nullptr) fail(std::string("unknown option '") + arg + "'");
                if (o->seen) fail(std::string("option '") + arg + "' was given twice");
                o->seen = true;
                if (o->takes_value) {
                    if (a + 1 >= argc_) fail(std::string("option '") + arg + "' needs a value");
                    o->value = argv_[++a];
                }
            } else {
                if ((int)positionals_.size() >= max_positionals_)
                    fail(std::string("unexpected argument '") + arg + "'");
                positionals_.push_back(arg);
            }
        }
    }

    bool has(const char* name) const { const Option* o = find(name); return o && o->seen; }
    const char* value(const char* name) const { const Option* o = find(name); return o && o->seen ? o->value : nullptr; }
    const std::vector<const char*>& positional_args() const { return positionals_; }

    // The option's value as a whole number in [lo, hi]; `fallback` when absent.
    uint64_t number(const char* name, uint64_t lo, uint64_t hi, uint64_t fallback, bool allow_power = false) const {
        const char* v = value(name);
        if (v == nullptr) return fallback;
        return to_number(v, name, lo, hi, allow_power);
    }

    uint64_t to_number(const char* text, const char* what, uint64_t lo, uint64_t hi, bool allow_power = false) const {
        uint64_t out = 0;
        if (!parse_number(text, lo, hi, &out, allow_power)) {
            fail(std::string(what) + " wants a whole number from " + std::to_string(lo) + " to " +
                 std::to_string(hi) + (allow_power ? " (or 2^K)" : "") + ", not '" + text + "'");
        }
        return out;
    }

    // The index of the option's value in `choices` (a null-terminated list);
    // `fallback` when absent.
    int choice(const char* name, const char* const* choices, int fallback) const {
        const char* v = value(name);
        if (v == nullptr) return fallback;
        std::string all;
        for (int i = 0; choices[i]; ++i) {
            if (std::strcmp(v, choices[i]) == 0) return i;
            all += (i ? ", " : "") + std::string(choices[i]);
        }
        fail(std::string(name) + " wants one of " + all + ", not '" + v + "'");
    }

  private:
    struct Option {
        const char* name;
        bool takes_value;
        bool seen = false;
        const char* value = nullptr;
    };
    Option* find(const char* name) {
        for (auto& o : options_) if (std::strcmp(o.name, name) == 0) return &o;
        return nullptr;
    }
    const Option* find(const char* name) const {
        for (auto& o : options_) if (std::strcmp(o.name, name) == 0) return &o;
        return nullptr;
    }

    int argc_;
    char** argv_;
    const char* name_;
    std::string synopsis_, details_;
    std::vector<Option> options_;
    std::vector<const char*> positionals_;
    int max_positionals_ = 0;
};

// The lessons' whole command line: --help, and --replay where the lesson has
// the book's CPU replay. Returns true when --replay was given.
inline bool lesson_args(int argc, char** argv, const char* what_it_shows, bool has_replay = false) {
    std::string details = std::string("  ") + what_it_shows + "\n";
    if (has_replay)
        details += "  --replay   run the book's host replay of the kernel's threads on the CPU\n"
                   "             (no GPU needed; the first line of output says so)\n";
    CommandLine cl(argc, argv, has_replay ? "[--replay]" : "", details);
    if (has_replay) cl.flag("--replay");
    cl.parse();
    return cl.has("--replay");
}

}  // namespace ch12
