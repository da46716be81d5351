// common/check.h -- the one check of the companion's C++ unit tests (and of
// the sort library's error paths): it counts what held, prints what did not
// ("FAIL: <what>", the first `print_at_most` of them), and says at the end
// whether everything held.
//
//   ch12::Checks check(40);
//   check(got == want, "what was checked, with the values that make it findable");
//   ...
//   std::printf("%d checks passed, %d failed\n", check.passed(), check.failed());
//   return check.ok() ? 0 : 1;
//
// Plain C++17, header-only.
#pragma once

#include <cstdio>
#include <string>
#include <utility>

namespace ch12 {

class Checks {
  public:
    explicit Checks(int print_at_most = 20, std::string prefix = "") : print_at_most_(print_at_most), prefix_(std::move(prefix)) {}

    // Counts one check; prints it when it failed (standard output, flushed).
    // Returns `ok`.
    bool operator()(bool ok, const std::string& what) {
        if (ok) {
            passed_++;
            return true;
        }
        if (++failed_ <= print_at_most_) {
            std::printf("FAIL: %s%s\n", prefix_.c_str(), what.c_str());
            std::fflush(stdout);
        }
        return false;
    }

    int passed() const { return passed_; }
    int failed() const { return failed_; }
    bool ok() const { return failed_ == 0; }

  private:
    int print_at_most_;
    std::string prefix_;
    int passed_ = 0, failed_ = 0;
};

}  // namespace ch12
