#!/usr/bin/env bash
# run_all.sh -- run every program of Chapter 12 (Bitonic Sort) in book order,
# show what each one prints, check it against its golden output, and finish
# with a summary table. Made for a classroom: one command, no setup.
set -u

usage() {
  cat <<'EOF'
Usage: ./run_all.sh [--quiet] [--traps] [--no-build] [PROGRAM...]

Builds the companion when needed (the same CMake preset the tests use), then
runs the Chapter 12 programs in order -- 58 to 63, then the per-element pass
(extras) -- showing each program's output under a header with its book section, compares
each with its golden file in expected_output/, and ends with a summary table.

  PROGRAM     a program number (58 ... 63), 'per_element', or a program's file
              name; default: all
  --quiet     print only the summary table
  --traps     also run each COMMON TRAP (the programs' --trap) right after its
              program; a trap "passes" when it fails exactly as the book says
  --no-build  use the existing build and do not (re)build
  --help      this text

Without a usable GPU the CUDA programs are reported as SKIP with the reason;
that is not a failure. The exit status is 0 when nothing FAILed, 1 otherwise,
and 2 for a bad argument.

Environment: CH12_BUILD_DIR (default: build) -- where the preset builds.
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build_dir=${CH12_BUILD_DIR:-$here/build}
quiet=0
do_build=1
wanted=()

# number | executable | section | kind | what it shows
programs=(
  "58|58_bitonic_split_cpu_baseline|12.1|CPU|is_bitonic and one compare-exchange split"
  "59|59_bitonic_split_kernel|12.1|GPU|the split as a kernel, one thread per pair"
  "60|60_bitonic_merge_cpu_baseline|12.2|CPU|recursive bitonic merge"
  "61|61_bitonic_merge_multipass|12.2|GPU|multi-pass merge in one block, pass by pass"
  "62|62_bitonic_sort_cpu_baseline|12.3|CPU|recursive bitonic sort"
  "63|63_bitonic_sort_iterative|12.3|GPU|iterative double loop, one launch per (k, j)"
  "per_element|bitonic_per_element_pass|extra|GPU|one thread per element (direction bits)"
)
# number | trap golden, or "line:" and the MISMATCH line (a race has no golden) | what
traps=(
  "58|trap_adjacent_pairs|TRAP 12.1: adjacent pairs instead of (i, i+dist)"
  "59|trap_adjacent_pairs|TRAP 12.1 on the GPU: adjacent pairs"
  "61|trap_first_group_only|TRAP 12.2: tid < dist on every pass"
  "62|trap_no_pair_guard|TRAP 12.3, sequential: no if (l > i)"
  "63|line:self-check: iterative kernel result matches std::sort reference: MISMATCH|TRAP 12.3 on the GPU: no if (l > i) -- a data race"
)
with_traps=0

for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    -q|--quiet) quiet=1 ;;
    --no-build) do_build=0 ;;
    --traps) with_traps=1 ;;
    -*) echo "run_all.sh: unknown option '$arg'" >&2; usage >&2; exit 2 ;;
    *)
      found=0
      for p in "${programs[@]}"; do
        IFS='|' read -r num exe _ <<<"$p"
        if [ "$arg" = "$num" ] || [ "$arg" = "$exe" ]; then found=1; fi
      done
      if [ $found -eq 0 ]; then
        echo "run_all.sh: no program '$arg' (try 58 ... 63 or per_element)" >&2; usage >&2; exit 2
      fi
      wanted+=("$arg") ;;
  esac
done

if [ -t 1 ]; then
  bold=$'\e[1m'; green=$'\e[32m'; red=$'\e[31m'; yellow=$'\e[33m'; reset=$'\e[0m'
else
  bold=''; green=''; red=''; yellow=''; reset=''
fi

need() {  # need <command> <what to install>
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "run_all.sh: '$1' was not found. Please install $2." >&2
    exit 1
  fi
}
need python3 "Python 3 (https://www.python.org, or your package manager's python3)"

if [ $do_build -eq 1 ]; then
  need cmake "CMake 3.25 or newer (https://cmake.org, or 'apt-get install cmake')"
  if ! command -v c++ >/dev/null 2>&1 && ! command -v g++ >/dev/null 2>&1 && ! command -v clang++ >/dev/null 2>&1; then
    echo "run_all.sh: no C++ compiler was found. Please install a C++17 compiler (e.g. 'apt-get install g++')." >&2
    exit 1
  fi
  if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    echo "run_all.sh: note: no CUDA compiler (nvcc) found -- the GPU programs will be SKIPped." \
         "Install the CUDA toolkit to build them." >&2
  fi
  log=$(mktemp)
  [ $quiet -eq 1 ] || echo "${bold}Building (cmake --preset default)...${reset}"
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    (cd "$here" && cmake --preset default) >"$log" 2>&1 || { cat "$log" >&2; echo "run_all.sh: configure failed" >&2; rm -f "$log"; exit 1; }
  fi
  (cd "$here" && cmake --build --preset default) >>"$log" 2>&1 || { cat "$log" >&2; echo "run_all.sh: build failed" >&2; rm -f "$log"; exit 1; }
  rm -f "$log"
fi

find_exe() {  # the executable for a stem, wherever the generator put it
  local stem=$1 f
  for f in "$build_dir/$stem" "$build_dir/Release/$stem" "$build_dir/$stem.exe" "$build_dir/Release/$stem.exe"; do
    [ -x "$f" ] && { echo "$f"; return 0; }
  done
  return 1
}

rows=()
failed=0

# run_one <label> <exe> <section> <kind> <what> <trap golden or ""> : runs one
# program (or one of its traps), shows it, checks it, and adds a summary row.
run_one() {
  local label=$1 exe=$2 section=$3 kind=$4 what=$5 trap=$6
  local path out rc status reason start end secs check
  if [ $quiet -eq 0 ]; then
    echo
    echo "${bold}==== $label  Section $section ($kind): $what ====${reset}"
  fi
  start=$(date +%s.%N)
  path=$(find_exe "$exe")
  if [ -z "$path" ]; then
    if [ "$kind" = GPU ]; then status=SKIP; reason="not built (no CUDA compiler)"; else status=FAIL; reason="not built"; fi
    out="$exe: $reason"
  else
    if [ -z "$trap" ]; then
      check=(--golden "$here/expected_output/$exe.txt" -- "$path")
    elif [ "${trap#line:}" != "$trap" ]; then
      check=(--expect-exit 1 --expect-line "${trap#line:}" -- "$path" --trap)
    else
      check=(--expect-exit 1 --golden "$here/expected_output/$exe.$trap.txt" -- "$path" --trap)
    fi
    out=$(python3 "$here/common/compare_output.py" --show "${check[@]}" 2>&1)
    rc=$?
    case $rc in
      0)  status=PASS; reason="" ;;
      77) status=SKIP; reason=$(printf '%s\n' "$out" | sed -n 's/^SKIPPED: //p' | tail -n 1 | sed 's/^[^:]*: skipped: //') ;;
      *)  status=FAIL; reason="differs from golden or exited unexpectedly" ;;
    esac
    if [ "$status" = PASS ] && [ -n "$trap" ]; then reason="failed as the book says (MISMATCH, exit 1)"; fi
  fi
  end=$(date +%s.%N)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  [ $quiet -eq 1 ] || printf '%s\n' "$out"
  [ "$status" = FAIL ] && failed=1
  rows+=("$label|$section|$kind|$status|$reason|$secs")
}

for p in "${programs[@]}"; do
  IFS='|' read -r num exe section kind what <<<"$p"
  if [ ${#wanted[@]} -gt 0 ]; then
    match=0
    for w in "${wanted[@]}"; do { [ "$w" = "$num" ] || [ "$w" = "$exe" ]; } && match=1; done
    [ $match -eq 1 ] || continue
  fi
  run_one "$num" "$exe" "$section" "$kind" "$what" ""
  if [ $with_traps -eq 1 ]; then
    for t in "${traps[@]}"; do
      IFS='|' read -r tnum tgolden twhat <<<"$t"
      [ "$tnum" = "$num" ] && run_one "$num --trap" "$exe" "$section" "$kind" "$twhat" "$tgolden"
    done
  fi
done

echo
echo "${bold}Summary${reset}"
printf '%-12s %-8s %-4s %-6s %8s  %s\n' "program" "section" "kind" "result" "time(s)" "note"
for r in "${rows[@]}"; do
  IFS='|' read -r num section kind status reason secs <<<"$r"
  case $status in PASS) c=$green ;; FAIL) c=$red ;; *) c=$yellow ;; esac
  printf '%-12s %-8s %-4s %s%-6s%s %8s  %s\n' "$num" "$section" "$kind" "$c" "$status" "$reset" "$secs" "$reason"
done
exit $failed
