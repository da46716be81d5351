#!/usr/bin/env bash
# tree_bitonic_gpu's fast kernel (tree_fast.cuh), every design of it measured
# against the kernel it came from, in one go on a GPU machine, from the
# repository root:
#   [STEPS="build time trace probe tests ncu"] bash ch12/extras/tree/fast_experiments.sh
# The steps, in this order (STEPS: which of them; default all):
#   build   the default preset, configured in build/, the tree targets only (JOBS, default 16)
#   time    every design (DESIGNS: "name|arguments" a line) at depths 20 and 23, REPEATS
#           runs each (default 5), the designs taking turns; every run must exit 0 and
#           print the known checksum and node counts and "every reserved heap node
#           written: yes"; the median and range of the sort times
#   trace   each design once at depth 20 with --trace-waves (where the time goes)
#   probe   tree_memory_probe: dependent-load latency and copy bandwidth, and from
#           them the floor at depth 20
#   tests   ctest -R tree (JOBS), but for the sanitizer runs of the kernels whose code did
#           not change (SEED / GROW / WORK, and tree_bitonic_gpu's classic kernel: it
#           gained one unused field); after the timings, so that a slow test cannot
#           keep them from coming back
#   ncu     ncu --clock-control none at depth 20 on the design fastest there (the first
#           without the time step), and on the first design (the kernel as it was)
# Files in $OUT (default ./tree-fast-logs): build.log, ctest.log, runs.log (every run, the
# traces too), probe.txt, ncu.csv (the fastest), ncu_default.csv, ncu.err, table.txt (the
# table, also printed at the end). Exit 0 when the
# build, the tests and every run passed, 1 otherwise. Failures are counted here, in
# this shell.
set -uo pipefail
[ $# -eq 0 ] || { echo "usage: bash ch12/extras/tree/fast_experiments.sh (no arguments; see the comment at its top)" >&2; exit 2; }
[ -f ch12/extras/tree/tree_fast.cuh ] || { echo "fast_experiments.sh: run it from the repository root" >&2; exit 2; }
repeats=${REPEATS:-5}
case $repeats in ''|*[!0-9]*|0) echo "fast_experiments.sh: REPEATS wants a whole number from 1, not '$repeats'" >&2; exit 2 ;; esac
jobs=${JOBS:-16}
steps=${STEPS:-build time trace probe tests ncu}
for step in $steps; do
  case $step in build|time|trace|probe|tests|ncu) ;;
    *) echo "fast_experiments.sh: unknown step '$step' in STEPS (build time trace probe tests ncu)" >&2; exit 2 ;; esac
done
has() { [[ " $steps " == *" $1 "* ]]; }
out=${OUT:-$PWD/tree-fast-logs}
mkdir -p "$out"
bin=$PWD/build
failures=0
table=()
say() { table+=("$*"); printf '%s\n' "$*" >>"$out/table.txt"; }
: >"$out/table.txt"
: >"$out/runs.log"

designs=${DESIGNS:-"default (the kernel as it was)|
joins overlapped|--joins overlapped
joins + levels 3|--joins overlapped --levels 3
joins + warp stores|--joins overlapped --stores warp
joins + two tasks|--joins overlapped --tasks 2
joins + levels 3 + warp stores|--joins overlapped --levels 3 --stores warp
joins + levels 3 + two tasks|--joins overlapped --levels 3 --tasks 2
all four|--joins overlapped --levels 3 --stores warp --tasks 2"}
names=()
args=()
while IFS='|' read -r name a; do
  [ -n "$name" ] || continue
  names+=("$name")
  args+=("$a")
done <<<"$designs"

declare -A want=(
  [20]="checksum: 4027056128|nodes: gen 1048575, sort 401604605, total 402653180"
  [23]="checksum: 2151677952|nodes: gen 8388607, sort 4269801469, total 4278190076")

best=0
best_ms=""

# build
if has build; then
start=$(date +%s)
{ cmake --preset default && cmake --build build -j "$jobs" --target tree_bitonic_gpu tree_seed_grow_work \
    tree_bitonic_cpu tree_memory_probe test_tree_calls test_tree_waves test_tree_waves_fast; } >"$out/build.log" 2>&1
r=$?
[ $r -eq 0 ] || failures=$((failures + 1))
say "build: exit $r in $(( $(date +%s) - start )) s; $(grep -m1 'CUDA programs:' "$out/build.log" | sed 's/^-- //')"
[ $r -eq 0 ] || { printf '%s\n' "${table[@]}"; exit 1; }
fi

# time: one run of design $1 at depth $2; sets ms ("" when the run failed)
ms=""
run() {
  local i=$1 d=$2 text rc got
  # shellcheck disable=SC2086
  text=$("$bin/tree_bitonic_gpu" ${args[$i]} --depth "$d" 2>&1)
  rc=$?
  { echo "== ${names[$i]}: tree_bitonic_gpu ${args[$i]} --depth $d: exit $rc"; printf '%s\n' "$text"; } >>"$out/runs.log"
  got="$(grep -m1 '^checksum:' <<<"$text")|$(grep -m1 '^nodes:' <<<"$text")"
  if [ $rc -ne 0 ] || [ "$got" != "${want[$d]}" ] || ! grep -qx 'every reserved heap node written: yes' <<<"$text"; then
    echo "FAILED: ${names[$i]} at depth $d: exit $rc, '$got'" >>"$out/runs.log"
    failures=$((failures + 1))
    ms=""
    return
  fi
  ms=$(sed -n 's/^time (ms): gen [0-9.]*, sort \([0-9.]*\),.*/\1/p' <<<"$text")
}
median() { sort -g | awk '{a[NR]=$1} END {if (NR) printf "%.2f (%.2f-%.2f)", a[int((NR+1)/2)], a[1], a[NR]; else printf "n/a"}'; }
declare -A times
if has time; then
for d in 20 23; do
  for ((r = 0; r < repeats; r++)); do
    for i in "${!names[@]}"; do
      run "$i" "$d"
      [ -z "$ms" ] || times[$i,$d]+="$ms "
    done
  done
done
say "sort ms, median of $repeats (range), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $(date -u +%Y-%m-%d):"
for i in "${!names[@]}"; do
  m20=$(tr ' ' '\n' <<<"${times[$i,20]:-}" | grep . | median)
  m23=$(tr ' ' '\n' <<<"${times[$i,23]:-}" | grep . | median)
  say "$(printf '  %-34s depth 20: %-24s depth 23: %s' "${names[$i]}" "$m20" "$m23")"
  med=${m20%% *}
  if [ "$med" != "n/a" ] && { [ -z "$best_ms" ] || awk -v a="$med" -v b="$best_ms" 'BEGIN {exit !(a < b)}'; }; then
    best=$i
    best_ms=$med
  fi
done
fi

# trace
has trace && for i in "${!names[@]}"; do
  # shellcheck disable=SC2086
  text=$("$bin/tree_bitonic_gpu" ${args[$i]} --depth 20 --trace-waves 2>&1)
  r=$?
  [ $r -eq 0 ] || failures=$((failures + 1))
  { echo "== trace, ${names[$i]}: exit $r"; printf '%s\n' "$text"; } >>"$out/runs.log"
  say "  trace, ${names[$i]}: $(grep -m1 '^runtime:' <<<"$text" | sed 's/^runtime: [0-9]* tasks in //; s/ (widest.*//'):$(grep -m1 '^waves by width:' <<<"$text" | sed 's/^waves by width://; s/ waves, / x, /g; s/;$//')"
done

# probe, and the floor at depth 20: the critical path of sort(20) -- 3,541 calls
# and joins that wait on each other -- times the latency of a dependent DRAM load;
# and the heap's 401,604,605 nodes written once and read once (16 bytes each) at
# the copy bandwidth
if has probe; then
"$bin/tree_memory_probe" >"$out/probe.txt" 2>&1
r=$?
[ $r -eq 0 ] || failures=$((failures + 1))
l2=$(sed -n 's/^dependent 16-byte load, one thread, .*(L2 holds it): \([0-9.]*\) ns/\1/p' "$out/probe.txt")
dram=$(sed -n 's/^dependent 16-byte load, one thread, .*(DRAM): \([0-9.]*\) ns/\1/p' "$out/probe.txt")
bw=$(sed -n 's/^device-to-device copy of .*: \([0-9.]*\) GB\/s.*/\1/p' "$out/probe.txt")
say "probe: exit $r; dependent load ${l2:-?} ns (L2), ${dram:-?} ns (DRAM); copy ${bw:-?} GB/s"
if [ -n "$dram" ] && [ -n "$bw" ]; then
  say "$(awk -v l2="$l2" -v dram="$dram" -v bw="$bw" 'BEGIN {
    printf "floor at depth 20: 3541 x %s ns = %.2f ms (3541 x %s ns in L2: %.2f ms); 12.85 GB / %s GB/s = %.2f ms",
      dram, 3541 * dram / 1e6, l2, 3541 * l2 / 1e6, bw, 12.85e3 / bw }')"
fi
fi

# tests
if has tests; then
start=$(date +%s)
ctest --test-dir build -R tree -E 'sanitize_.*_(tree_seed_grow_work.*|tree_bitonic_gpu|tree_bitonic_gpu_narrow0|tree_bitonic_gpu_cutoff1)$' \
      -j "$jobs" --output-on-failure >"$out/ctest.log" 2>&1
r=$?
[ $r -eq 0 ] || failures=$((failures + 1))
say "ctest -R tree: exit $r in $(( $(date +%s) - start )) s: $(grep -E 'tests passed|tests failed' "$out/ctest.log" | tail -1)"
while read -r line; do say "  $line"; done < <(grep -E '\(Failed\)|\(Timeout\)|\(Skipped\)|Not Run' "$out/ctest.log" | head -12)
fi

# ncu at depth 20: the fastest design, and the kernel it came from (the first design)
ncu_summary() {
  python3 - "$1" 2>&1 <<'EOF'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1], errors="replace")) if len(r) > 10]
top = [i for i, r in enumerate(rows) if "gpu__time_duration.sum" in r]
if not top or top[0] + 2 >= len(rows):
    print("(no kernel row)")
    sys.exit(0)
head, data = rows[top[0]], rows[top[0] + 2]  # names, units, the kernel's row
def get(name):
    try:
        return float(data[head.index(name)].replace(",", ""))
    except (ValueError, IndexError):
        return float("nan")
stall = {h: get(h) for h in head
         if h.startswith("smsp__average_warps_issue_stalled_") and h.endswith("_per_issue_active.ratio")}
total = sum(v for v in stall.values() if v == v) or float("nan")
def share(key):
    v = sum(x for h, x in stall.items() if ("_" + key + "_") in h and x == x)
    return 100 * v / total
print("kernel %.2f ms, %.0f registers, stalls: long scoreboard %.0f%%, barrier %.0f%%, lg throttle %.0f%%; at L1: loads %.1f GB, "
      "stores %.1f GB, local %.2f GB; L2 %.1f GB (%.0f%% hits); DRAM %.1f GB (%.0f%% of peak)" % (
      get("gpu__time_duration.sum") / 1e6, get("launch__registers_per_thread"), share("long_scoreboard"), share("barrier"),
      share("lg_throttle"),
      get("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum") / 1e9, get("l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum") / 1e9,
      (get("l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum") + get("l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum")) / 1e9,
      get("lts__t_bytes.sum") / 1e9, get("lts__t_sector_hit_rate.pct"), get("dram__bytes.sum") / 1e9,
      get("dram__throughput.avg.pct_of_peak_sustained_elapsed")))
EOF
}
which=("$best")
[ "$best" -eq 0 ] || which+=(0)
has ncu && for i in "${which[@]}"; do
  file=ncu.csv
  [ "$i" -ne 0 ] || [ "$best" -eq 0 ] || file=ncu_default.csv
  # shellcheck disable=SC2086
  ncu --clock-control none --kernel-name regex:'evaluate' --csv --page raw --print-units base \
      --section WarpStateStats --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
      --metrics l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum,lts__t_bytes.sum,dram__bytes.sum,gpu__time_duration.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed \
      "$bin/tree_bitonic_gpu" ${args[$i]} --depth 20 >"$out/$file" 2>>"$out/ncu.err"
  r=$?
  [ $r -eq 0 ] || failures=$((failures + 1))
  say "ncu, ${names[$i]}, depth 20 ($file): exit $r"
  say "  $(ncu_summary "$out/$file")"
done

say "failed: $failures"
printf '%s\n' "${table[@]}"
[ "$failures" -eq 0 ]
