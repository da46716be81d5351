// common/test_write_rule.cpp -- write_rule_check: asks common/write_rule.h,
// the C++ programs' write rule, about each PATH and prints its verdict, one
// line each: "ok PATH" or "refused PATH: why". Opens nothing for writing.
// common/test_write_rule.py asks common/write_policy.py the same, case for
// case, and fails where the two differ (CTest write_rule_agrees).
#include <cstdio>
#include <string>

#include "cli.h"
#include "write_rule.h"

int main(int argc, char** argv) {
    ch12::CommandLine cl(argc, argv, "[--root DIR] PATH...",
                         "  Prints, for each PATH, whether the C++ programs' write rule (common/write_rule.h)\n"
                         "  lets a program write it: \"ok PATH\", or \"refused PATH: why\".\n"
                         "  --root DIR  the project's root for the copy-without-git rule (default: this\n"
                         "              build's source folder)\n");
    cl.option("--root").positionals(1 << 20);
    cl.parse();
    if (cl.positional_args().empty()) cl.fail("no PATH given");
    const std::string root = cl.has("--root") ? cl.value("--root") : ch12::write_rule::detail::project_root();
    for (const char* path : cl.positional_args()) {
        const std::string why = ch12::write_rule::check(path, nullptr, root);
        if (why.empty()) std::printf("ok %s\n", path);
        else std::printf("refused %s: %s\n", path, why.c_str());
    }
    return 0;
}
