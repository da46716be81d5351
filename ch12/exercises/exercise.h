// ch12/exercises/exercise.h -- what every exercise's check prints, the same way.
//
// A check runs the student's code on inputs with known answers and prints,
// for each part, one line: "check K, <what>: ok" or "check K, <what>: NOT YET
// -- <what is wrong, and where to look>". It ends with one verdict line:
//
//   exercise N: PASS -- <what now works>              (exit status 0)
//   exercise N: NOT YET -- F of C checks failed       (exit status 1)
//
// GPU exercises that have a --replay print the replay's two label lines
// around everything else, as the lessons do.
#pragma once

#include <cstdio>
#include <string>

namespace exercise {

class Report {
  public:
    Report(int number, const char* title, bool replay) : number_(number), replay_(replay) {
        if (replay_) printf("[--replay: a CPU replay -- a host loop plays the kernel's threads; no GPU was used]\n");
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

    // The verdict line (and the replay's closing line). Returns the exit status.
    int verdict(const char* what_works) {
        printf("\n");
        if (failed_ == 0) printf("exercise %d: PASS -- %s\n", number_, what_works);
        else printf("exercise %d: NOT YET -- %d of %d checks failed\n", number_, failed_, checks_);
        if (replay_) printf("[--replay: the checks above judged the host loop's result, on the CPU; no kernel ran]\n");
        return failed_ == 0 ? 0 : 1;
    }

  private:
    int number_;
    bool replay_;
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

}  // namespace exercise
