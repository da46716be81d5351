#!/usr/bin/env bash
# The tree evaluators' measurements on a GPU machine, in one go:
#   bash ch12/extras/tree/gpu_experiments.sh BIN_DIR [STEP...]
# BIN_DIR holds tree_bitonic_cpu, tree_bitonic_gpu and tree_seed_grow_work
# (built for that GPU). Everything goes to $OUT (or ./tree-logs): tree.txt
# (every run's output) and tree_table.txt (the table, also printed at the end).
# Steps (default: check time):
#   check   each variant against the C++ reference at depths 1-14 (checksums, nodes)
#   time    depth 20 (REPEATS runs each, default 5) and 21 (one run) for every variant
#   deep    depths 22 and 23 for the programs in DEEP (default: the C++
#           reference, SEED/GROW/WORK at one block per SM and at 128, the classic
#           kernel and the default)
#   table   depths 16, 18, 20, 21 for JavaScript (node), C++ and the evaluators
#           (REPEATS runs at depth 20 and below, one at 21)
#   ncu     ncu on the default evaluator at depth 20 (stall reasons, traffic)
# VARIANTS (one per line, "name|program|args") overrides the list below.
# Every run's checksum and node counts are checked against the known values
# (depths 16-23) and every run must exit 0: exit 1 if any did not, 2 on a bad
# command line (REPEATS a whole number >= 1; an $OUT it can write, holding no
# file that git tracks where it writes: common/write_policy.py). Failures are
# counted here, in the shell, never in a file; two runs sharing $OUT take
# turns (a lock in $OUT), so their logs and timings do not mix.
set -uo pipefail
usage="usage: gpu_experiments.sh BIN_DIR [check|time|deep|table|ncu]..."
bad() { echo "gpu_experiments.sh: $*" >&2; echo "$usage" >&2; exit 2; }
[ $# -ge 1 ] && [ -d "$1" ] || bad "${1:+no folder '$1': }give the folder of the built programs"
bin=$(cd "$1" && pwd)
shift
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(check time)
for step in "${steps[@]}"; do
  case $step in check|time|deep|table|ncu) ;; *) bad "unknown step '$step'" ;; esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
common=$(cd "$here/../../../common" && pwd)
repeats=${REPEATS:-5}
[[ "$repeats" =~ ^[1-9][0-9]{0,5}$ ]] || bad "REPEATS wants a whole number from 1 to 999999, not '$repeats'"
out=${OUT:-$PWD/tree-logs}
[ -n "$out" ] || bad "OUT is empty: give a folder"
mkdir -p "$out" 2>/dev/null && [ -d "$out" ] || bad "cannot make the folder OUT=$out"
log=$out/tree.txt
python3 "$common/write_policy.py" check "$log" "$out/tree_table.txt" "$out/ncu_tree.csv" "$out/ncu_tree.err" \
  "$out/.gpu_experiments.lock" || bad "OUT=$out: see above"
exec 9>>"$out/.gpu_experiments.lock" || bad "cannot write in OUT=$out"
if ! flock -n 9; then
  echo "gpu_experiments.sh: another gpu_experiments.sh is using $out: waiting for it (its timings would mix with ours)" >&2
  flock 9
fi
: >>"$log" || bad "cannot write $log"
failures=0

variants=${VARIANTS:-"default (fast kernel: joins overlapped, warp stores, tasks auto)|tree_bitonic_gpu|
classic kernel (registers, cutoff 4, one block per SM, narrow waves)|tree_bitonic_gpu|--kernel classic
classic, two blocks per SM|tree_bitonic_gpu|--kernel classic --blocks-per-sm 2
classic, no narrow waves|tree_bitonic_gpu|--kernel classic --narrow 0
classic, cutoff 3|tree_bitonic_gpu|--kernel classic --cutoff 3
SEED/GROW/WORK, one block per SM|tree_seed_grow_work|
SEED/GROW/WORK, 128 blocks|tree_seed_grow_work|--blocks 128"}
# The programs the deep step runs at depths 22 and 23 (one per line; the C++
# reference takes about a minute there).
deep=${DEEP:-"tree_bitonic_cpu
tree_seed_grow_work
tree_seed_grow_work --blocks 128
tree_bitonic_gpu --kernel classic
tree_bitonic_gpu"}

# The known answers: checksum and the nodes line, by depth.
declare -A want=(
  [16]="checksum: 2130739200|nodes: gen 65535, sort 15925245, total 15990780"
  [18]="checksum: 4227989504|nodes: gen 262143, sort 81002493, total 81264636"
  [20]="checksum: 4027056128|nodes: gen 1048575, sort 401604605, total 402653180"
  [21]="checksum: 3759144960|nodes: gen 2097151, sort 887095293, total 889192444"
  [22]="checksum: 3223322624|nodes: gen 4194303, sort 1950351357, total 1954545660"
  [23]="checksum: 2151677952|nodes: gen 8388607, sort 4269801469, total 4278190076")

# run DEPTH PROGRAM [ARGS...]: one run, its output appended to the log; prints
# the sort time (ms) on stdout, or the word FAILED for a failed run or a wrong
# answer (it runs in a subshell: tally, in this shell, counts them).
run() {
  local d=$1 text rc got
  shift
  text=$("$@" --depth "$d" 2>&1 </dev/null)
  rc=$?
  printf '%s\n' "$text" >>"$log"
  got="$(grep -m1 '^checksum:' <<<"$text")|$(grep -m1 '^nodes:' <<<"$text")"
  if [ $rc -ne 0 ] || [ "$got" != "${want[$d]}" ]; then
    echo "FAILED: $* --depth $d: exit $rc, '$got'" | tee -a "$log" >&2
    echo FAILED
    return
  fi
  sed -n 's/^time (ms): gen [0-9.]*, sort \([0-9.]*\),.*/\1/p' <<<"$text"
}
median() { sort -g | awk '{a[NR]=$1} END {if (NR) printf "%.2f (%.2f-%.2f)", a[int((NR+1)/2)], a[1], a[NR]; else printf "n/a"}'; }
# tally TEXT: adds the FAILED lines of runs' output to failures (in this shell)
# and sets result to the median of the times.
tally() {
  local failed
  failed=$(grep -c '^FAILED$' <<<"$1")
  failures=$((failures + failed))
  result=$(grep -v '^FAILED$' <<<"$1" | grep . | median)
}
table=()

for step in "${steps[@]}"; do
  case $step in
    check)
      while IFS='|' read -r name prog args; do
        [ -n "$name" ] || continue
        # shellcheck disable=SC2086
        r=$(python3 "$here/compare_tree_runs.py" --reference "$bin/tree_bitonic_cpu" --depths 1-14 \
              ${args:+--variant=$(echo $args | tr ' ' ',')} -- "$bin/$prog" 2>&1) || failures=$((failures + 1))
        echo "$r" >>"$log"
        table+=("check  $(echo "$r" | tail -1)  $name")
      done <<<"$variants" ;;
    time)
      while IFS='|' read -r name prog args; do
        [ -n "$name" ] || continue
        # shellcheck disable=SC2086
        tally "$(for i in $(seq "$repeats"); do run 20 "$bin/$prog" $args; done)"
        t20=$result
        # shellcheck disable=SC2086
        tally "$(run 21 "$bin/$prog" $args)"
        t21=$result
        table+=("time   depth 20: $t20 ms   depth 21: $t21 ms   $name")
      done <<<"$variants" ;;
    deep)
      for d in 22 23; do
        while read -r prog args; do
          [ -n "$prog" ] || continue
          # shellcheck disable=SC2086
          tally "$(run $d "$bin/$prog" $args)"
          t=$result
          table+=("deep   depth $d: $t ms  $prog${args:+ $args}")
        done <<<"$deep"
      done ;;
    table)
      for d in 16 18 20 21; do
        reps=1; [ "$d" -le 20 ] && reps=$repeats
        for which in js cpu sgw sgw128 classic default; do
          case $which in
            js)      cmd=(node "$here/bitonic.js") ;;
            cpu)     cmd=("$bin/tree_bitonic_cpu") ;;
            sgw)     cmd=("$bin/tree_seed_grow_work") ;;
            sgw128)  cmd=("$bin/tree_seed_grow_work" --blocks 128) ;;
            classic) cmd=("$bin/tree_bitonic_gpu" --kernel classic) ;;
            default) cmd=("$bin/tree_bitonic_gpu") ;;
          esac
          tally "$(for i in $(seq $reps); do run $d "${cmd[@]}"; done)"
          t=$result
          table+=("table  depth $d: $t ms  $(basename "${cmd[0]}")${cmd[1]:+ ${cmd[*]:1}}")
        done
      done ;;
    ncu)
      ncu --clock-control none --kernel-name regex:'evaluate|seed_grow_work' --csv --page raw \
          --section WarpStateStats --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
          --metrics l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum,lts__t_bytes.sum,dram__bytes.sum,gpu__time_duration.sum \
          "$bin/tree_bitonic_gpu" --depth 20 >"$out/ncu_tree.csv" 2>"$out/ncu_tree.err"
      r=$?
      [ $r -eq 0 ] || failures=$((failures + 1))
      table+=("ncu    exit $r ($(wc -l <"$out/ncu_tree.csv") lines in ncu_tree.csv)") ;;
  esac
done
table+=("failed runs: $failures")
printf '%s\n' "${table[@]}" | tee "$out/tree_table.txt"
[ "$failures" -eq 0 ]
