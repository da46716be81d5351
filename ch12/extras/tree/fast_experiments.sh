#!/usr/bin/env bash
# tree_bitonic_gpu's designs (its fast kernel, tree_fast.cuh, with its options,
# and the classic kernel it came from) measured against each other, in one go
# on a GPU machine, from the repository root:
#   [STEPS="build time trace probe tests"] bash ch12/extras/tree/fast_experiments.sh
# The steps, in this order (STEPS: which of them; default all but ncu):
#   build   the default preset, configured in BUILD_DIR (default build-tree: not build/, which
#           another build may be using at the same time), the tree targets only (JOBS,
#           default 16); without this step, BUILD_DIR must hold them built
#   time    every design (DESIGNS: "name|arguments" a line; the first is the default, the
#           design BASELINE names -- default "classic kernel (as it was)" -- the one the
#           ratios are over) at each depth of DEPTHS (default "20 22 23"), REPEATS rounds
#           (default 5), a round being every design once at every depth; every run must
#           exit 0 and print the known checksum and node counts and "every reserved heap
#           node written: yes"; the median and range of the sort times, and each median
#           over the baseline's.
#           No round starts after TIME_S seconds (default 75) if the last round's length
#           would take it past them: the medians then say of how many runs they are
#   trace   --trace-waves, once each, for the designs named in TRACE (default the default
#           and the default with static dealing) at the depths of TRACE_DEPTHS (default
#           "20 23"): the
#           time in waves by width and by call (in registers, splits)
#   probe   tree_memory_probe: dependent-load latency (in L2, in 4 GB of DRAM, and in
#           PROBE_BIG_MB, default 65536: a footprint like depth 23's, for the TLB's share)
#           and copy bandwidth, and from them the floor at depth 20
#   tests   ctest (JOBS) of tree_bitonic_gpu's tests (TESTS, a regex; default all of them:
#           its agreement, sanitizer, depth-20 and command-line tests), those of the
#           default first (TESTS_FIRST: its sanitizer runs, its agreement at depths
#           1-14, 16, 18 and 20, dynamic dealing's), all under a limit of TESTS_S
#           seconds (default 55); after the timings, so that a slow test cannot keep
#           them from coming back
#   ncu     (only when STEPS names it) ncu --clock-control none at depth 20 on the first
#           design (the default) and on the baseline
# Files in $OUT (default ./tree-fast-logs): build.log, ctest.log, runs.log (every run, with
# its wall time, the traces too), probe.txt, probe_big.txt, ncu.csv, ncu_baseline.csv,
# ncu.err, table.txt (the table, also printed at the end; each step's seconds). Exit 0
# when the build, the tests and every run passed, 1 otherwise; 2 on a bad command line
# (an argument; a number that is not a whole number in its range, without leading
# zeros; an OUT it cannot write, or holding files git tracks where it writes:
# common/write_policy.py). Failures are counted here, in this shell, never read back
# from a file. Two runs sharing OUT take turns (a lock in OUT), so that their logs and
# timings do not mix. It deletes nothing.
set -uo pipefail
[ $# -eq 0 ] || { echo "usage: bash ch12/extras/tree/fast_experiments.sh (no arguments; see the comment at its top)" >&2; exit 2; }
[ -f ch12/extras/tree/tree_fast.cuh ] || { echo "fast_experiments.sh: run it from the repository root" >&2; exit 2; }
whole() {  # whole() NAME VALUE LOWEST: a whole number from LOWEST (to 999999999, no leading zero), or exit 2
  [[ "$2" =~ ^[1-9][0-9]{0,8}$ ]] && [ "$2" -ge "$3" ] ||
    { echo "fast_experiments.sh: $1 wants a whole number from $3 to 999999999, not '$2'" >&2; exit 2; }
}
repeats=${REPEATS:-5}; whole REPEATS "$repeats" 1
jobs=${JOBS:-16}; whole JOBS "$jobs" 1
time_s=${TIME_S:-75}; whole TIME_S "$time_s" 1
tests_s=${TESTS_S:-55}; whole TESTS_S "$tests_s" 1
probe_big=${PROBE_BIG_MB:-65536}; whole PROBE_BIG_MB "$probe_big" 64
steps=${STEPS:-build time trace probe tests}
for step in $steps; do
  case $step in build|time|trace|probe|tests|ncu) ;;
    *) echo "fast_experiments.sh: unknown step '$step' in STEPS (build time trace probe tests ncu)" >&2; exit 2 ;; esac
done
depths=${DEPTHS:-20 22 23}
trace_depths=${TRACE_DEPTHS:-20 23}
declare -A want=(
  [20]="checksum: 4027056128|nodes: gen 1048575, sort 401604605, total 402653180"
  [21]="checksum: 3759144960|nodes: gen 2097151, sort 887095293, total 889192444"
  [22]="checksum: 3223322624|nodes: gen 4194303, sort 1950351357, total 1954545660"
  [23]="checksum: 2151677952|nodes: gen 8388607, sort 4269801469, total 4278190076")
for d in $depths $trace_depths; do
  [ -n "${want[$d]:-}" ] || { echo "fast_experiments.sh: depth '$d' in DEPTHS or TRACE_DEPTHS: its checksum is known here for 20 to 23 only" >&2; exit 2; }
done
has() { [[ " $steps " == *" $1 "* ]]; }
out=${OUT-$PWD/tree-fast-logs}
[ -n "$out" ] || { echo "fast_experiments.sh: OUT is empty: give a folder" >&2; exit 2; }
mkdir -p "$out" 2>/dev/null && [ -d "$out" ] || { echo "fast_experiments.sh: cannot make the folder OUT=$out" >&2; exit 2; }
python3 common/write_policy.py check "$out"/{build.log,ctest.log,ctest_first.log,ctest_rest.log,runs.log,probe.txt} \
  "$out"/{probe_big.txt,ncu.csv,ncu_baseline.csv,ncu.err,table.txt,.fast_experiments.lock} ||
  { echo "fast_experiments.sh: OUT=$out: see above" >&2; exit 2; }
exec 9>>"$out/.fast_experiments.lock" || { echo "fast_experiments.sh: cannot write in OUT=$out" >&2; exit 2; }
if ! flock -n 9; then
  echo "fast_experiments.sh: another fast_experiments.sh is using $out: waiting for it (its timings would mix with ours)" >&2
  flock 9
fi
build_dir=${BUILD_DIR:-build-tree}
case $build_dir in /*) bin=$build_dir ;; *) bin=$PWD/$build_dir ;; esac
failures=0
table=()
say() { table+=("$*"); printf '%s\n' "$*" >>"$out/table.txt"; }
: >"$out/table.txt" && : >"$out/runs.log" || { echo "fast_experiments.sh: cannot write in OUT=$out" >&2; exit 2; }

# The designs: the default (joins overlapped, warp stores, tasks auto, dynamic
# dealing) first, round 2's default (static dealing), the classic kernel (the
# baseline), and the options around the default that rounds 1 and 2
# (2026-12-01) measured with static dealing (NOTES.md).
designs=${DESIGNS:-"default (dynamic dealing)|
default, static dealing (round 2's)|--deal static
classic kernel (as it was)|--kernel classic
default, tasks 1|--tasks 1
default, two tasks always|--tasks 2
default + levels 3, two tasks always|--levels 3 --tasks 2"}
names=()
args=()
while IFS='|' read -r name a; do
  [ -n "$name" ] || continue
  names+=("$name")
  args+=("$a")
done <<<"$designs"
[ ${#names[@]} -gt 0 ] || { echo "fast_experiments.sh: DESIGNS names no design" >&2; exit 2; }
baseline_name=${BASELINE:-"classic kernel (as it was)"}
base_i=""
for i in "${!names[@]}"; do [ "${names[$i]}" != "$baseline_name" ] || base_i=$i; done
[ -n "$base_i" ] || { echo "fast_experiments.sh: BASELINE '$baseline_name' is not one of the designs' names" >&2; exit 2; }
trace=${TRACE:-"default (dynamic dealing)|default, static dealing (round 2's)"}

# build
if has build; then
start=$(date +%s)
{ cmake --preset default -B "$build_dir" && cmake --build "$build_dir" -j "$jobs" --target tree_bitonic_gpu tree_seed_grow_work \
    tree_bitonic_cpu tree_memory_probe test_tree_calls test_tree_waves test_tree_waves_fast; } >"$out/build.log" 2>&1
r=$?
[ $r -eq 0 ] || failures=$((failures + 1))
say "build: exit $r in $(( $(date +%s) - start )) s; $(grep -m1 'CUDA programs:' "$out/build.log" | sed 's/^-- //')"
[ $r -eq 0 ] || { printf '%s\n' "${table[@]}"; exit 1; }
fi

# time: one run of design $1 at depth $2; sets ms ("" when the run failed)
ms=""
run() {
  local i=$1 d=$2 text rc got t0
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  text=$("$bin/tree_bitonic_gpu" ${args[$i]} --depth "$d" 2>&1)
  rc=$?
  { echo "== ${names[$i]}: tree_bitonic_gpu ${args[$i]} --depth $d: exit $rc, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') s"
    printf '%s\n' "$text"; } >>"$out/runs.log"
  got="$(grep -m1 '^checksum:' <<<"$text")|$(grep -m1 '^nodes:' <<<"$text")"
  if [ $rc -ne 0 ] || [ "$got" != "${want[$d]}" ] || ! grep -qx 'every reserved heap node written: yes' <<<"$text"; then
    echo "FAILED: ${names[$i]} at depth $d: exit $rc, '$got'" >>"$out/runs.log"
    failures=$((failures + 1))
    ms=""
    return
  fi
  ms=$(sed -n 's/^time (ms): gen [0-9.]*, sort \([0-9.]*\),.*/\1/p' <<<"$text")
}
median() { sort -g | awk '{a[NR]=$1} END {if (NR) printf "%.2f (%.2f-%.2f)", NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2, a[1], a[NR]; else printf "n/a"}'; }
declare -A times
if has time; then
start=$SECONDS
rounds=0
for ((r = 0; r < repeats; r++)); do
  round_start=$SECONDS
  for d in $depths; do
    for i in "${!names[@]}"; do
      run "$i" "$d"
      [ -z "$ms" ] || times[$i,$d]+="$ms "
    done
  done
  rounds=$((rounds + 1))
  # no round that would end past TIME_S, judged by the one just run
  [ $(( SECONDS - start + SECONDS - round_start )) -le "$time_s" ] || break
done
say "sort ms, median of $rounds (range), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $(date -u +%Y-%m-%d), in $(( SECONDS - start )) s; [x: over the median of ${names[$base_i]}]"
for i in "${!names[@]}"; do
  row=$(printf '  %-42s' "${names[$i]}")
  for d in $depths; do
    m=$(tr ' ' '\n' <<<"${times[$i,$d]:-}" | grep . | median)
    base=$(tr ' ' '\n' <<<"${times[$base_i,$d]:-}" | grep . | median)
    ratio=$(awk -v a="${m%% *}" -v b="${base%% *}" 'BEGIN {if (a + 0 > 0 && b + 0 > 0) printf "[%.3fx]", a / b; else printf "[-]"}')
    row+=$(printf ' d%s: %-24s %-9s' "$d" "$m" "$ratio")
  done
  say "$row"
done
fi

# trace: the designs named in TRACE ("|" between names), at TRACE_DEPTHS
if has trace; then
start=$SECONDS
for i in "${!names[@]}"; do
  [[ "|$trace|" == *"|${names[$i]}|"* ]] || continue
  for d in $trace_depths; do
    # shellcheck disable=SC2086
    text=$("$bin/tree_bitonic_gpu" ${args[$i]} --depth "$d" --trace-waves 2>&1)
    r=$?
    [ $r -eq 0 ] || failures=$((failures + 1))
    { echo "== trace, ${names[$i]}, depth $d: exit $r"; printf '%s\n' "$text"; } >>"$out/runs.log"
    say "  trace, ${names[$i]}, depth $d: $(grep -m1 '^time (ms)' <<<"$text" | sed 's/^time (ms): gen [0-9.]*, //; s/, checksum.*//') ms; $(grep -m1 '^runtime:' <<<"$text" | sed 's/^runtime: [0-9]* tasks in //; s/ (widest.*//'):$(grep -m1 '^waves by width:' <<<"$text" | sed 's/^waves by width://; s/ waves, / x, /g; s/;$//')"
    say "    $(grep -m1 '^waves by call:' <<<"$text")"
  done
done
say "  (trace: $(( SECONDS - start )) s)"
fi

# probe, and the floor at depth 20: the critical path of sort(20) -- 3,541 calls
# and joins that wait on each other -- times the latency of a dependent DRAM load;
# and the heap's 401,604,605 nodes written once and read once (16 bytes each) at
# the copy bandwidth. The same at depths 22 and 23 (4,599 and 5,199 steps; 62.41
# and 136.63 GB: NOTES.md). Then the latency over PROBE_BIG_MB (depth 23's heap is
# 68 GB).
if has probe; then
start=$SECONDS
"$bin/tree_memory_probe" >"$out/probe.txt" 2>&1
r=$?
[ $r -eq 0 ] || failures=$((failures + 1))
l2=$(sed -n 's/^dependent 16-byte load, one thread, .*(L2 holds it): \([0-9.]*\) ns/\1/p' "$out/probe.txt")
dram=$(sed -n 's/^dependent 16-byte load, one thread, .*(DRAM): \([0-9.]*\) ns/\1/p' "$out/probe.txt")
bw=$(sed -n 's/^device-to-device copy of .*: \([0-9.]*\) GB\/s.*/\1/p' "$out/probe.txt")
say "probe: exit $r; dependent load ${l2:-?} ns (L2), ${dram:-?} ns (DRAM, 4 GB); copy ${bw:-?} GB/s"
if [ -n "$dram" ] && [ -n "$bw" ]; then
  say "$(awk -v l2="$l2" -v dram="$dram" -v bw="$bw" 'BEGIN {
    printf "floor at depth 20: 3541 x %s ns = %.2f ms (3541 x %s ns in L2: %.2f ms); 12.85 GB / %s GB/s = %.2f ms",
      dram, 3541 * dram / 1e6, l2, 3541 * l2 / 1e6, bw, 12.85e3 / bw }')"
  say "$(awk -v dram="$dram" -v bw="$bw" 'BEGIN {
    printf "floor at depth 22: 4599 x %s ns = %.2f ms; 62.41 GB = %.2f ms; depth 23: 5199 x %s ns = %.2f ms; 136.63 GB = %.2f ms",
      dram, 4599 * dram / 1e6, 62.41e3 / bw, dram, 5199 * dram / 1e6, 136.63e3 / bw }')"
fi
"$bin/tree_memory_probe" --dram-mb "$probe_big" >"$out/probe_big.txt" 2>&1
r=$?
[ $r -eq 0 ] || [ $r -eq 77 ] || failures=$((failures + 1))
big=$(sed -n 's/^dependent 16-byte load, one thread, .*(DRAM): \([0-9.]*\) ns/\1/p' "$out/probe_big.txt")
say "probe, $probe_big MB: exit $r; dependent load ${big:-?} ns (DRAM); $(( SECONDS - start )) s for both"
fi

# tests
if has tests; then
start=$SECONDS
tests=${TESTS:-'^(run_tree_bitonic_gpu|sanitize_.*_tree_bitonic_gpu.*|tree_gpu_.*|tree_bitonic_gpu_.*|usage_tree_bitonic_gpu_.*)$'}
first=${TESTS_FIRST:-'^(sanitize_.*_tree_bitonic_gpu(|_fast_dynamic)|tree_gpu_agrees|tree_gpu_fast_agrees_dealing|tree_bitonic_gpu_depth20)$'}
: >"$out/ctest.log"
for phase in first rest; do
  left=$(( tests_s - (SECONDS - start) ))
  [ "$left" -gt 0 ] || { say "ctest, $phase: not started (the limit of $tests_s s was reached)"; failures=$((failures + 1)); continue; }
  if [ $phase = first ]; then sel=(-R "$first"); else sel=(-R "$tests" -E "$first"); fi
  echo "==== ctest ${sel[*]}" >>"$out/ctest.log"
  timeout -k 10 "$left" ctest --test-dir "$build_dir" "${sel[@]}" -j "$jobs" --output-on-failure >"$out/ctest_$phase.log" 2>&1
  r=$?
  cat "$out/ctest_$phase.log" >>"$out/ctest.log"
  [ $r -eq 0 ] || failures=$((failures + 1))
  say "ctest, $phase (${sel[*]}): exit $r at $(( SECONDS - start )) s of $tests_s: $(grep -E 'tests passed|tests failed' "$out/ctest_$phase.log" | tail -1)"
  while read -r line; do say "  $line"; done < <(grep -E '\(Failed\)|\(Timeout\)|\(Skipped\)|Not Run' "$out/ctest_$phase.log" | head -12)
  [ $r -ne 124 ] || say "  (stopped at the limit: the tests that had finished are in ctest_$phase.log)"
done
fi

# ncu at depth 20: the first design (the default), and the baseline
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
which=(0)
[ "$base_i" -eq 0 ] || which+=("$base_i")
has ncu && for i in "${which[@]}"; do
  file=ncu.csv
  [ "$i" -eq 0 ] || file=ncu_baseline.csv
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
