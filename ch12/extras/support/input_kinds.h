// ch12/extras/support/input_kinds.h -- the one list of input kinds: the
// names that --input takes in every sort program of the companion (the sort
// library's runner and tests, the GLSL host, the multi-GPU sort), in the
// order their usage texts list them. Each program makes keys of these kinds
// in its own way -- uint32 keys of a key type (ch12/extras/sort/sort_cases.h), floats
// (ch12/extras/glsl), keys made on the GPU from their index
// (ch12/extras/multi_gpu) -- with the meaning given here. The web page's
// list is checked against this table by its tests.
//
// The table: one kind per line, X(enumerator, "name", "what it is").
#pragma once

#define CH12_INPUT_KINDS(X)                                                                                    \
    X(uniform, "uniform", "random keys: random bits (floats of every class, NaNs and denormals included)")      \
    X(sorted, "sorted", "in ascending order already")                                                           \
    X(reverse, "reverse", "in descending order")                                                                \
    X(equal, "equal", "one key, n times")                                                                       \
    X(few_unique, "few-unique", "a few distinct keys (8; the multi-GPU sort: 16), shuffled")                     \
    X(special, "special", "the keys every sort must get right (floats: +-0, +-inf, NaNs, denormals, extremes), shuffled")

namespace ch12 {

enum class Input : int {
#define CH12_INPUT_ENUMERATOR(id, name, what) id,
    CH12_INPUT_KINDS(CH12_INPUT_ENUMERATOR)
#undef CH12_INPUT_ENUMERATOR
};

// The names, in the table's order, null-terminated (as ch12::CommandLine::choice() takes them).
constexpr const char* kInputNames[] = {
#define CH12_INPUT_NAME(id, name, what) name,
    CH12_INPUT_KINDS(CH12_INPUT_NAME)
#undef CH12_INPUT_NAME
    nullptr};
constexpr int kInputCount = (int)(sizeof kInputNames / sizeof kInputNames[0]) - 1;

inline const char* input_name(Input i) { return (int)i >= 0 && (int)i < kInputCount ? kInputNames[(int)i] : "?"; }

}  // namespace ch12
