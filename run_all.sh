#!/usr/bin/env bash
# run_all.sh -- run the programs of Chapter 12 (Bitonic Sort) in book order,
# show what each one prints, check it against its golden output, and finish
# with a summary table. Made for a classroom: one command, no setup.
set -u

usage() {
  cat <<'EOF'
Usage: ./run_all.sh [--quiet] [--traps] [--no-build] [PROGRAM...]

Configures the build if needed, then builds and runs the Chapter 12 programs
one by one -- 58 to 63, then the extras (the chapter's claims checked, the
per-element pass, the GLSL shader) -- each under a header with its book
section, checks each against its golden file in expected_output/, and ends
with a summary table. Only what it runs is built.

  PROGRAM     a program number (58 ... 63), an extra's id (claims,
              per_element, glsl) or a program's name; default: all
  --quiet     print only the summary table
  --traps     also run each COMMON TRAP right after its program; a trap
              passes when it fails exactly as the book says (MISMATCH, exit 1)
  --no-build  use the existing build: build and configure nothing
  --help      this text

Each GPU program's row says PASS, FAIL or SKIP; SKIP means no usable GPU here,
or CUDA not configured in this build (the row says how to fix it). A program
with the book's CPU replay (59, 61, 63) gets a second row, "(replay)", run
with --replay on the CPU: it shows the book's own output on any machine, and
never counts as a GPU pass. A program that this build should have made and
did not is a FAIL. Exit status: 0 when nothing FAILed, 1 otherwise, 2 for a
bad argument.

Environment: CH12_BUILD_DIR -- the build folder to configure, build and run
(default: build/ next to this script; a relative path is taken from the
current folder).
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build_dir=${CH12_BUILD_DIR:-$here/build}
case $build_dir in /*) ;; *) build_dir=$PWD/$build_dir ;; esac
quiet=0
do_build=1
with_traps=0
wanted=()

for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    -q|--quiet) quiet=1 ;;
    --no-build) do_build=0 ;;
    --traps) with_traps=1 ;;
    -*) echo "run_all.sh: unknown option '$arg'" >&2; usage >&2; exit 2 ;;
    *) wanted+=("$arg") ;;
  esac
done

if [ -t 1 ]; then
  bold=$'\e[1m'; green=$'\e[32m'; red=$'\e[31m'; yellow=$'\e[33m'; reset=$'\e[0m'
else
  bold=''; green=''; red=''; yellow=''; reset=''
fi
say() { [ $quiet -eq 1 ] || printf '%s\n' "$*"; }

need() {  # need <command> <what to install>
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "run_all.sh: '$1' was not found. Please install $2." >&2
    exit 1
  fi
}
need python3 "Python 3 (https://www.python.org, or your package manager's python3)"

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# ---- configure (the preset's settings, in $build_dir) --------------------------
if [ $do_build -eq 1 ]; then
  need cmake "CMake 3.25 or newer (https://cmake.org, or 'apt-get install cmake')"
  if ! command -v c++ >/dev/null 2>&1 && ! command -v g++ >/dev/null 2>&1 && ! command -v clang++ >/dev/null 2>&1; then
    echo "run_all.sh: no C++ compiler was found. Please install a C++17 compiler (e.g. 'apt-get install g++')." >&2
    exit 1
  fi
  if [ ! -f "$build_dir/CMakeCache.txt" ] || [ ! -f "$build_dir/ch12_programs.tsv" ]; then
    say "${bold}Configuring (cmake --preset default -B $build_dir)...${reset}"
    if ! (cd "$here" && cmake --preset default -B "$build_dir") >"$log" 2>&1; then
      cat "$log" >&2; echo "run_all.sh: configure failed" >&2; exit 1
    fi
  fi
fi

table=$build_dir/ch12_programs.tsv
if [ ! -f "$table" ]; then
  echo "run_all.sh: no build in $build_dir (no ch12_programs.tsv there): run without --no-build," \
       "or point CH12_BUILD_DIR at a configured build" >&2
  exit 1
fi
cuda_reason=$(awk -F'\t' '$1 == "cuda" && $2 == "OFF" { print $3 }' "$build_dir/ch12_build.tsv" 2>/dev/null)
vulkan_reason=$(awk -F'\t' '$1 == "vulkan" && $2 == "OFF" { print $3 }' "$build_dir/ch12_build.tsv" 2>/dev/null)

# ---- the table: id, name, kind, section, what, path, golden, replay, trap_of,
# ---- expect_exit, expect_line, args (one program per line, in book order)
ids=(); names=(); kinds=(); sections=(); whats=(); paths=(); goldens=(); replays=(); trap_ofs=(); exits=(); lines=(); argss=()
while IFS=$'\t' read -r id name kind section what path golden replay trap_of expect_exit line args; do
  case $id in '#'*|'') continue ;; esac
  ids+=("$id"); names+=("$name"); kinds+=("$kind"); sections+=("$section"); whats+=("$what"); paths+=("$path")
  goldens+=("$golden"); replays+=("$replay"); trap_ofs+=("$trap_of"); exits+=("$expect_exit"); lines+=("$line"); argss+=("$args")
done <"$table"

for w in "${wanted[@]}"; do
  found=0
  for i in "${!ids[@]}"; do
    if [ "$w" = "${ids[$i]}" ] || [ "$w" = "${names[$i]}" ]; then found=1; fi
  done
  if [ $found -eq 0 ]; then
    echo "run_all.sh: no program '$w' (try 58 ... 63, claims, per_element, glsl, or a program's name)" >&2
    usage >&2
    exit 2
  fi
done

rows=()
failed=0

# run_one <row label> <index> <mode: run|replay> : builds (if asked), runs and
# checks one program, and adds a summary row.
run_one() {
  local label=$1 i=$2 mode=$3
  local name=${names[$i]} kind=${kinds[$i]} path=${paths[$i]} status reason out rc start secs
  local shown_kind=$kind
  [ "$mode" = replay ] && shown_kind=CPU
  say ""
  say "${bold}==== $label  Section ${sections[$i]} ($shown_kind): ${whats[$i]} ====${reset}"
  start=$(date +%s.%N)
  if [ "$path" = "-" ]; then
    status=SKIP
    if [ "$kind" = VULKAN ]; then reason=$vulkan_reason; else reason=$cuda_reason; fi
    [ -n "$reason" ] || reason="not configured in this build"
    out="$name: $reason"
  else
    if [ $do_build -eq 1 ] && ! (cd "$here" && cmake --build "$build_dir" --target "$name") >"$log" 2>&1; then
      cat "$log"
      status=FAIL; reason="did not build (the compiler's messages are above)"; out=""
    elif [ ! -x "$path" ]; then
      status=FAIL; reason="not built: $path is missing (build it, or drop --no-build)"; out=""
    else
      local check=()
      if [ "$mode" = replay ]; then
        check=(--golden "$here/expected_output/${replays[$i]}" --expect-exit "${exits[$i]}" -- "$path" --replay)
      else
        [ "${goldens[$i]}" != "-" ] && check+=(--golden "$here/expected_output/${goldens[$i]}")
        [ "${lines[$i]}" != "-" ] && check+=("--expect-line=${lines[$i]}")
        [ "$kind" = VULKAN ] && check+=("--mask-line-prefix=device: ")
        check+=(--expect-exit "${exits[$i]}" -- "$path")
        if [ "${argss[$i]}" != "-" ]; then read -r -a extra <<<"${argss[$i]}"; check+=("${extra[@]}"); fi
      fi
      out=$(python3 "$here/common/compare_output.py" --timeout 600 --show "${check[@]}" 2>&1)
      rc=$?
      case $rc in
        0)  status=PASS; reason="" ;;
        77) status=SKIP; reason=$(printf '%s\n' "$out" | sed -n 's/^SKIPPED: //p' | tail -n 1 | sed 's/^[^:]*: skipped: //') ;;
        *)  status=FAIL; reason="differs from its golden or exited unexpectedly (see above)" ;;
      esac
      if [ "$status" = PASS ] && [ "${trap_ofs[$i]}" != "-" ]; then reason="failed as the book says (MISMATCH, exit 1)"; fi
      if [ "$mode" = replay ] && [ "$status" = PASS ]; then reason="the book's CPU replay; no GPU used"; fi
    fi
  fi
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  [ -z "$out" ] || say "$out"
  [ "$status" = FAIL ] && failed=1
  rows+=("$label|${sections[$i]}|$shown_kind|$status|$reason|$secs")
}

named() {  # named <index>: asked for by id or name on the command line
  local i=$1 w
  for w in "${wanted[@]}"; do
    { [ "$w" = "${ids[$i]}" ] || [ "$w" = "${names[$i]}" ]; } && return 0
  done
  return 1
}

for i in "${!ids[@]}"; do
  [ "${trap_ofs[$i]}" = "-" ] || continue
  lesson_selected=0
  if [ ${#wanted[@]} -eq 0 ] || named "$i"; then
    lesson_selected=1
    run_one "${ids[$i]}" "$i" run
    [ "${replays[$i]}" = "-" ] || run_one "${ids[$i]} (replay)" "$i" replay
  fi
  for t in "${!ids[@]}"; do  # its traps: with --traps, or when named
    [ "${trap_ofs[$t]}" = "${ids[$i]}" ] || continue
    if { [ $with_traps -eq 1 ] && [ $lesson_selected -eq 1 ]; } || named "$t"; then
      run_one "${ids[$t]}" "$t" run
      [ "${replays[$t]}" = "-" ] || run_one "${ids[$t]} (replay)" "$t" replay
    fi
  done
done

echo
echo "${bold}Summary${reset}"
printf '%-20s %-8s %-6s %-6s %8s  %s\n' "program" "section" "kind" "result" "time(s)" "note"
for r in "${rows[@]}"; do
  IFS='|' read -r label section kind status reason secs <<<"$r"
  case $status in PASS) c=$green ;; FAIL) c=$red ;; *) c=$yellow ;; esac
  printf '%-20s %-8s %-6s %s%-6s%s %8s  %s\n' "$label" "$section" "$kind" "$c" "$status" "$reset" "$secs" "$reason"
done
exit $failed
